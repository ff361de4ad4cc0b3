/**
 * One line of the history read as a record, totally: whatever the bytes, the answer is a
 * well-formed record (its fields checked, its id and txid in their one form) or the name of
 * what is wrong with it, which the reader counts and says. Nothing here throws.
 *
 * A line is JSON in any key order and spacing (a record re-serialised by `jq -S` reads as lbrl
 * wrote it). Records carry a version, `v`; a record without one was written before versions
 * and reads as version 1. Fields a record of its type does not know are kept as they are (a
 * later release may add some), and a field an older record never held is left out, unknown.
 */

import { MAX_CENTS, MIN_CENTS } from '../domain/money.js';
import {
  isCalendarTime,
  isIsoTimestamp,
  readSettlementFacts,
  type SettlementFacts,
} from '../domain/settlement-facts.js';
import { heldLocalText, NOTE_MAX, REF_MAX } from '../domain/text/reference.js';
import { isWithinTimeRange } from '../domain/time-range.js';
import {
  canonicalId,
  DEPOSIT_ID,
  isHex32,
  isHexBytes,
  isTerminal,
  readHex32,
  STATUSES,
} from '../domain/values.js';
import { LATER_FIELDS } from './history-records.js';

/** The version of the records this release writes and reads. */
export const RECORD_VERSION = 1;

/** Why a line is not a record, as the reader's warning names it, in the order it names them. */
export const LINE_DAMAGES = [
  'not a JSON record',
  'of an unknown type',
  'written by a newer lbrl',
  'with a field missing or malformed',
  'with a time no clock wrote',
  'with amounts that do not add up',
  'with a key given twice',
  'too long',
  "before its deposit's creation",
] as const;
export type LineDamage = (typeof LINE_DAMAGES)[number];

/**
 * What a line stated that its record cannot prove, read without it (the record is kept): a
 * creation stating a status past WAITING_PAYMENT, a final answer, a verification or a fact, which
 * only the later record lbrl writes when it sees them proves. Counted and named, as damage is.
 */
export const LINE_CLAIMS = ['creation stating what only a later record proves'] as const;
export type LineClaim = (typeof LINE_CLAIMS)[number];

export type RecordRead =
  | { ok: true; fields: Record<string, unknown>; claim?: LineClaim; brokenText?: true }
  | { ok: false; damage: LineDamage };

/** The status of every deposit as created: what a create answer says (deposit-rules refuse any other). */
const CREATED_STATUS = 'WAITING_PAYMENT';
/** The statuses a record may hold: the service's, and GONE (the service no longer knows it). */
const RECORD_STATUSES: ReadonlySet<string> = new Set([...STATUSES, 'GONE']);
const OUTCOMES: ReadonlySet<string> = new Set([
  'pending',
  'not-found',
  'not-settled',
  'unproven',
  'mismatch',
]);
/** A time as a record holds it: ISO 8601, within the moments lbrl records and shows (domain/time-range.ts). */
export function isRecordTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  // the form lbrl writes (toISOString) is ISO 8601 by its shape: one parse tells the rest
  if (isWrittenTime(value)) {
    const at = (from: number, to: number) => Number(value.slice(from, to));
    return (
      isCalendarTime(at(0, 4), at(5, 7), at(8, 10), at(11, 13), at(14, 16), at(17, 19)) &&
      isWithinTimeRange(Date.parse(value))
    );
  }
  return isIsoTimestamp(value) && isWithinTimeRange(Date.parse(value));
}

/** YYYY-MM-DDTHH:MM:SS.sssZ, read a character at a time: every record holds one, read per line. */
function isWrittenTime(value: string): boolean {
  if (value.length !== WRITTEN_TIME.length) return false;
  for (let i = 0; i < WRITTEN_TIME.length; i++) {
    const code = value.charCodeAt(i);
    const want = WRITTEN_TIME.charCodeAt(i);
    if (want === DIGIT ? code < 0x30 || code > 0x39 : code !== want) return false;
  }
  return true;
}

const WRITTEN_TIME = '0000-00-00T00:00:00.000Z';
const DIGIT = 0x30;

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** A created record's own texts, never sent: a reference and a note. */
const LOCAL_TEXTS = ['ref', 'note'] as const;

