/**
 * A key given twice in one line, any key at any depth: JSON.parse keeps the last, a reader of the
 * line in place the first, another tool either. Such a line is no record to any reader, counted
 * and named; a line whose text values hold `":` (what the cheap count looks for) is still read.
 */

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import { readRecordLine } from '../../src/store/record-read.js';
import { tempDir } from '../helpers/temp.js';

const ID = '00000000-0000-4000-8000-000000000001';
const AT = '2026-11-23T12:00:00.000Z';
const created = {
  v: 1,
  type: 'created',
  id: ID,
  profile: 'default',
  baseUrl: 'sandbox',
  at: AT,
  amountInCents: 1000,
  destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
  splitAddress: null,
  splitFee: null,
  status: 'WAITING_PAYMENT',
  answer: { amount: 10, feeAmount: 0.1, netAmount: 9.9, splitPercent: null, qrCodeText: 'x', createdAt: AT },
};
const text = JSON.stringify(created);
const status = JSON.stringify({ v: 1, type: 'status', id: ID, status: 'FINALIZED', at: AT });
const verified = JSON.stringify({
  v: 1,
  type: 'verified',
  id: ID,
  txid: 'cd'.repeat(32),
  at: AT,
  shares: [{ role: 'destination', script: 'ab', outputs: [0], share: '1/1', rounded: false }],
});

describe('a key given twice', () => {
  it.each([
    [
      'the amount, at the top',
      text.replace('"amountInCents":1000', '"amountInCents":1000,"amountInCents":2000'),
    ],
    [
      'the status of a status line',
      status.replace('"status":"FINALIZED"', '"status":"WAITING_PAYMENT","status":"FINALIZED"'),
    ],
    ["the answer's amount (nested)", text.replace('"amount":10,', '"amount":10,"amount":20,')],
    [
      'with spacing before its colon',
      text.replace('"destinationAddress":', '"status" :"GONE","destinationAddress":'),
    ],
    ['spelled with an escape', status.replace('"status":', '"st\\u0061tus":"GONE","status":')],
    ['the txid of a verification', verified.replace('"txid":', `"txid":"${'ab'.repeat(32)}","txid":`)],
    [
      'in an object within an array',
      verified.replace('"role":"destination"', '"role":"split","role":"destination"'),
    ],
  ])('%s: no record, named', (_, line) => {
    expect(JSON.parse(line)).toBeTypeOf('object');
    expect(readRecordLine(line)).toEqual({ ok: false, damage: 'with a key given twice' });
  });

  it.each([
    ['a reference holding ":', { ...created, ref: 'mesa":12', note: '{"a":1,"a":2}' }],
    ['an answer field holding " :', { ...created, answer: { ...created.answer, qrCodeText: 'a" :b":c' } }],
    ['a key in another object of the same name', { ...created, answer: { ...created.answer, status: 'x' } }],
  ])('%s: read as it is', (_, record) => {
    const read = readRecordLine(JSON.stringify(record));
    expect(read.ok).toBe(true);
  });

  it('every reader skips it with one named warning', () => {
    const dir = tempDir();
    const twice = status.replace('"status":"FINALIZED"', '"status":"FINALIZED","status":"FAILED"');
    fs.writeFileSync(path.join(dir, 'history.ndjson'), `${text}\n${twice}\n`, { mode: 0o600 });
    const warned: string[] = [];
    const history = new History(dir, (l) => warned.push(l));
    expect(history.entries().map((e) => e.status)).toEqual(['WAITING_PAYMENT']);
    expect(history.recorded(ID, 'sandbox')?.status).toBe('WAITING_PAYMENT');
    expect([...history.stored()]).toHaveLength(1);
    expect(warned).toEqual([
      `warning: skipped 1 damaged line(s) in ${history.file} (1 with a key given twice)`,
    ]);
  });
});
