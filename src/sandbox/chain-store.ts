/**
 * The sandbox's settlement transactions on disk: built once, the first time a deposit is read at
 * or after TX_SENT (secp256k1-zkp is loaded only then), and kept beside the sandbox's data so
 * every process serves the same transaction. Two files, each published whole and exclusively:
 * `chain/<deposit id>.json` (the transaction) and `chain/tx/<txid>` (which deposit it settles).
 * A process killed between the two leaves a transaction whose index the next read writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decodeLiquidAddress } from '../domain/address.js';
import { loadZkp } from '../domain/liquid-unblind.js';
import { isTxid } from '../domain/values.js';
import { buildSettlementTx, chainTxOf, SETTLE_MODES, type SettleMode } from './chain.js';
import type { ChainTx } from './chain-esplora.js';
import { ensureDir, publishExclusive, readJson } from './files.js';
import { type Events, type StoredDeposit, sentAt } from './lifecycle.js';
import type { SandboxStore } from './store.js';

interface StoredTx extends ChainTx {
  txid: string;
}

function dirs(store: SandboxStore): { chain: string; index: string } {
  const chain = path.join(store.dir, 'chain');
  return { chain, index: path.join(chain, 'tx') };
}

export function settleMode(e: Events): SettleMode {
  return (SETTLE_MODES as readonly string[]).includes(e.settle ?? '') ? (e.settle as SettleMode) : 'ok';
}

/**
 * The txid of a deposit's settlement once it was sent, building its transaction the first time;
 * undefined before TX_SENT, and for a deposit settled with `--settle none` (its txid is then one
 * no transaction has).
 */
export async function settlementTxid(
  store: SandboxStore,
  d: StoredDeposit,
  e: Events,
  now: number,
): Promise<string | undefined> {
  const sent = sentAt(d, e, now);
  const mode = settleMode(e);
  if (sent === undefined || mode === 'none') return undefined;
  const { chain, index } = dirs(store);
  const file = path.join(chain, `${d.id}.json`);
  let tx = readJson<StoredTx>(file);
  if (!tx) {
    const network = decodeLiquidAddress(d.destinationAddress);
    if (!network.ok) return undefined;
    const built = buildSettlementTx(await loadZkp(), d, mode, network.value.network);
    if (!built) return undefined;
    ensureDir(chain);
    ensureDir(index);
    publishExclusive(file, JSON.stringify({ txid: built.txid, ...chainTxOf(built, sent) }));
    tx = readJson<StoredTx>(file)!;
  }
  const link = path.join(index, tx.txid);
  if (!fs.existsSync(link)) {
    ensureDir(index);
    publishExclusive(link, d.id);
  }
  return tx.txid;
}

/** The transaction with this txid, for the sandbox's Esplora API. */
export function findChainTx(store: SandboxStore, txid: string): ChainTx | undefined {
  if (!isTxid(txid)) return undefined;
  const { chain, index } = dirs(store);
  let id: string;
  try {
    id = fs.readFileSync(path.join(index, txid), 'utf8').trim();
  } catch {
    return undefined;
  }
  if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
  const tx = readJson<StoredTx>(path.join(chain, `${id}.json`));
  return tx && tx.txid === txid ? { hex: tx.hex, sentAt: tx.sentAt, addresses: tx.addresses } : undefined;
}
