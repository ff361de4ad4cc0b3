/**
 * lbrl listen started several times at the same instant, as real processes: one secret for the
 * profile, one listen delivering, even when the lock they find was left by a process killed -9.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { tempDir } from '../helpers/temp.js';

const AT_ONCE = 5;

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

const until = async (cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** A pid that no process has: one that ran and ended. */
async function deadPid(): Promise<number> {
  const c: ChildProcess = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => c.on('exit', r));
  return c.pid!;
}

describe('listen, started at the same instant', () => {
  it('listens racing to make the secret all end with the one the profile keeps', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const runs = Array.from({ length: AT_ONCE }, () => start(['listen', '--print-secret'], env));
    const codes = await Promise.all(runs.map((r) => r.exited));
    expect(codes).toEqual(runs.map(() => 0));
    const kept = (
      JSON.parse(fs.readFileSync(path.join(env.LBRL_CONFIG_DIR, 'config.json'), 'utf8')) as {
        profiles: { default: { 'webhook-secret': string } };
      }
    ).profiles.default['webhook-secret'];
    expect(kept).toMatch(/^whsec_/);
    expect(runs.map((r) => r.out())).toEqual(runs.map(() => `${kept}\n`));
    expect(fs.statSync(path.join(env.LBRL_CONFIG_DIR, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('of listens started together on a lock left by a killed one, exactly one delivers; the others refuse (exit 2)', async () => {
    for (let round = 0; round < 4; round++) {
      const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
      expect((await runBin(['listen', '--print-secret'], env)).code).toBe(0);
      const dir = path.join(env.LBRL_CONFIG_DIR, 'webhooks');
      fs.mkdirSync(dir, { mode: 0o700 });
      fs.writeFileSync(path.join(dir, 'default.lock'), String(await deadPid()), { mode: 0o600 });
      const runs = Array.from({ length: AT_ONCE }, () =>
        start(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--interval', '5'], env),
      );
      try {
        // every one has either refused or said it listens
        await until(() => runs.every((r) => r.child.exitCode !== null || /listening: /.test(r.err())));
        const refused = runs.filter((r) => r.child.exitCode !== null);
        const listening = runs.filter((r) => r.child.exitCode === null);
        expect(listening).toHaveLength(1);
        for (const r of refused) {
          expect(r.child.exitCode).toBe(2);
          expect(r.err()).toMatch(
            /^error: another lbrl listen \(pid \d+\) is already delivering the events of profile default/m,
          );
        }
        // the lock names the one that runs
        expect(fs.readFileSync(path.join(dir, 'default.lock'), 'utf8')).toContain(
          String(listening[0]!.child.pid),
        );
      } finally {
        for (const r of runs) r.child.kill('SIGKILL');
        await Promise.all(runs.map((r) => r.exited));
      }
    }
  }, 60_000);
});

describe('listen, killed while it compacts its outbox', () => {
  it('kill -9 during the rewrite at start: the outbox is the old one or the new one, and its undelivered event arrives', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    expect((await runBin(['listen', '--print-secret'], env)).code).toBe(0);
    const dir = path.join(env.LBRL_CONFIG_DIR, 'webhooks');
    fs.mkdirSync(dir, { mode: 0o700 });
    const file = path.join(dir, 'default.ndjson');
    const old = new Date(Date.now() - 30 * 24 * 3600_000).toISOString();
    const lines = [`{"v":1,"type":"since","at":"${old}"}`];
    // 30,000 lines of deposits done with long ago: the first thing a start does is compact them away
    for (let n = 0; n < 30_000; n++)
      lines.push(
        JSON.stringify({ v: 1, type: 'seen', deposit: `d${n}`, status: 'FINALIZED', at: old, closed: true }),
      );
    const body = JSON.stringify({ type: 'deposit.created', timestamp: old, data: { deposit: { id: 'x' } } });
    lines.push(
      JSON.stringify({
        v: 1,
        type: 'event',
        id: 'evt_waiting',
        deposit: 'x',
        event: 'deposit.created',
        at: new Date().toISOString(),
        body,
      }),
    );
    fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    let taking = false;
    const { startReceiver } = await import('../helpers/receiver.js');
    const rx = await startReceiver(() => (taking ? 200 : 503));
    try {
      for (const ms of [40, 90, 140, 200, 260, 330]) {
        const run = start(['listen', '--forward-to', rx.url, '--interval', '5'], env);
        await new Promise((r) => setTimeout(r, ms));
        run.child.kill('SIGKILL');
        await run.exited;
        // whole: the old file or the compacted one, the waiting event in it either way
        const text = fs.readFileSync(file, 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        expect(text).toContain('"id":"evt_waiting"');
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      }
      taking = true;
      const last = start(['listen', '--forward-to', rx.url, '--interval', '5'], env);
      await until(() => rx.taken().length > 0);
      last.child.kill('SIGTERM');
      expect(await last.exited).toBe(130);
      expect(rx.taken().map((d) => [d.id, d.body])).toEqual([['evt_waiting', body]]);
      expect(fs.readFileSync(file, 'utf8').split('\n').length).toBeLessThan(5000);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      await rx.close();
    }
  }, 60_000);
});
