import { DURATION_UNIT_MS, readDuration } from './duration.js';
import type { Parsed } from './money.js';

/** A deposit id: a UUID, in either case (the service may answer in upper case). */
export const DEPOSIT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The canonical form of a deposit id (lower case): one deposit is one deposit whatever case the service uses. */
export function canonicalId(id: string): string {
  return id.toLowerCase();
}

/**
 * 32 bytes in hex, in the one form lbrl keeps them: 64 lower-case hex characters. A Liquid
 * transaction id, an asset id and a block hash have this shape (hashes, in display order), and
 * so has a blinding key. Every check of that shape is this one.
 */
export const HEX32 = /^[0-9a-f]{64}$/;

/**
 * Bytes in hex, in the one form lbrl keeps them: two lower-case digits a byte. A raw
 * transaction, a script and 32 bytes (HEX32) are all written so; every check of bytes in hex is
 * this one.
 */
export const HEX_BYTES = /^(?:[0-9a-f]{2})*$/;

/** Whether `value` is bytes in hex in their one form, at least `minBytes` of them. */
export function isHexBytes(value: unknown, minBytes = 0): value is string {
  return typeof value === 'string' && value.length >= 2 * minBytes && HEX_BYTES.test(value);
}

/** Whether `value` is 32 bytes in hex in their one form (lower case): a txid or asset id as kept. */
export function isHex32(value: unknown): value is string {
  return typeof value === 'string' && HEX32.test(value);
}

/** 32 bytes in hex as typed (either case) to their one form; null when `text` is not 64 hex digits. */
export function readHex32(text: string): string | null {
  const lower = text.toLowerCase();
  return HEX32.test(lower) ? lower : null;
}

export function parseDepositId(input: string): Parsed<string> {
  if (!DEPOSIT_ID.test(input))
    return { ok: false, expected: 'a deposit id (a UUID such as 3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d)' };
  return { ok: true, value: canonicalId(input) };
}

/** `--timeout`: `90` (seconds), `90s`, `10m`, `1h`, `1h30m`; from 1 second to 7 days, to milliseconds. */
export function parseDuration(input: string): Parsed<number> {
  return readDuration(input, {
    minMs: DURATION_UNIT_MS.s,
    maxMs: 7 * DURATION_UNIT_MS.d,
    bareSeconds: true,
    expected: 'a duration such as 90, 90s, 10m, 1h or 1h30m (at least 1s, at most 7d)',
  });
}

/** A whole number from `min` to `max`, in digits only (no sign, point or exponent). */
export function parseWholeNumber(
  input: string,
  min: number,
  max: number,
  expected = `a whole number from ${min} to ${max}`,
): Parsed<number> {
  if (!/^\d{1,9}$/.test(input)) return { ok: false, expected };
  const wholeNumber = Number(input);
  if (wholeNumber < min || wholeNumber > max) return { ok: false, expected };
  return { ok: true, value: wholeNumber };
}

/** Whole seconds, at least 1 and at most an hour, to milliseconds. */
export function parseIntervalSeconds(input: string): Parsed<number> {
  const parsed = parseWholeNumber(input, 1, 3600, 'a whole number of seconds from 1 to 3600');
  return parsed.ok ? { ok: true, value: parsed.value * 1000 } : parsed;
}

const PROFILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function parseProfileName(input: string): Parsed<string> {
  if (!PROFILE.test(input)) {
    return {
      ok: false,
      expected: 'a profile name of letters, digits, - and _ (at most 64, starting with a letter or digit)',
    };
  }
  return { ok: true, value: input };
}

export const STATUSES = [
  'WAITING_PAYMENT',
  'PIX_CONFIRMED',
  'SETTLEMENT_CREATED',
  'TX_SENT',
  'FINALIZED',
  'FAILED',
] as const;
export type DepositStatus = (typeof STATUSES)[number];

/** Statuses in the order a deposit goes through them; FAILED may end any non-terminal one. */
export const STATUS_ORDER: readonly string[] = STATUSES.filter((status) => status !== 'FAILED');

/** The statuses after WAITING_PAYMENT on the way to FINALIZED: the customer has paid. */
const PAID = new Set<string>(STATUS_ORDER.slice(STATUS_ORDER.indexOf('WAITING_PAYMENT') + 1));

/**
 * A status past WAITING_PAYMENT that is not FAILED: the customer has paid. The one rule of what
 * counts as paid: the counter's "Pago!", and the alarm of a charge paid after lbrl gave up on it
 * (FAILED is an end, not a payment).
 */
export function isPaid(status: string | undefined): boolean {
  return status !== undefined && PAID.has(status);
}

/**
 * Whether `status` lies past `than` on the way to FINALIZED: news worth recording, which every
 * later answer is then held to. FAILED, and a local status such as EXPIRED, lie on no way.
 */
export function isLaterStatus(status: string, than: string): boolean {
  const was = STATUS_ORDER.indexOf(than);
  return was >= 0 && STATUS_ORDER.indexOf(status) > was;
}

export function isTerminal(status: string): boolean {
  return status === 'FINALIZED' || status === 'FAILED';
}
