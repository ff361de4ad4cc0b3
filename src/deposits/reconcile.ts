/**
 * The ledger against the chain: how the receipts the profile's addresses got (deposits/receipts.ts)
 * match the history's deposits. A deposit whose settlement is known is what verify's own rules
 * judged of it (deposits/settlement-judge.ts: the same confirmations, amounts, outputs); the others
 * take an output by amount; and one output pays at most one deposit's share across every profile
 * and service of the history. `reconcile` runs the phases in order: the judged deposits, those
 * matched by amount, the expired and failed paid late, and the rest (pending or unmatched).
 */
import { decimalFromNumber, decimalToString } from '../domain/decimal.js';
import { addressScript } from '../domain/liquid/script.js';
import type { Fraction, SettlementReport } from '../domain/liquid/settlement/model.js';
import { roundingsOf } from '../domain/liquid/settlement/shares.js';
import { CLOCK_MARGIN_MS } from '../domain/liquid/settlement/timing.js';
import { DEFAULT_CONFIRMATIONS } from '../domain/liquid/settlement.js';
import { depositKey } from '../store/history-merge.js';
import type { HistoryEntry } from '../store/history-records.js';
import { answerCents, shownStatus } from './ledger.js';
import type { Receipt } from './receipts.js';
import { SurplusCounter, type SurplusEntry } from './reconcile-surplus.js';
import { type RecordedShares, settlementTxidOf } from './settlement-judge.js';

/** What one deposit should have received at one address. */
interface Share {
  entry: HistoryEntry;
  role: 'destination' | 'split';
  address: string;
  cents: number;
  /** the net and the split's fraction of it (basis points), to judge the amount by the verify rules */
  netCents: number;
  basisPoints: bigint | null;
  /** a share that may be rounded to nothing: no output is no shortfall */
  mayBeNothing?: boolean;
}

export interface MatchedEntry {
  depositId: string;
  role: 'destination' | 'split';
  address: string;
  txid: string;
  vout: number;
  cents: number;
}

export interface MissingEntry {
  depositId: string;
  role: 'destination' | 'split';
  address: string;
  cents: number;
  /** the settlement's txid, when the service gave one */
  txid: string | null;
  /** what the verify rules found wrong with that settlement */
  reason?: string;
}

export interface UnmatchedEntry {
  address: string;
  txid: string;
  vout: number;
  /** null when the output could not be opened (reason says why); below a cent dropped: `amount` is exact */
  cents: number | null;
  /** the exact amount in reais (decimal text, at least two decimals), null when unknown */
  amount: string | null;
  reason?: string;
}

export interface PaidAfterExpiryEntry {
  depositId: string;
  status: string;
  address: string;
  txid: string;
  vout: number;
  cents: number;
}

/**
 * A deposit's share whose output is there but could not be read (confidential, no key that opens
 * it): neither missing nor a receipt matching nothing, but money whose amount is not proven.
 */
export interface UnprovenEntry {
  depositId: string;
  role: 'destination' | 'split';
  address: string;
  /** the share's due */
  cents: number;
  txid: string;
  vout: number;
  reason: string;
}

export interface Reconciliation {
  matched: MatchedEntry[];
  missing: MissingEntry[];
  unmatched: UnmatchedEntry[];
  paidAfterExpiry: PaidAfterExpiryEntry[];
  unproven: UnprovenEntry[];
  /** not yet as deep as the confirmations setting requires: neither matched nor unmatched yet */
  pending: PendingEntry[];
  /** outputs that paid deposits of other profiles or services sharing the history */
  elsewhere: ElsewhereEntry[];
  /** what verified settlements paid beyond what was due (deposits/reconcile-surplus.ts) */
  surplus: SurplusEntry[];
}

/** A deposit's shares: the destination's and the split's, from the net the create answer gave. */
export function sharesOf(entry: HistoryEntry): Share[] {
  const net = answerCents(entry.answer?.netAmount);
  if (net === null) return [];
  let split = 0;
  const percent = entry.answer?.splitPercent;
  if (entry.splitAddress && typeof percent === 'number') {
    const decimal = decimalFromNumber(percent);
    if (!decimal || decimal.units < 0n || decimal.scale > 4) return [];
    split = Number((BigInt(net) * decimal.units * 10n ** BigInt(4 - decimal.scale)) / 10_000n);
  }
  const basis = splitBasisPoints(entry);
  const basisPoints = basis !== null && basis > 0n ? basis : null;
  const base = { entry, netCents: net, basisPoints };
  const shares: Share[] = [];
  // the split first: the destination's due is the net less what the split received; a split of
  // less than a cent may be rounded to nothing (no output), as verify allows
  if (entry.splitAddress && basisPoints !== null)
    shares.push({
      ...base,
      role: 'split',
      address: entry.splitAddress,
      cents: split,
      mayBeNothing: BigInt(net) * basisPoints < 10_000n,
    });
  // a 100% split leaves the destination exactly nothing: no output is owed to it
  if (!(basisPoints === 10_000n && net - split === 0))
    shares.push({ ...base, role: 'destination', address: entry.destinationAddress, cents: net - split });
  return shares;
}

