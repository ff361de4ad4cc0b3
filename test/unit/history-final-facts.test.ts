/**
 * A status record's final answer and settlement facts are read totally: a record whose facts are
 * malformed (a FINALIZED final without its transaction, a txid in no form, a time no clock wrote,
 * a final on a status that is not final, a final and facts that say two things) is one counted,
 * named damaged line, never a half-fact that `export` later shows as FINALIZED with no txid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runExport } from '../../src/commands/deposit-export.js';
import { History } from '../../src/store/history.js';
import { readRecordLine } from '../../src/store/record-read.js';
import { LQ } from '../helpers/fixtures.js';
import { plainTerminal } from '../helpers/plain-terminal.js';
import { createdRecord } from '../helpers/records-history.js';
import { tempDir } from '../helpers/temp.js';

const ID = '00000000-0000-4000-8000-000000000001';
const TXID = 'ab'.repeat(32);
const CONFIRMED = '2026-11-20T10:30:00.000Z';

const status = (fields: Record<string, unknown>) => ({
  v: 1,
  type: 'status',
  id: ID,
  baseUrl: 'sandbox',
  status: 'FINALIZED',
  at: '2026-11-20T11:00:00.000Z',
  ...fields,
});
const finalOf = (settlement: unknown, confirmedAt: unknown = CONFIRMED) => ({
  final: { settlement, confirmedAt },
});
const MALFORMED = { ok: false, damage: 'with a field missing or malformed' };

describe("a status record's final answer and facts", () => {
  it.each([
    ['a FINALIZED final without a settlement', finalOf(null)],
    ['a FINALIZED final whose settlement names no transaction', finalOf({ status: 'FINALIZED' })],
    ['a FINALIZED final whose txid is null', finalOf({ liquidTxid: null, status: 'FINALIZED' })],
    ['a txid in no form', finalOf({ liquidTxid: 'zz', status: 'FINALIZED' })],
    ['a txid that is a number', finalOf({ liquidTxid: 5, status: 'FINALIZED' })],
    ['a txid in capitals (lbrl keeps the one form)', finalOf({ liquidTxid: TXID.toUpperCase() })],
    ['a settlement that is text', finalOf('paid')],
    ['a settlement that is a list', finalOf([TXID])],
    ['a settlement status that is a number', finalOf({ liquidTxid: TXID, status: 1 })],
    ['a confirmation time that is no time', finalOf({ liquidTxid: TXID }, 'yesterday')],
    ['a confirmation time no clock wrote', finalOf({ liquidTxid: TXID }, '+275760-09-13T00:00:00.000Z')],
    ['a confirmation time that is a number', finalOf({ liquidTxid: TXID }, 1_700_000_000_000)],
    ['a final that is no object', { final: TXID }],
    ['a final on a status that is not final', { status: 'TX_SENT', ...finalOf({ liquidTxid: TXID }) }],
    ['a final on GONE', { status: 'GONE', ...finalOf(null, null) }],
    [
      'a final and facts that name two transactions',
      { ...finalOf({ liquidTxid: TXID }), facts: { 'settlement.liquidTxid': 'cd'.repeat(32) } },
    ],
    [
      'a final and facts that name two confirmation times',
      { ...finalOf({ liquidTxid: TXID }), facts: { confirmedAt: '2026-11-20T10:31:00.000Z' } },
    ],
    [
      'facts with a confirmation time no clock wrote',
      { facts: { confirmedAt: '+010000-01-01T00:00:00.000Z' } },
    ],
  ])('%s: a damaged line, named', (_name, fields) => {
    expect(readRecordLine(JSON.stringify(status(fields)))).toEqual(MALFORMED);
  });

  it.each([
    ['a FINALIZED final as lbrl writes it', finalOf({ liquidTxid: TXID, status: 'FINALIZED' })],
    ['one of an older lbrl, without its confirmation time', finalOf({ liquidTxid: TXID }, null)],
    ['a FAILED final without a settlement', { status: 'FAILED', ...finalOf(null, null) }],
    [
      'a FAILED final with a transaction',
      { status: 'FAILED', ...finalOf({ liquidTxid: TXID, status: 'X' }) },
    ],
    [
      'a final with the facts it states',
      { ...finalOf({ liquidTxid: TXID }), facts: { 'settlement.liquidTxid': TXID, confirmedAt: CONFIRMED } },
    ],
    ['a FINALIZED status without a final (an older lbrl, or one too long to keep)', {}],
  ])('%s: read', (_name, fields) => {
    expect(readRecordLine(JSON.stringify(status(fields))).ok).toBe(true);
  });

  it('a FINALIZED line without its txid: every reader reads the deposit as before it, and says the line', async () => {
    const dir = tempDir();
    const created = createdRecord(ID, {
      baseUrl: 'sandbox',
      at: '2026-11-20T10:00:00.000Z',
      amountInCents: 1000,
      destinationAddress: LQ,
    });
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      `${[created, status(finalOf({ status: 'FINALIZED' }))].map((r) => JSON.stringify(r)).join('\n')}\n`,
      { mode: 0o600 },
    );
    const warnings: string[] = [];
    const history = new History(dir, (line) => warnings.push(line));
    const said =
      /^warning: skipped 1 damaged line\(s\) in .*history\.ndjson \(1 with a field missing or malformed\)$/;
    // get's reader, list's and the report's: the deposit is still waiting, not a FINALIZED half-fact
    expect(history.recorded(ID, 'sandbox')?.status).toBe('WAITING_PAYMENT');
    expect(history.entries().map((e) => e.status)).toEqual(['WAITING_PAYMENT']);
    expect(
      history.fold(
        () => true,
        () => [] as string[],
        (acc, e) => acc.push(e.status),
      ),
    ).toEqual(['WAITING_PAYMENT']);
    expect(warnings).toEqual([expect.stringMatching(said)]);
    const term = plainTerminal({ env: { TZ: 'UTC' }, now: () => Date.parse('2026-11-21T00:00:00Z') });
    await runExport({
      flags: { format: 'csv', allServices: true },
      printer: term.printer,
      json: false,
      profileName: 'default',
      ctx: term.ctx,
      history: () => new History(dir, (line) => term.printer.err(line)),
    });
    const rows = term.stdout.trim().split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(ID);
    expect(rows[1]).not.toContain('FINALIZED');
    expect(term.stderr).toMatch(/1 with a field missing or malformed/);
  });
});

/**
 * A number in a line is read by its value, as JSON defines it (`1e3`, `1000.0` and `1000` are one
 * number, as a tool that rewrites the file may spell it); a creation dated after the reader's
 * clock is read as written (the writer's clock said it; a charge is never dropped for its clock).
 * Every reader reads them alike: get's, list's, the report's and reconcile's (a fold), export's.
 */