/**
 * A created record's reference and note held to the rule input is held to (domain/text/reference.ts
 * heldLocalText): one that breaks it is kept (cut when too long), the deposit with it. Whether one broke it.
 */
export function heldLocalTexts(fields: { ref?: unknown; note?: unknown }): boolean {
  let broken = false;
  for (const [key, max] of [
    ['ref', REF_MAX],
    ['note', NOTE_MAX],
  ] as const) {
    const recorded = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (typeof recorded !== 'string') continue;
    const held = heldLocalText(recorded, max);
    if (!held.broken) continue;
    broken = true;
    if (held.text === undefined) delete fields[key];
    else fields[key] = held.text;
  }
  return broken;
}

export function readRecordLine(text: string): RecordRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, damage: 'not a JSON record' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, damage: 'not a JSON record' };
  if (namesTwice(text, parsed as Record<string, unknown>))
    return { ok: false, damage: 'with a key given twice' };
  return readRecord(parsed as Record<string, unknown>);
}

/** The keys a reader of a line in place reads (history-lines.ts, history-search.ts), or an escape that may spell one. */
const READ_IN_PLACE = /"(?:type|id|at)"|\\u/g;

/**
 * Whether the text of a JSON object (well-formed: JSON.parse read it) names its type, id or time
 * twice at its top level. JSON.parse keeps the last of the two, a reader of the line in place the
 * first: such a line is no record, so that no two readers read it two ways. Looked at closely
 * only when those words appear more often than the record has those keys (or an escape). Any
 * other key given twice is read as JSON.parse reads it, the last, by every reader alike (every
 * reader of its value parses the line whole): a check of every key (a count of where keys may
 * end against the keys parsed) cost 5,800 instructions a line, +8% of a report (bench/README.md).
 */
