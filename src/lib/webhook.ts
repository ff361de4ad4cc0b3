/**
 * Receiving lbrl's events in a Node program: `verifyWebhook(body, headers, secret)` checks a
 * delivery as the Standard Webhooks specification says (any of its libraries would accept the
 * same deliveries) and returns the event, or throws: a WebhookVerificationError when the delivery
 * is not proven to come from the secret's holder (its signature, headers or time), a
 * WebhookEventError when it is signed but is not an lbrl event (a receiver answers the two
 * differently: the first is a stranger, the second a sender that knows the secret).
 */

import { ownValue } from '../domain/own.js';
import { safeText } from '../domain/text/safe-text.js';
import {
  checkSignature,
  DEPOSIT_EVENTS,
  type DepositEventType,
  isDepositEvent,
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

/**
 * A delivery whose signature holds (it was signed with the secret) but whose body is not an lbrl
 * event: not JSON, or JSON without an event's shape (`{}`, an unknown type, a deposit without its
 * id). Never returned as an event. `reason` is always `not_an_event`; the message says what is
 * missing, in one line.
 */
export class WebhookEventError extends Error {
  readonly reason = 'not_an_event' as const;
  constructor(message: string) {
    super(message);
    this.name = 'WebhookEventError';
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
    throw notAnEvent('the body is not JSON');
  }
  const problem = eventProblem(event);
  if (problem !== undefined) throw notAnEvent(problem);
  return event as WebhookEvent;
}

function notAnEvent(why: string): WebhookEventError {
  return new WebhookEventError(`webhook signed with the secret, but not an lbrl event: ${why}`);
}

/** A value from the body, shown safely in a message (escaped, cut). */
function bodyValue(value: unknown): string {
  const text = safeText(JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** What keeps a parsed body from being an lbrl event (its own fields only), or undefined. */
function eventProblem(event: unknown): string | undefined {
  if (!isRecord(event)) return `the body is ${bodyValue(event)}, not an object`;
  const type = ownValue(event, 'type');
  if (typeof type !== 'string' || !isDepositEvent(type))
    return `its type ${type === undefined ? '(absent)' : bodyValue(type)} is none of lbrl's (${DEPOSIT_EVENTS.join(', ')}): a newer lbrl's event, or another sender's`;
  const timestamp = ownValue(event, 'timestamp');
  if (typeof timestamp !== 'string' || Number.isNaN(Date.parse(timestamp)))
    return `its timestamp ${timestamp === undefined ? '(absent)' : bodyValue(timestamp)} is no time`;
  const data = ownValue(event, 'data');
  if (!isRecord(data))
    return `its data ${data === undefined ? '(absent)' : bodyValue(data)} is not an object`;
  const deposit = ownValue(data, 'deposit');
  if (!isRecord(deposit)) return 'its data.deposit is not an object';
  for (const field of ['id', 'status'] as const)
    if (typeof ownValue(deposit, field) !== 'string') return `its data.deposit.${field} is not a string`;
  const previous = ownValue(data, 'previousStatus');
  if (previous !== null && typeof previous !== 'string')
    return 'its data.previousStatus is neither a status nor null';
  return undefined;
}
