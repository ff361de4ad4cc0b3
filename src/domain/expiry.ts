/**
 * The day's trade, as pure rules: when a charge lbrl created is given up on (`expire-after`),
 * the request ceiling (`requests-per-minute`), and the spans of time `list` and `report` take
 * (`--since 7d`, `--until 2026-11-20`).
 */
import { DURATION_UNIT_MS, readDuration } from './duration.js';
import type { Parsed } from './money.js';
import { parseWholeNumber } from './values.js';

const MINUTE = DURATION_UNIT_MS.m;
/** A year: further than any charge is worth waiting for. */
const MAX_EXPIRY_MS = 366 * 24 * 60 * MINUTE;

/** The longest span back `--since`/`--until` take: far enough for any history, near enough for a date. */
const MAX_SPAN_MS = 36_525 * DURATION_UNIT_MS.d;

/** The statuses in which money is in motion: never given up on, however old. */
export const IN_FLIGHT = ['PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT'] as const;

/** `90m`, `24h`, `2d`, `1h30m` (a unit is required), from 1 minute to 366 days, to milliseconds. */
export function readExpireAfter(input: string): Parsed<number> {
  return readDuration(input, {
    minMs: MINUTE,
    maxMs: MAX_EXPIRY_MS,
    expected: 'a duration such as 90m, 24h, 2d or 1h30m (at least 1m, at most 366d)',
  });
}

/** The ceiling of GETs a minute a watch spends across all its deposits. */
export function readRequestsPerMinute(input: string): Parsed<number> {
  return parseWholeNumber(input, 1, 6000, 'a whole number of requests a minute from 1 to 6000');
}

/**
 * Whether a deposit is due its last look: it still waits for payment (as far as lbrl knows),
 * was not yet given up on, and was created longer ago than `expireAfterMs`. Its age counts from
 * lbrl's own record of the create (`at`); when that cannot be placed (unreadable, or later than
 * now: a clock that was ahead, a line edited by hand), from the service's `createdAt` if that is
 * in the past, so such a charge is not followed for ever. A deposit in flight (paid, settling)
 * is never due, however old.
 */
export function isDueToExpire(
  entry: {
    status: string;
    at: string;
    expiredAt?: string | undefined;
    answer?: { createdAt?: unknown } | undefined;
  },
  now: number,
  expireAfterMs: number,
): boolean {
  const due = lastLookDueAt(entry, now, expireAfterMs);
  return due !== undefined && now >= due;
}

/**
 * When a deposit still waiting for payment becomes due its last look (ms since the epoch, a
 * date: expire-after is a span of the calendar), its creation placed as `isDueToExpire` places
 * it at `now`; undefined when it never is (in flight, or already given up on). A creation that
 * cannot be placed (lbrl's record and the service's both later than now: a clock set back since)
 * is no later than now, so the deposit is due a whole expire-after from now at the latest: a
 * watch that follows it (a pass without --timeout) ends then, never follows it for ever.
 */
export function lastLookDueAt(
  entry: {
    status: string;
    at: string;
    expiredAt?: string | undefined;
    answer?: { createdAt?: unknown } | undefined;
  },
  now: number,
  expireAfterMs: number,
): number | undefined {
  if (entry.status !== 'WAITING_PAYMENT' || entry.expiredAt) return undefined;
  let created = Date.parse(entry.at);
  if (!(created <= now)) {
    const service = entry.answer?.createdAt;
    created = typeof service === 'string' ? Date.parse(service) : Number.NaN;
    if (!(created <= now)) return now + expireAfterMs;
  }
  return created + expireAfterMs;
}

/**
 * A point in time given as a date (`2026-11-20`, read as local midnight in `offsetMinutes`...
 * or a full ISO time with its zone) or as a span back from `now` (`7d`, `12h`, `30m`, `2w`).
 * Dates are read in UTC unless they carry their own offset; a bare date is its start.
 */
export function parseWhen(input: string, now: number, timeZoneOffsetMs = 0): Parsed<number> {
  const expected =
    'a date (2026-11-20), a time with its offset (2026-11-20T15:00:00-03:00) or a span back from now (30m, 12h, 7d, 2w, 1d12h; at most 100 years)';
  const span = readDuration(input, { minMs: 0, maxMs: MAX_SPAN_MS, expected });
  if (span.ok) return { ok: true, value: now - span.value };
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(input);
  if (day) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const back = new Date(ms);
    if (back.getUTCMonth() !== Number(day[2]) - 1 || back.getUTCDate() !== Number(day[3]))
      return { ok: false, expected };
    return { ok: true, value: ms - timeZoneOffsetMs };
  }
  const time =
    /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(
      input,
    );
  if (time) {
    // every part checked: the clock would roll 2026-02-30 over to March 2, and 24:00 to the next day
    const [, year, month, dayOfMonth, hour, minute, second = '0', , offsetHours = '0', offsetMinutes = '0'] =
      time.map((x) => x ?? undefined);
    const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(dayOfMonth)));
    const real =
      date.getUTCMonth() === Number(month) - 1 &&
      date.getUTCDate() === Number(dayOfMonth) &&
      Number(hour) <= 23 &&
      Number(minute) <= 59 &&
      Number(second) <= 59 &&
      Number(offsetHours) <= 14 &&
      Number(offsetMinutes) <= 59;
    const ms = Date.parse(input);
    if (real && Number.isFinite(ms)) return { ok: true, value: ms };
  }
  return { ok: false, expected };
}
