/**
 * The moments a record may hold are those every view shows (domain/time-range.ts): 1970 to the
 * last moment of the year 9999 in UTC. A record of 9999-12-31T23:59:59Z is read; a view in a zone
 * where that moment is already the year 10000 tells it in UTC, with four digits, so the report's
 * days and the list's clock sort and compare as the moments do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReport } from '../../src/commands/deposit-report.js';
import { History } from '../../src/store/history.js';
import { readRecordLine } from '../../src/store/record-read.js';
import { localClock } from '../../src/ui/zone-time.js';
import { plainTerminal } from '../helpers/plain-terminal.js';
import { tempDir } from '../helpers/temp.js';

const ID = '00000000-0000-4000-8000-000000000001';
const status = (at: string) => JSON.stringify({ v: 1, type: 'status', id: ID, status: 'FINALIZED', at });
const created = (n: number, at: string) =>
  JSON.stringify({
    v: 1,
    type: 'created',
    id: `00000000-0000-4000-8000-00000000000${n}`,
    profile: 'default',
    baseUrl: 'https://pay.example.com',
    at,
    amountInCents: 1000 * n,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  });

describe('the moments a record may hold', () => {
  it.each([
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59.999Z',
    '9999-12-31T10:00:00.000Z',
    '1970-01-01T00:00:00Z',
  ])('%s is read', (at) => {
    expect(readRecordLine(status(at)).ok).toBe(true);
  });

  it.each(['+010000-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z'])(
    '%s is no record, named',
    (at) => {
      expect(readRecordLine(status(at))).toEqual({ ok: false, damage: 'with a time no clock wrote' });
    },
  );

  it.each([
    ['Pacific/Kiritimati', '9999-12-31T23:59:59'],
    ['Asia/Tokyo', '9999-12-31T23:59:59'],
    ['America/Sao_Paulo', '9999-12-31T20:59:59'],
    ['UTC', '9999-12-31T23:59:59'],
  ])('the last moment in %s: a clock of four digits', (zone, clock) => {
    expect(localClock(Date.parse('9999-12-31T23:59:59Z'), zone)).toBe(clock);
  });

  it('report --json in a zone 14 hours ahead: the last day is 9999-12-31, after 2026, nothing skipped', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      `${[created(1, '2026-11-20T12:00:00.000Z'), created(2, '9999-12-31T23:00:00.000Z'), created(3, '9999-12-31T05:00:00.000Z')].join('\n')}\n`,
      { mode: 0o600 },
    );
    const warned: string[] = [];
    const history = new History(dir, (l) => warned.push(l));
    const term = plainTerminal({
      json: true,
      env: { TZ: 'Pacific/Kiritimati' },
      now: () => Date.parse('2026-11-21T15:00:00Z'),
    });
    await runReport({
      flags: {},
      json: true,
      printer: term.printer,
      profileName: 'default',
      ctx: term.ctx,
      history: () => history,
    });
    const shown = JSON.parse(term.stdout) as {
      periods: Array<{ period: string; createdCents: number }>;
      total: { createdCount: number };
    };
    const withMoney = shown.periods.filter((p) => p.createdCents > 0).map((p) => [p.period, p.createdCents]);
    // 05:00 UTC is 19:00 in Kiritimati, still 9999-12-31; 23:00 UTC is told in UTC, the same day
    expect(withMoney).toEqual([
      ['2026-11-21', 1000],
      ['9999-12-31', 5000],
    ]);
    expect(shown.total.createdCount).toBe(3);
    expect(warned).toEqual([]);
    expect(term.stderr).toBe('');
  });
});
