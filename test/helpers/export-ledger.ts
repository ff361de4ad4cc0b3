/**
 * A month of a shop's ledger as lbrl writes it (created, status, verified, expired records), for
 * the export tests: the in-process ones read it as plain records, the readers' test writes it to
 * a history file. November 2026 in São Paulo (-03:00), with the edges a month has: a deposit at
 * 00:30 local on the 1st (03:30 UTC), one at 23:59 local on the 30th (the 1st in UTC), one at the
 * first second of December, one from October; splits whose share rounds; the largest amount;
 * references a spreadsheet would run or read as a number or a date, with quotes, semicolons, accents, an emoji; a FAILED, a
 * waiting, an EXPIRED deposit; a finalized one an older lbrl recorded without its fee and net;
 * each verdict on chain.
 */
import type { CreateResponse } from '../../src/api/models.js';
import { fixedFieldsOf } from '../../src/domain/deposit.js';
import type { CreatedRecord, StoredRecord } from '../../src/store/history-records.js';
import { createAnswer, EX, LQ } from './fixtures.js';

export const EXPORT_TZ = 'America/Sao_Paulo';
export const exportId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const TXID = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

interface Sale {
  n: number;
  at: string;
  cents: number;
  status: 'FINALIZED' | 'FAILED' | 'WAITING_PAYMENT' | 'EXPIRED' | 'PIX_CONFIRMED';
  split?: string;
  ref?: string;
  note?: string;
  chain?: 'verified' | 'unproven' | 'mismatch' | 'pending';
  /** recorded by an older lbrl: no create answer kept */
  old?: boolean;
}

export const SALES: Sale[] = [
  { n: 1, at: '2026-10-31T23:00:00.000Z', cents: 5000, status: 'FINALIZED', ref: 'outubro' },
  {
    n: 2,
    at: '2026-11-01T03:30:00.000Z',
    cents: 1550,
    status: 'FINALIZED',
    ref: 'pedido 1042',
    chain: 'verified',
  },
  {
    n: 3,
    at: '2026-11-05T15:00:00.000Z',
    cents: 600000,
    status: 'FINALIZED',
    split: '2.99%',
    ref: '=HYPERLINK("http://evil.example","clique")',
    note: 'mesa 7; "sem troco"',
    chain: 'unproven',
  },
  {
    n: 4,
    at: '2026-11-10T12:00:00.000Z',
    cents: 99,
    status: 'FINALIZED',
    split: '33.33%',
    ref: 'pão de queijo 🧀',
  },
  {
    n: 5,
    at: '2026-11-11T12:00:00.000Z',
    cents: 1234,
    status: 'FINALIZED',
    ref: '+55 11 9999',
    chain: 'mismatch',
  },
  { n: 6, at: '2026-11-12T12:00:00.000Z', cents: 777, status: 'FINALIZED', ref: '-10', split: '0.01%' },
  { n: 7, at: '2026-11-13T12:00:00.000Z', cents: 2000, status: 'FAILED', ref: '@SUM(A1:A9)' },
  { n: 8, at: '2026-11-14T12:00:00.000Z', cents: 3000, status: 'WAITING_PAYMENT', ref: 'mesa 2' },
  { n: 9, at: '2026-11-15T12:00:00.000Z', cents: 4000, status: 'EXPIRED', ref: '00123' },
  { n: 10, at: '2026-11-16T12:00:00.000Z', cents: 1000, status: 'FINALIZED', old: true },
  { n: 11, at: '2026-11-17T12:00:00.000Z', cents: 250, status: 'PIX_CONFIRMED', ref: 'a & b <c>' },
  {
    n: 12,
    at: '2026-11-20T12:00:00.000Z',
    cents: 12345,
    status: 'FINALIZED',
    chain: 'pending',
    ref: '1/2',
    note: '15,50',
  },
  { n: 13, at: '2026-12-01T02:59:00.000Z', cents: 700, status: 'FINALIZED', ref: '23:59 do dia 30' },
  { n: 14, at: '2026-12-01T03:00:00.000Z', cents: 800, status: 'FINALIZED', ref: 'dezembro' },
];

function createdOf(sale: Sale): CreatedRecord {
  const body = {
    amountInCents: sale.cents,
    lbrlAddress: LQ,
    ...(sale.split ? { lbrlSplitAddress: EX, splitFee: sale.split } : {}),
  };
  const answer = { ...createAnswer(body), id: exportId(sale.n), createdAt: sale.at };
  const record: CreatedRecord = {
    v: 1,
    type: 'created',
    id: exportId(sale.n),
    profile: 'default',
    baseUrl: 'sandbox',
    at: sale.at,
    amountInCents: sale.cents,
    destinationAddress: LQ,
    splitAddress: sale.split ? EX : null,
    splitFee: sale.split ?? null,
    status: 'WAITING_PAYMENT',
  };
  if (!sale.old) record.answer = fixedFieldsOf(answer as CreateResponse);
  if (sale.ref !== undefined) record.ref = sale.ref;
  if (sale.note !== undefined) record.note = sale.note;
  return record;
}

/** Every record of the month, in the order lbrl would have appended them. */
export function exportLedger(): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (const sale of SALES) {
    const id = exportId(sale.n);
    out.push(createdOf(sale));
    const later = new Date(Date.parse(sale.at) + 60_000).toISOString();
    if (sale.status === 'EXPIRED') out.push({ v: 1, type: 'expired', id, at: later });
    else if (sale.status === 'FINALIZED')
      out.push({
        v: 1,
        type: 'status',
        id,
        status: 'FINALIZED',
        at: later,
        final: { settlement: { liquidTxid: TXID(sale.n), status: 'FINALIZED' }, confirmedAt: later },
      });
    else if (sale.status !== 'WAITING_PAYMENT')
      out.push({ v: 1, type: 'status', id, status: sale.status, at: later });
    if (sale.chain === 'verified') out.push({ v: 1, type: 'verified', id, txid: TXID(sale.n), at: later });
    else if (sale.chain)
      out.push({ v: 1, type: 'unverified', id, txid: TXID(sale.n), outcome: sale.chain, at: later });
  }
  return out;
}
