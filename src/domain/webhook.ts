/**
 * Events out, as the Standard Webhooks specification has them (www.standardwebhooks.com): the
 * event types lbrl sends, their ids and bodies, the `whsec_` secret, and the signature
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the secret's decoded bytes.
 * Pure: HMAC and SHA-256 from node:crypto, no I/O.
 */

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { LocalFields } from './text/reference.js';
import { canonicalId } from './values.js';

export const DEPOSIT_EVENTS = [
  'deposit.created',
  'deposit.pix_confirmed',
  'deposit.settlement_created',
  'deposit.tx_sent',
  'deposit.finalized',
  'deposit.failed',
  'deposit.verified',
  'deposit.mismatch',
  'deposit.expired',
] as const;
export type DepositEventType = (typeof DEPOSIT_EVENTS)[number];

const BY_STATUS: Record<string, DepositEventType> = {
  WAITING_PAYMENT: 'deposit.created',
  PIX_CONFIRMED: 'deposit.pix_confirmed',
  SETTLEMENT_CREATED: 'deposit.settlement_created',
  TX_SENT: 'deposit.tx_sent',
  FINALIZED: 'deposit.finalized',
  FAILED: 'deposit.failed',
};

/** The statuses a paid deposit passes through, in order (FAILED may end it at any of them). */
const FLOW = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'] as const;

/** What an answer shows of a deposit, as far as the order of its statuses goes. */
interface StatusShape {
  status: string;
  confirmedAt?: unknown;
  settlement?: unknown;
}

/**
 * How far along FLOW this answer shows the deposit got: its status's place; for FAILED (or a
 * status the interface does not order), what the answer proves: a `confirmedAt` (paid), a
 * settlement (created), its `liquidTxid` (sent).
 */
function reachedIndex(deposit: StatusShape): number {
  const index = (FLOW as readonly string[]).indexOf(deposit.status);
  if (index >= 0) return index;
  const settlement = deposit.settlement;
  if (settlement !== null && typeof settlement === 'object')
    return typeof (settlement as { liquidTxid?: unknown }).liquidTxid === 'string' ? 3 : 2;
  return typeof deposit.confirmedAt === 'string' ? 1 : 0;
}

/** One status a deposit went through since lbrl last sent one, and whether lbrl saw it or infers it. */
export interface PassedStatus {
  status: string;
  inferred: boolean;
}

/**
 * The statuses the deposit went through after `previous` (null: never seen, so from
 * WAITING_PAYMENT), up to and including the one this answer has: those a poll missed are
 * inferred (PIX_CONFIRMED when FINALIZED is seen after WAITING_PAYMENT; PIX_CONFIRMED when a
 * FAILED answer carries `confirmedAt`). A step back, or from a status outside the order, is the
 * answer's status alone.
 */
export function statusesPassed(previous: string | null, deposit: StatusShape): PassedStatus[] {
  const from = previous === null ? -1 : (FLOW as readonly string[]).indexOf(previous);
  const to = reachedIndex(deposit);
  const onFlow = (FLOW as readonly string[]).includes(deposit.status);
  if ((previous !== null && from < 0) || (onFlow && to <= from))
    return [{ status: deposit.status, inferred: false }];
  const passed: PassedStatus[] = [];
  const last = onFlow ? to - 1 : to;
  for (let i = from + 1; i <= last; i++) passed.push({ status: FLOW[i]!, inferred: true });
  passed.push({ status: deposit.status, inferred: false });
  return passed;
}

/**
 * The deposit as it was at `status`, from a later answer: the status set, `confirmedAt` null
 * before PIX_CONFIRMED, the settlement null before SETTLEMENT_CREATED, then with that status and
 * without `liquidTxid` before TX_SENT. The answer itself when it is at that status.
 */
