/**
 * Views over the local history, the one ledger: which deposits a `list` shows, and the sums of
 * a `report`. Every sum is in integer cents, read from what the create answer said (kept in the
 * history), never through a float.
 */
import { decimalFromNumber, decimalToCents } from '../domain/decimal.js';
import type { CreatedRecord, HistoryEntry } from '../store/history.js';
import { GONE } from './watch.js';

/** The status a person reads: EXPIRED (a local verdict) over the service's last known one. */
export function shownStatus(e: HistoryEntry): string {
  return e.expiredAt ? 'EXPIRED' : e.status;
}

/** What `list` and `report` choose by; every part optional. */
export interface LedgerFilter {
  profile: string;
  /** created at or after (ms) */
  since?: number | undefined;
  /** created before (ms) */
  until?: number | undefined;
  /** shown statuses (EXPIRED included); empty or undefined: any */
  statuses?: ReadonlySet<string> | undefined;
  /** true: verified on chain only; false: not verified only */
  verified?: boolean | undefined;
}

/** The part of the filter a created record answers (cheap, before its later records are met). */
export function createdFilter(f: LedgerFilter): (r: CreatedRecord) => boolean {
  return (r) => {
    if (r.profile !== f.profile) return false;
    if (f.since === undefined && f.until === undefined) return true;
    const at = Date.parse(r.at);
    if (!Number.isFinite(at)) return false;
    return (f.since === undefined || at >= f.since) && (f.until === undefined || at < f.until);
  };
}

/** The part only the whole entry answers. */
export function entryFilter(f: LedgerFilter): ((e: HistoryEntry) => boolean) | undefined {
  if ((!f.statuses || f.statuses.size === 0) && f.verified === undefined) return undefined;
  return (e) =>
    (!f.statuses || f.statuses.size === 0 || f.statuses.has(shownStatus(e))) &&
    (f.verified === undefined || Boolean(e.verifiedAt) === f.verified);
}

/** The sums of one period (or the total), as `report --json` gives them. */
export interface ReportSums {
  createdCount: number;
  finalizedCount: number;
  failedCount: number;
  expiredCount: number;
  pendingCount: number;
  /** the amount charged, over every deposit created */
  createdCents: number;
  /** over the finalized: what was paid (amountInCents), the fees, the net, the split shares */
  grossCents: number;
  feeCents: number;
  netCents: number;
  splitCents: number;
  /** the net less the split: what the destination received */
  destinationCents: number;
  /** the finalized whose settlement was verified on chain, and their net */
  verifiedCount: number;
  verifiedNetCents: number;
  /** the finalized whose last verification left something unproven, and their net */
  unprovenCount: number;
  unprovenNetCents: number;
  /** the finalized whose last verification found the chain contradicting them, and their net */
  mismatchCount: number;
  mismatchNetCents: number;
  /** the finalized not yet checked on chain (never, or not yet confirmed or found), and their net */
  uncheckedCount: number;
  uncheckedNetCents: number;
  /** finalized deposits whose fee or net the history does not hold (created by an older lbrl) */
  unknownAmountsCount: number;
}

export function emptySums(): ReportSums {
  return {
    createdCount: 0,
    finalizedCount: 0,
    failedCount: 0,
    expiredCount: 0,
    pendingCount: 0,
    createdCents: 0,
    grossCents: 0,
    feeCents: 0,
    netCents: 0,
    splitCents: 0,
    destinationCents: 0,
    verifiedCount: 0,
    verifiedNetCents: 0,
    unprovenCount: 0,
    unprovenNetCents: 0,
    mismatchCount: 0,
    mismatchNetCents: 0,
    uncheckedCount: 0,
    uncheckedNetCents: 0,
    unknownAmountsCount: 0,
  };
}

/** Cents of a reais amount as the create answer gave it, exactly; null when it is not whole cents. */
function centsOf(reais: unknown): number | null {
  if (typeof reais !== 'number') return null;
  const d = decimalFromNumber(reais);
  const cents = d ? decimalToCents(d) : null;
  return cents === null || cents < 0n || cents > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(cents);
}

