/**
 * `deposit report` on a terminal fits it: at 40 columns (a split pane) and at 80, with counts of
 * 4 and 6 digits and amounts in the hundreds of millions, no line of its output is wider than the
 * terminal (a wider one wraps and breaks the table).
 */
import { describe, expect, it } from 'vitest';
import { type ReportCommandOptions, runReport } from '../../src/commands/deposit-report.js';
import type { CreatedRecord, HistoryEntry } from '../../src/store/history-records.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

const NOW = Date.parse('2026-11-21T15:00:00Z');

/** A finalized deposit of R$ 6.000,00 (the most one charge may be), its fee and net known, or not. */
function paid(day: string, verified: boolean, amountsKnown = true): HistoryEntry {
  const at = `${day}T12:00:00.000Z`;
  return {
    v: 1,
    type: 'created',
    id: '00000000-0000-4000-8000-000000000001',
    profile: 'default',
    baseUrl: 'https://pay.example.com',
    at,
    amountInCents: 600_000,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'FINALIZED',
    statusAt: at,
    ...(amountsKnown ? { answer: { amount: 6000, feeAmount: 60, netAmount: 5940, splitPercent: null } } : {}),
    ...(verified ? { verifiedAt: at } : {}),
  } as HistoryEntry;
}

/** `count` deposits a day over two days, every kind of fact among them, as a fold gives them. */
async function reportOf(
  count: number,
  columns: number | undefined,
  env: Record<string, string> = {},
): Promise<string> {
  const kinds = [
    paid('2026-11-20', true),
    paid('2026-11-20', false),
    paid('2026-11-21', true),
    paid('2026-11-21', false, false),
  ];
  const term = plainTerminal({
    json: false,
    env: { TZ: 'UTC', ...env },
    now: () => NOW,
    ...(columns !== undefined ? { columns } : {}),
  });
  const options: ReportCommandOptions = {
    flags: {},
    json: false,
    printer: term.printer,
    profileName: 'default',
    ctx: term.ctx,
    history: () => ({
      fold: <T>(
        _f: (r: CreatedRecord) => boolean,
        start: () => T,
        visit: (acc: T, e: HistoryEntry) => void,
      ) => {
        const acc = start();
        for (let n = 0; n < count; n++) visit(acc, kinds[n % kinds.length]!);
        return acc;
      },
    }),
  };
  await runReport(options);
  return term.stdout;
}

describe('deposit report fits the terminal', () => {
  it('at 20 columns (a tmux pane of 20x8): the day and NET on lines of their own, no amount cut', async () => {
    expect(await reportOf(400_000, 20)).toBe(
      [
        'DAY  NET',
        '2026-11-20',
        'R$ 1.188.000.000,00',
        '2026-11-21',
        '  R$ 594.000.000,00',
        '--------------------',
        'total',
        'R$ 1.782.000.000,00',
        '',
        'Paid (finalized)',
        'R$ 2.400.000.000,00',
        'Fees',
        '  R$ 18.000.000,00',
        'Net',
        'R$ 1.782.000.000,00',
        '  to split',
        '  R$ 0,00',
        '  to destination',
        'R$ 1.782.000.000,00',
        'Verified on chain',
        'R$ 1.188.000.000,00',
        '  (200000)',
        'Unproven',
        '  R$ 0,00 (0)',
        'Mismatched',
        '  R$ 0,00 (0)',
        'Not yet checked',
        '  R$ 594.000.000,00',
        '  (100000)',
        '  lbrl deposit',
        '  verify checks them',
        '100000 finalized',
        'deposit(s) have no',
        'fee or net in the',
        'history: counted,',
        'not summed',
        '',
        'Net received per day',
        '2026-11-20',
        'R$ 1.188.000.000,00',
        '2026-11-21',
        '  R$ 594.000.000,00',
        '',
      ].join('\n'),
    );
  });

  for (const count of [4_000, 400_000])
    for (const columns of [20, 40, 80, 300])
      it(`${String(count / 2).length}-digit counts a day, at ${columns} columns`, async () => {
        const out = await reportOf(count, columns);
        const lines = out.split('\n');
        const wide = lines.filter((line) => [...line].length > columns);
        expect(wide).toEqual([]);
        // no amount cut: each R$ figure whole on a line of its own making
        for (const line of lines) expect(line, line).not.toMatch(/R\$ [\d.]*$|^[\d.]*,\d\d/);
        // every fact is there, the figures whole
        expect(out).toContain(count === 400_000 ? 'R$ 1.782.000.000,00' : 'R$ 17.820.000,00');
        expect(out).toMatch(/Verified on chain/);
        expect(out.replace(/\n/g, ' ')).toMatch(/finalized deposit\(s\) have no fee/);
      });

  it('at 40 columns, 6-digit counts: the figures under their names, the table down to the day and NET', async () => {
    expect(await reportOf(400_000, 40)).toBe(
      [
        'DAY          FINAL                  NET',
        '2026-11-20  200000  R$ 1.188.000.000,00',
        '2026-11-21  200000    R$ 594.000.000,00',
        '---------------------------------------',
        'total       400000  R$ 1.782.000.000,00',
        '',
        'Paid (finalized)   R$ 2.400.000.000,00',
        'Fees               R$ 18.000.000,00',
        'Net                R$ 1.782.000.000,00',
        '  to split         R$ 0,00',
        '  to destination   R$ 1.782.000.000,00',
        'Verified on chain',
        '  R$ 1.188.000.000,00 (200000)',
        'Unproven           R$ 0,00 (0)',
        'Mismatched         R$ 0,00 (0)',
        'Not yet checked',
        '  R$ 594.000.000,00 (100000)',
        '  lbrl deposit verify checks them',
        '100000 finalized deposit(s) have no fee',
        'or net in the history: counted, not',
        'summed',
        '',
        'Net received per day',
        '2026-11-20  ███████  R$ 1.188.000.000,00',
        '2026-11-21  ███▌     R$ 594.000.000,00',
        '',
      ].join('\n'),
    );
  });
});

describe('deposit report when stdout is not a terminal: one rule for every view', () => {
  it('in a pipe: no width limit, the whole table (as on the widest terminal)', async () => {
    const piped = await reportOf(400_000, undefined);
    expect(piped).toBe(await reportOf(400_000, 300));
    expect(piped.split('\n')[0]).toMatch(/^DAY +CREATED +FINAL +FAILED +EXPIRED +OPEN +CHARGED +NET$/);
    expect(Math.max(...piped.split('\n').map((line) => [...line].length))).toBeGreaterThan(80);
  });

  it.each([20, 40, 80])('in a pipe with COLUMNS=%i: formatted at that width', async (columns) => {
    expect(await reportOf(400_000, undefined, { COLUMNS: String(columns) })).toBe(
      await reportOf(400_000, columns),
    );
  });

  it.each(['', '0', '-40', 'abc', '40x'])(
    'in a pipe with COLUMNS=%j (not a width): no limit',
    async (value) => {
      expect(await reportOf(4_000, undefined, { COLUMNS: value })).toBe(await reportOf(4_000, 300));
    },
  );

  it("a terminal's own width wins over COLUMNS", async () => {
    expect(await reportOf(400_000, 40, { COLUMNS: '300' })).toBe(await reportOf(400_000, 40));
  });
});
