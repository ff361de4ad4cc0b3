/**
 * Times as people read them in their zone (TZ): a moment's local clock and offset, a local day's
 * first moment. Apart from the rest of the display (render.ts), so a command that shows only
 * times and amounts (deposit list) does not load the address library with it.
 */
import { LATEST_MS } from '../domain/time-range.js';

/** The time zone of TZ (`America/Sao_Paulo`, `:UTC`), if Intl knows it; else the process's own. */
export function timeZoneOf(env: Record<string, string | undefined>): string | undefined {
  const timeZone = env.TZ?.replace(/^:/, '');
  if (!timeZone) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

/**
 * A moment as people read it: their local time, to the second, with its offset:
 * `2026-11-22 06:14:48 -03:00`. A text that is no date is shown as it is.
 */
export function localTime(when: number | string, timeZone?: string): string {
  const ms = typeof when === 'number' ? when : Date.parse(when);
  if (!Number.isFinite(ms)) return String(when);
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(new Date(ms));
  const part = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? '';
  const offset = /([+-]\d{2}):?(\d{2})/.exec(part('timeZoneName'));
  const zone = offset ? `${offset[1]}:${offset[2]}` : '+00:00';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')} ${zone}`;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, number>();

/** The offset of a time zone from UTC at exactly this moment, in ms, asked of Intl. */
function exactOffsetMs(ms: number, timeZone?: string): number {
  let format = offsetFormats.get(timeZone ?? '');
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormats.set(timeZone ?? '', format);
  }
  const name = format.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const match = /([+-])(\d{2}):?(\d{2})(?::?(\d{2}))?/.exec(name);
  return match
    ? (match[1] === '-' ? -1 : 1) *
        (Number(match[2]) * 3_600_000 + Number(match[3]) * 60_000 + Number(match[4] ?? 0) * 1000)
    : 0;
}

/** The offset at the start of an hour (ms / 3600000), cached. */
function hourOffsetMs(hour: number, timeZone?: string): number {
  const key = `${timeZone ?? ''} ${hour}`;
  const known = offsetCache.get(key);
  if (known !== undefined) return known;
  const offset = exactOffsetMs(hour * 3_600_000, timeZone);
  if (offsetCache.size > 10_000) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

/**
 * The offset of a time zone from UTC at a moment, in ms (-03:00 is -10800000). Cached per hour
 * of the moment, so reading it for every deposit of a large history stays cheap; an hour whose
 * start and end differ holds a change of offset, and is asked of Intl at the moment itself.
 */
export function zoneOffsetMs(ms: number, timeZone?: string): number {
  const hour = Math.floor(ms / 3_600_000);
  const atStart = hourOffsetMs(hour, timeZone);
  const offset = atStart === hourOffsetMs(hour + 1, timeZone) ? atStart : exactOffsetMs(ms, timeZone);
  // a moment whose local time is past the year 9999 is told in UTC: a clock of four digits (time-range.ts)
  return ms <= LATEST_MS && ms + offset > LATEST_MS ? 0 : offset;
}

const DAY_MS = 86_400_000;
/** How often the offset is sampled while looking for its changes (none comes twice within it). */
const SAMPLE_MS = 3 * 3_600_000;

/** The first moment after `from` (at most `to`) whose offset is not `offset`, to the ms. */
function nextChange(from: number, to: number, offset: number, timeZone?: string): number {
  for (let at = from; at < to; at += SAMPLE_MS) {
    const end = Math.min(at + SAMPLE_MS, to);
    if (exactOffsetMs(end, timeZone) === offset) continue;
    let low = at; // same offset
    let high = end; // another offset
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (exactOffsetMs(mid, timeZone) === offset) low = mid;
      else high = mid;
    }
    return high;
  }
  return to;
}

/**
 * The first moment of a local date in a time zone, given that date's midnight in UTC (as
 * Date.UTC gives it): its midnight, or where the clocks jump over midnight the moment they land
 * on that date, or where midnight comes twice the first. Exact whatever the zone's changes of
 * offset: the stretches of one offset around the date are found, and the first moment whose
 * local time is on or after that midnight is taken.
 */
export function localDayStart(utcMidnight: number, timeZone?: string): number {
  const to = utcMidnight + 2 * DAY_MS;
  for (let from = utcMidnight - 2 * DAY_MS; from < to; ) {
    const offset = exactOffsetMs(from, timeZone);
    const end = nextChange(from, to, offset, timeZone);
    // within [from, end) the local time is the moment plus offset: on or after midnight from here
    const first = Math.max(from, utcMidnight - offset);
    if (first < end) return first;
    from = end;
  }
  return utcMidnight - exactOffsetMs(utcMidnight, timeZone);
}

/** `-03:00` for an offset in ms. */
export function offsetText(offsetMs: number): string {
  const abs = Math.abs(offsetMs) / 60_000;
  return `${offsetMs < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The local `YYYY-MM-DDTHH:MM:SS` of a moment (no offset), fast: for tables and periods. */
export function localClock(ms: number, timeZone?: string): string {
  return new Date(ms + zoneOffsetMs(ms, timeZone)).toISOString().slice(0, 19);
}
