/**
 * A deposit's status lines written (or moved: a file reversed with `tac`, two tills' histories
 * concatenated newest first) before its created line. Today every reader drops them without a
 * word: three FINALIZED deposits read as WAITING_PAYMENT, the report's "paid" loses their money,
 * and no damage warning names the lines ("every line either a well-formed record or one counted,
 * named warning"). Found by the red team; the history reader is another branch's (src/store/
 * history*.ts), so this test states the expected behaviour and is marked `fails` until it is fixed:
 * when it turns red, the reader is fixed, and `it.fails` becomes `it`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import type { CreatedRecord, StatusRecord } from '../../src/store/history-records.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const ids = [1, 2, 3].map((n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);

function created(id: string, n: number): CreatedRecord {
  return {
    v: 1,
    type: 'created',
    id,
    profile: 'default',
    baseUrl: 'sandbox',
    at: `2026-11-20T10:0${n}:00.000Z`,
    amountInCents: 1000 * (n + 1),
    destinationAddress: LQ,
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  };
}

function finalized(id: string, n: number): StatusRecord {
  return {
    v: 1,
    type: 'status',
    id,
    status: 'FINALIZED',
    at: `2026-11-20T11:0${n}:00.000Z`,
    final: {
      settlement: { liquidTxid: String(n).repeat(64), status: 'FINALIZED' },
      confirmedAt: `2026-11-20T10:3${n}:00.000Z`,
    },
    baseUrl: 'sandbox',
  } as StatusRecord;
}

describe('status lines before their created line', () => {
  it.fails("are read as the deposit's status, as in file order (or each said as damage)", () => {
    const dir = tempDir();
    const lines = [...ids.map(finalized), ...ids.map(created)].map((r) => JSON.stringify(r));
    fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
    const history = new History(dir);
    expect(history.entries().map((entry) => entry.status)).toEqual(['FINALIZED', 'FINALIZED', 'FINALIZED']);
  });
});
