/**
 * --since DAY and --until DAY are the first moment of that local date, whatever the zone does at
 * midnight: clocks that jump over it (America/Santiago 2026-09-06, America/Havana 2026-03-08), or
 * go back across it (midnight twice, or the evening before twice). The oracle is independent of
 * the code: every minute around the date, asked of Intl, the first whose local date is the day.
 */
import { describe, expect, it } from 'vitest';
import { runReport } from '../../src/commands/deposit-report.js';
import { parseSpan } from '../../src/commands/shared/when.js';
import type { CreatedRecord, HistoryEntry } from '../../src/store/history-records.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');

function span(tz: string, flags: { since?: string; until?: string }) {
  return parseSpan(flags, { ctx: { now: () => NOW, env: { TZ: tz } } });
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** The local date of a moment, as Intl says it. */
function localDate(ms: number, tz: string): string {
  let format = formats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formats.set(tz, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The first moment whose local date is `day` or later: scanning from 30 hours before, by hours, minutes, seconds. */
function oracle(day: string, tz: string): number {
  let at = Date.parse(`${day}T00:00:00.000Z`) - 30 * 3_600_000;
  for (const step of [3_600_000, 60_000, 1000]) {
    while (localDate(at, tz) < day) at += step;
    at -= step; // the last moment before it, at this step; the next step finds it within
  }
  return at + 1000;
}

// days whose midnight the clocks jump over (forward) or cross twice (back), and plain days
const DAYS: Array<[string, string]> = [
  ['America/Santiago', '2026-09-06'], // 00:00 -04 -> 01:00 -03
  ['America/Santiago', '2026-04-05'], // 00:00 -03 -> 23:00 -04 the evening before
  ['America/Santiago', '2026-09-05'],
  ['America/Santiago', '2026-09-07'],
  ['America/Havana', '2026-03-08'], // 00:00 -05 -> 01:00 -04
  ['America/Havana', '2026-11-01'], // 01:00 -04 -> 00:00 -05: midnight twice
  ['America/Havana', '2026-03-07'],
  ['Asia/Beirut', '2026-03-29'], // 00:00 +02 -> 01:00 +03
  ['Asia/Beirut', '2026-10-25'], // 00:00 +03 -> 23:00 +02 the evening before
  ['Africa/Cairo', '2026-04-24'], // 00:00 +02 -> 01:00 +03
  ['Africa/Cairo', '2026-10-30'], // 00:00 +03 -> 23:00 +02 the evening before
  ['America/Asuncion', '2023-10-01'], // 00:00 -04 -> 01:00 -03
  ['America/Asuncion', '2023-03-26'], // 00:00 -03 -> 23:00 -04
  ['Australia/Lord_Howe', '2026-10-04'], // 02:00 +10:30 -> 02:30 +11: a half-hour change
  ['America/Sao_Paulo', '2026-09-06'],
  ['Asia/Kathmandu', '2026-09-06'], // +05:45
  ['UTC', '2026-09-06'],
];

describe('a bare date is the first moment of that local date', () => {
  it('the issue’s days: nothing of the evening before, nothing of the day lost', () => {
    expect(new Date(span('America/Santiago', { since: '2026-09-06' }).since!).toISOString()).toBe(
      '2026-09-06T04:00:00.000Z',
    );
    expect(new Date(span('America/Havana', { since: '2026-03-08' }).since!).toISOString()).toBe(
      '2026-03-08T05:00:00.000Z',
    );
    expect(new Date(span('America/Havana', { until: '2026-03-08' }).until!).toISOString()).toBe(
      '2026-03-08T05:00:00.000Z',
    );
  });

  it.each(DAYS)('%s %s: --since and --until are the oracle’s first moment', (tz, day) => {
    const first = oracle(day, tz);
    const got = span(tz, {
      since: day,
      until: day.replace(/\d{2}$/, (d) => String(Number(d) + 1).padStart(2, '0')),
    });
    expect(new Date(got.since!).toISOString()).toBe(new Date(first).toISOString());
    // the moment before is the day before, the moment itself the day
    expect(localDate(got.since! - 1, tz) < day).toBe(true);
    expect(localDate(got.since!, tz)).toBe(day);
    expect(span(tz, { until: day }).until).toBe(first);
  });
});

/** A deposit of `cents` created at `ms`, as the history gives it. */
function created(n: number, ms: number, cents: number): HistoryEntry {
  const at = new Date(ms).toISOString();
  return {
    v: 1,
    type: 'created',
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    profile: 'default',
    baseUrl: 'https://pay.example.com',
    at,
    amountInCents: cents,
    destinationAddress: 'lq1qq',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    statusAt: at,
  };
}

/** `deposit report --by day --json` over these deposits, in this zone: each period's created cents. */
async function perDay(tz: string, entries: HistoryEntry[], flags: { since?: string; until?: string }) {
  const term = plainTerminal({ json: true, env: { TZ: tz }, now: () => NOW });
  await runReport({
    flags: { by: 'day', ...flags },
    json: true,
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
        for (const e of entries) if (filter(e)) visit(acc, e);
        return acc;
      },
    }),
  });
  return (JSON.parse(term.stdout).periods as Array<{ period: string; createdCents: number }>)
    .filter((p) => p.createdCents > 0)
    .map((p) => [p.period, p.createdCents]);
}

describe('report --by day draws the line where --since and --until do', () => {
  it.each(DAYS)(
    '%s %s: the last second before the day is the day before, the first is the day',
    async (tz, day) => {
      const first = oracle(day, tz);
      const before = localDate(first - 1000, tz);
      const entries = [
        created(1, first - 1000, 100),
        created(2, first, 200),
        created(3, first + 3_600_000, 400),
      ];
      expect(await perDay(tz, entries, {})).toEqual([
        [before, 100],
        [day, 600],
      ]);
      expect(await perDay(tz, entries, { since: day })).toEqual([[day, 600]]);
      expect(await perDay(tz, entries, { until: day })).toEqual([[before, 100]]);
    },
  );
});
