/**
 * A status that means money moved counts only with the record lbrl wrote when it saw it. A
 * created line stating a later status (PIX_CONFIRMED, FINALIZED, FAILED: edited in, or written by
 * a tool), or a final answer, a verification or a fact, is read as what a creation proves: the
 * deposit WAITING_PAYMENT, with one counted, named warning. report, export, list, get and
 * watch --pending agree; a creation followed by its own status line reads as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExportOptions, runExport } from '../../src/commands/deposit-export.js';
import { type ReportOptions, runReport } from '../../src/commands/deposit-report.js';
import { History } from '../../src/store/history.js';
import { listOffline } from '../helpers/list-offline.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { tempDir } from '../helpers/temp.js';

const LIVE = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T15:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const TXID = 'ab'.repeat(32);

function created(n: number, cents: number, extra: Record<string, unknown> = {}): string {
  const at = new Date(NOW - (10 - n) * 3_600_000).toISOString();
  return JSON.stringify({
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl: LIVE,
    at,
    amountInCents: cents,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    ...extra,
  });
}

function finalized(n: number): string {
  return JSON.stringify({
    v: 1,
    type: 'status',
    id: id(n),
    baseUrl: LIVE,
    status: 'FINALIZED',
    at: new Date(NOW - (10 - n) * 3_600_000 + 60_000).toISOString(),
    final: { settlement: { liquidTxid: TXID, status: 'FINALIZED' }, confirmedAt: null },
  });
}

function historyOf(lines: string[]): History {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
  return new History(dir);
}

type Run = (term: ReturnType<typeof plainTerminal>, history: History) => Promise<void>;

async function run(lines: string[], json: boolean, work: Run) {
  const term = plainTerminal({ json, env: { TZ: 'UTC' }, now: () => NOW });
  // the History warns through the printer, as the factory's does
  const history = new History(historyOf(lines).dir, (line) => term.printer.warn(line));
  return seenRun(term, () => work(term, history));
}

const reportRun: Run = (term, history) =>
  runReport({
    flags: {} as ReportOptions,
    json: true,
    printer: term.printer,
    profileName: 'default',
    ctx: term.ctx,
    history: () => history,
    service: () => LIVE,
  });

const exportRun: Run = (term, history) =>
  runExport({
    flags: { format: 'csv' } as ExportOptions,
    json: false,
    printer: term.printer,
    profileName: 'default',
    ctx: term.ctx,
    history: () => history,
    service: () => LIVE,
  } as Parameters<typeof runExport>[0]);

const listRun: Run = (term, history) => listOffline(term, history, { service: LIVE, json: true });

const CLAIMED = (file: string) =>
  `warning: read 1 line(s) in ${file} without what they cannot prove (1 creation stating what only a later record proves)\n`;

/** The lies a created line can tell of money, and one of a deposit given up on. */
const LIES: Array<[string, Record<string, unknown>]> = [
  ['status FINALIZED', { status: 'FINALIZED' }],
  ['status PIX_CONFIRMED', { status: 'PIX_CONFIRMED' }],
  ['status TX_SENT with a final answer', { status: 'TX_SENT', final: { settlement: { liquidTxid: TXID } } }],
  ['status FAILED (never followed again)', { status: 'FAILED' }],
  ['a verification', { verifiedAt: '2026-11-22T10:00:00.000Z', verifiedTxid: TXID }],
];

describe('a created line is no proof that money moved', () => {
  it.each(LIES)('%s: report counts R$ 0,00 paid, says the line once on stderr', async (_, lie) => {
    const r = await run([created(1, 2_000, lie), created(2, 3_000)], true, reportRun);
    expect(r.error).toBeUndefined();
    const shown = JSON.parse(r.stdout);
    expect(shown.total).toMatchObject({
      createdCount: 2,
      finalizedCount: 0,
      grossCents: 0,
      createdCents: 5_000,
    });
    expect(r.stderr).toMatch(
      /without what they cannot prove \(1 creation stating what only a later record proves\)\n$/,
    );
  });

  it('list, export, get and watch --pending read the deposit as waiting, as report does', async () => {
    const lines = [created(1, 2_000, { status: 'FINALIZED' }), created(2, 3_000)];
    const list = await run(lines, true, listRun);
    expect((JSON.parse(list.stdout) as Array<{ id: string; status: string }>).map((e) => e.status)).toEqual([
      'WAITING_PAYMENT',
      'WAITING_PAYMENT',
    ]);
    // the statement's row: waiting, until a status line proves the money
    const rowOf = async (text: string[]) =>
      (await run(text, false, exportRun)).stdout.split('\r\n').find((row) => row.includes(id(1)));
    expect(await rowOf(lines)).toMatch(/,WAITING_PAYMENT,/);
    expect(await rowOf([...lines, finalized(1)])).toMatch(/,FINALIZED,/);
    const history = historyOf(lines);
    expect(history.recorded(id(1), LIVE)?.status).toBe('WAITING_PAYMENT');
    expect(history.pending().map((e) => e.id)).toEqual([id(2), id(1)]);
    expect(history.batchState('default', LIVE).done.size).toBe(0);
  });

  it('the same deposit with its own status line: paid, and no warning (as lbrl writes it)', async () => {
    const r = await run([created(1, 2_000), finalized(1), created(2, 3_000)], true, reportRun);
    expect(JSON.parse(r.stdout).total).toMatchObject({ finalizedCount: 1, grossCents: 2_000 });
    expect(r.stderr).not.toContain('warning');
  });

  it('the lie and then the proof: paid once, by the status line', async () => {
    const lines = [created(1, 2_000, { status: 'FINALIZED' }), finalized(1)];
    const r = await run(lines, true, reportRun);
    expect(JSON.parse(r.stdout).total).toMatchObject({
      createdCount: 1,
      finalizedCount: 1,
      grossCents: 2_000,
    });
    expect(r.stderr).toContain('1 creation stating what only a later record proves');
  });

  it('the warning names the file, in a terminal too', async () => {
    const lines = [created(1, 2_000, { status: 'FINALIZED' })];
    const term = plainTerminal({ json: false, env: { TZ: 'UTC' }, now: () => NOW });
    const history = new History(historyOf(lines).dir, (line) => term.printer.warn(line));
    await seenRun(term, () => reportRun(term, history));
    expect(term.stderr).toContain(CLAIMED(history.file));
  });
});
