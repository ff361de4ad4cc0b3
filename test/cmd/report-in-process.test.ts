/**
 * `deposit report` as a function of narrow options (runReport): a history that is a plain list of
 * entries, a clock, a printer on plain strings; no factory, no files, no server. What a user sees
 * is asserted: stdout, stderr, the error. The runs over a history file are in test/cmd/day-trade.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type ReportCommandOptions, runReport } from '../../src/commands/deposit-report.js';
import { LbrlError } from '../../src/errors.js';
import type { CreatedRecord, HistoryEntry } from '../../src/store/history-records.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

const NOW = Date.parse('2026-11-21T15:00:00Z');

function entry(id: string, at: string, amountInCents: number, profile = 'default'): HistoryEntry {
  return {
    v: 1,
    type: 'created',
    id,
    profile,
    baseUrl: 'https://pay.example.com',
    at,
    amountInCents,
    destinationAddress: 'lq1qq...',
    splitAddress: null,
    splitFee: null,
    status: 'AWAITING_PAYMENT',
    statusAt: at,
  };
}

const ENTRIES = [
  entry('dep_1', '2026-11-20T12:00:00Z', 1550),
  entry('dep_2', '2026-11-21T09:30:00Z', 1000),
  entry('dep_3', '2026-11-21T10:00:00Z', 99_999, 'work'),
];

async function report(flags: ReportCommandOptions['flags'], json = false, env = { TZ: 'UTC' }) {
  const term = plainTerminal({ json, env, now: () => NOW });
  const seen = { stdout: '', stderr: '', error: undefined as unknown };
  try {
    await runReport({
      flags,
      json,
      printer: term.printer,
      profileName: 'default',
      ctx: term.ctx,
      history: () => ({
        fold: <T>(
          filter: (r: CreatedRecord) => boolean,
          start: () => T,
          visit: (acc: T, e: HistoryEntry) => void,
        ) => {
          const acc = start();
          for (const e of ENTRIES) if (filter(e)) visit(acc, e);
          return acc;
        },
      }),
    });
  } catch (e) {
    seen.error = e;
  }
  seen.stdout = term.stdout;
  seen.stderr = term.stderr;
  return seen;
}

describe('deposit report, in process', () => {
  it("--json: the profile's deposits per local day, in cents, and the total", async () => {
    const r = await report({}, true);
    expect(r.error).toBeUndefined();
    const shown = JSON.parse(r.stdout);
    expect(shown).toMatchObject({ profile: 'default', by: 'day', timeZone: '+00:00' });
    expect(
      shown.periods.map((p: { period: string; createdCents: number }) => [p.period, p.createdCents]),
    ).toEqual([
      ['2026-11-20', 1550],
      ['2026-11-21', 1000],
    ]);
    expect(shown.total).toMatchObject({ createdCount: 2, createdCents: 2550, pendingCount: 2 });
  });

  it('--since keeps what was created from then, read in the user time zone', async () => {
    const r = await report({ since: '2026-11-21' }, true, { TZ: 'America/Sao_Paulo' });
    const shown = JSON.parse(r.stdout);
    expect(shown.since).toBe('2026-11-21T03:00:00.000Z');
    expect(shown.total.createdCents).toBe(1000);
  });

  it('--csv-br: semicolons and decimal commas, a total row', async () => {
    const r = await report({ csvBr: true });
    const lines = r.stdout.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^day;created;finalized;/);
    expect(lines.at(-1)).toMatch(/^total;2;0;0;0;2;25,50;/);
  });

  it('two formats: one line naming both, a usage error, nothing printed', async () => {
    const r = await report({ csv: true }, true);
    expect(r.error).toBeInstanceOf(LbrlError);
    expect((r.error as LbrlError).message).toBe('--json and --csv cannot go together: choose one format');
    expect((r.error as LbrlError).exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });
});
