/**
 * The chain side of the ledger: what the profile's addresses received in the pinned asset (from
 * an Esplora server's address history, each transaction read whole, authenticated by its txid and
 * its confidential outputs opened with the stored keys, by the settlement code verify uses), and
 * how it matches the history's deposits: a deposit whose settlement is known is judged by verify's
 * own rules (the same confirmations, amounts, outputs), and one output pays at most one deposit's
 * share across every profile and service of the history.
 */
import type { AddressTx } from '../api/esplora.js';
import { decimalFromNumber } from '../domain/decimal.js';
import type { Network } from '../domain/liquid/networks.js';
import { addressScript } from '../domain/liquid/script.js';
import {
  type AssetInfo,
  type BlindingKeys,
  type EarlierShare,
  type Fraction,
  type SettlementDeposit,
  type SettlementReport,
  txStatusOf,
} from '../domain/liquid/settlement/model.js';
import { analyseSettlement } from '../domain/liquid/settlement/outputs.js';
import { roundingsOf } from '../domain/liquid/settlement/shares.js';
import { CLOCK_MARGIN_MS, confirmationsOf } from '../domain/liquid/settlement/timing.js';
import { DEFAULT_CONFIRMATIONS, judgeSettlement } from '../domain/liquid/settlement.js';
import type { Zkp } from '../domain/liquid/unblind.js';
import { exactCents } from '../domain/money.js';
import { LbrlError } from '../errors.js';
import type { HistoryEntry, StoredShare } from '../store/history.js';
import { shownStatus } from './ledger.js';
import { earlierShares } from './verify.js';

/** The explorer calls reconcile makes (EsploraClient has them). */
export interface AddressExplorer {
  getAddressTxs(address: string, lastSeen?: string): Promise<AddressTx[]>;
  getTxHex(txid: string): Promise<string | null>;
  getTipHeight(): Promise<number>;
}

/** One output paid to one of the profile's addresses in the pinned asset (or one that could not be read). */
export interface Receipt {
  txid: string;
  vout: number;
  address: string;
  /** the output's script (hex): one address may be written several ways */
  script: string;
  /** base units of the asset; null when the output could not be opened */
  units: bigint | null;
  /** when it was confirmed (ms), or null while unconfirmed */
  at: number | null;
  /** how deep its block is below the explorer's tip (0 in the mempool), as verify counts them */
  confirmations: number;
  /** why its amount is unknown */
  unreadable?: string;
}

/** How far before --since the chain and the history are read, so a settlement of a deposit just before it still matches. */
export const MATCH_MARGIN_MS = 2 * 24 * 3600 * 1000;
/** A lying explorer cannot keep reconcile paging for ever. */
const MAX_PAGES = 10_000;

/** A transaction read whole from an address's history: what a settlement's judgement needs. */
export interface ListedTx {
  txid: string;
  hex: string;
  status: AddressTx['status'];
  /** the explorer's tip, read after every address was listed (never older than a block listed) */
  tipHeight: number;
}

/**
 * Every receipt of `addresses` since `sinceMs` (newest first per address): the address history
 * is paged with `/txs/chain/:last_seen_txid` until a page is older than `sinceMs` or empty. Each
 * transaction read whole is handed to `onTransaction` too (the judgement of the settlements it
 * carries), and forgotten: memory holds the receipts, never the transactions.
 */
