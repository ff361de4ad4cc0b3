/**
 * kill -9 during every kind of write: the files stay readable, holding the last good state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

function start(args: string[], env: Record<string, string>, input?: string): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.stdin?.end(input ?? '');
  return child;
}

/** Start many, kill each -9 at a different moment of its life. */
async function killAtRandomMoments(make: (i: number) => ChildProcess, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const child = make(i);
    const exited = new Promise((r) => child.on('exit', r));
    // from before the first write to after the last: spread over a command's lifetime
    await new Promise((r) => setTimeout(r, 20 + ((i * 37) % 180)));
    child.kill('SIGKILL');
    await exited;
  }
}

describe('kill -9 during writes', () => {
  it('config: the file always parses and holds a value some run wrote whole', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const fees = Array.from({ length: 12 }, (_, i) => `${i + 1}.00%`);
    // the last good state before the kills
    expect((await runBin(['config', 'set', 'split-fee', '50'], env)).code).toBe(0);
    await killAtRandomMoments((i) => start(['config', 'set', 'split-fee', fees[i]!], env), fees.length);
    const file = path.join(env.LBRL_CONFIG_DIR, 'config.json');
    const config = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(['50.00%', ...fees]).toContain(config.profiles.default['split-fee']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // a lock left by a killed process does not block the next one
    const t = Date.now();
    const after = await runBin(['config', 'set', 'network', 'liquid'], env);
    expect(after.code).toBe(0);
    // a lock still held would be waited on for 15 s; anything well under that is a takeover,
    // with room for a loaded machine
    expect(Date.now() - t).toBeLessThan(12_000);
    expect((await runBin(['config', 'get', 'network'], env)).stdout).toBe('liquid\n');
    // what killed writers left half done is cleared by the next writer: only the config remains
    expect(fs.readdirSync(env.LBRL_CONFIG_DIR)).toEqual(['config.json']);
  }, 60_000);

  it('token: auth login killed at any moment leaves a readable config', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const login = ['auth', 'login', '--base-url', 'https://pay.example.com', '--with-token', '--no-verify'];
    expect((await runBin(login, env, 'token-first-abcdefgh')).code).toBe(0);
    await killAtRandomMoments((i) => start(login, env, `token-${i}-abcdefgh`), 10);
    const status = await runBin(['auth', 'status', '--json', '--show-token'], env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      mode: 'live',
      token: expect.stringMatching(/^token-(first|\d+)-abcdefgh$/),
    });
  }, 60_000);

  it('history and sandbox data: creates killed at any moment leave both readable', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    await runBin(['config', 'set', 'sandbox-autopay', 'off'], env);
    const first = await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env);
    expect(first.code).toBe(0);
    await killAtRandomMoments(
      (i) => start(['deposit', 'create', '--amount-cents', String(i + 1), '--to', LQ, '-q'], env),
      12,
    );
    const list = await runBin(['deposit', 'list', '--json', '--limit', '100'], env);
    expect(list.code).toBe(0);
    const entries = JSON.parse(list.stdout) as Array<{ id: string }>;
    expect(entries.map((e) => e.id)).toContain(first.stdout.trim());
    // every deposit the history knows is whole in the sandbox, and readable
    for (const e of entries) {
      const got = await runBin(['deposit', 'get', e.id, '--json'], env);
      expect(got.code).toBe(0);
    }
    const dir = path.join(env.LBRL_CONFIG_DIR, 'sandbox', 'deposits');
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
      expect(() => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))).not.toThrow();
    }
    // and the next create works
    expect((await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env)).code).toBe(0);
  }, 60_000);
});
