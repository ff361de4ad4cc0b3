/**
 * Receiving lbrl's events in a Node program: `verifyWebhook(body, headers, secret)` checks a
 * delivery as the Standard Webhooks specification says (any of its libraries would accept the
 * same deliveries) and returns the event, or throws a WebhookVerificationError saying why not.
 */

import { ownValue } from '../domain/own.js';
import {
  checkSignature,
  type DepositEventType,
  type SignatureProblem,
  TOLERANCE_SECONDS,
} from '../domain/webhook.js';

export type WebhookProblem = SignatureProblem | 'malformed_body';

/** A delivery that must not be trusted; `reason` says which check it failed. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookProblem,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** An event as lbrl sends it. */
export interface WebhookEvent {
  type: DepositEventType;
  /** when lbrl observed it, ISO 8601 */
  timestamp: string;
  data: {
    /** the deposit as the service answered, after lbrl's checks */
    deposit: Record<string, unknown> & { id: string; status: string };
    /** the status of the deposit's event before this one (null for deposit.created) */
    previousStatus: string | null;
    /**
     * lbrl did not see the deposit at this status (it lasted less than a poll, or passed while
     * listen was stopped) and infers it from a later answer: `deposit` is that answer as it was at
     * this status. Events lbrl sends before this field existed lack it.
     */
    inferred?: boolean;
    /** deposit.verified and deposit.mismatch: what the check on chain found */
    verification?: Record<string, unknown>;
  };
}

/**
 * Headers as Node's http module gives them (lower-case names), or any plain record (names in any
 * case). Not a Fetch `Headers` object or a Map: the reference library reads a record's own keys,
 * finds none there and refuses every delivery, so verifyWebhook refuses them too, saying how to
 * pass them (`Object.fromEntries(headers)`).
 */
export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** the receiver's clock, in ms (default Date.now) */
  now?: () => number;
  /** how far the delivery's timestamp may be from now, in seconds (default 300) */
  toleranceSeconds?: number;
}

/**
 * A header's value as the reference library reads it: a record's own keys, lower-cased, the last
 * of two that differ only in case winning; a value that is not truthy is no value. The id and the
 * time are read through a template (an array of texts as its join, a number as its digits), the
 * signature is split as a string: any other kind there (an array) throws in the reference, so it
 * is given as undefined with `malformed` set, as is a value no template can read (a symbol).
 */
function header(headers: object, name: string): { value: string | undefined; malformed: boolean } {
  let value: unknown;
  const record = headers as Record<string, unknown>;
  for (const key of Object.keys(record)) if (key.toLowerCase() === name) value = record[key];
  if (!value) return { value: undefined, malformed: false };
  if (typeof value === 'string') return { value, malformed: false };
  if (name === 'webhook-signature' || typeof value === 'symbol') return { value: undefined, malformed: true };
  try {
    return { value: `${value as string}`, malformed: false };
  } catch {
    return { value: undefined, malformed: true };
  }
}

/** Refused: headers the reference library cannot read (a Fetch Headers object, a Map). */
function refuseUnreadableHeaders(headers: unknown): void {
  if (headers === null || typeof headers !== 'object')
    throw new WebhookVerificationError('missing_header', 'no headers were given');
  if (typeof (headers as { get?: unknown }).get === 'function')
    throw new WebhookVerificationError(
      'malformed_header',
      'webhook not verified: the headers are a Headers or Map object, which Standard Webhooks libraries do not read; pass a plain record: Object.fromEntries(headers)',
    );
}

/**
 * Check a delivery: the raw body exactly as received (a string, or the Buffer Node gives: a Buffer
 * is the one kind of bytes Standard Webhooks libraries read; parse it only after this), its
 * headers and the profile's secret (`lbrl listen --print-secret`). Returns the event.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  if (typeof secret !== 'string')
    throw new WebhookVerificationError('bad_secret', 'the secret must be a string');
  refuseUnreadableHeaders(headers);
  let text: string;
  if (typeof body === 'string') text = body;
  // a Buffer read as the reference reads it (its toString: UTF-8, a byte order mark kept, a byte
  // that is no UTF-8 read as U+FFFD, which is then what must have been signed); other bytes are
  // refused, as the reference refuses them
  else if (Buffer.isBuffer(body)) text = body.toString('utf8');
  else
    throw new WebhookVerificationError(
      'malformed_body',
      'the body must be a string or a Buffer (Standard Webhooks libraries read no other bytes): Buffer.from(bytes)',
    );
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signed = header(headers, 'webhook-signature');
  const malformed = [
    id.malformed && 'webhook-id',
    timestamp.malformed && 'webhook-timestamp',
    signed.malformed && 'webhook-signature',
  ].filter(Boolean);
  if (malformed.length > 0)
    throw new WebhookVerificationError(
      'malformed_header',
      `webhook not verified: ${malformed.join(', ')} is not one text`,
    );
  const now = ownValue(options, 'now') ?? Date.now;
  const tolerance = ownValue(options, 'toleranceSeconds') ?? TOLERANCE_SECONDS;
  if (typeof now !== 'function') throw new TypeError('options.now must be a function returning ms');
  const result = checkSignature(
    secret,
    { id: id.value, timestamp: timestamp.value, signature: signed.value },
    text,
    now(),
    tolerance,
  );
  if (!result.ok)
    throw new WebhookVerificationError(result.problem, `webhook not verified: ${result.detail}`);
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('malformed_body', 'the body is not JSON');
  }
  const candidate = event as Partial<WebhookEvent> | null;
  if (
    !candidate ||
    typeof candidate !== 'object' ||
    typeof candidate.type !== 'string' ||
    typeof candidate.data !== 'object' ||
    !candidate.data
  )
    throw new WebhookVerificationError('malformed_body', 'the body is not an lbrl event');
  return candidate as WebhookEvent;
}
