/** The `expired` record: entries carry expiredAt until a later status moves the deposit on. */
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const created = (n: number): StoredRecord => ({
  v: 1,
  type: 'created',
  id: id(n),
  profile: 'default',
  baseUrl: 'sandbox',
  at: `2026-11-22T10:00:0${n}.000Z`,
  amountInCents: 100,
  destinationAddress: 'x',
  splitAddress: null,
  splitFee: null,
  status: 'WAITING_PAYMENT',
});

describe('expired records', () => {
  it('an expiry holds until a later status; pending leaves the expired out unless asked, and takes back the revived', () => {
    const h = new History(tempDir());
    h.append([created(1), created(2), created(3)]);
    h.append([
      { v: 1, type: 'expired', id: id(1), at: '2026-11-23T10:00:00.000Z' },
      { v: 1, type: 'expired', id: id(2), at: '2026-11-23T10:00:00.000Z' },
    ]);
    h.append([{ v: 1, type: 'status', id: id(2), status: 'PIX_CONFIRMED', at: '2026-11-23T11:00:00.000Z' }]);
    const fresh = new History(h.dir);
    const byId = new Map(fresh.entries().map((e) => [e.id, e]));
    expect(byId.get(id(1))!.expiredAt).toBe('2026-11-23T10:00:00.000Z');
    expect(byId.get(id(2))!.expiredAt).toBeUndefined();
    expect(byId.get(id(2))!.status).toBe('PIX_CONFIRMED');
    expect(byId.get(id(3))!.expiredAt).toBeUndefined();
    expect(fresh.pending().map((e) => e.id)).toEqual([id(3), id(2)]);
    expect(fresh.pending(undefined, { includeExpired: true }).map((e) => e.id)).toEqual([
      id(3),
      id(2),
      id(1),
    ]);
    // the whole-entry filter and the fold see the same
    expect(fresh.entries(undefined, { where: (e) => Boolean(e.expiredAt) }).map((e) => e.id)).toEqual([
      id(1),
    ]);
    expect(
      fresh.fold(
        () => true,
        () => ({ n: 0 }),
        (acc, e) => void (acc.n += e.expiredAt ? 1 : 0),
      ).n,
    ).toBe(1);
    // read() (the records other readers stream) leaves expiries out, as it does verifications
    expect([...fresh.read()].every((r) => r.type !== ('expired' as string))).toBe(true);
  });
});
