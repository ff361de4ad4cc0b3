/**
 * Views over the local history, the one ledger: which deposits a `list` shows, and the sums of
 * a `report`. Every sum is in integer cents, read from what the create answer said (kept in the
 * history), never through a float.
 */
import { decimalFromNumber } from '../domain/decimal.js';
import { exactCents } from '../domain/money.js';
import { sameReference } from '../domain/text/reference.js';
import type { CreatedRecord, HistoryEntry } from '../store/history-records.js';
import { GONE } from './watch.js';

/** The status a person reads: EXPIRED (a local verdict) over the service's last known one. */
export function shownStatus(entry: HistoryEntry): string {
  return entry.expiredAt ? 'EXPIRED' : entry.status;
}

/** What `list` and `report` choose by; every part optional. */
export interface LedgerFilter {
  profile: string;
  /** the service (base URL, or "sandbox") whose deposits count; undefined: every service's */
  baseUrl?: string | undefined;
  /** created at or after (ms) */
  since?: number | undefined;
  /** created before (ms) */
  until?: number | undefined;
  /** shown statuses (EXPIRED included); empty or undefined: any */
  statuses?: ReadonlySet<string> | undefined;
  /** true: verified on chain only; false: not verified only */
  verified?: boolean | undefined;
  /** created with exactly this reference (lbrl's ledger) */
  ref?: string | undefined;
}

/** The part of the filter a created record answers (cheap, before its later records are met). */
export function createdFilter(filter: LedgerFilter): (r: CreatedRecord) => boolean {
  return (created) => {
    if (created.profile !== filter.profile) return false;
    if (filter.baseUrl !== undefined && created.baseUrl !== filter.baseUrl) return false;
    if (filter.ref !== undefined && !sameReference(created.ref, filter.ref)) return false;
    if (filter.since === undefined && filter.until === undefined) return true;
    const at = Date.parse(created.at);
    if (!Number.isFinite(at)) return false;
    return (
      (filter.since === undefined || at >= filter.since) && (filter.until === undefined || at < filter.until)
    );
  };
}

