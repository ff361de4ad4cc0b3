/**
 * The chain side of the ledger: what the profile's addresses received in the pinned asset (from
 * an Esplora server's address history, each transaction read whole, authenticated by its txid and
 * its confidential outputs opened with the stored keys, by the settlement code verify uses), and
 * how it matches the history's deposits: one output pays at most one deposit's share, within the
 * verify rules' tolerance of less than a cent.
 */
import type { AddressTx } from '../api/esplora.js';
import { decimalFromNumber, decimalToCents } from '../domain/decimal.js';
import type { Network } from '../domain/liquid/networks.js';
import { analyseSettlement, type BlindingKeys } from '../domain/liquid/settlement.js';
import type { Zkp } from '../domain/liquid/unblind.js';
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
  o: {
    addresses: string[];
    sinceMs?: number | undefined;
    network: Network;
    assetId: string;
    keys: BlindingKeys;
    zkp: Zkp | null;
  },
): Promise<Receipt[]> {
  const times = new Map<string, number | null>();
  for (const address of o.addresses) {
    let lastSeen: string | undefined;
    // each page of one address's history holds transactions older than the last: a txid met
    // again is an explorer that repeats or loops, whose history cannot be read whole
    const listed = new Set<string>();
    let ended = false;
    for (let page = 0; page < MAX_PAGES && !ended; page++) {
      const txs = await explorer.getAddressTxs(address, lastSeen);
      let oldest = Number.POSITIVE_INFINITY;
      for (const tx of txs) {
        if (listed.has(tx.txid))
          throw new LbrlError(
            `the explorer's address history of ${address} repeats transaction ${tx.txid} (page ${page + 1}): it cannot be read whole, so nothing is concluded from it`,
            'contract',
          );
        listed.add(tx.txid);
        const at =
          tx.status.confirmed && typeof tx.status.block_time === 'number'
            ? tx.status.block_time * 1000
            : null;
        times.set(tx.txid, at);
        if (at !== null) oldest = Math.min(oldest, at);
      }
      const confirmed = txs.filter((t) => t.status.confirmed);
      if (confirmed.length === 0 || (o.sinceMs !== undefined && oldest < o.sinceMs)) ended = true;
      else lastSeen = confirmed[confirmed.length - 1]!.txid;
    }
    if (!ended)
      throw new LbrlError(
        `the explorer's address history of ${address} did not end within ${MAX_PAGES} pages: read with --since, or check the explorer`,
        'contract',
      );
  }
  const receipts: Receipt[] = [];
  const pseudo = o.addresses.map((address) => ({
    id: '',
    destinationAddress: address,
    netAmount: 0,
    amountInCents: 0,
  }));
  for (const [txid, at] of times) {
    if (o.sinceMs !== undefined && at !== null && at < o.sinceMs) continue;
    const hex = await explorer.getTxHex(txid);
    if (hex === null) continue; // listed, then gone (a replaced unconfirmed transaction)
    // the explorer's raw transaction is believed only when it hashes to the txid asked for
    const analysis = analyseSettlement({
      txid,
      txHex: hex,
      network: o.network,
      deposits: pseudo,
      keys: o.keys,
      zkp: o.zkp,
    });
    const forged = analysis.problems.find((p) => p.what === 'transaction');
    if (forged) throw new LbrlError(`the explorer's transaction ${txid}: ${forged.detail}`, 'contract');
    for (const found of analysis.addresses) {
      for (const out of found.outputs) {
        if (out.opened === 'explicit' || out.opened === 'unblinded') {
          if (out.assetId !== o.assetId || out.value === null) continue; // another asset: not the shop's money
          receipts.push({ txid, vout: out.index, address: found.address, units: out.value, at });
        } else {
          receipts.push({
            txid,
            vout: out.index,
            address: found.address,
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

export interface Reconciliation {
  matched: MatchedEntry[];
  missing: MissingEntry[];
  unmatched: UnmatchedEntry[];
  paidAfterExpiry: PaidAfterExpiryEntry[];
}

function centsOf(reais: unknown): number | null {
  if (typeof reais !== 'number') return null;
  const d = decimalFromNumber(reais);
  const c = d ? decimalToCents(d) : null;
  return c === null || c < 0n ? null : Number(c);
}

/** A deposit's shares: the destination's and the split's, from the net the create answer gave. */
export function sharesOf(e: HistoryEntry): Share[] {
  const net = centsOf(e.answer?.netAmount);
  if (net === null) return [];
  let split = 0;
  const percent = e.answer?.splitPercent;
  if (e.splitAddress && typeof percent === 'number') {
    const d = decimalFromNumber(percent);
    if (!d || d.units < 0n || d.scale > 4) return [];
    split = Number((BigInt(net) * d.units * 10n ** BigInt(4 - d.scale)) / 10_000n);
  }
  const settlement = e.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  const txid = typeof settlement?.liquidTxid === 'string' ? settlement.liquidTxid.toLowerCase() : undefined;
  const shares: Share[] = [
    { entry: e, role: 'destination', address: e.destinationAddress, cents: net - split, txid },
  ];
  if (e.splitAddress && split > 0)
    shares.push({ entry: e, role: 'split', address: e.splitAddress, cents: split, txid });
  return shares;
}

/**
 * Match receipts to the deposits' shares. A share whose settlement txid is known takes an output
 * of that transaction first; the others, the oldest unused output to their address of their
 * amount. An amount matches when the units differ from the cents by less than one cent (the
 * service may round its units). What is left is matched against expired and failed deposits
 * (paid after lbrl gave up on them), and the rest is unmatched.
 */
export function reconcile(
  deposits: HistoryEntry[],
  receipts: Receipt[],
  o: { precision: number; sinceMs?: number | undefined },
): Reconciliation {
  const unitsPerCent = 10n ** BigInt(Math.max(0, o.precision - 2));
  const fits = (r: Receipt, cents: number) => {
    if (r.units === null) return false;
    const diff = r.units - BigInt(cents) * unitsPerCent;
    return (diff < 0n ? -diff : diff) < unitsPerCent;
  };
  const oldestFirst = [...receipts].sort(
    (a, b) => (a.at ?? Number.MAX_SAFE_INTEGER) - (b.at ?? Number.MAX_SAFE_INTEGER),
  );
  const used = new Set<Receipt>();
  const byAddress = new Map<string, Receipt[]>();
  for (const r of oldestFirst) byAddress.set(r.address, [...(byAddress.get(r.address) ?? []), r]);
  const out: Reconciliation = { matched: [], missing: [], unmatched: [], paidAfterExpiry: [] };
  const inRange = (e: HistoryEntry) => o.sinceMs === undefined || Date.parse(e.at) >= o.sinceMs;

  const finalized = deposits.filter((e) => shownStatus(e) === 'FINALIZED');
  const shares = finalized.flatMap(sharesOf);
  const take = (share: Share, pick: (r: Receipt) => boolean): Receipt | undefined => {
    const r = (byAddress.get(share.address) ?? []).find(
      (x) => !used.has(x) && fits(x, share.cents) && pick(x),
    );
    if (r) used.add(r);
    return r;
  };
  const result = new Map<Share, Receipt | undefined>();
  for (const share of shares)
    if (share.txid)
      result.set(
        share,
        take(share, (r) => r.txid === share.txid),
      );
  for (const share of shares)
    if (!result.get(share))
      result.set(
        share,
        take(share, () => true),
      );
  for (const share of shares) {
    if (!inRange(share.entry)) continue;
    const r = result.get(share);
    if (r)
      out.matched.push({
        depositId: share.entry.id,
        role: share.role,
        address: share.address,
        txid: r.txid,
        vout: r.vout,
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
  for (const e of deposits) {
    const status = shownStatus(e);
    if (status !== 'EXPIRED' && status !== 'FAILED') continue;
    for (const share of sharesOf(e)) {
      const r = take(share, () => true);
      if (r && inRange(e))
        out.paidAfterExpiry.push({
          depositId: e.id,
          status,
          address: share.address,
          txid: r.txid,
          vout: r.vout,
          cents: share.cents,
        });
    }
  }
  for (const r of oldestFirst) {
    if (used.has(r)) continue;
    if (o.sinceMs !== undefined && r.at !== null && r.at < o.sinceMs) continue;
    out.unmatched.push({
      address: r.address,
      txid: r.txid,
      vout: r.vout,
      cents: r.units === null ? null : Number(r.units / unitsPerCent),
      ...(r.unreadable ? { reason: r.unreadable } : {}),
    });
  }
  return out;
}
