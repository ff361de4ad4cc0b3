/**
 * The chain side of the ledger: what the profile's addresses received in the pinned asset (from
 * an Esplora server's address history, each transaction read whole, authenticated by its txid and
 * its confidential outputs opened with the stored keys, by the settlement code verify uses), and
 * how it matches the history's deposits: one output pays at most one deposit's share, within the
 * verify rules' tolerance of less than a cent.
 */
import type { AddressTx } from '../api/esplora.js';
import { decimalFromNumber } from '../domain/decimal.js';
import type { Network } from '../domain/liquid/networks.js';
import { addressScript } from '../domain/liquid/script.js';
import {
  analyseSettlement,
  type BlindingKeys,
  CLOCK_MARGIN_MS,
  type Fraction,
  roundingsOf,
} from '../domain/liquid/settlement.js';
import type { Zkp } from '../domain/liquid/unblind.js';
import { exactCents } from '../domain/money.js';
import { LbrlError } from '../errors.js';
import type { HistoryEntry } from '../store/history.js';
import { shownStatus } from './ledger.js';

/** The explorer calls reconcile makes (EsploraClient has them). */
export interface AddressExplorer {
  getAddressTxs(address: string, lastSeen?: string): Promise<AddressTx[]>;
  getTxHex(txid: string): Promise<string | null>;
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
  /** why its amount is unknown */
  unreadable?: string;
}

/** How far before --since the chain and the history are read, so a settlement of a deposit just before it still matches. */
export const MATCH_MARGIN_MS = 2 * 24 * 3600 * 1000;
/** A lying explorer cannot keep reconcile paging for ever. */
const MAX_PAGES = 10_000;

