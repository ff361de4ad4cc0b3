/**
 * What the profile's addresses received on chain: each address's Esplora history paged back to
 * --since (an explorer that repeats a transaction, or never ends, is refused), each transaction read
 * whole, believed only when it hashes to its txid and never in a block above the explorer's own tip,
 * its outputs to the addresses opened with the stored keys by the settlement code verify uses. One
 * output, one receipt, in the pinned asset (or unreadable, with why).
 */
import type { AddressTx } from '../api/esplora.js';
import type { Network } from '../domain/liquid/networks.js';
import type { BlindingKeys } from '../domain/liquid/settlement/model.js';
import { analyseSettlement } from '../domain/liquid/settlement/outputs.js';
import { confirmationsOf } from '../domain/liquid/settlement/timing.js';
import type { Zkp } from '../domain/liquid/unblind.js';
import { LbrlError } from '../errors.js';

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
