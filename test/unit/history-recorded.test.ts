/**
 * What a process records is what it then reads: `recorded()` answers first from the entries
 * `pending()` read (watch --pending looks each of them up), and whatever the same process appends
 * of a deposit afterwards (an expiry, a status, a verification, with or without its service) is
 * in its next answer, as it is in a new process's.
 */
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import {
  expiredRecord,
  type StoredRecord,
  statusRecord,
  verifiedRecord,
} from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const SERVICE = 'https://pay.example.com';
const ID = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const NOW = Date.parse('2026-11-23T15:00:00Z');
const created = (id: string): StoredRecord => ({
  v: 1,
  type: 'created',
  id,
  profile: 'default',
  baseUrl: SERVICE,
  at: '2026-11-23T12:00:00.000Z',
  amountInCents: 100,
  destinationAddress: 'x',
  splitAddress: null,
  splitFee: null,
  status: 'WAITING_PAYMENT',
});
const withService = <T extends StoredRecord>(record: T): T => ({ ...record, baseUrl: SERVICE });

const verified = withService(verifiedRecord(ID, 'cd'.repeat(32), NOW - 1000));

describe('recorded() after the same process appended to a deposit pending() read', () => {
  it.each([
    ['an expiry without its service (as the watch records it)', [], expiredRecord(ID, NOW)],
    ['an expiry naming its service', [], withService(expiredRecord(ID, NOW))],
    ['a status', [], withService(statusRecord(ID, 'PIX_CONFIRMED', NOW))],
    ['a verification', [statusRecord(ID, 'TX_SENT', NOW - 2000)], verified],
    [
      'an unverification',
      [statusRecord(ID, 'TX_SENT', NOW - 2000), verified],
      {
        v: 1,
        type: 'unverified',
        id: ID,
        baseUrl: SERVICE,
        txid: 'cd'.repeat(32),
        at: new Date(NOW).toISOString(),
        outcome: 'pending',
      },
    ],
  ] as Array<[string, StoredRecord[], StoredRecord]>)(
    "%s: its answer is the file's",
    (_, earlier, record) => {
      const history = new History(tempDir());
      history.append([created(ID), created(OTHER), ...earlier.map(withService)]);
      expect(history.pending().map((e) => e.id)).toContain(ID);
      const before = history.recorded(ID, SERVICE);
      history.append([record]);
      const mine = history.recorded(ID, SERVICE);
      // the file says something new of it, and this process reads what a new one reads
      const fresh = new History(history.dir).recorded(ID, SERVICE);
      expect(fresh).not.toEqual(before);
      expect(mine).toEqual(fresh);
      // the other deposit read by pending() is unchanged
      expect(history.recorded(OTHER, SERVICE)).toEqual(new History(history.dir).recorded(OTHER, SERVICE));
    },
  );

  it('the expiry the watch just recorded is in the entry: expiredAt is set', () => {
    const history = new History(tempDir());
    history.append([created(ID)]);
    history.pending();
    history.append([expiredRecord(ID, NOW)]);
    expect(history.recorded(ID, SERVICE)?.expiredAt).toBe(new Date(NOW).toISOString());
  });
});