function namesTwice(text: string, fields: Record<string, unknown>): boolean {
  // counted without a list of them: the cheapest count the engine offers (a record is read per line)
  let words = 0;
  READ_IN_PLACE.lastIndex = 0;
  while (READ_IN_PLACE.test(text)) words++;
  const held = +Object.hasOwn(fields, 'type') + +Object.hasOwn(fields, 'id') + +Object.hasOwn(fields, 'at');
  if (words <= held && !text.includes('\\u')) return false;
  const seen = new Set<string>();
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
      if (depth !== 1 || !isKeyEnd(text, i + 1)) continue;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      if (seen.has(key)) return true;
      seen.add(key);
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++;
    else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Whether a text value that ended before `from` is a key: a colon follows, past JSON's spacing. */
function isKeyEnd(text: string, from: number): boolean {
  let at = from;
  while (JSON_SPACE.has(text.charCodeAt(at))) at++;
  return text.charCodeAt(at) === 0x3a;
}

const JSON_SPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

type RecordCheck = (
  fields: Record<string, unknown>,
  own: (key: string) => unknown,
  claims: { claim?: LineClaim; brokenText?: true },
) => LineDamage | undefined;

function readRecord(fields: Record<string, unknown>): RecordRead {
  const own = (key: string): unknown => (Object.hasOwn(fields, key) ? fields[key] : undefined);
  const version = own('v');
  if (version !== undefined && version !== RECORD_VERSION)
    return {
      ok: false,
      damage:
        typeof version === 'number' && Number.isInteger(version) && version > RECORD_VERSION
          ? 'written by a newer lbrl'
          : 'with a field missing or malformed',
    };
  const type = own('type');
  const check = typeof type === 'string' && Object.hasOwn(CHECKS, type) ? CHECKS[type] : undefined;
  if (!check) return { ok: false, damage: 'of an unknown type' };
  const claims: { claim?: LineClaim; brokenText?: true } = {};
  const damage = check(fields, own, claims);
  if (damage) return { ok: false, damage };
  fields.v = RECORD_VERSION;
  if (type !== 'attempt') fields.id = canonicalId(own('id') as string);
  return { ok: true, fields, ...claims };
}

/** The id and time every record about a deposit holds. */
function aboutDeposit(own: (key: string) => unknown): LineDamage | undefined {
  const id = own('id');
  if (typeof id !== 'string' || !DEPOSIT_ID.test(id)) return 'with a field missing or malformed';
  // the service a later record names (since records name it): text, or absent (an older record)
  const service = own('baseUrl');
  if (service !== undefined && !isText(service)) return 'with a field missing or malformed';
  return isRecordTime(own('at')) ? undefined : 'with a time no clock wrote';
}

const CHECKS: Record<string, RecordCheck> = {
  created: (fields, own, claims) => {
    const damage = aboutDeposit(own);
    if (damage) return damage;
    const cents = own('amountInCents');
    if (!isText(own('profile')) || !isText(own('baseUrl')) || !isText(own('destinationAddress')))
      return 'with a field missing or malformed';
    if (!RECORD_STATUSES.has(own('status') as string)) return 'with a field missing or malformed';
    const split = own('splitAddress');
    const fee = own('splitFee');
    if (
      (split !== null && !isText(split)) ||
      (fee !== null && !isText(fee)) ||
      (split === null) !== (fee === null)
    )
      return 'with a field missing or malformed';
    const batchKey = own('batchKey');
    if (batchKey !== undefined && !isText(batchKey)) return 'with a field missing or malformed';
    // a reference or note that is not text is no reference: the deposit is kept without it
    for (const key of LOCAL_TEXTS) if (own(key) !== undefined && !isText(own(key))) delete fields[key];
    if (heldLocalTexts(fields)) claims.brokenText = true;
    // a verification, a final answer or a fact is believed only of the record that states it
    // most records hold none: each looked up, deleted only when held
    for (const key of LATER_FIELDS)
      if (Object.hasOwn(fields, key)) {
        delete fields[key];
        claims.claim = 'creation stating what only a later record proves';
      }
    // so is a status past the one a create answer has (the rules refuse any other): money seen
    // moving is proven by the status record lbrl wrote when it saw it, never by a creation
    if (fields.status !== CREATED_STATUS) {
      fields.status = CREATED_STATUS;
      claims.claim = 'creation stating what only a later record proves';
    }
    if (typeof cents !== 'number' || !Number.isInteger(cents) || cents < MIN_CENTS || cents > MAX_CENTS)
      return 'with amounts that do not add up';
    const answer = own('answer');
    if (answer === undefined) return undefined;
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
      return 'with a field missing or malformed';
    return answerAddsUp(cents, answer as Record<string, unknown>);
  },
  status: (fields, own) => {
    const damage = aboutDeposit(own);
    if (damage) return damage;
    if (!RECORD_STATUSES.has(own('status') as string)) return 'with a field missing or malformed';
    const facts = own('facts');
    let read: SettlementFacts | undefined;
    if (facts !== undefined) {
      const checked = readSettlementFacts(facts);
      if (checked === null || !isFactTime(checked.confirmedAt)) return 'with a field missing or malformed';
      read = fields.facts = checked;
    }
    const final = own('final');
    if (final === undefined) return undefined;
    return isFinal(own('status') as string, final, read) ? undefined : 'with a field missing or malformed';
  },
  verified: (fields, own) => {
    const damage = aboutDeposit(own);
    if (damage) return damage;
    // a verification is believed only of a transaction id in its one form
    const txid = typeof own('txid') === 'string' ? readHex32(own('txid') as string) : null;
    if (txid === null) return 'with a field missing or malformed';
    fields.txid = txid;
    // the outputs a verification took are a fact too (one output pays one deposit): whole or damage
    if (own('shares') !== undefined && !isStoredShares(own('shares')))
      return 'with a field missing or malformed';
    return undefined;
  },
  unverified: (fields, own) => {
    const damage = aboutDeposit(own);
    if (damage) return damage;
    const txid = typeof own('txid') === 'string' ? readHex32(own('txid') as string) : null;
    if (txid === null || !OUTCOMES.has(own('outcome') as string)) return 'with a field missing or malformed';
    fields.txid = txid;
    return undefined;
  },
  expired: (_fields, own) => aboutDeposit(own),
  attempt: (_fields, own) =>
    isText(own('profile')) &&
    isText(own('baseUrl')) &&
    isText(own('batchKey')) &&
    isText(own('idempotencyKey'))
      ? undefined
      : 'with a field missing or malformed',
};

/**
 * What the create answer said of the money, as kept: each amount the record holds must be whole
 * cents that add up (amount = amountInCents / 100, 0 <= fee <= amount, net = amount - fee, a split
 * of at most 100%). One the record does not hold is unknown (an older record), not wrong.
 */
/**
 * A JSON number as a whole count of `unit`ths (cents: 100), when it is exactly one as JSON reads
 * it: the nearest whole count, divided back, is the number itself. Null otherwise, or negative.
 */
function wholeUnits(value: unknown, unit: number): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  const units = Math.round(value * unit);
  return Number.isSafeInteger(units) && units / unit === value ? units : null;
}

