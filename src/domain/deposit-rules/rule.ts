/**
 * What a rule of the answer rule set reads and says: the answer as JSON gave it, the context lbrl
 * knows (what it asked for, the first and previous answers it saw, the facts it recorded, the body
 * as received, the clock), and a violation that names the field and both values, safe to print.
 * With the few readings the rule groups share: an exact decimal from a JSON number, whole cents, an
 * address's text compared without the case a bech32 address may change, the split fee as a fraction.
 */

import { type Decimal, decimalFromNumber } from '../decimal.js';
import { FIELD_EXPECTED } from '../deposit.js';
import { MAX_CENTS, MIN_CENTS } from '../money.js';
import type { SettlementFacts } from '../settlement-facts.js';
import { showValue } from '../text/safe-text.js';

export interface Violation {
  /** the field of the answer, e.g. `amount` or `settlement.liquidTxid` */
  field: string;
  /** what the rule wants, in words; safe to print */
  expected: string;
  /** what the answer holds; safe to print */
  received: string;
}

/** A deposit answer as JSON gave it: nothing about its fields is assumed. */
export type DepositAnswer = Readonly<Record<string, unknown>>;

/** What lbrl asked for: the create request it sent, or the deposit's record in its history. */
export interface AskedDeposit {
  /** known once created; compared without case */
  id?: string | undefined;
  amountInCents: number;
  destinationAddress: string;
  /** null: no split was asked; left out: not known, not compared */
  splitAddress?: string | null | undefined;
  /** as sent: `"2.99%"`; null: no split; left out: not known, not compared */
  splitFee?: string | null | undefined;
}

export interface CheckContext {
  /** a create answer (status WAITING_PAYMENT, no settlement yet) or a get answer */
  kind: 'create' | 'get';
  known?: AskedDeposit | undefined;
  /** the first answer lbrl saw for this deposit (usually the create answer) */
  first?: DepositAnswer | undefined;
  /**
   * `first` is what a record kept of the first answer, not the answer itself: a field it does not
   * hold is unknown (a record written before the field existed), never compared as absent.
   */
  firstIsKept?: boolean | undefined;
  /** the settlement facts lbrl recorded of this deposit: a later answer must state each the same */
  facts?: KeptFacts | undefined;
  /** the answer lbrl saw just before this one (a watch's previous poll) */
  previous?: DepositAnswer | undefined;
  /**
   * The body as received, when the caller has it: each number in it must be exactly the value
   * JSON.parse gave (`15.000000000000001` reads as 15, which is not what the service wrote).
   */
  text?: string | undefined;
  /** the time now (ms), when the caller has a clock: no timestamp of the service may lie ahead of it */
  now?: number | undefined;
  /** a get: the id asked for; an answer about another deposit is no answer about this one */
  askedId?: string | undefined;
  /** a create: when lbrl sent it, when its Idempotency-Key was never sent before (answer-times.ts) */
  sentAt?: number | undefined;
}

/** The settlement facts lbrl recorded, and the transaction a verification on chain proved. */
export interface KeptFacts {
  values: SettlementFacts;
  /** the transaction lbrl verified on chain, when it did */
  verifiedTxid?: string | undefined;
}

/** How far ahead of lbrl's clock a service timestamp may be (clocks drift): one hour. */
export const CLOCK_SKEW_MS = 60 * 60 * 1000;

/** bech32, blech32 and base58 addresses alike are letters and digits, nothing else */
export const ADDRESS_CHARS = /^[0-9A-Za-z]{1,200}$/;

export type AnswerRule = (answer: DepositAnswer, ctx: CheckContext) => Violation | Violation[] | undefined;

export function violation(field: string, expected: string, received: unknown): Violation {
  return { field, expected, received: showValue(received) };
}

/**
 * Two addresses alike: equal, or a bech32/blech32 address (lbrl's own, already checked when it
 * was sent) written in the other case. Only the syntax is looked at, so the address codecs are not
 * loaded to check an answer (`deposit get --json` stays light); base58 is case-sensitive, and a
 * mixed-case bech32 string is no address at all.
 */
const SEGWIT = /^(ex|tex|ert|lq|tlq|el)1[02-9ac-hj-np-z]+$/;

export function sameAddressText(known: string, got: string): boolean {
  if (known === got) return true;
  const lower = known.toLowerCase();
  return (
    SEGWIT.test(lower) &&
    (got === got.toLowerCase() || got === got.toUpperCase()) &&
    got.toLowerCase() === lower
  );
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An exact decimal from a JSON number, or null when it is not a finite number. */
export function jsonDecimal(value: unknown): Decimal | null {
  return typeof value === 'number' ? decimalFromNumber(value) : null;
}

export function isCents(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= MIN_CENTS && value <= MAX_CENTS;
}

/** `"2.99%"` as the fraction the service should echo, `0.0299`; null if not written so. */
export function splitFeeFraction(fee: string): Decimal | null {
  const match = /^(\d{1,3})\.(\d{2})%$/.exec(fee);
  return match ? { units: BigInt(Number(match[1]) * 100 + Number(match[2])), scale: 4 } : null;
}

export function expectedOf(path: string): string {
  return (FIELD_EXPECTED as Readonly<Record<string, string>>)[path] ?? 'what the interface says it holds';
}