export function depositAt<T extends StatusShape>(deposit: T, status: string): T {
  if (status === deposit.status) return deposit;
  const index = (FLOW as readonly string[]).indexOf(status);
  const settlement = deposit.settlement;
  const out: Record<string, unknown> = { ...(deposit as unknown as Record<string, unknown>), status };
  if ('confirmedAt' in deposit) out.confirmedAt = index >= 1 ? (deposit.confirmedAt ?? null) : null;
  if ('settlement' in deposit) {
    if (index < 2 || settlement === null || typeof settlement !== 'object') out.settlement = null;
    else {
      const { liquidTxid, ...rest } = settlement as Record<string, unknown>;
      out.settlement =
        index >= 3 && liquidTxid !== undefined ? { ...rest, status, liquidTxid } : { ...rest, status };
    }
  }
  return out as T;
}

/** The event a status of the service stands for; undefined for a status the service does not document. */
export function eventForStatus(status: string): DepositEventType | undefined {
  return BY_STATUS[status];
}

export function isDepositEvent(text: string): text is DepositEventType {
  return (DEPOSIT_EVENTS as readonly string[]).includes(text);
}

/** `--events a,b`: each a known event type (or `deposit.*`/`*` for all). */
export function parseEventFilter(
  text: string,
): { ok: true; value: Set<DepositEventType> } | { ok: false; expected: string } {
  const expected = `a comma-separated list of event types: ${DEPOSIT_EVENTS.join(', ')} (or *)`;
  const out = new Set<DepositEventType>();
  const words = text.split(',').map((w) => w.trim());
  if (words.length === 0 || words.some((w) => w === '')) return { ok: false, expected };
  for (const word of words) {
    if (word === '*' || word === 'deposit.*') for (const t of DEPOSIT_EVENTS) out.add(t);
    else if (isDepositEvent(word)) out.add(word);
    else return { ok: false, expected };
  }
  return { ok: true, value: out };
}

/**
 * An event's id: the same for the same deposit and type on the same service, so the event made
 * again after a crash (between seeing a status and writing it down) carries the id the receiver
 * may already have, and is recognised as a repeat.
 */
export function eventId(service: string, depositId: string, type: DepositEventType): string {
  const digest = createHash('sha256').update(`lbrl event\n${service}\n${canonicalId(depositId)}\n${type}`);
  return `evt_${digest.digest('base64url').slice(0, 27)}`;
}

/** The body of an event, as JSON text: what is signed and sent, byte for byte, on every attempt. */
export function eventBody(event: {
  type: DepositEventType;
  at: number;
  deposit: unknown;
  previousStatus: string | null;
  /** lbrl did not see the deposit at this status (a poll missed it) and infers it from a later answer */
  inferred?: boolean;
  verification?: unknown;
  /** the merchant's reference and note, from lbrl's ledger: `data.ref`, `data.note` when there are */
  local?: LocalFields | undefined;
}): string {
  const data: Record<string, unknown> = {
    deposit: event.deposit,
    previousStatus: event.previousStatus,
    inferred: event.inferred ?? false,
  };
  if (event.verification !== undefined) data.verification = event.verification;
  if (event.local?.ref !== undefined) data.ref = event.local.ref;
  if (event.local?.note !== undefined) data.note = event.local.note;
  return JSON.stringify({ type: event.type, timestamp: new Date(event.at).toISOString(), data });
}

export const SECRET_PREFIX = 'whsec_';
/** Random bytes in a new secret (Svix uses 24; the specification asks for 24 to 64). */
export const SECRET_BYTES = 32;

/** A secret as `whsec_` and the base64 of these bytes. */
export function formatSecret(bytes: Uint8Array): string {
  return `${SECRET_PREFIX}${Buffer.from(bytes).toString('base64')}`;
}

/**
 * The key bytes of a `whsec_` secret (the prefix is optional, as receivers accept it), read exactly
 * as the reference library (npm `standardwebhooks`, through @stablelib/base64) reads it, so that a
 * receiver accepts what any other Standard Webhooks receiver accepts: trailing `=` are padding (at
 * most two, in a text of four characters or more), padding need not be there nor match the length,
 * the unused low bits of the last character are dropped, and a last lone character (a length of
 * 4k + 1 without the padding) is not read at all; every character read must be of the standard
 * alphabet. Undefined when the reference would refuse the secret. Any key of one byte or more
 * verifies: the lengths lbrl makes and keeps are signingKey's rule, not a receiver's.
 */