/** The split's share of a net, in hundredths of a percent rounded down to the cent; null when not exact. */
function splitShareCents(netCents: number, splitPercent: unknown): number | null {
  if (splitPercent === null || splitPercent === undefined) return 0;
  if (typeof splitPercent !== 'number') return null;
  const d = decimalFromNumber(splitPercent);
  if (!d || d.units < 0n || d.scale > 4) return null;
  const basisPoints = d.units * 10n ** BigInt(4 - d.scale);
  if (basisPoints > 10_000n) return null;
  return Number((BigInt(netCents) * basisPoints) / 10_000n);
}

/** Adds one deposit to the sums. */
export function addToSums(s: ReportSums, e: HistoryEntry): void {
  s.createdCount += 1;
  if (Number.isSafeInteger(e.amountInCents) && e.amountInCents > 0) s.createdCents += e.amountInCents;
  const status = shownStatus(e);
  if (status === 'FAILED') s.failedCount += 1;
  else if (status === 'EXPIRED') s.expiredCount += 1;
  else if (status !== 'FINALIZED' && status !== GONE) s.pendingCount += 1;
  if (status !== 'FINALIZED') return;
  s.finalizedCount += 1;
  s.grossCents += Number.isSafeInteger(e.amountInCents) ? e.amountInCents : 0;
  const fee = centsOf(e.answer?.feeAmount);
  const net = centsOf(e.answer?.netAmount);
  const split = net === null ? null : splitShareCents(net, e.answer?.splitPercent);
  if (fee === null || net === null || split === null) {
    s.unknownAmountsCount += 1;
    return;
  }
  s.feeCents += fee;
  s.netCents += net;
  s.splitCents += split;
  s.destinationCents += net - split;
  if (e.verifiedAt) {
    s.verifiedCount += 1;
    s.verifiedNetCents += net;
  } else if (e.onChain === 'unproven') {
    s.unprovenCount += 1;
    s.unprovenNetCents += net;
  } else if (e.onChain === 'mismatch') {
    s.mismatchCount += 1;
    s.mismatchNetCents += net;
  } else {
    s.uncheckedCount += 1;
    s.uncheckedNetCents += net;
  }
}

export type Period = 'day' | 'month';

/** The sums per period (keys `2026-11-22` or `2026-11`, newest last) and in total. */
export interface Report {
  by: Period;
  periods: Array<{ period: string } & ReportSums>;
  total: ReportSums;
}

/**
 * A report's accumulator, for History.fold: `periodOf` names the period of a creation time
 * (local days or months: the caller knows the time zone).
 */
export function reportAccumulator(by: Period, periodOf: (createdMs: number) => string) {
  return {
    start: () => ({ periods: new Map<string, ReportSums>(), total: emptySums() }),
    visit: (acc: { periods: Map<string, ReportSums>; total: ReportSums }, e: HistoryEntry) => {
      const ms = Date.parse(e.at);
      const key = Number.isFinite(ms) ? periodOf(ms).slice(0, by === 'day' ? 10 : 7) : 'unknown';
      let sums = acc.periods.get(key);
      if (!sums) acc.periods.set(key, (sums = emptySums()));
      addToSums(sums, e);
      addToSums(acc.total, e);
    },
    finish: (acc: { periods: Map<string, ReportSums>; total: ReportSums }): Report => ({
      by,
      periods: [...withQuietPeriods(acc.periods, by)]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([period, sums]) => ({ period, ...sums })),
      total: acc.total,
    }),
  };
}

/** The next period's key: the day after `2026-11-30` is `2026-12-01`, the month after `2026-12` is `2027-01`. */
function nextPeriod(key: string, by: Period): string {
  const [y, m, d] = key.split('-').map(Number) as [number, number, number];
  const next = by === 'day' ? new Date(Date.UTC(y, m - 1, d + 1)) : new Date(Date.UTC(y, m, 1));
  return next.toISOString().slice(0, by === 'day' ? 10 : 7);
}

/** The periods between the first and the last with no deposit, as zeros: a chart without holes. */
function withQuietPeriods(periods: Map<string, ReportSums>, by: Period): Map<string, ReportSums> {
  const keys = [...periods.keys()].filter((k) => k !== 'unknown').sort();
  if (keys.length < 2) return periods;
  const out = new Map(periods);
  const last = keys[keys.length - 1]!;
  // at most a few years of days: a history that spans more is shown as it is
  for (let key = keys[0]!, n = 0; key < last && n < 2000; key = nextPeriod(key, by), n++)
    if (!out.has(key)) out.set(key, emptySums());
  return out;
}