function splitBasisPoints(entry: HistoryEntry): bigint | null {
  const percent = entry.answer?.splitPercent;
  if (!entry.splitAddress || typeof percent !== 'number') return null;
  const decimal = decimalFromNumber(percent);
  return decimal ? decimal.units * 10n ** BigInt(4 - decimal.scale) : null;
}

/** got ≥ due, to the unit (a due that is not a whole number of units is met by the unit above it). */
function atLeast(got: bigint, due: Fraction): boolean {
  const diff = got * due.den - due.num;
  return due.num % due.den === 0n ? diff >= 0n : diff > -due.den;
}

/**
 * Whether `units` pays a share by the verify rules: a split share is its exact value or that
 * value rounded to the unit or the cent, either way; a destination share is at least its due (the
 * net, or the net less what the split received), to the unit, and less than a cent more (what a
 * cent more is would be another payment). A receipt confirmed in a block earlier than the
 * deposit's creation (less the clock margin) cannot pay it.
 */
function pays(share: Share, receipt: Receipt, precision: number, splitPaid: bigint | undefined): boolean {
  if (receipt.units === null) return false;
  const created = Date.parse(share.entry.at);
  if (receipt.at !== null && Number.isFinite(created) && receipt.at < created - CLOCK_MARGIN_MS) return false;
  const scale = 10n ** BigInt(precision);
  const net: Fraction = { num: BigInt(share.netCents) * scale, den: 100n };
  const exactSplit: Fraction | null =
    share.basisPoints === null
      ? null
      : { num: BigInt(share.netCents) * scale * share.basisPoints, den: 1_000_000n };
  if (share.role === 'split')
    return exactSplit !== null && roundingsOf(exactSplit, precision).includes(receipt.units);
  // the destination: the net, less what the split received
  const less = (split: bigint): Fraction => ({ num: net.num - split * net.den, den: net.den });
  // (no split receipt is nothing received: the destination is then owed the whole net, as verify judges)
  const splits = [exactSplit && splitPaid !== undefined ? splitPaid : 0n];
  const least = less(splits.at(-1)!);
  const most = less(splits[0]!);
  // less than a cent more than due: units x 100 x den < (due + cent) x 100 x den
  const underNext = receipt.units * 100n * most.den < most.num * 100n + scale * most.den;
  return atLeast(receipt.units, least) && underNext;
}