/** The part only the whole entry answers. */
export function entryFilter(filter: LedgerFilter): ((e: HistoryEntry) => boolean) | undefined {
  if ((!filter.statuses || filter.statuses.size === 0) && filter.verified === undefined) return undefined;
  return (entry) =>
    (!filter.statuses || filter.statuses.size === 0 || filter.statuses.has(shownStatus(entry))) &&
    (filter.verified === undefined || Boolean(entry.verifiedAt) === filter.verified);
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

/** The split's share of a net, in hundredths of a percent rounded down to the cent; null when not exact. */
function splitShareCents(netCents: number, splitPercent: unknown): number | null {
  if (splitPercent === null || splitPercent === undefined) return 0;
  if (typeof splitPercent !== 'number') return null;
  const decimal = decimalFromNumber(splitPercent);
  if (!decimal || decimal.units < 0n || decimal.scale > 4) return null;
  const basisPoints = decimal.units * 10n ** BigInt(4 - decimal.scale);
  if (basisPoints > 10_000n) return null;
  return Number((BigInt(netCents) * basisPoints) / 10_000n);
}

/**
 * exactCents (domain/money.ts) of an amount the create answer gave, with the common case first:
 * a number that is exactly whole cents as JSON reads it (the nearest count of cents, divided
 * back, is the number) and at most FAST_REAIS, whose shortest decimal (what exactCents reads)
 * is then those cents, since two decimals of 15 digits or fewer are never one double. A report
 * asks this of every finalized deposit: the decimal text and BigInt were a tenth of its samples.
 * test/unit/answer-cents.test.ts holds the two to the same answer.
 */
export function answerCents(reais: unknown): number | null {
  if (typeof reais === 'number' && reais >= 0 && reais <= FAST_REAIS) {
    const cents = Math.round(reais * 100);
    // + 0: -0 is 0 cents, as exactCents says
    if (cents / 100 === reais) return cents + 0;
  }
  return exactCents(reais);
}

/** 10^9 reais, 10^11 cents: 11 significant digits, well within the 15 every double holds exactly. */
const FAST_REAIS = 1e9;

/** A deposit's money in integer cents: what was charged, the service's fee, the net, and how the net was shared. */
export interface DepositFigures {
  gross: number;
  fee: number;
  net: number;
  /** the split address's share of the net, rounded down to the cent (0 without a split) */
  split: number;
  /** the net less the split: what the destination received */
  destination: number;
}

/**
 * The figures of a deposit, from what its create answer said (kept in the history), exactly;
 * null when the history does not hold them (a record of an older lbrl) or they are not exact
 * cents. The report's sums and every export read them here, so their totals agree.
 */
export function figuresOf(entry: HistoryEntry): DepositFigures | null {
  const gross = entry.amountInCents;
  const fee = answerCents(entry.answer?.feeAmount);
  const net = answerCents(entry.answer?.netAmount);
  const split = net === null ? null : splitShareCents(net, entry.answer?.splitPercent);
  if (!Number.isSafeInteger(gross) || fee === null || net === null || split === null) return null;
  return { gross, fee, net, split, destination: net - split };
}

/** Adds one deposit to the sums. */
export function addToSums(sums: ReportSums, entry: HistoryEntry): void {
  sums.createdCount += 1;
  if (Number.isSafeInteger(entry.amountInCents) && entry.amountInCents > 0)
    sums.createdCents += entry.amountInCents;
  const status = shownStatus(entry);
  if (status === 'FAILED') sums.failedCount += 1;
  else if (status === 'EXPIRED') sums.expiredCount += 1;
  else if (status !== 'FINALIZED' && status !== GONE) sums.pendingCount += 1;
  if (status !== 'FINALIZED') return;
  sums.finalizedCount += 1;
  sums.grossCents += Number.isSafeInteger(entry.amountInCents) ? entry.amountInCents : 0;
  const figures = figuresOf(entry);
  if (!figures) {
    sums.unknownAmountsCount += 1;
    return;
  }
  const { fee, net, split } = figures;
  sums.feeCents += fee;
  sums.netCents += net;
  sums.splitCents += split;
  sums.destinationCents += figures.destination;
  if (entry.verifiedAt) {
    sums.verifiedCount += 1;
    sums.verifiedNetCents += net;
  } else if (entry.onChain === 'unproven') {
    sums.unprovenCount += 1;
    sums.unprovenNetCents += net;
  } else if (entry.onChain === 'mismatch') {
    sums.mismatchCount += 1;
    sums.mismatchNetCents += net;
  } else {
    sums.uncheckedCount += 1;
    sums.uncheckedNetCents += net;
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
    visit: (acc: { periods: Map<string, ReportSums>; total: ReportSums }, entry: HistoryEntry) => {
      const ms = Date.parse(entry.at);
      const key = Number.isFinite(ms) ? periodOf(ms).slice(0, by === 'day' ? 10 : 7) : 'unknown';
      let sums = acc.periods.get(key);
      if (!sums) acc.periods.set(key, (sums = emptySums()));
      addToSums(sums, entry);
      addToSums(acc.total, entry);
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

/** A report of one service's deposits (its base URL, or "sandbox"). */
export interface ServiceReport extends Report {
  service: string;
}

/**
 * The reports of every service's deposits, one per service, for History.fold (--all-services):
 * sandbox money and live money are never summed together. In the order of the services' names.
 */
export function reportsByServiceAccumulator(by: Period, periodOf: (createdMs: number) => string) {
  const one = reportAccumulator(by, periodOf);
  type State = ReturnType<typeof one.start>;
  return {
    start: () => new Map<string, State>(),
    visit: (acc: Map<string, State>, entry: HistoryEntry) => {
      let state = acc.get(entry.baseUrl);
      if (!state) acc.set(entry.baseUrl, (state = one.start()));
      one.visit(state, entry);
    },
    finish: (acc: Map<string, State>): ServiceReport[] =>
      [...acc.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([service, state]) => ({ service, ...one.finish(state) })),
  };
}

/** The next period's key: the day after `2026-11-30` is `2026-12-01`, the month after `2026-12` is `2027-01`. */
function nextPeriod(key: string, by: Period): string {
  const [year, month, day] = key.split('-').map(Number) as [number, number, number];
  const next =
    by === 'day' ? new Date(Date.UTC(year, month - 1, day + 1)) : new Date(Date.UTC(year, month, 1));
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