function answerAddsUp(cents: number, answer: Record<string, unknown>): LineDamage | undefined {
  const own = (key: string): unknown => (Object.hasOwn(answer, key) ? answer[key] : undefined);
  const bad = 'with amounts that do not add up';
  const amount = own('amount');
  if (amount !== undefined && wholeUnits(amount, 100) !== cents) return bad;
  const fee = own('feeAmount') === undefined ? undefined : wholeUnits(own('feeAmount'), 100);
  const net = own('netAmount') === undefined ? undefined : wholeUnits(own('netAmount'), 100);
  if (fee === null || net === null) return bad;
  if (fee !== undefined && fee > cents) return bad;
  if (net !== undefined && net > cents) return bad;
  if (fee !== undefined && net !== undefined && fee + net !== cents) return bad;
  const percent = own('splitPercent');
  if (percent === undefined || percent === null) return undefined;
  const basisPoints = wholeUnits(percent, 10_000);
  return basisPoints === null || basisPoints === 0 || basisPoints > 10_000 ? bad : undefined;
}

/**
 * A final answer as a status record keeps it (history-records.ts statusRecord): written only with
 * a final status, holding what the answer rules let through at that status, and agreeing with the
 * facts the same record states. A FINALIZED one names its settlement's transaction (the rules
 * require it of every FINALIZED answer): one without is no half-fact, it is a damaged line.
 */
function isFinal(status: string, value: unknown, facts: SettlementFacts | undefined): boolean {
  if (!isTerminal(status) || typeof value !== 'object' || value === null || Array.isArray(value))
    return false;
  const final = value as Record<string, unknown>;
  const settlement = Object.hasOwn(final, 'settlement') ? final.settlement : null;
  const confirmedAt = Object.hasOwn(final, 'confirmedAt') ? final.confirmedAt : null;
  if (confirmedAt !== null && !isRecordTime(confirmedAt)) return false;
  if (settlement !== null && (typeof settlement !== 'object' || Array.isArray(settlement))) return false;
  const own = (key: string): unknown =>
    settlement !== null && Object.hasOwn(settlement, key)
      ? (settlement as Record<string, unknown>)[key]
      : null;
  const txid = own('liquidTxid');
  const settlementStatus = own('status');
  if (
    (txid !== null && !isHex32(txid)) ||
    (settlementStatus !== null && typeof settlementStatus !== 'string')
  )
    return false;
  if (status === 'FINALIZED' && txid === null) return false;
  // the facts the record states are this answer's: the two never say two things
  if (facts?.['settlement.liquidTxid'] !== undefined && facts['settlement.liquidTxid'] !== txid) return false;
  return facts?.confirmedAt === undefined || facts.confirmedAt === confirmedAt;
}

/** A settlement fact's time, when stated: within the moments every view shows (domain/time-range.ts). */
function isFactTime(value: string | undefined): boolean {
  return value === undefined || isWithinTimeRange(Date.parse(value));
}

/** Shares as lbrl writes them (own fields, outputs by their index): anything else is no record. */
function isStoredShares(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (share) =>
        share &&
        typeof share === 'object' &&
        !Array.isArray(share) &&
        ['role', 'script', 'outputs', 'share', 'rounded'].every((key) => Object.hasOwn(share, key)) &&
        (share.role === 'destination' || share.role === 'split') &&
        isText(share.script) &&
        isHexBytes(share.script) &&
        Array.isArray(share.outputs) &&
        share.outputs.every((output: unknown) => Number.isSafeInteger(output) && (output as number) >= 0) &&
        isText(share.share) &&
        /^\d{1,40}\/[1-9]\d{0,40}$/.test(share.share) &&
        typeof share.rounded === 'boolean',
    )
  );
}