/**
 * Every receipt of `addresses` since `sinceMs` (newest first per address): the address history
 * is paged with `/txs/chain/:last_seen_txid` until a page is older than `sinceMs` or empty.
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
  },
): Promise<Receipt[]> {
  const times = new Map<string, number | null>();
  for (const address of options.addresses) {
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
        const at =
          tx.status.confirmed && typeof tx.status.block_time === 'number'
            ? tx.status.block_time * 1000
            : null;
        times.set(txid, at);
        if (at !== null) oldest = Math.min(oldest, at);
      }
      const confirmed = txs.filter((t) => t.status.confirmed);
      if (confirmed.length === 0 || (options.sinceMs !== undefined && oldest < options.sinceMs)) ended = true;
      else lastSeen = confirmed[confirmed.length - 1]!.txid;
    }
    if (!ended)
      throw new LbrlError(
        `the explorer's address history of ${address} did not end within ${MAX_PAGES} pages: read with --since, or check the explorer`,
        'contract',
      );
  }
  const receipts: Receipt[] = [];
  const seen = new Set<string>();
  const pseudo = options.addresses.map((address) => ({
    id: '',
    destinationAddress: address,
    netAmount: 0,
    amountInCents: 0,
  }));
  for (const [txid, at] of times) {
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
    for (const found of analysis.addresses) {
      for (const out of found.outputs) {
        // one output, one receipt: an address written two ways (confidential or not, in upper
        // case) names the same script
        const key = `${txid}:${out.index}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (out.opened === 'explicit' || out.opened === 'unblinded') {
          if (out.assetId !== options.assetId || out.value === null) continue; // another asset: not the shop's money
          receipts.push({
            txid,
            vout: out.index,
            address: found.address,
            script: found.script,
            units: out.value,
            at,
          });
        } else {
          receipts.push({
            txid,
            vout: out.index,
            address: found.address,
            script: found.script,
            units: null,
            at,
            unreadable: out.note ?? `confidential output (${out.opened})`,
          });
        }
      }
    }
  }
  return receipts;
}

/** What one deposit should have received at one address. */
interface Share {
  entry: HistoryEntry;
  role: 'destination' | 'split';
  address: string;
  cents: number;
  txid: string | undefined;
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
  const settlement = entry.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  // in its one form: the checked answer's, as the history recorded it (a txid edited into another
  // form matches no output, so its share is not found rather than found in the wrong place)
  const txid = typeof settlement?.liquidTxid === 'string' ? settlement.liquidTxid : undefined;
  const basis = splitBasisPoints(entry);
  const basisPoints = basis !== null && basis > 0n ? basis : null;
  const base = { entry, txid, netCents: net, basisPoints };
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

/**
 * Whether outputs summing to `units` pay these shares together (several deposits settled by one
 * transaction into one output, as verify judges them: the shares due to one script summed). A
 * destination's dues (each the net less what its split received) summed: at least that, to the
 * unit, and less than a cent more; a split's exact shares summed: less than a cent per share
 * either way. None may be confirmed before its deposit was created.
 */
function paysTogether(
  shares: Share[],
  units: bigint,
  at: number | null,
  precision: number,
  splitPaid: Map<string, bigint>,
  summedSplit: Set<string>,
): boolean {
  const scale = 10n ** BigInt(precision);
  const parts = 1_000_000n;
  let due = 0n;
  for (const share of shares) {
    const created = Date.parse(share.entry.at);
    if (at !== null && Number.isFinite(created) && at < created - CLOCK_MARGIN_MS) return false;
    if (share.role === 'split') {
      if (share.basisPoints === null) return false;
      due += BigInt(share.netCents) * scale * share.basisPoints;
    } else due += BigInt(share.netCents) * scale * 10_000n - (splitPaid.get(share.entry.id) ?? 0n) * parts;
  }
  const diff = units * parts - due;
  const cent = (scale / 100n > 0n ? scale / 100n : 1n) * parts;
  if (shares[0]!.role === 'split')
    return diff > -cent * BigInt(shares.length) && diff < cent * BigInt(shares.length);
  // each split counted from a summed output was taken at its exact share, rounded: a unit each way
  const rounded = BigInt(shares.filter((x) => x.basisPoints !== null && summedSplit.has(x.entry.id)).length);
  return (rounded > 0n ? diff > -rounded * parts : atLeast(units, { num: due, den: parts })) && diff < cent;
}

/**
 * Match receipts to the deposits' shares. A share whose settlement txid is known takes an output
 * of that transaction first; the others, the oldest unused output to their address of their
 * amount, by the verify rules (see `pays`), confirmed no earlier than the deposit's creation
 * less the clock margin. What is left is matched against expired and failed deposits
 * (paid after lbrl gave up on them), and the rest is unmatched.
 */
export function reconcile(
  deposits: HistoryEntry[],
  receipts: Receipt[],
  options: {
    precision: number;
    sinceMs?: number | undefined;
    /**
     * What verify counted for the deposits it verified (their txid and, per role, the outputs):
     * those outputs are theirs, whatever else fits them. Outputs shared by deposits verify judged
     * together are each of theirs.
     */
    verified?: Map<string, { txid: string; shares: Array<{ role: string; outputs: number[] }> }> | undefined;
  },
): Reconciliation {
  const scale = 10n ** BigInt(options.precision);
  /** what each deposit's split received, by the receipt matched to it */
  const splitPaid = new Map<string, bigint>();
  const fits = (r: Receipt, share: Share) => pays(share, r, options.precision, splitPaid.get(share.entry.id));
  const oldestFirst = [...receipts].sort(
    (a, b) => (a.at ?? Number.MAX_SAFE_INTEGER) - (b.at ?? Number.MAX_SAFE_INTEGER),
  );
  const used = new Set<Receipt>();
  // by script: an address written another way (confidential or not, in upper case) is the same
  const byScript = new Map<string, Receipt[]>();
  for (const r of oldestFirst) byScript.set(r.script, [...(byScript.get(r.script) ?? []), r]);
  const scriptOf = (address: string) => {
    const script = addressScript(address);
    return script.ok ? Buffer.from(script.value.script).toString('hex') : '';
  };
  const out: Reconciliation = { matched: [], missing: [], unmatched: [], paidAfterExpiry: [], unproven: [] };
  const inRange = (e: HistoryEntry) => options.sinceMs === undefined || Date.parse(e.at) >= options.sinceMs;

  // the oldest deposit first: of two naming one output, the earlier keeps it (as verify judges)
  const finalized = deposits
    .filter((e) => shownStatus(e) === 'FINALIZED')
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const shares = finalized.flatMap(sharesOf);
  const take = (share: Share, pick: (r: Receipt) => boolean): Receipt | undefined => {
    const receipt = (byScript.get(scriptOf(share.address)) ?? []).find(
      (x) => !used.has(x) && fits(x, share) && pick(x),
    );
    if (receipt) {
      used.add(receipt);
      if (share.role === 'split' && receipt.units !== null) splitPaid.set(share.entry.id, receipt.units);
    }
    return receipt;
  };
  const result = new Map<Share, Receipt | undefined>();
  // the outputs verify counted for a deposit are its own
  for (const share of shares) {
    const verified = options.verified?.get(share.entry.id);
    const outputs = verified?.shares.find((s) => s.role === share.role)?.outputs;
    if (!verified || !outputs || outputs.length === 0) continue;
    const mine = receipts.filter(
      (r) => r.txid === verified.txid && outputs.includes(r.vout) && r.units !== null,
    );
    if (mine.length !== outputs.length) continue; // not all on chain now: matched by the rules below
    for (const r of mine) used.add(r);
    result.set(share, mine.sort((a, b) => a.vout - b.vout)[0]);
    if (share.role === 'split')
      splitPaid.set(
        share.entry.id,
        mine.reduce((sum, r) => sum + r.units!, 0n),
      );
  }
  // a share whose settlement txid is known takes an output of that transaction: one of its own
  // first; the shares of one transaction and script left then, several deposits settled into one
  // output (or several), take those outputs together, each output counted once
  const byTxScript = new Map<string, Share[]>();
  /** the deposits whose split was counted from an output summing several splits */
  const summedSplit = new Set<string>();
  for (const share of shares) {
    if (result.has(share) || !share.txid) continue;
    const key = `${share.txid} ${scriptOf(share.address)}`;
    byTxScript.set(key, [...(byTxScript.get(key) ?? []), share]);
  }
  for (const group of byTxScript.values()) {
    for (const share of group)
      result.set(
        share,
        take(share, (r) => r.txid === share.txid),
      );
    for (const role of ['split', 'destination'] as const) {
      const left = group.filter((share) => share.role === role && !result.get(share));
      if (left.length < 2) continue;
      const outputs = (byScript.get(scriptOf(left[0]!.address)) ?? []).filter(
        (r) => r.txid === left[0]!.txid && !used.has(r) && r.units !== null,
      );
      if (outputs.length === 0) continue;
      const total = outputs.reduce((sum, r) => sum + r.units!, 0n);
      const at = outputs[0]!.at;
      if (!paysTogether(left, total, at, options.precision, splitPaid, summedSplit)) continue;
      for (const r of outputs) used.add(r);
      const first = [...outputs].sort((x, y) => x.vout - y.vout)[0]!;
      for (const share of left) {
        result.set(share, first);
        // what each split received of the sum: its exact share, to the nearest unit
        if (role === 'split' && share.basisPoints !== null) {
          splitPaid.set(
            share.entry.id,
            (BigInt(share.netCents) * scale * share.basisPoints + 500_000n) / 1_000_000n,
          );
          summedSplit.add(share.entry.id);
        }
      }
    }
  }
  for (const share of shares)
    if (!result.get(share))
      result.set(
        share,
        take(share, () => true),
      );
  // a share with no output it is proven to take, and an output to its address that could not be
  // read: the output is that share's, amount not proven (once; the shares of one transaction
  // settled into it each name it)
  const unreadable = new Map<Share, Receipt>();
  const unreadableOf = new Map<string, Receipt>();
  // the shares whose settlement txid is known first: an output of their transaction is theirs
  for (const share of [...shares.filter((x) => x.txid), ...shares.filter((x) => !x.txid)]) {
    if (result.get(share)) continue;
    const script = scriptOf(share.address);
    const known = share.txid ? unreadableOf.get(`${share.txid} ${script}`) : undefined;
    const created = Date.parse(share.entry.at);
    const closedOutput =
      known ??
      (byScript.get(script) ?? []).find(
        (x) =>
          x.units === null &&
          !used.has(x) &&
          (share.txid ? x.txid === share.txid : true) &&
          !(x.at !== null && Number.isFinite(created) && x.at < created - CLOCK_MARGIN_MS),
      );
    if (!closedOutput) continue;
    used.add(closedOutput);
    unreadable.set(share, closedOutput);
    unreadableOf.set(`${closedOutput.txid} ${script}`, closedOutput);
  }
  for (const share of shares) {
    if (!inRange(share.entry)) continue;
    const receipt = result.get(share);
    const closed = unreadable.get(share);
    if (!receipt && closed) {
      out.unproven.push({
        depositId: share.entry.id,
        role: share.role,
        address: share.address,
        cents: share.cents,
        txid: closed.txid,
        vout: closed.vout,
        reason: closed.unreadable ?? 'the output could not be read',
      });
      continue;
    }
    if (!receipt && share.mayBeNothing) continue;
    if (receipt)
      out.matched.push({
        depositId: share.entry.id,
        role: share.role,
        address: share.address,
        txid: receipt.txid,
        vout: receipt.vout,
        cents: share.cents,
      });
    else
      out.missing.push({
        depositId: share.entry.id,
        role: share.role,
        address: share.address,
        cents: share.cents,
        txid: share.txid ?? null,
      });
  }
  // money that came for a charge lbrl gave up on, or that the service said FAILED
  for (const entry of deposits) {
    const status = shownStatus(entry);
    if (status !== 'EXPIRED' && status !== 'FAILED') continue;
    for (const share of sharesOf(entry)) {
      const receipt = take(share, () => true);
      if (receipt && inRange(entry))
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
    if (used.has(receipt)) continue;
    if (options.sinceMs !== undefined && receipt.at !== null && receipt.at < options.sinceMs) continue;
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
