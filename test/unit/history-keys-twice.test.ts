/**
 * A key given twice in one line. The type, id or time (what a reader of the line in place reads,
 * the first of the two, where JSON.parse keeps the last) make it no record to any reader, counted
 * and named. Any other key is read as JSON.parse reads it, the last, by every reader alike: list,
 * get, report and export show the same value (docs/scripting.md says what is checked).
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

describe('a key given twice', () => {
  it.each([
    ['the id', status.replace('"status":', `"id":"${ID.replace('1', '2')}","status":`)],
    ['the time', status.replace('"status":', '"at":"2026-11-24T00:00:00.000Z","status":')],
    ['the type, spelled with an escape', status.replace('"status":', '"t\\u0079pe":"created","status":')],
  ])('%s: no record, named', (_, line) => {
    expect(JSON.parse(line)).toBeTypeOf('object');
    expect(readRecordLine(line)).toEqual({ ok: false, damage: 'with a key given twice' });
  });

  it.each([
    [
      'the status of a status line',
      [text, status.replace('"status":"FINALIZED"', '"status":"FAILED","status":"FINALIZED"')],
      'FINALIZED',
    ],
    [
      'the status, spaced before its colon',
      [text, status.replace('"status":"FINALIZED"', '"status" :"FINALIZED","status":"FAILED"')],
      'FAILED',
    ],
    [
      'the status of a creation',
      [text.replace('"status":"WAITING_PAYMENT"', '"status":"FINALIZED","status":"WAITING_PAYMENT"')],
      'WAITING_PAYMENT',
    ],
  ])('%s: the last, read alike by every reader, no warning', (_, lines, shown) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
    const warned: string[] = [];
    const history = new History(dir, (l) => warned.push(l));
    const folded: string[] = [];
    history.fold(
      () => true,
      () => folded,
      (acc, e) => {
        acc.push(e.status);
      },
    );
    expect(history.entries().map((e) => e.status)).toEqual([shown]);
    expect(history.recorded(ID, 'sandbox')?.status).toBe(shown);
    expect(folded).toEqual([shown]);
    const stored = [...history.stored()];
    expect((stored[stored.length - 1] as { status: string }).status).toBe(shown);
    expect(warned).toEqual([]);
  });
});