function olderFirst(a: HistoryEntry, b: HistoryEntry): number {
  return a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A share of a finalized deposit whose settlement is not yet deep enough (or a receipt that is not). */
export interface PendingEntry {
  /** null for a receipt that matches no deposit yet */
  depositId: string | null;
  role: 'destination' | 'split' | null;
  address: string;
  cents: number | null;
  /** a receipt's exact amount in reais (decimal text), as in UnmatchedEntry */
  amount?: string | null;
  txid: string;
  vout: number | null;
  confirmations: number;
  required: number;
}

/** An output that paid a deposit of another profile or service sharing this history. */
export interface ElsewhereEntry {
  depositId: string;
  txid: string;
  vout: number;
}

export interface MatchOptions {
  precision: number;
  sinceMs?: number | undefined;
  /** the confirmations a receipt needs to count (the profile's setting, verify's) */
  requiredConfirmations?: number | undefined;
  /** each settlement judged by the verify rules (settlementJudge), by deposit (depositKey of its service and id) */
  judged?: Map<string, SettlementReport> | undefined;
  /** what verifications recorded, by deposit (see RecordedShares) */
  recorded?: RecordedShares | undefined;
  /** the deposits reported on (this profile, this service); the others only take their outputs */
  inScope?: ((entry: HistoryEntry) => boolean) | undefined;
}

/** What the phases of `reconcile` share: the receipts indexed, which are used, and the result so far. */
interface Matching {
  precision: number;
  sinceMs: number | undefined;
  required: number;
  judged: Map<string, SettlementReport> | undefined;
  recorded: RecordedShares | undefined;
  inScope: (entry: HistoryEntry) => boolean;
  /** created on or after --since */
  inRange: (entry: HistoryEntry) => boolean;
  /** reported: in scope and in range */
  shown: (entry: HistoryEntry) => boolean;
  /** as deep as the confirmations setting requires */
  deep: (receipt: Receipt) => boolean;
  oldestFirst: Receipt[];
  byOutput: Map<string, Receipt>;
  /** by script: an address written another way (confidential or not, in upper case) is the same */
  byScript: Map<string, Receipt[]>;
  used: Set<Receipt>;
  /** the outputs verified settlements paid, against their dues */
  paid: SurplusCounter;
  out: Reconciliation;
}

/**
 * Match receipts to the deposits' shares. A deposit whose settlement txid is known is what the
 * verify rules judged of it (`settlementJudge`): verified, its outputs matched; pending, unproven
 * or mismatched as verify would say. The others take the oldest unused output to their address
 * of their amount (see `pays`), confirmed no earlier than the deposit's creation less the clock
 * margin. A receipt counts only once as deep as verify requires: before, it is pending. What is
 * left is matched against expired and failed deposits (paid after lbrl gave up on them), and the
 * rest is unmatched. An output of no value is no money: it is never unmatched.
 */
export function reconcile(
  deposits: HistoryEntry[],
  receipts: Receipt[],
  options: MatchOptions,
): Reconciliation {
  const matching = matchingOf(receipts, options);
  const unknownTxid = matchJudged(deposits, matching);
  matchByAmount(unknownTxid, matching);
  matchPaidAfterExpiry(deposits, matching);
  sortTheRest(matching);
  matching.out.surplus = matching.paid.surpluses(matching.precision, exactReais);
  return matching.out;
}

function matchingOf(receipts: Receipt[], options: MatchOptions): Matching {
  const required = options.requiredConfirmations ?? DEFAULT_CONFIRMATIONS;
  const inScope = options.inScope ?? (() => true);
  const inRange = (e: HistoryEntry) => options.sinceMs === undefined || Date.parse(e.at) >= options.sinceMs;
  const oldestFirst = [...receipts].sort(
    (a, b) => (a.at ?? Number.MAX_SAFE_INTEGER) - (b.at ?? Number.MAX_SAFE_INTEGER),
  );
  const byScript = new Map<string, Receipt[]>();
  for (const receipt of oldestFirst) {
    const list = byScript.get(receipt.script);
    if (list) list.push(receipt);
    else byScript.set(receipt.script, [receipt]);
  }
  return {
    precision: options.precision,
    sinceMs: options.sinceMs,
    required,
    judged: options.judged,
    recorded: options.recorded,
    inScope,
    inRange,
    shown: (e) => inScope(e) && inRange(e),
    deep: (r) => r.confirmations >= required,
    oldestFirst,
    byOutput: new Map(receipts.map((r) => [`${r.txid}:${r.vout}`, r])),
    byScript,
    used: new Set<Receipt>(),
    paid: new SurplusCounter(),
    out: {
      matched: [],
      missing: [],
      unmatched: [],
      paidAfterExpiry: [],
      unproven: [],
      pending: [],
      elsewhere: [],
      surplus: [],
    },
  };
}

/**
 * Which output a share is shown paid by, when the judgement counted several (a script paid by
 * outputs summing several deposits): one that pays it alone first, then one no share took alone.
 */
function outputPicker(matching: Matching): (share: Share, txid: string, outputs: number[]) => number {
  const takenAlone = new Set<Receipt>();
  return (share, txid, outputs) => {
    const mine = [...outputs]
      .sort((a, b) => a - b)
      .flatMap((vout) => matching.byOutput.get(`${txid}:${vout}`) ?? []);
    const alone = mine.find((r) => !takenAlone.has(r) && pays(share, r, matching.precision, undefined));
    if (alone) {
      takenAlone.add(alone);
      return alone.vout;
    }
    return (mine.find((r) => !takenAlone.has(r)) ?? mine[0])?.vout ?? Math.min(...outputs);
  };
}

/**
 * The finalized deposits whose settlement lbrl knows, as the verify rules judged them (the outputs
 * the judgement counted are theirs, whatever their profile); returns those in scope whose
 * settlement lbrl does not know, to be matched by amount.
 */
function matchJudged(deposits: HistoryEntry[], matching: Matching): HistoryEntry[] {
  const { byOutput, used, out, inScope } = matching;
  const finalized = deposits.filter((e) => shownStatus(e) === 'FINALIZED').sort(olderFirst);
  const unknownTxid: HistoryEntry[] = [];
  const pickOutput = outputPicker(matching);
  for (const entry of finalized) {
    const txid = settlementTxidOf(entry, matching.recorded);
    if (!txid) {
      if (inScope(entry)) unknownTxid.push(entry);
      continue;
    }
    const report = matching.judged?.get(depositKey(entry.baseUrl, entry.id));
    // every output the judgement counted is the deposit's (an output of no value too), but those
    // of a share it contradicted
    const contradicted = contradictedRoles(report);
    for (const use of report?.shares ?? []) {
      if (use.depositId !== entry.id || contradicted.has(use.role)) continue;
      if (report?.verdict === 'verified')
        matching.paid.add(
          txid,
          use,
          use.outputs.flatMap((vout) => byOutput.get(`${txid}:${vout}`) ?? []),
          matching.shown(entry),
        );
      for (const vout of use.outputs) {
        const receipt = byOutput.get(`${txid}:${vout}`);
        if (!receipt) continue;
        used.add(receipt);
        if (!inScope(entry)) out.elsewhere.push({ depositId: entry.id, txid, vout });
      }
    }
    if (matching.shown(entry))
      reportJudged(entry, txid, report, out, { required: matching.required, pickOutput });
  }
  return unknownTxid;
}

/** Money that came for a charge lbrl gave up on, or that the service said FAILED. */
function matchPaidAfterExpiry(deposits: HistoryEntry[], matching: Matching): void {
  const { byScript, used, deep, out } = matching;
  const splitPaid = new Map<string, bigint>();
  for (const entry of deposits) {
    const status = shownStatus(entry);
    if ((status !== 'EXPIRED' && status !== 'FAILED') || !matching.inScope(entry)) continue;
    for (const share of sharesOf(entry)) {
      const receipt = (byScript.get(scriptOf(share.address)) ?? []).find(
        (x) => !used.has(x) && deep(x) && pays(share, x, matching.precision, splitPaid.get(share.entry.id)),
      );
      if (!receipt) continue;
      used.add(receipt);
      if (share.role === 'split' && receipt.units !== null) splitPaid.set(entry.id, receipt.units);
      if (matching.inRange(entry))
        out.paidAfterExpiry.push({
          depositId: entry.id,
          status,
          address: share.address,
          txid: receipt.txid,
          vout: receipt.vout,
          cents: share.cents,
        });
    }
  }
}

/** The receipts no deposit took: pending while shallow, else unmatched (an output of no value is no money). */
function sortTheRest(matching: Matching): void {
  const { out, required } = matching;
  const scale = 10n ** BigInt(matching.precision);
  const amountOf = (receipt: Receipt) =>
    receipt.units === null ? null : exactReais(receipt.units, matching.precision);
  for (const receipt of matching.oldestFirst) {
    if (matching.used.has(receipt) || receipt.units === 0n) continue;
    if (matching.sinceMs !== undefined && receipt.at !== null && receipt.at < matching.sinceMs) continue;
    if (!matching.deep(receipt)) {
      out.pending.push({
        depositId: null,
        role: null,
        address: receipt.address,
        cents: receipt.units === null ? null : Number((receipt.units * 100n) / scale),
        amount: amountOf(receipt),
        txid: receipt.txid,
        vout: receipt.vout,
        confirmations: receipt.confirmations,
        required,
      });
      continue;
    }
    out.unmatched.push({
      address: receipt.address,
      txid: receipt.txid,
      vout: receipt.vout,
      cents: receipt.units === null ? null : Number((receipt.units * 100n) / scale),
      amount: amountOf(receipt),
      ...(receipt.unreadable ? { reason: receipt.unreadable } : {}),
    });
  }
}

/** Base units of the asset as reais, exactly: trailing zeros dropped down to two decimals (4.999, 14.85). */
function exactReais(units: bigint, precision: number): string {
  let decimal = { units, scale: precision };
  while (decimal.scale > 2 && decimal.units % 10n === 0n)
    decimal = { units: decimal.units / 10n, scale: decimal.scale - 1 };
  if (decimal.scale < 2) decimal = { units: decimal.units * 10n ** BigInt(2 - decimal.scale), scale: 2 };
  return decimalToString(decimal);
}

function scriptOf(address: string): string {
  const script = addressScript(address);
  return script.ok ? Buffer.from(script.value.script).toString('hex') : '';
}

/** A deposit with a known settlement, as the verify rules judged it, into the reconciliation. */
function reportJudged(
  entry: HistoryEntry,
  txid: string,
  report: SettlementReport | undefined,
  out: Reconciliation,
  how: { required: number; pickOutput: (share: Share, txid: string, outputs: number[]) => number },
): void {
  const contradicted = contradictedRoles(report);
  for (const share of sharesOf(entry)) {
    const use = report?.shares.find((u) => u.depositId === entry.id && u.role === share.role);
    const base = { depositId: entry.id, role: share.role, address: share.address, cents: share.cents };
    if (!report || contradicted.has(share.role)) {
      const wrong = report?.checks.find(
        (c) => c.outcome === 'mismatch' && (c.what === share.role || c.what === `${share.role}-amount`),
      );
      out.missing.push({
        ...base,
        txid,
        reason:
          (wrong ?? report?.checks.find((c) => c.outcome === 'mismatch'))?.detail ??
          "the settlement is not in the explorer's history of the deposit's addresses",
      });
      continue;
    }
    // no output, and verify proved none was due (a split of less than a cent, a 100% split)
    if (!use || use.outputs.length === 0) continue;
    const vout = how.pickOutput(share, txid, use.outputs);
    if (report.verdict === 'pending')
      out.pending.push({ ...base, txid, vout, confirmations: report.confirmations, required: how.required });
    else if (report.verdict === 'unproven')
      out.unproven.push({
        ...base,
        txid,
        vout,
        // the share's own amount check says why its output stayed closed; else the first thing unproven
        reason:
          (
            report.checks.find((c) => c.outcome === 'not-proven' && c.what === `${share.role}-amount`) ??
            report.checks.find((c) => c.outcome === 'not-proven')
          )?.detail ?? 'not proven',
      });
    else out.matched.push({ ...base, txid, vout });
  }
}

/**
 * The shares a judgement contradicts: those whose own check (address, amount) is a mismatch; or,
 * when a mismatch names no share (the total, the timing, the asset, the transaction), both.
 */
function contradictedRoles(report: SettlementReport | undefined): Set<'destination' | 'split'> {
  const roles = new Set<'destination' | 'split'>();
  const mismatches = report?.checks.filter((c) => c.outcome === 'mismatch') ?? [];
  for (const check of mismatches) {
    if (check.what === 'destination' || check.what === 'destination-amount') roles.add('destination');
    if (check.what === 'split' || check.what === 'split-amount') roles.add('split');
  }
  if (roles.size === 0 && mismatches.length > 0) return new Set(['destination', 'split']);
  return roles;
}

/**
 * The deposits whose settlement txid lbrl does not know: each share takes the oldest unused output
 * to its address that pays it (`pays`); a deep one is matched, a shallow one pending; an output
 * there that could not be read is the share's, its amount not proven.
 */
function matchByAmount(entries: HistoryEntry[], world: Matching): void {
  const { byScript, used, out } = world;
  const splitPaid = new Map<string, bigint>();
  for (const share of entries.flatMap(sharesOf)) {
    const candidates = (byScript.get(scriptOf(share.address)) ?? []).filter((x) => !used.has(x));
    const fits = (x: Receipt) => pays(share, x, world.precision, splitPaid.get(share.entry.id));
    const created = Date.parse(share.entry.at);
    const receipt =
      candidates.find((x) => world.deep(x) && fits(x)) ??
      candidates.find((x) => !world.deep(x) && fits(x)) ??
      candidates.find(
        (x) =>
          x.units === null &&
          !(x.at !== null && Number.isFinite(created) && x.at < created - CLOCK_MARGIN_MS),
      );
    if (receipt) {
      used.add(receipt);
      if (share.role === 'split' && receipt.units !== null) splitPaid.set(share.entry.id, receipt.units);
    }
    if (!world.shown(share.entry)) continue;
    const base = { depositId: share.entry.id, role: share.role, address: share.address, cents: share.cents };
    if (!receipt) {
      if (!share.mayBeNothing) out.missing.push({ ...base, txid: null });
    } else if (receipt.units === null)
      out.unproven.push({
        ...base,
        txid: receipt.txid,
        vout: receipt.vout,
        reason: receipt.unreadable ?? 'the output could not be read',
      });
    else if (!world.deep(receipt))
      out.pending.push({
        ...base,
        txid: receipt.txid,
        vout: receipt.vout,
        confirmations: receipt.confirmations,
        required: world.required,
      });
    else out.matched.push({ ...base, txid: receipt.txid, vout: receipt.vout });
  }
}