export function secretKey(secret: string): Buffer | undefined {
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const padding = text.length - text.replace(/=+$/, '').length;
  if (text.length < 4 || padding > 2) return undefined;
  const length = text.length - padding;
  const read = text.slice(0, length % 4 === 1 ? length - 1 : length);
  if (!/^[A-Za-z0-9+/]*$/.test(read)) return undefined;
  const key = Buffer.from(read, 'base64');
  return key.length === 0 ? undefined : key;
}

/**
 * The key of a profile's own secret, which listen signs with: written as lbrl writes it (padded
 * base64, nothing a lenient reader would drop) and of 16 to 64 bytes, else undefined (damaged).
 */
export function signingKey(secret: string): Buffer | undefined {
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const key = secretKey(secret);
  return key && key.length >= 16 && key.length <= 64 ? key : undefined;
}

/** `v1,<base64>`: the signature of one delivery attempt. */
export function signature(key: Uint8Array, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt, signed at `nowMs`. */
export function webhookHeaders(
  key: Uint8Array,
  id: string,
  nowMs: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const nowSeconds = Math.floor(nowMs / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(nowSeconds),
    'webhook-signature': signature(key, id, nowSeconds, body),
  };
}

/** How far a delivery's timestamp may be from the receiver's clock, either way (the specification's 5 minutes). */
export const TOLERANCE_SECONDS = 5 * 60;

export type SignatureProblem =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'bad_signature'
  | 'bad_secret';

/** Two texts compared in constant time (for their length). */
function sameText(given: string, expected: string): boolean {
  const left = Buffer.from(given, 'utf8');
  const right = Buffer.from(expected, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Whether a delivery is signed with this secret within the tolerance, exactly as the reference
 * library (npm `standardwebhooks`) decides it, so that a receiver accepts what any other Standard
 * Webhooks receiver accepts and nothing more: the timestamp is read as its leading whole number
 * (parseInt) and that number is what was signed; the signature header is split at single spaces,
 * each part at commas, and a part whose first field is `v1` and second field is the base64 of
 * the HMAC, character for character, is a match (no other encoding of the same bytes is). The
 * id is signed as it is. Compared in constant time.
 */
export function checkSignature(
  secret: string,
  headers: { id?: string | undefined; timestamp?: string | undefined; signature?: string | undefined },
  body: string,
  nowMs: number,
  toleranceSeconds = TOLERANCE_SECONDS,
): { ok: true } | { ok: false; problem: SignatureProblem; detail: string } {
  const key = secretKey(secret);
  if (!key) return { ok: false, problem: 'bad_secret', detail: 'the secret is not whsec_ and base64' };
  const { id, timestamp, signature: sig } = headers;
  if (!id || !timestamp || !sig) {
    const missing = [
      !id && 'webhook-id',
      !timestamp && 'webhook-timestamp',
      !sig && 'webhook-signature',
    ].filter(Boolean);
    return { ok: false, problem: 'missing_header', detail: `missing ${missing.join(', ')}` };
  }
  const seconds = Number.parseInt(timestamp, 10);
  if (Number.isNaN(seconds))
    return { ok: false, problem: 'malformed_header', detail: 'webhook-timestamp is not whole seconds' };
  const now = Math.floor(nowMs / 1000);
  if (now - seconds > toleranceSeconds)
    return { ok: false, problem: 'timestamp_too_old', detail: `webhook-timestamp is ${now - seconds} s old` };
  if (seconds - now > toleranceSeconds)
    return {
      ok: false,
      problem: 'timestamp_too_new',
      detail: `webhook-timestamp is ${seconds - now} s in the future`,
    };
  const expected = signature(key, id, seconds, body).slice('v1,'.length);
  let matched = false;
  for (const part of sig.split(' ')) {
    const [version, value] = part.split(',');
    // every part is compared, so the time taken does not tell which one matched
    if (version === 'v1' && value !== undefined && sameText(value, expected)) matched = true;
  }
  if (matched) return { ok: true };
  return { ok: false, problem: 'bad_signature', detail: 'no v1 signature matches' };
}
