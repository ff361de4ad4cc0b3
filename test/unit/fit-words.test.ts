/**
 * Lines that fit a narrow terminal broken only between words (ui/fit.ts): a view's first line, a
 * watch's status changes, its paid line's "(deposit <id>)" and its settlement notes. At 20 and 40
 * columns (a split pane) no id, txid, amount or word is cut at the edge: a piece wider than the
 * terminal is on a line of its own, whole; at 80 and in a pipe the one line as before.
 */
import { describe, expect, it } from 'vitest';
import type { GetResponse } from '../../src/api/models.js';
import { terminalColumns, widthOf, wordsOf, wordWrapped } from '../../src/ui/fit.js';
import { paidLine, statusChangeLine } from '../../src/ui/watch-view.js';
import { getAnswer, ID } from '../helpers/fixtures.js';

const TXID = 'ab'.repeat(32);
const COVERAGE = 'deposits of profile default on the sandbox (--all-services for every service)';

/** Every word of `text` (and R$ with its amount) is whole on one of `lines`, and nothing else is there. */
function wordsKept(text: string, lines: string[]): void {
  expect(lines.flatMap((line) => wordsOf(line))).toEqual(wordsOf(text));
}

describe('wordWrapped', () => {
  it.each([20, 40])(
    'the coverage line at %i columns: broken between words, each line within the width',
    (columns) => {
      const lines = wordWrapped(COVERAGE, columns);
      wordsKept(COVERAGE, lines);
      for (const line of lines) expect(widthOf(line), line).toBeLessThanOrEqual(columns);
    },
  );

  it('at 20 columns, exactly', () => {
    expect(wordWrapped(COVERAGE, 20)).toEqual([
      'deposits of profile',
      'default on the',
      'sandbox',
      '(--all-services for',
      'every service)',
    ]);
  });

  it('a word wider than the terminal (an id, a path) on a line of its own, whole', () => {
    const text = `no deposits recorded for profile default in /home/someone/.config/lbrl/history.ndjson, deposit ${ID}`;
    const lines = wordWrapped(text, 20);
    wordsKept(text, lines);
    expect(lines).toContain('/home/someone/.config/lbrl/history.ndjson,');
    expect(lines).toContain(ID);
  });

  it('an amount stays with its R$', () => {
    const lines = wordWrapped('the report counts R$ 1.188.000,00 paid and R$ 15,50 due today', 14);
    expect(lines).toContain('R$ 1.188.000,00');
    expect(lines).toContain('R$ 15,50 due');
  });

  it('unchanged when it fits, and with no width (a pipe)', () => {
    expect(wordWrapped(COVERAGE, 80)).toEqual([COVERAGE]);
    expect(wordWrapped(COVERAGE, undefined)).toEqual([COVERAGE]);
    expect(wordWrapped(COVERAGE, 0)).toEqual([COVERAGE]);
  });

  it('colour codes take no column', () => {
    expect(widthOf('\u001b[32mFINALIZED\u001b[39m')).toBe(9);
  });

  it('terminalColumns: a terminal of a known size only', () => {
    expect(terminalColumns({ isTTY: true, columns: 40 })).toBe(40);
    expect(terminalColumns({ isTTY: false, columns: 40 })).toBeUndefined();
    expect(terminalColumns({ isTTY: true, columns: 0 })).toBeUndefined();
    expect(terminalColumns({ isTTY: true })).toBeUndefined();
  });
});

describe("a watch's status change", () => {
  const change = {
    when: '2026-11-22 07:00:12 -03:00',
    id: ID,
    previous: 'TX_SENT',
    status: 'FINALIZED',
    txid: TXID,
    ref: 'ref mesa 12 do salão',
  };
  const whole = `2026-11-22 07:00:12 -03:00  ${ID}  TX_SENT -> FINALIZED  txid ${TXID}  ref mesa 12 do salão`;

  it('in a pipe, and on a terminal wide enough: the one line', () => {
    expect(statusChangeLine(change, undefined)).toBe(whole);
    expect(statusChangeLine(change, 300)).toBe(whole);
  });

  it.each([20, 40, 80])(
    'at %i columns: the id and the txid each whole, every line within the width but theirs',
    (columns) => {
      const lines = statusChangeLine(change, columns).split('\n');
      expect(lines.filter((line) => line.includes(ID))).toHaveLength(1);
      expect(lines.filter((line) => line.includes(TXID))).toHaveLength(1);
      for (const line of lines.filter((l) => !l.includes(ID) && !l.includes(TXID)))
        expect(widthOf(line), line).toBeLessThanOrEqual(columns);
      expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(whole.replace(/\s+/g, ' '));
    },
  );

  it('at 40 columns, exactly', () => {
    expect(statusChangeLine(change, 40).split('\n')).toEqual([
      '2026-11-22 07:00:12 -03:00',
      `  ${ID}`,
      '  TX_SENT -> FINALIZED  txid',
      TXID,
      '  ref mesa 12 do salão',
    ]);
  });

  it('at 80 columns, the txid under the line with its label', () => {
    expect(statusChangeLine(change, 80).split('\n')).toEqual([
      `2026-11-22 07:00:12 -03:00  ${ID}`,
      '  TX_SENT -> FINALIZED',
      `  txid ${TXID}`,
      '  ref mesa 12 do salão',
    ]);
  });
});

describe("the paid line's deposit", () => {
  const deposit = getAnswer({
    amountInCents: 600_000,
    status: 'PIX_CONFIRMED',
    confirmedAt: '2026-11-22T09:15:01.000Z',
  }) as unknown as GetResponse;
  it.each([20, 40])('at %i columns: "(deposit" and its id apart, the id whole', (columns) => {
    const lines = paidLine(deposit, 0, 'UTC', { columns, after: `(deposit ${ID}, ref mesa 12)` }).split('\n');
    expect(lines.filter((line) => line.includes(ID))).toHaveLength(1);
    expect(lines.some((line) => line.includes('(deposit') && line.includes(ID))).toBe(false);
    expect(lines.filter((line) => line.includes('R$ 6.000,00'))).toHaveLength(1);
  });
});

describe("a watch's notes on stderr at 40 columns", () => {
  it('a deposit the service does not know, and one given up on: the id whole, no line wider but its own', async () => {
    const { Printer } = await import('../../src/ui/output.js');
    const { WatchView } = await import('../../src/ui/watch-view.js');
    let stderr = '';
    const ctx = {
      stdout: { write: () => true, isTTY: false },
      stderr: { write: (s: string) => (stderr += s), isTTY: true, columns: 40, rows: 10 },
      env: { TZ: 'UTC', NO_COLOR: '1' },
      now: () => 0,
    };
    const printer = new Printer(ctx as never, { json: false, quiet: false, color: false, verbose: false });
    const view = await WatchView.open(
      { ctx: ctx as never, printer, globals: {}, renderMode: () => ({ sandbox: true }) as never },
      [ID],
    );
    view.gone(ID);
    view.expired(ID);
    view.stop();
    const lines = stderr.trimEnd().split('\n');
    expect(lines.filter((line) => line.includes(ID))).toEqual([`${ID}:`, `${ID}:`]);
    for (const line of lines) expect(widthOf(line), line).toBeLessThanOrEqual(40);
    expect(lines.join(' ')).toContain(`deposit ${ID}: the service does not know it (404)`);
  });
});