export async function readReceipts(
  explorer: AddressExplorer,
  options: {
    addresses: string[];
    sinceMs?: number | undefined;
    network: Network;
    assetId: string;
    keys: BlindingKeys;
    zkp: Zkp | null;
    onTransaction?: ((tx: ListedTx) => void) | undefined;
  },
): Promise<Receipt[]> {
  const statuses = await listAddressTxs(explorer, options.addresses, options.sinceMs);
  // the tip after the listing, as verify reads it after the status: never older than a block listed
  const tipHeight = await explorer.getTipHeight();
  const receipts: Receipt[] = [];
  const seen = new Set<string>();
  const pseudo = options.addresses.map((address) => ({
    id: '',
    destinationAddress: address,
    netAmount: 0,
    amountInCents: 0,
  }));
  for (const [txid, status] of statuses) {
    const at = confirmedAt(status);
    if (options.sinceMs !== undefined && at !== null && at < options.sinceMs) continue;
    const hex = await explorer.getTxHex(txid);
    if (hex === null) continue; // listed, then gone (a replaced unconfirmed transaction)
    // the explorer's raw transaction is believed only when it hashes to the txid asked for
    const analysis = analyseSettlement({
      txid,
      txHex: hex,
      network: options.network,
      deposits: pseudo,
      keys: options.keys,
      zkp: options.zkp,
    });
    const forged = analysis.problems.find((p) => p.what === 'transaction');
    if (forged) throw new LbrlError(`the explorer's transaction ${txid}: ${forged.detail}`, 'contract');
    const height = status.confirmed ? (status.block_height ?? null) : null;
    if (height !== null && height > tipHeight)
      throw new LbrlError(
        `the explorer puts transaction ${txid} in block ${height}, above its own tip ${tipHeight}: nothing is concluded from it`,
        'contract',
      );
    const confirmations = confirmationsOf({ confirmed: status.confirmed, blockHeight: height }, tipHeight);
    options.onTransaction?.({ txid, hex, status, tipHeight });
    for (const found of analysis.addresses) {
      for (const out of found.outputs) {
        // one output, one receipt: an address written two ways (confidential or not, in upper
        // case) names the same script
        const key = `${txid}:${out.index}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const base = {
          txid,
          vout: out.index,
          address: found.address,
          script: found.script,
          at,
          confirmations,
        };
        if (out.opened === 'explicit' || out.opened === 'unblinded') {
          if (out.assetId !== options.assetId || out.value === null) continue; // another asset: not the shop's money
          receipts.push({ ...base, units: out.value });
        } else {
          receipts.push({
            ...base,
            units: null,
            unreadable: out.note ?? `confidential output (${out.opened})`,
          });
        }
      }
    }
  }
  return receipts;
}

function confirmedAt(status: AddressTx['status']): number | null {
  return status.confirmed && typeof status.block_time === 'number' ? status.block_time * 1000 : null;
}

/** The transactions of each address since `sinceMs`, with the status the listing gave. */
async function listAddressTxs(
  explorer: AddressExplorer,
  addresses: string[],
  sinceMs: number | undefined,
): Promise<Map<string, AddressTx['status']>> {
  const statuses = new Map<string, AddressTx['status']>();
  for (const address of addresses) {
    let lastSeen: string | undefined;
    // each page of one address's history holds transactions older than the last: a txid met
    // again is an explorer that repeats or loops, whose history cannot be read whole
    const listed = new Set<string>();
    let ended = false;
    for (let page = 0; page < MAX_PAGES && !ended; page++) {
      const txs = await explorer.getAddressTxs(address, lastSeen);
      let oldest = Number.POSITIVE_INFINITY;
      for (const tx of txs) {
        const txid = tx.txid; // in its one form: the explorer client's shape (api/esplora.ts)
        if (listed.has(txid))
          throw new LbrlError(
            `the explorer's address history of ${address} repeats transaction ${txid} (page ${page + 1}): it cannot be read whole, so nothing is concluded from it`,
            'contract',
          );
        listed.add(txid);
        statuses.set(txid, tx.status);
        const at = confirmedAt(tx.status);
        if (at !== null) oldest = Math.min(oldest, at);
      }
      const confirmed = txs.filter((t) => t.status.confirmed);
      if (confirmed.length === 0 || (sinceMs !== undefined && oldest < sinceMs)) ended = true;
      else lastSeen = confirmed[confirmed.length - 1]!.txid;
    }
    if (!ended)
      throw new LbrlError(
        `the explorer's address history of ${address} did not end within ${MAX_PAGES} pages: read with --since, or check the explorer`,
        'contract',
      );
  }
  return statuses;
}

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
  /** null when the output could not be opened (reason says why) */
  cents: number | null;
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
}

