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
  verification?: unknown;
  /** the merchant's reference and note, from lbrl's ledger: `data.ref`, `data.note` when there are */
  local?: LocalFields | undefined;
}): string {
  const data: Record<string, unknown> = { deposit: event.deposit, previousStatus: event.previousStatus };
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

/** The key bytes of a `whsec_` secret (the prefix is optional, as receivers accept it); undefined when it is not one. */
export function secretKey(secret: string): Buffer | undefined {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  const key = Buffer.from(b64, 'base64');
  if (key.length < 16 || key.length > 64) return undefined;
  return key;
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

/**
 * Whether a delivery is signed with this secret within the tolerance. The signature header may
 * hold several space-separated `version,signature` pairs (a secret being rotated); one v1 match
 * is enough. Compared in constant time.
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
  if (id === undefined || timestamp === undefined || sig === undefined) {
    const missing = [
      id === undefined && 'webhook-id',
      timestamp === undefined && 'webhook-timestamp',
      sig === undefined && 'webhook-signature',
    ].filter(Boolean);
    return { ok: false, problem: 'missing_header', detail: `missing ${missing.join(', ')}` };
  }
  if (id.length === 0 || id.length > 256 || /[^\x21-\x7e]/.test(id))
    return { ok: false, problem: 'malformed_header', detail: 'webhook-id is not printable ASCII' };
  if (!/^[0-9]{1,15}$/.test(timestamp))
    return { ok: false, problem: 'malformed_header', detail: 'webhook-timestamp is not whole seconds' };
  const seconds = Number(timestamp);
  const now = Math.floor(nowMs / 1000);
  if (now - seconds > toleranceSeconds)
    return { ok: false, problem: 'timestamp_too_old', detail: `webhook-timestamp is ${now - seconds} s old` };
  if (seconds - now > toleranceSeconds)
    return {
      ok: false,
      problem: 'timestamp_too_new',
      detail: `webhook-timestamp is ${seconds - now} s in the future`,
    };
  const pairs = sig.split(' ').filter((p) => p !== '');
  if (pairs.length === 0 || pairs.length > 16 || pairs.some((p) => !/^v[0-9a-z]+,[A-Za-z0-9+/=]+$/.test(p)))
    return { ok: false, problem: 'malformed_header', detail: 'webhook-signature is not "v1,<base64>" pairs' };
  const expected = Buffer.from(signature(key, id, seconds, body).slice(3), 'base64');
  for (const pair of pairs) {
    const [version, value] = pair.split(',') as [string, string];
    if (version !== 'v1') continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, problem: 'bad_signature', detail: 'no v1 signature matches' };
}
