/**
 * lbrl listen when its outbox cannot grow (a full disk, simulated by a file size limit: writes
 * past it are cut short and then fail, as on a full disk): it stops with one line saying so,
 * nothing is sent that the outbox does not hold, and a restart with room sends everything.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp.js';

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

/** listen with files limited to `blocks` of 512 bytes, until it ends, or `done` holds (then SIGTERM). */
function listenLimited(
  url: string,
  env: Record<string, string>,
  blocks: number | undefined,
  done: () => boolean,
) {
  const command = `${blocks === undefined ? '' : `ulimit -f ${blocks}; `}exec "$0" "$@"`;
  const child = spawn(
    '/bin/sh',
    ['-c', command, process.execPath, BIN, 'listen', '--forward-to', url, '--interval', '1'],
    { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const started = Date.now();
  const timer = setInterval(() => {
    if (done() || Date.now() - started > 30_000) child.kill('SIGTERM');
  }, 50);
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('listen, with no room for its outbox', () => {
  it('ends with one line naming the outbox, sends nothing it has not written, and a restart with room sends all', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const rx = await startReceiver();
    receivers.push(rx);
    expect((await runBin(['listen', '--print-secret'], env)).code).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await runBin(['sandbox', 'trigger', 'paid'], env);
      expect(r.code, r.stderr).toBe(0);
      ids.push(r.stdout.trim());
    }
    // an outbox a little short of the limit (32 KiB): what listen said of deposits done with
    const dir = path.join(env.LBRL_CONFIG_DIR, 'webhooks');
    fs.mkdirSync(dir, { mode: 0o700 });
    const file = path.join(dir, 'default.ndjson');
    const at = new Date().toISOString();
    let text = `{"v":1,"type":"since","at":"${new Date(Date.now() - 60_000).toISOString()}"}\n`;
    for (let n = 0; text.length < 32 * 1024 - 2500; n++)
      text += `${JSON.stringify({ v: 1, type: 'seen', deposit: `0000000${n}-0000-4000-8000-000000000000`.slice(-36), status: 'FINALIZED', at, closed: true })}\n`;
    fs.writeFileSync(file, text, { mode: 0o600 });

    const first = await listenLimited(rx.url, env, 64, () => false);
    expect(first.code).toBe(1);
    const errors = first.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`cannot write the webhook outbox ${file} (the file may not grow any larger)`);
    expect(first.stderr).not.toMatch(/^\s+at /m);
    // every event the receiver got is in the outbox
    const held = fs.readFileSync(file, 'utf8');
    for (const d of rx.deliveries) expect(held).toContain(`"id":"${d.id}"`);

    // room again: every deposit's story arrives, created first and finalized last
    const types = (id: string) =>
      rx
        .taken()
        .filter((d) => d.deposit === id)
        .map((d) => d.type);
    const second = await listenLimited(rx.url, env, undefined, () =>
      ids.every((id) => types(id).includes('deposit.finalized')),
    );
    expect(second.code, second.stderr).toBe(130);
    for (const id of ids) {
      expect(types(id)[0]).toBe('deposit.created');
      expect(types(id).at(-1)).toBe('deposit.finalized');
    }
    // an event sent twice (its answer not written down in time) kept its id
    const byId = new Map<string, string>();
    for (const d of rx.deliveries) {
      expect(byId.get(d.id) ?? d.body).toBe(d.body);
      byId.set(d.id, d.body);
    }
  }, 90_000);

  it('a disk full at start (no byte may be written): one line naming the file, exit 1, no empty lock file left behind', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const rx = await startReceiver();
    receivers.push(rx);
    expect((await runBin(['listen', '--print-secret'], env)).code).toBe(0);
    fs.mkdirSync(path.join(env.LBRL_CONFIG_DIR, 'webhooks'), { mode: 0o700 });
    for (let run = 0; run < 2; run++) {
      const full = await listenLimited(rx.url, env, 0, () => false);
      expect(full.code, full.stderr).toBe(1);
      const lines = full.stderr.split('\n').filter((l) => l !== '');
      const errors = lines.filter((l) => l.startsWith('error:'));
      expect(errors, full.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^error: cannot write the (listen lock|webhook outbox) \/\S+ \(no file may grow any larger|the file may not grow any larger\)/,
      );
      expect(full.stderr).not.toContain('unexpected failure');
      expect(full.stderr).not.toMatch(/^\s+at /m);
    }
    const left = fs.readdirSync(path.join(env.LBRL_CONFIG_DIR, 'webhooks'));
    expect(left.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(rx.deliveries).toEqual([]);
  }, 60_000);
});
