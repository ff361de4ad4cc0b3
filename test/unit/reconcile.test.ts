/** The matching rules of deposit reconcile: one output pays one deposit's share, within a cent. */
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/deposits/receipts.js';
import { reconcile } from '../../src/deposits/reconcile.js';
import { addressScript } from '../../src/domain/liquid/script.js';
import type { HistoryEntry } from '../../src/store/history-records.js';

const A = 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn';
const S = 'ex1qeh0j8gvlf59dwqc2w3nkz8nr3uqwxtzu2g55gn';
const UNITS = 1_000_000n; // a cent at precision 8

function entry(
  n: number,
  net: number,
  o: Partial<HistoryEntry> & { splitPercent?: number | null } = {},
): HistoryEntry {
  const { splitPercent = null, ...rest } = o;
  return {
    v: 1,
    type: 'created',
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    profile: 'default',
    baseUrl: 'sandbox',
    at: '2026-11-22T10:00:00.000Z',
    amountInCents: net + 10,
    destinationAddress: A,
    splitAddress: splitPercent === null ? null : S,
    splitFee: null,
    status: 'FINALIZED',
    statusAt: '2026-11-22T10:01:00.000Z',
    answer: { amount: 0, feeAmount: 0.1, netAmount: net / 100, splitPercent, qrCodeText: '', createdAt: '' },
    ...rest,
  };
}

const LATER = Date.parse('2026-11-22T10:05:00.000Z');
const scriptOf = (address: string) => {
  const s = addressScript(address);
  if (!s.ok) throw new Error(address);
  return Buffer.from(s.value.script).toString('hex');
};
const receipt = (
  txid: string,
  units: bigint,
  address = A,
  at: number | null = LATER,
  confirmations = 2,
): Receipt => ({
  txid: txid.repeat(64).slice(0, 64),
  vout: 0,
  address,
  script: scriptOf(address),
  units,
  at,
  confirmations,
});

describe('reconcile', () => {
  it('one output pays one deposit: two equal charges and one payment leave one missing', () => {
    const r = reconcile([entry(1, 1000), entry(2, 1000)], [receipt('a', 1000n * UNITS)], { precision: 8 });
    expect(r.matched).toHaveLength(1);
    expect(r.missing).toEqual([expect.objectContaining({ cents: 1000, role: 'destination' })]);
    expect(r.unmatched).toEqual([]);
  });

  it('matches at least the due and less than a cent more, never a unit short (the verify rule)', () => {
    const near = reconcile([entry(1, 1000)], [receipt('a', 1000n * UNITS + UNITS - 1n)], { precision: 8 });
    expect(near.matched).toHaveLength(1);
    const unitShort = reconcile([entry(1, 1000)], [receipt('a', 1000n * UNITS - 1n)], { precision: 8 });
    expect(unitShort.matched).toEqual([]);
    expect(unitShort.missing).toHaveLength(1);
    const centOver = reconcile([entry(1, 1000)], [receipt('a', 1001n * UNITS)], { precision: 8 });
    expect(centOver.matched).toEqual([]);
    const short = reconcile([entry(1, 1000)], [receipt('a', 999n * UNITS)], { precision: 8 });
    expect(short.matched).toEqual([]);
    expect(short.missing).toHaveLength(1);
    expect(short.unmatched).toEqual([expect.objectContaining({ cents: 999 })]);
  });

  it('a split deposit expects both shares, each paid by the amount rule', () => {
    const d = entry(1, 1450, { splitPercent: 0.0299 });
    const split = (1450n * UNITS * 299n) / 10_000n;
    const r = reconcile([d], [receipt('b', 1450n * UNITS - split), receipt('b', split, S, LATER + 1)], {
      precision: 8,
    });
    expect(r.matched.map((m) => m.role).sort()).toEqual(['destination', 'split']);
    expect(r.unmatched).toEqual([]);
  });

  it("a deposit whose settlement txid is known is what verify judged of it: never another output's", () => {
    // the service named transaction b; nothing judged it (it is not among the addresses' history):
    // an output of another transaction paying the same amount is not taken instead, as verify
    // would never take it
    const d = entry(1, 1000, { final: { settlement: { liquidTxid: 'b'.repeat(64) }, confirmedAt: null } });
    const r = reconcile([d], [receipt('a', 1000n * UNITS)], { precision: 8 });
    expect(r.matched).toEqual([]);
    expect(r.missing).toEqual([expect.objectContaining({ depositId: d.id, txid: 'b'.repeat(64) })]);
    expect(r.unmatched).toEqual([expect.objectContaining({ txid: 'a'.repeat(64) })]);
  });

  it('a receipt less deep than the confirmations setting counts for nothing yet: pending, never matched nor unmatched', () => {
    const mempool = reconcile([entry(1, 1000)], [receipt('a', 1000n * UNITS, A, null, 0)], { precision: 8 });
    expect(mempool.matched).toEqual([]);
    expect(mempool.missing).toEqual([]);
    expect(mempool.pending).toEqual([
      expect.objectContaining({ depositId: entry(1, 0).id, confirmations: 0, required: 2 }),
    ]);
    const one = reconcile([], [receipt('a', 5n * UNITS, A, LATER, 1)], { precision: 8 });
    expect(one.unmatched).toEqual([]);
    expect(one.pending).toEqual([
      expect.objectContaining({ depositId: null, confirmations: 1, required: 2 }),
    ]);
    // the setting decides: one confirmation is enough when one is required
    const enough = reconcile([entry(1, 1000)], [receipt('a', 1000n * UNITS, A, LATER, 1)], {
      precision: 8,
      requiredConfirmations: 1,
    });
    expect(enough.matched).toHaveLength(1);
    expect(enough.pending).toEqual([]);
  });

  it('an output of no value is no money: never unmatched', () => {
    const r = reconcile([], [receipt('a', 0n)], { precision: 8 });
    expect(r).toMatchObject({ matched: [], unmatched: [], pending: [], missing: [] });
  });

  it('a deposit of another profile or service is never reported, and its judged outputs are never this one’s', () => {
    const mine = entry(1, 1000);
    const theirs = entry(2, 1000, { profile: 'caixa1' });
    const r = reconcile([mine, theirs], [receipt('a', 1000n * UNITS)], {
      precision: 8,
      inScope: (e) => e.profile === 'default',
    });
    // the other till's deposit has no known settlement: it takes nothing, this one is paid
    expect(r.matched).toEqual([expect.objectContaining({ depositId: mine.id })]);
    expect(r.missing).toEqual([]);
  });

  it('a payment for an expired or failed deposit is paid after expiry, not unmatched; an unreadable output is never a match', () => {
    const expired = entry(1, 500, { status: 'WAITING_PAYMENT', expiredAt: '2026-11-23T10:00:00.000Z' });
    const failed = entry(2, 700, { status: 'FAILED' });
    const r = reconcile(
      [expired, failed],
      [
        receipt('a', 500n * UNITS),
        receipt('b', 700n * UNITS),
        { ...receipt('c', 0n), units: null, unreadable: 'no key' },
      ],
      { precision: 8 },
    );
    expect(r.paidAfterExpiry.map((p) => [p.status, p.cents])).toEqual([
      ['EXPIRED', 500],
      ['FAILED', 700],
    ]);
    expect(r.unmatched).toEqual([expect.objectContaining({ cents: null, reason: 'no key' })]);
  });
});
