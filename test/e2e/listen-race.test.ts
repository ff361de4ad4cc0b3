/**
 * lbrl listen started several times at the same instant, as real processes: one secret for the
 * profile, one listen delivering, even when the lock they find was left by a process killed -9.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { tempDir } from '../helpers/cli.js';

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
