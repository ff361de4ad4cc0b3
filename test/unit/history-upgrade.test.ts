/**
 * An upgrade, proven with a file the previous release wrote: test/data/upgrade/history-ca58ccc.ndjson
 * is the history lbrl at commit ca58ccc wrote against its embedded sandbox (creates, a split, a
 * payment, a failure, verify passing and unproven, a batch with its attempts, expiries). Every
 * record type it wrote is read by this release as that release meant it, with no warning, and
 * its deposits are still checked and still trusted: a field added to the model since is unknown
 * to those records, never "expected (absent)".
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/api/client.js';
import type { GetResponse } from '../../src/api/models.js';
import { getChecked } from '../../src/deposits/answers.js';
import { addToSums, emptySums } from '../../src/deposits/ledger.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { History } from '../../src/store/history.js';
import { type StoredRecord, statusRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const OLD = path.join(import.meta.dirname, '../data/upgrade/history-ca58ccc.ndjson');
const PAID = '80fadd80-dee1-43a0-a921-f36c6b3ae5aa';
const PAID_TXID = '7b793685ed01c77025bf82ae7373999197bab31ff3771ec59a0dd2887c970643';
const SPLIT = 'e26e0228-4617-4174-9711-bc3766c52741';
const FAILED = '6a92638a-4e42-4284-a3de-e888efa6d151';

function oldHistory(): { history: History; warned: string[] } {
  const dir = tempDir();
  fs.copyFileSync(OLD, path.join(dir, 'history.ndjson'));
  fs.chmodSync(path.join(dir, 'history.ndjson'), 0o600);
  const warned: string[] = [];
  return { history: new History(dir, (line) => warned.push(line)), warned };
}

/** The line of the old file that created a deposit, as the previous release wrote it. */
function createdLine(id: string): Record<string, unknown> {
  const line = fs
    .readFileSync(OLD, 'utf8')
    .split('\n')
    .find((l) => l.includes('"type":"created"') && l.includes(id))!;
  return JSON.parse(line) as Record<string, unknown>;
}

/** A get answer as the service would give it now for one of the old deposits. */
function answerFor(id: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  const created = createdLine(id) as {
    amountInCents: number;
    destinationAddress: string;
    splitAddress: string | null;
    answer: Record<string, unknown>;
  };
  return {
    id,
    status: 'FINALIZED',
    amountInCents: created.amountInCents,
    destinationAddress: created.destinationAddress,
    splitAddress: created.splitAddress,
    ...created.answer,
    settlement: { liquidTxid: PAID_TXID, status: 'FINALIZED' },
    confirmedAt: '2026-11-27T19:37:04.449Z',
    sandbox: true,
    ...more,
  };
}

function serviceOf(history: History, answer: Record<string, unknown>): DepositApi {
  return {
    createDeposit: async () => {
      throw new Error('nothing is created');
    },
    getDeposit: async () => ({ value: answer, raw: answer }) as ApiResult<GetResponse>,
    recorded: (id) => history.recorded(id, 'sandbox'),
  };
}

describe('a history written by the previous release (ca58ccc)', () => {
  it('every record type is read, with no warning: created, status, verified, unverified, expired, attempt', () => {
    const { history, warned } = oldHistory();
    const read = [...history.read()];
    expect(new Set(read.map((r) => r.type))).toEqual(new Set(['created', 'status', 'attempt']));
    const byId = new Map(history.entries().map((e) => [e.id, e]));
    expect(byId.size).toBe(7);
    expect(byId.get(PAID)).toMatchObject({
      status: 'FINALIZED',
      verifiedTxid: PAID_TXID,
      // the settlement the old final answer kept is a fact now
      facts: { 'settlement.liquidTxid': PAID_TXID, confirmedAt: '2026-11-27T19:37:04.449Z' },
    });
    expect(byId.get(PAID)?.verifiedAt).toBeDefined();
    expect(byId.get(SPLIT)).toMatchObject({ status: 'FINALIZED', onChain: 'unproven', splitFee: '2.99%' });
    expect(byId.get(FAILED)?.status).toBe('FAILED');
    expect([...byId.values()].filter((e) => e.expiredAt).length).toBe(3);
    expect(history.batchState('default', 'sandbox').done.size).toBe(2);
    expect(history.sharesOf(PAID_TXID).map((s) => s.id)).toEqual([PAID]);
    const sums = history.fold(() => true, emptySums, addToSums);
    expect(sums).toMatchObject({ createdCount: 7, finalizedCount: 3, failedCount: 1, expiredCount: 3 });
    expect(sums).toMatchObject({ grossCents: 1550 + 2000 + 400, verifiedCount: 1, unprovenCount: 1 });
    expect(warned).toEqual([]);
  });

  it('its deposits are still trusted: an answer carrying a field added to the model since is not refused', async () => {
    const { history } = oldHistory();
    const answer = answerFor(PAID, { merchantReference: 'order 42' });
    await expect(getChecked(serviceOf(history, answer), PAID)).resolves.toMatchObject({
      value: { id: PAID },
    });
  });

  it('and still checked: the settlement its old records kept cannot be swapped for another', async () => {
    const { history } = oldHistory();
    const answer = answerFor(PAID, { settlement: { liquidTxid: 'ee'.repeat(32), status: 'FINALIZED' } });
    await expect(getChecked(serviceOf(history, answer), PAID)).rejects.toThrow(
      `settlement.liquidTxid: expected ${PAID_TXID}, the settlement lbrl verified on chain`,
    );
  });

  it('new records appended to it read back beside the old ones', () => {
    const { history, warned } = oldHistory();
    const more: StoredRecord[] = [statusRecord(FAILED, 'FAILED', Date.parse('2026-11-28T10:00:00Z'))];
    history.append(more);
    expect(new History(history.dir).recorded(FAILED, 'sandbox')?.status).toBe('FAILED');
    expect(warned).toEqual([]);
  });
});
