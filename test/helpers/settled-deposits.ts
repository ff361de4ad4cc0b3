/**
 * Settled deposits, as the service answers them and as the history holds them, and the real
 * Elements transactions that pay them (the sandbox chain's builder, explicit outputs of its
 * registered asset SBRL, 8 decimals): the world of the verify and reconcile tests, in process
 * (test/cmd/verify-in-process.test.ts, reconcile-in-process.test.ts) and over sockets
 * (verify-attacks.test.ts, reconcile-attacks.test.ts).
 */
import { bech32 } from 'bech32';
import type { AddressTx } from '../../src/api/esplora.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildPaymentsTx, SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import type { ScriptedChain } from './fake-explorer.js';
import { brCode, createAnswer } from './fixtures.js';

const zkp = await loadZkp();

/** the shop's address (elementsregtest), and a split's */
export const DEST = bech32.encode('ert', [0, ...bech32.toWords(Buffer.alloc(20, 0x22))]);
export const SPLIT = 'ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k';
/** when the deposits were created */
export const CREATED = Date.parse('2026-11-22T10:00:00.000Z');
/** block time (seconds) five minutes after the deposits were created */
export const AFTER = CREATED / 1000 + 300;
/** an explorer's status of a transaction confirmed in block 100, five minutes after the deposits */
export const CONFIRMED = {
  confirmed: true,
  block_height: 100,
  block_hash: 'ab'.repeat(32),
  block_time: AFTER,
};
/** cents as units of an asset of precision 8 (SBRL: a real is 10^8 units) */
export const units = (cents: number) => (BigInt(cents) * 100_000_000n) / 100n;
/** the deposit id number n */
export const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A real Elements transaction paying these amounts of the sandbox's asset, in explicit outputs. */
export function payTx(payments: Array<[string, bigint]>, seed = 'tx') {
  return buildPaymentsTx(
    zkp,
    seed,
    payments.map(([address, amount]) => ({ address, amount, assetId: SANDBOX_ASSET_ID })),
    'elementsregtest',
  );
}

/** The service's answer: deposit n FINALIZED, settled by `txid`; R$ 15.00 by default (net 14.85), to DEST. */
export function finalizedAnswer(n: number, txid: string, o: { cents?: number; split?: string } = {}) {
  const { qrCode: _q, ...answer } = createAnswer({
    amountInCents: o.cents ?? 1500,
    lbrlAddress: DEST,
    ...(o.split ? { lbrlSplitAddress: SPLIT, splitFee: o.split } : {}),
  });
  return {
    ...answer,
    id: id(n),
    status: 'FINALIZED',
    createdAt: new Date(CREATED).toISOString(),
    settlement: { status: 'FINALIZED', liquidTxid: txid },
    confirmedAt: '2026-11-22T10:05:30.000Z',
  };
}

/** A transaction on chain, and the addresses whose history lists it. */
export interface ChainTx {
  txid: string;
  hex: string;
  /** block time, seconds */
  time: number;
  to: string[];
}

/**
 * The explorer's view of these transactions: each confirmed in block 100 at its time, listed in
 * the history of the addresses it pays, the tip at 200, and these registry entries (SBRL's by
 * default).
 */
export function scriptedChain(
  txs: ChainTx[],
  assets: Record<string, Record<string, unknown>> = { [SANDBOX_ASSET_ID]: SANDBOX_ASSET },
): ScriptedChain {
  const status = (tx: ChainTx) => ({ ...CONFIRMED, block_time: tx.time });
  const addressTxs: Record<string, AddressTx[]> = {};
  for (const tx of txs)
    for (const address of tx.to) (addressTxs[address] ??= []).push({ txid: tx.txid, status: status(tx) });
  return {
    txs: new Map(txs.map((tx) => [tx.txid, { hex: tx.hex, status: status(tx) }])),
    tip: 200,
    assets,
    addressTxs,
  };
}

export interface SettledDeposit {
  n: number;
  cents: number;
  txid: string;
  split?: number;
  at?: number;
  to?: string;
  /** the history's last word on it: FINALIZED unless said */
  status?: string;
}

/** The history's records of these deposits on this service, as create and watch wrote them. */
export function settledRecords(deposits: SettledDeposit[], baseUrl: string): StoredRecord[] {
  return deposits.flatMap((d): StoredRecord[] => {
    const at = new Date(d.at ?? CREATED).toISOString();
    const fee = Math.floor(d.cents / 100);
    return [
      {
        v: 1,
        type: 'created',
        id: id(d.n),
        profile: 'default',
        baseUrl,
        at,
        amountInCents: d.cents,
        destinationAddress: d.to ?? DEST,
        splitAddress: d.split === undefined ? null : SPLIT,
        splitFee: null,
        status: 'WAITING_PAYMENT',
        answer: {
          amount: d.cents / 100,
          feeAmount: fee / 100,
          netAmount: (d.cents - fee) / 100,
          splitPercent: d.split ?? null,
          qrCodeText: brCode(d.cents),
          createdAt: at,
        },
      },
      {
        v: 1,
        type: 'status',
        id: id(d.n),
        status: d.status ?? 'FINALIZED',
        at,
        final: {
          settlement: { status: 'FINALIZED', liquidTxid: d.txid },
          confirmedAt: new Date(CREATED + 600_000).toISOString(),
        },
      },
    ];
  });
}