/** A deposit's shares: the destination's and the split's, from the net the create answer gave. */
export function sharesOf(entry: HistoryEntry): Share[] {
  const net = exactCents(entry.answer?.netAmount);
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

/** What verifications recorded, by deposit: the transaction and the outputs each counted. */
export type RecordedShares = Map<string, { txid: string; shares: StoredShare[] }>;

/**
 * The settlement transaction lbrl knows of a deposit: its final answer's, else the one a
 * verification proved. As the history recorded it: a txid edited into another form names no
 * transaction listed, so its share is not found rather than found in the wrong place.
 */
export function settlementTxidOf(entry: HistoryEntry, recorded?: RecordedShares): string | undefined {
  const settlement = entry.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  if (typeof settlement?.liquidTxid === 'string') return settlement.liquidTxid;
  return recorded?.get(entry.id)?.txid;
}

/** The deposit as the settlement judge reads it: lbrl's own request and creation time. */
function settlementDepositOf(entry: HistoryEntry): SettlementDeposit | undefined {
  const net = entry.answer?.netAmount;
  if (typeof net !== 'number' || !Number.isFinite(net)) return undefined;
  const percent = entry.answer?.splitPercent;
  return {
    id: entry.id,
    destinationAddress: entry.destinationAddress,
    splitAddress: entry.splitAddress,
    splitPercent: typeof percent === 'number' ? percent : null,
    netAmount: net,
    amountInCents: entry.amountInCents,
    createdAt: entry.at,
    origin: { kind: 'requested' },
  };
}

/** What judging settlements needs besides the transactions: the profile's chain settings. */
export interface JudgeSettings {
  network: Network;
  assetId: string;
  /** the pinned asset's registry data, its precision proven */
  asset: AssetInfo;
  keys: BlindingKeys;
  zkp: Zkp | null;
  /** the profile's confirmations setting: verify's */
  requiredConfirmations: number;
}

/**
 * The judge of every settlement transaction met while reading the addresses: the deposits naming
 * it (whatever their profile or service: one output pays one deposit across them all) are judged
 * by verify's own rules (`analyseSettlement`, `judgeSettlement`). A deposit a verification
 * recorded is judged with the others' recorded shares, as a verification again would be (its
 * outputs stay its own); the others together, as `deposit verify` of them all in one run would
 * judge them, counting every recorded share as taken.
 */
export function settlementJudge(
  deposits: HistoryEntry[],
  recorded: RecordedShares,
  settings: JudgeSettings,
): { onTransaction(tx: ListedTx): void; judged: Map<string, SettlementReport> } {
  const byTxid = new Map<string, HistoryEntry[]>();
  for (const entry of deposits) {
    if (shownStatus(entry) !== 'FINALIZED') continue;
    const txid = settlementTxidOf(entry, recorded);
    if (!txid) continue;
    const group = byTxid.get(txid);
    if (group) group.push(entry);
    else byTxid.set(txid, [entry]);
  }
  // what verifications recorded, by transaction: one pass, not one per transaction met
  const recordedByTxid = new Map<string, Array<[string, { txid: string; shares: StoredShare[] }]>>();
  for (const [id, fact] of recorded)
    recordedByTxid.set(fact.txid, [...(recordedByTxid.get(fact.txid) ?? []), [id, fact]]);
  const judged = new Map<string, SettlementReport>();
  const onTransaction = (tx: ListedTx) => {
    const group = byTxid.get(tx.txid);
    if (!group) return;
    const recordedHere = recordedByTxid.get(tx.txid) ?? [];
    const sharesRecorded = (except: string) =>
      earlierShares(
        {
          sharesOf: () =>
            recordedHere.filter(([id]) => id !== except).map(([id, r]) => ({ id, shares: r.shares })),
        },
        tx.txid,
      );
    const judge = (entries: HistoryEntry[], earlier: EarlierShare[]) => {
      const group = entries.flatMap((entry) => settlementDepositOf(entry) ?? []);
      if (group.length === 0) return;
      const analysis = analyseSettlement({
        txid: tx.txid,
        txHex: tx.hex,
        network: settings.network,
        deposits: group,
        keys: settings.keys,
        zkp: settings.zkp,
      });
      const report = judgeSettlement(analysis, {
        status: txStatusOf(tx.status),
        tipHeight: tx.tipHeight,
        expectedAssetId: settings.assetId,
        requiredConfirmations: settings.requiredConfirmations,
        assets: { [settings.assetId]: settings.asset },
        earlier,
      });
      for (const deposit of group) judged.set(deposit.id, report);
    };
    const isRecorded = (entry: HistoryEntry) => recorded.get(entry.id)?.txid === tx.txid;
    for (const entry of group.filter(isRecorded)) judge([entry], sharesRecorded(entry.id));
    judge(
      group.filter((entry) => !isRecorded(entry)),
      sharesRecorded(''),
    );
  };
  return { onTransaction, judged };
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
  /** each settlement judged by the verify rules (settlementJudge), by deposit id */
  judged?: Map<string, SettlementReport> | undefined;
  /** what verifications recorded, by deposit id */
  recorded?: RecordedShares | undefined;
  /** the deposits reported on (this profile, this service); the others only take their outputs */
  inScope?: ((entry: HistoryEntry) => boolean) | undefined;
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
  const scale = 10n ** BigInt(options.precision);
  const required = options.requiredConfirmations ?? DEFAULT_CONFIRMATIONS;
  const inScope = options.inScope ?? (() => true);
  const inRange = (e: HistoryEntry) => options.sinceMs === undefined || Date.parse(e.at) >= options.sinceMs;
  const shown = (e: HistoryEntry) => inScope(e) && inRange(e);
  const deep = (r: Receipt) => r.confirmations >= required;
  const out: Reconciliation = {
    matched: [],
    missing: [],
    unmatched: [],
    paidAfterExpiry: [],
    unproven: [],
    pending: [],
    elsewhere: [],
  };
  const oldestFirst = [...receipts].sort(
    (a, b) => (a.at ?? Number.MAX_SAFE_INTEGER) - (b.at ?? Number.MAX_SAFE_INTEGER),
  );
  const byOutput = new Map(receipts.map((r) => [`${r.txid}:${r.vout}`, r]));
  const used = new Set<Receipt>();
  // by script: an address written another way (confidential or not, in upper case) is the same
  const byScript = new Map<string, Receipt[]>();
  for (const receipt of oldestFirst) {
    const list = byScript.get(receipt.script);
    if (list) list.push(receipt);
    else byScript.set(receipt.script, [receipt]);
  }
  const finalized = deposits.filter((e) => shownStatus(e) === 'FINALIZED').sort(olderFirst);
  const unknownTxid: HistoryEntry[] = [];
  // which output a share is shown paid by, when the judgement counted several (a script paid by
  // outputs summing several deposits): one that pays it alone first, then one no share took alone
  const takenAlone = new Set<Receipt>();
  const pickOutput = (share: Share, txid: string, outputs: number[]): number => {
    const mine = [...outputs].sort((a, b) => a - b).flatMap((vout) => byOutput.get(`${txid}:${vout}`) ?? []);
    const alone = mine.find((r) => !takenAlone.has(r) && pays(share, r, options.precision, undefined));
    if (alone) {
      takenAlone.add(alone);
      return alone.vout;
    }
    return (mine.find((r) => !takenAlone.has(r)) ?? mine[0])?.vout ?? Math.min(...outputs);
  };
  for (const entry of finalized) {
    const txid = settlementTxidOf(entry, options.recorded);
    if (!txid) {
      if (inScope(entry)) unknownTxid.push(entry);
      continue;
    }
    const report = options.judged?.get(entry.id);
    // every output the judgement counted is the deposit's (an output of no value too), but those
    // of a share it contradicted
    const contradicted = contradictedRoles(report);
    for (const use of report?.shares ?? []) {
      if (use.depositId !== entry.id || contradicted.has(use.role)) continue;
      for (const vout of use.outputs) {
        const receipt = byOutput.get(`${txid}:${vout}`);
        if (!receipt) continue;
        used.add(receipt);
        if (!inScope(entry)) out.elsewhere.push({ depositId: entry.id, txid, vout });
      }
    }
    if (shown(entry)) reportJudged(entry, txid, report, out, { required, pickOutput });
  }
  matchByAmount(unknownTxid, { byScript, used, deep, precision: options.precision, shown, out, required });
  // money that came for a charge lbrl gave up on, or that the service said FAILED
  const splitPaid = new Map<string, bigint>();
  for (const entry of deposits) {
    const status = shownStatus(entry);
    if ((status !== 'EXPIRED' && status !== 'FAILED') || !inScope(entry)) continue;
    for (const share of sharesOf(entry)) {
      const receipt = (byScript.get(scriptOf(share.address)) ?? []).find(
        (x) => !used.has(x) && deep(x) && pays(share, x, options.precision, splitPaid.get(share.entry.id)),
      );
      if (!receipt) continue;
      used.add(receipt);
      if (share.role === 'split' && receipt.units !== null) splitPaid.set(entry.id, receipt.units);
      if (inRange(entry))
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
  for (const receipt of oldestFirst) {
    if (used.has(receipt) || receipt.units === 0n) continue;
    if (options.sinceMs !== undefined && receipt.at !== null && receipt.at < options.sinceMs) continue;
    if (!deep(receipt)) {
      out.pending.push({
        depositId: null,
        role: null,
        address: receipt.address,
        cents: receipt.units === null ? null : Number((receipt.units * 100n) / scale),
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
      ...(receipt.unreadable ? { reason: receipt.unreadable } : {}),
    });
  }
  return out;
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
        reason: report.checks.find((c) => c.outcome === 'not-proven')?.detail ?? 'not proven',
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
function matchByAmount(
  entries: HistoryEntry[],
  world: {
    byScript: Map<string, Receipt[]>;
    used: Set<Receipt>;
    deep: (r: Receipt) => boolean;
    precision: number;
    shown: (e: HistoryEntry) => boolean;
    out: Reconciliation;
    required: number;
  },
): void {
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