describe('how every reader reads an amount spelt otherwise, and a creation dated in the future', () => {
  const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  const line = (n: number, at: string, cents: string) =>
    JSON.stringify(
      createdRecord(id(n), { baseUrl: 'sandbox', at, amountInCents: 7777, destinationAddress: LQ }),
    ).replace('"amountInCents":7777', `"amountInCents":${cents}`);

  it('1e3 is 1000 cents, 1.5e3 and 2000.0 whole cents too; 1e-2 is a damaged line; 2030 is read as written', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      `${[
        line(1, '2026-11-20T10:00:00.000Z', '1e3'),
        line(2, '2030-01-01T00:00:00.000Z', '1.5e3'),
        line(3, '2026-11-20T11:00:00.000Z', '2000.0'),
        line(4, '2026-11-20T12:00:00.000Z', '1e-2'),
      ].join('\n')}\n`,
      { mode: 0o600 },
    );
    const warnings: string[] = [];
    const history = new History(dir, (w) => warnings.push(w));
    const said = /\(1 with amounts that do not add up\)$/;
    expect(history.recorded(id(1), 'sandbox')?.amountInCents).toBe(1000);
    expect(history.entries().map((e) => [e.id, e.amountInCents])).toEqual([
      [id(2), 1500],
      [id(3), 2000],
      [id(1), 1000],
    ]);
    const folded = history.fold(
      () => true,
      () => [] as Array<[string, number, string]>,
      (acc, e) => acc.push([e.id, e.amountInCents, e.at]),
    );
    expect(folded.sort()).toEqual([
      [id(1), 1000, '2026-11-20T10:00:00.000Z'],
      [id(2), 1500, '2030-01-01T00:00:00.000Z'],
      [id(3), 2000, '2026-11-20T11:00:00.000Z'],
    ]);
    expect(warnings).toEqual([expect.stringMatching(said)]);
    const term = plainTerminal({ env: { TZ: 'UTC' }, now: () => Date.parse('2026-11-21T00:00:00Z') });
    await runExport({
      flags: { format: 'csv', allServices: true },
      printer: term.printer,
      json: false,
      profileName: 'default',
      ctx: term.ctx,
      history: () => new History(dir, (w) => term.printer.err(w)),
    });
    const rows = term.stdout.trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(3);
    expect(rows.filter((row) => row.includes(id(2)))).toEqual([expect.stringMatching(/2030-01-01.*15\.00/)]);
    expect(term.stderr).toMatch(/\(1 with amounts that do not add up\)\n$/);
  });
});

describe("a verification's shares (the outputs it took: one output pays one deposit)", () => {
  const share = { role: 'destination', script: '0014aa', outputs: [0], share: '1/1', rounded: false };
  const verified = (shares: unknown) =>
    JSON.stringify({ v: 1, type: 'verified', id: ID, txid: TXID, at: '2026-11-20T11:00:00.000Z', shares });

  it.each([
    ['shares that are no list', { 0: share }],
    ['a share of another role', [{ ...share, role: 'payer' }]],
    ['a share whose output is negative', [{ ...share, outputs: [-1] }]],
    ['a share whose output is no index', [{ ...share, outputs: ['0'] }]],
    ['a share without its fraction', [{ ...share, share: undefined }]],
    ['a share that is a list', [[share]]],
  ])(
    '%s: the verification is a damaged line, not one whose outputs stay free for another deposit',
    (_name, shares) => {
      expect(readRecordLine(verified(shares))).toEqual(MALFORMED);
    },
  );

  it('shares as lbrl writes them, and none (an older lbrl), are read', () => {
    expect(readRecordLine(verified([share])).ok).toBe(true);
    expect(readRecordLine(verified(undefined)).ok).toBe(true);
  });
});
