import type { ChalkInstance } from 'chalk';
import type { DepositResponse, GetResponse } from '../api/models.js';
import { decimalFromNumber, decimalToCents, decimalToString } from '../domain/decimal.js';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { formatCents, formatReais } from '../domain/money.js';
import type { LocalFields } from '../domain/text/reference.js';
import { safeText } from '../domain/text/safe-text.js';
import { LATEST_MS } from '../domain/time-range.js';
import { isHex32 } from '../domain/values.js';

export function colorStatus(colors: ChalkInstance, statusText: string): string {
  const status = safeText(statusText);
  switch (status) {
    case 'FINALIZED':
      return colors.green(status);
    case 'FAILED':
      return colors.red(status);
    // bold and magenta read on a light background as on a dark one (yellow and cyan do not)
    case 'WAITING_PAYMENT':
      return colors.bold(status);
    default:
      return colors.magenta(status);
  }
}

/** 0.0299 -> "2.99%", 0.03 -> "3.00%": exactly, always at least two decimals. */
export function percentText(fraction: number): string {
  const decimal = decimalFromNumber(fraction);
  if (!decimal) return String(fraction);
  const scale = Math.max(decimal.scale - 2, 2);
  const percent = { units: decimal.units * 10n ** BigInt(scale - (decimal.scale - 2)), scale };
  return `${decimalToString(percent)}%`;
}

/** A fraction (0.0299) in hundredths of a percent (299), when it is that exact; else null. */
export function basisPointsOf(fraction: number): number | null {
  const decimal = decimalFromNumber(fraction);
  if (!decimal || decimal.units < 0n || decimal.scale > 4) return null;
  return Number(decimal.units * 10n ** BigInt(4 - decimal.scale));
}

/**
 * How a net amount is shared with a split: the split address gets `basisPoints` hundredths of
 * a percent of it, rounded down to the cent (by integer arithmetic), and the destination the
 * rest, so the two always add up to the net. The service may round its own units otherwise,
 * by less than a cent.
 */
export function splitShares(netCents: bigint, basisPoints: number): { split: bigint; destination: bigint } {
  const split = (netCents * BigInt(basisPoints)) / 10_000n;
  return { split, destination: netCents - split };
}

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

/** "3.00% of net to <address>: R$ 1,05 (the rest, R$ 33,95, to the destination)" when the net is known. */
export function splitText(fraction: number, address: string, netAmount?: number): string {
  const head = `${percentText(fraction)} of net to ${address}`;
  const basisPoints = basisPointsOf(fraction);
  const net = netAmount === undefined ? null : decimalFromNumber(netAmount);
  const netCents = net ? decimalToCents(net) : null;
  if (basisPoints === null || netCents === null || netCents < 0n) return head;
  const { split, destination } = splitShares(netCents, basisPoints);
  return `${head}: ${formatCents(split)} (the rest, ${formatCents(destination)}, to the destination)`;
}

const EXPLORERS: Record<string, string> = {
  liquid: 'https://blockstream.info/liquid/tx/',
  liquidtestnet: 'https://blockstream.info/liquidtestnet/tx/',
};

/**
 * Where lbrl sent the request decides the mode, never a field of the answer: a live service
 * answering `"sandbox": true` is still real money.
 */
export interface RenderMode {
  /** true only when the request went to lbrl's embedded sandbox */
  sandbox: boolean;
  /** the explorer's `#blinded=…` fragment, when a known key unblinded the settlement's outputs */
  blinded?: string | null;
  /** the time zone of human times (TZ), else the system's */
  timeZone?: string | undefined;
  /** a standing sandbox's base URL (known by its token): its deposits link to its own explorer there */
  serviceUrl?: string | undefined;
  /** the merchant's reference and note, from lbrl's ledger (never from the answer) */
  local?: LocalFields | undefined;
}

export function explorerLink(deposit: DepositResponse, mode: RenderMode): string | undefined {
  const txid = (deposit as Partial<GetResponse>).settlement?.liquidTxid;
  if (!isHex32(txid) || mode.sandbox) return undefined;
  // a standing sandbox's transaction (`lbrl sandbox serve` as a profile) is on its own chain, which
  // it serves as an Esplora API: never a public explorer's page, where that txid means nothing
  if ((deposit as { sandbox?: unknown }).sandbox === true && mode.serviceUrl)
    return `${mode.serviceUrl}/esplora/tx/${txid}`;
  const net = decodeLiquidAddress(deposit.destinationAddress);
  const base = net.ok ? EXPLORERS[net.value.network] : undefined;
  return base ? `${base}${txid}` : undefined;
}

function money(reais: number): string {
  const decimal = decimalFromNumber(reais);
  return decimal ? formatReais(decimal) : String(reais);
}

/**
 * The human view of a deposit: aligned label/value lines. Every value the service gave passes
 * safeText, so no escape sequence of an answer reaches the terminal.
 */
export function renderDeposit(
  colors: ChalkInstance,
  deposit: DepositResponse,
  mode: RenderMode = { sandbox: false },
): string {
  const safe = safeText;
  const timeZone = mode.timeZone;
  const rows: Array<[string, string]> = [['Deposit', colors.bold(safe(deposit.id))]];
  if (mode.local?.ref !== undefined) rows.push(['Ref', safe(mode.local.ref)]);
  if (mode.local?.note !== undefined) rows.push(['Note', safe(mode.local.note)]);
  rows.push(
    ['Status', colorStatus(colors, deposit.status)],
    ['Amount', `${formatCents(deposit.amountInCents)} (${deposit.amountInCents} cents)`],
    ['Fee', money(deposit.feeAmount)],
    ['Net', money(deposit.netAmount)],
    ['To', safe(deposit.destinationAddress)],
  );
  if (deposit.splitAddress && deposit.splitPercent !== null && deposit.splitPercent !== undefined) {
    rows.push(['Split', splitText(deposit.splitPercent, safe(deposit.splitAddress), deposit.netAmount)]);
  }
  rows.push(['Created', safe(localTime(deposit.createdAt, timeZone))]);
  const got = deposit as Partial<GetResponse>;
  if (got.confirmedAt) rows.push(['Confirmed', safe(localTime(got.confirmedAt, timeZone))]);
  if (got.settlement) {
    const settlement = got.settlement;
    rows.push([
      'Settlement',
      `${safe(settlement.status ?? 'started')}${settlement.liquidTxid ? ` txid ${safe(settlement.liquidTxid)}` : ''}`,
    ]);
    const link = explorerLink(deposit, mode);
    if (link) rows.push(['Explorer', `${link}${mode.blinded ?? ''}`]);
    else if (mode.sandbox && settlement.liquidTxid)
      rows.push(['Explorer', 'none: the sandbox chain is not public (lbrl deposit verify checks it)']);
  }
  if (mode.sandbox) rows.push(['Mode', colors.magenta('sandbox (no real money)')]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${k.padEnd(width)}${v}`).join('\n');
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
