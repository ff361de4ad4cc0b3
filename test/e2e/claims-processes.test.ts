/**
 * Claims on batch rows across processes: several real runs of a bundle of the claims module on
 * one configuration directory, a run killed with -9. Real processes, so in the end-to-end tier;
 * the claims in one process and the Idempotency-Key derived from a row are test/unit/claims.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { RowClaim, RowClaims, rowIdempotencyKey } from '../../src/store/claims.js';
import { History } from '../../src/store/history.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('RowClaims across processes', () => {
  let lib: string;
  let worker: string;
  beforeAll(() => {
    const dir = tempDir();
    lib = path.join(dir, 'claims.mjs');
    buildSync({
      stdin: {
        contents: "export * from './src/store/claims.ts'; export { History } from './src/store/history.ts';",
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: lib,
      logLevel: 'silent',
    });
    // a run of a file: for each row, claim it, look whether it is done, do it if not, release
    worker = path.join(dir, 'worker.mjs');
    fs.writeFileSync(
      worker,
      `
import fs from 'node:fs';
import { RowClaims } from ${JSON.stringify(lib)};
const [configDir, ledger, rowCount, order, hold] = process.argv.slice(2);
const claims = new RowClaims(configDir);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rows = Array.from({ length: Number(rowCount) }, (_, i) => i);
if (order === 'reverse') rows.reverse();
for (const row of rows) {
  const claim = await claims.claim('default', 'sandbox', 'row-' + row, { sleep, pollMs: 2 });
  fs.appendFileSync(ledger, 'hold ' + row + ' ' + process.pid + '\\n');
  if (hold === 'forever') { process.stdout.write('held\\n'); await sleep(60_000); }
  const done = fs.readFileSync(ledger, 'utf8').split('\\n').includes('made ' + row);
  if (!done) {
    await sleep(1 + (row % 3));
    fs.appendFileSync(ledger, 'made ' + row + '\\n');
  }
  fs.appendFileSync(ledger, 'free ' + row + ' ' + process.pid + '\\n');
  claim.release();
}
`,
    );
  });

  /** A run of `create --from rows --resume`, with the history and claims for real and a fake send. */
  function resumeRun(configDir: string, rows: number, order: string): ChildProcess {
    const script = `
import { randomUUID } from 'node:crypto';
import { History, ResumableRows, RowClaims } from ${JSON.stringify(lib)};
const [configDir, rowCount, order] = process.argv.slice(1);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const keys = Array.from({ length: Number(rowCount) }, (_, i) => 'row-' + i);
const history = new History(configDir);
const rows = new ResumableRows(history, new RowClaims(configDir), 'default', 'sandbox', keys);
const mine = order === 'reverse' ? [...keys].reverse() : keys;
for (const key of mine) {
  const turn = await rows.begin(key, { sleep, pollMs: 2 });
  if (turn.done) continue;
  history.append([{ v: 1, type: 'attempt', profile: 'default', baseUrl: 'sandbox', batchKey: key, idempotencyKey: turn.idempotencyKey, at: new Date().toISOString() }]);
  await sleep(2); // the request
  history.append([{ v: 1, type: 'created', id: randomUUID(), profile: 'default', baseUrl: 'sandbox', at: new Date().toISOString(), amountInCents: 1, destinationAddress: 'x', splitAddress: null, splitFee: null, status: 'WAITING_PAYMENT', batchKey: key, key: turn.idempotencyKey }]);
  turn.claim.release();
}
`;
    return spawn(process.execPath, ['--input-type=module', '-e', script, configDir, String(rows), order], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  }

  it('twenty overlapping --resume runs of a 5-row file create each row once, with the key derived from it', async () => {
    const configDir = tempDir();
    const runs = Array.from({ length: 20 }, (_, i) => resumeRun(configDir, 5, i % 2 ? 'reverse' : 'forward'));
    expect(await Promise.all(runs.map(exited))).toEqual(Array(20).fill(0));
    const created = [...new History(configDir).read()].filter(
      (r) => r.type === 'created',
    ) as unknown as Array<Record<string, string>>;
    expect(created.map((r) => r.batchKey).sort()).toEqual(['row-0', 'row-1', 'row-2', 'row-3', 'row-4']);
    for (const r of created) expect(r.key).toBe(rowIdempotencyKey('default', 'sandbox', r.batchKey!));
  }, 60_000);

  function run(args: string[]): ChildProcess {
    return spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  }
  const exited = (c: ChildProcess) => new Promise<number | null>((r) => c.on('exit', (code) => r(code)));

  it('eight runs over the same 25 rows: each row made once, never held by two at once', async () => {
    const configDir = tempDir();
    const ledger = path.join(tempDir(), 'ledger');
    fs.writeFileSync(ledger, '');
    const runs = Array.from({ length: 8 }, (_, i) =>
      run([configDir, ledger, '25', i % 2 ? 'reverse' : 'forward', 'no']),
    );
    expect(await Promise.all(runs.map(exited))).toEqual(Array(8).fill(0));
    const lines = fs.readFileSync(ledger, 'utf8').trim().split('\n');
    const made = lines.filter((l) => l.startsWith('made ')).map((l) => Number(l.split(' ')[1]));
    expect(made.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    // per row: hold and free alternate, by the same process, and every run saw every row
    for (let row = 0; row < 25; row++) {
      const events = lines
        .filter((l) => /^(hold|free) /.test(l) && l.split(' ')[1] === String(row))
        .map((l) => l.split(' '));
      expect(events).toHaveLength(16);
      for (let i = 0; i < events.length; i += 2) {
        expect([events[i]![0], events[i + 1]![0], events[i + 1]![2]]).toEqual([
          'hold',
          'free',
          events[i]![2],
        ]);
      }
    }
    expect(fs.readdirSync(path.join(configDir, 'claims'))).toEqual([]);
  }, 30_000);

  it('a claim left by a run killed with -9 is taken over; a live holder is not', async () => {
    const configDir = tempDir();
    const ledger = path.join(tempDir(), 'ledger');
    fs.writeFileSync(ledger, '');
    const holder = run([configDir, ledger, '1', 'forward', 'forever']);
    await new Promise<void>((r) => holder.stdout!.once('data', () => r()));
    const claims = new RowClaims(configDir);
    expect(claims.tryClaim('default', 'sandbox', 'row-0')).toMatchObject({ pid: holder.pid });
    holder.kill('SIGKILL');
    await exited(holder);
    const taken = claims.tryClaim('default', 'sandbox', 'row-0');
    expect(taken).toBeInstanceOf(RowClaim);
    expect((taken as RowClaim).held()).toBe(true);
    expect(fs.readdirSync(claims.dir)).toHaveLength(1);
  }, 30_000);
});
