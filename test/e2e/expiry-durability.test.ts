/**
 * watch --pending giving many charges their last look, as a cron would run it: two at once on
 * one history, one of them killed -9 while it appends expired records. The history stays whole
 * and every charge ends recorded expired once, with nothing left for the next run to ask.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { BIN, runBin } from '../helpers/bin.js';
import { liveEnv } from '../helpers/env.js';
import { brCode, getAnswer, LQ } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const COUNT = 300;
let server: TestServer | undefined;
afterEach(async () => server?.close());

describe('watch --pending: last looks under kill -9 and a concurrent run', () => {
  it('the history stays whole; every charge is recorded expired; the next run asks nothing', async () => {
    server = await startServer((req, res) => {
      const depositId = req.url.split('/').pop()!;
      json(res, 200, getAnswer({ id: depositId, status: 'WAITING_PAYMENT' }));
    });
    const env = liveEnv(server.url);
    const records: StoredRecord[] = [];
    for (let n = 0; n < COUNT; n++)
      records.push({
        v: 1,
        type: 'created',
        id: id(n),
        profile: 'default',
        baseUrl: server.url,
        at: new Date(Date.now() - 3 * 86_400_000 + n).toISOString(),
        amountInCents: 150000,
        destinationAddress: LQ,
        splitAddress: null,
        splitFee: null,
        status: 'WAITING_PAYMENT',
        answer: {
          amount: 1500,
          feeAmount: 15,
          netAmount: 1485,
          splitPercent: null,
          qrCodeText: brCode(150000),
          createdAt: '2026-11-22T10:00:00.000Z',
        },
      } as StoredRecord);
    new History(env.LBRL_CONFIG_DIR!).append(records);
    expect((await runBin(['config', 'set', 'requests-per-minute', '6000'], env)).code).toBe(0);
    const file = path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson');
    const expiredLines = () => fs.readFileSync(file, 'utf8').split('"type":"expired"').length - 1;
    const start = () =>
      spawn(process.execPath, [BIN, 'deposit', 'watch', '--pending', '--interval', '1', '-q'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: 'ignore',
      });
    const victim = start();
    const other = start();
    const otherDone = new Promise<number | null>((r) => other.on('exit', r));
    const victimDone = new Promise((r) => victim.on('exit', r));
    // killed once the expired records are being appended
    while (expiredLines() < 20) await new Promise((r) => setTimeout(r, 10));
    victim.kill('SIGKILL');
    await victimDone;
    expect(await otherDone).toBe(0);
    // every line whole
    for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean))
      expect(() => JSON.parse(line)).not.toThrow();
    const list = await runBin(['deposit', 'list', '--status', 'EXPIRED', '--limit', '1000', '--json'], env);
    expect(JSON.parse(list.stdout)).toHaveLength(COUNT);
    const report = await runBin(['deposit', 'report', '--json'], env);
    expect(JSON.parse(report.stdout).total).toMatchObject({ expiredCount: COUNT, pendingCount: 0 });
    const before = server.requests.length;
    const again = await runBin(['deposit', 'watch', '--pending'], env);
    expect(again.code).toBe(0);
    expect(server.requests.length).toBe(before);
  }, 60_000);
});
