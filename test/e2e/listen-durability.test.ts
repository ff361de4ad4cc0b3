/**
 * lbrl listen as a real process: kill -9 at any moment of its life, then a restart, loses no event
 * and sends each with the id it had before; SIGTERM ends it within a second.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp.js';

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

function listen(url: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, 'listen', '--forward-to', url, '--interval', '1'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

const until = async (cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('listen, killed', () => {
  it('kill -9 at any moment, then a restart: every event arrives, each with one webhook-id for good', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    let healthy = false;
    const rx = await startReceiver(() => (healthy ? 200 : 500));
    receivers.push(rx);
    const ids: string[] = [];
    for (const scenario of ['abandoned', 'abandoned', 'paid']) {
      const r = await runBin(['sandbox', 'trigger', scenario], env);
      expect(r.code, r.stderr).toBe(0);
      ids.push(r.stdout.trim());
    }
    // killed before, during and after its first deliveries
    for (const moment of [30, 90, 160, 'attempt', 'attempt', 'attempt']) {
      const seen = rx.deliveries.length;
      const child = listen(rx.url, env);
      const exited = new Promise((r) => child.on('exit', r));
      if (moment === 'attempt') await until(() => rx.deliveries.length > seen);
      else await new Promise((r) => setTimeout(r, moment as number));
      child.kill('SIGKILL');
      await exited;
    }
    expect(rx.deliveries.length).toBeGreaterThan(0);
    expect(rx.taken()).toHaveLength(0);

    healthy = true;
    const child = listen(rx.url, env);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const types = (id: string) =>
      rx
        .taken()
        .filter((d) => d.deposit === id)
        .map((d) => d.type);
    await until(
      () =>
        types(ids[0]!).length > 0 &&
        types(ids[1]!).length > 0 &&
        types(ids[2]!).includes('deposit.finalized'),
    );
    const stopping = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    // within a second (with room for a loaded machine)
    expect(Date.now() - stopping).toBeLessThan(2000);

    expect(types(ids[0]!)).toEqual(['deposit.created']);
    expect(types(ids[1]!)).toEqual(['deposit.created']);
    expect(types(ids[2]!)[0]).toBe('deposit.created');
    // one id per event, whatever process sent it and however often
    const idsOf = new Map<string, Set<string>>();
    for (const d of rx.deliveries) {
      const key = `${d.deposit} ${d.type}`;
      idsOf.set(key, (idsOf.get(key) ?? new Set()).add(d.id));
    }
    for (const [key, set] of idsOf) expect(set.size, key).toBe(1);
    // what was tried before the kills was delivered after
    for (const d of rx.deliveries) expect(rx.taken().some((t) => t.id === d.id)).toBe(true);
    expect(stderr).toMatch(/--> 200/);
  }, 60_000);
});
