/**
 * The sandbox's settlement transactions on disk: built once, the first time a deposit is read at
 * or after TX_SENT (secp256k1-zkp is loaded only then), and kept beside the sandbox's data so
 * every process serves the same transaction. Two files, each published whole and exclusively:
 * `chain/<deposit id>.json` (the transaction) and `chain/tx/<txid>` (which deposit it settles).
 * A process killed between the two leaves a transaction whose index the next read writes.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { parseTransaction } from '../domain/liquid/tx.js';
import { loadZkp } from '../domain/liquid/unblind.js';
import { DEPOSIT_ID, isHex32 } from '../domain/values.js';
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

export function settleMode(events: Events): SettleMode {
  return (SETTLE_MODES as readonly string[]).includes(events.settle ?? '')
    ? (events.settle as SettleMode)
    : 'ok';
}

/**
 * The txid of a deposit's settlement once it was sent, building its transaction the first time;
 * undefined before TX_SENT, and for a deposit settled with `--settle none` (its txid is then one
 * no transaction has).
 */
export async function settlementTxid(
  store: SandboxStore,
  deposit: StoredDeposit,
  events: Events,
  now: number,
): Promise<string | undefined> {
  const sent = sentAt(deposit, events, now);
  const mode = settleMode(events);
  if (sent === undefined || mode === 'none') return undefined;
  const { chain, index } = dirs(store);
  const file = path.join(chain, `${deposit.id}.json`);
  let tx = readJson<StoredTx>(file);
  if (!tx) {
    const network = decodeLiquidAddress(deposit.destinationAddress);
    if (!network.ok) return undefined;
    const built = buildSettlementTx(await loadZkp(), deposit, mode, network.value.network);
    if (!built) return undefined;
    ensureDir(chain);
    ensureDir(index);
    publishExclusive(file, JSON.stringify({ txid: built.txid, ...chainTxOf(built, sent) }));
    tx = readJson<StoredTx>(file)!;
  }
  const link = path.join(index, tx.txid);
  if (!fs.existsSync(link)) {
    ensureDir(index);
    publishExclusive(link, deposit.id);
  }
  return tx.txid;
}

/** The transaction with this txid, for the sandbox's Esplora API. */
export function findChainTx(store: SandboxStore, txid: string): ChainTx | undefined {
  if (!isHex32(txid)) return undefined;
  const { chain, index } = dirs(store);
  let id: string;
  try {
    id = fs.readFileSync(path.join(index, txid), 'utf8').trim();
  } catch {
    return undefined;
  }
  if (!DEPOSIT_ID.test(id)) return undefined;
  const tx = readJson<StoredTx>(path.join(chain, `${id}.json`));
  return tx && tx.txid === txid ? { hex: tx.hex, sentAt: tx.sentAt, addresses: tx.addresses } : undefined;
}

/**
 * Every transaction on the sandbox chain sent by `now` that pays `script` (hex), newest first,
 * each with its txid: what the Esplora address routes serve. Read from the chain directory.
 */
export function chainTxsPaying(
  store: SandboxStore,
  script: string,
  now: number,
): Array<ChainTx & { txid: string }> {
  const { chain } = dirs(store);
  let names: string[];
  try {
    names = fs.readdirSync(chain).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: Array<ChainTx & { txid: string }> = [];
  for (const name of names) {
    const tx = readJson<StoredTx>(path.join(chain, name));
    if (!tx || typeof tx.hex !== 'string' || tx.sentAt > now) continue;
    let pays = false;
    try {
      pays = parseTransaction(tx.hex).outputs.some(
        (output) => Buffer.from(output.script).toString('hex') === script,
      );
    } catch {
      continue;
    }
    if (pays) out.push({ txid: tx.txid, hex: tx.hex, sentAt: tx.sentAt, addresses: tx.addresses });
  }
  return out.sort((a, b) => b.sentAt - a.sentAt || (a.txid < b.txid ? -1 : 1));
}

/**
 * `sandbox send`: a payment of `cents` in the sandbox's asset to `address`, matching no deposit,
 * put on the sandbox chain at `now` under an id of its own. Returns its txid.
 */
export async function sendPayment(
  store: SandboxStore,
  address: string,
  cents: number,
  now: number,
): Promise<string> {
  const network = decodeLiquidAddress(address);
  if (!network.ok) throw new Error(`not a Liquid address: ${network.reason}`);
  const id = randomUUID();
  const built = buildSettlementTx(
    await loadZkp(),
    {
      id,
      amountInCents: cents,
      feeCents: 0,
      destinationAddress: address,
      splitAddress: null,
      splitBasisPoints: null,
    },
    'ok',
    network.value.network,
  );
  if (!built) throw new Error('the sandbox chain could not build the payment');
  const { chain, index } = dirs(store);
  ensureDir(chain);
  ensureDir(index);
  publishExclusive(
    path.join(chain, `${id}.json`),
    JSON.stringify({ txid: built.txid, ...chainTxOf(built, now) }),
  );
  publishExclusive(path.join(index, built.txid), id);
  return built.txid;
}
