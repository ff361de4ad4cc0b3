/**
 * Deposits the history holds as settled, and the real Elements transactions that pay them (the
 * sandbox chain's builder, explicit outputs of its asset): the world of the reconcile tests, in
 * process (test/cmd/reconcile-in-process.test.ts) and over sockets (test/cmd/reconcile-attacks.test.ts).
 */
import { bech32 } from 'bech32';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildPaymentsTx, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { StoredRecord } from '../../src/store/history.js';
import { brCode } from './fixtures.js';

const zkp = await loadZkp();

/** the shop's address (elementsregtest), and a split's */
export const DEST = bech32.encode('ert', [0, ...bech32.toWords(Buffer.alloc(20, 0x22))]);
export const SPLIT = 'ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k';
/** when the deposits were created */
export const CREATED = Date.parse('2026-11-22T10:00:00.000Z');
/** block time (seconds) five minutes after the deposits were created */
export const AFTER = CREATED / 1000 + 300;
/** cents as units of an asset of precision 8 */
export const units = (cents: number) => (BigInt(cents) * 100_000_000n) / 100n;
/** the deposit id number n */
export const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A real Elements transaction paying these amounts of the sandbox's asset, in explicit outputs. */
export function payTx(payments: Array<[string, bigint]>, seed: string) {
  return buildPaymentsTx(
    zkp,
    seed,
    payments.map(([address, amount]) => ({ address, amount, assetId: SANDBOX_ASSET_ID })),
    'elementsregtest',
  );
}

/** A transaction on chain, and the addresses whose history lists it. */
export interface ChainTx {
  txid: string;
  hex: string;
  /** block time, seconds */
  time: number;
  to: string[];
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
