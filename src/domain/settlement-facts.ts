/**
 * The facts of a settlement an answer states (its transaction, its confirmation time), read from
 * any answer and checked, without the answer models (deposit.ts) and their schema library: the
 * history's readers use them on every record.
 */
import { isHex32 } from './values.js';

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))$/;

/**
 * An ISO 8601 timestamp that names a real time: with its offset (Z or ±hh:mm; a time without one
 * is another moment in each time zone it is read in), each field within its calendar range, so a
 * 30 February, a 31 April or an hour 24 (which Date.parse rolls over into another day) is none.
 * The `t` and `z` may be lowercase, as RFC 3339 (5.6, its note) allows: the same instant. A space
 * for the `T` (which RFC 3339 leaves to applications) is refused, as is any form Date.parse would
 * read by guessing (a zone name, slashes, the basic format).
 */
export function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const fields = ISO.exec(value);
  if (!fields || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = fields
    .slice(1)
    .map((field) => (field === undefined ? 0 : Number(field)));
  return (
    isCalendarTime(year!, month!, day!, hour!, minute!, second!) && offsetHours! <= 23 && offsetMinutes! <= 59
  );
}

/** Whether the fields name a moment of the calendar (no 30 February, no hour 24, no second 60). */
export function isCalendarTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): boolean {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

export const SETTLEMENT_FACT_FIELDS = ['settlement.liquidTxid', 'confirmedAt'] as const;
export type SettlementFact = (typeof SETTLEMENT_FACT_FIELDS)[number];
export type SettlementFacts = Partial<Record<SettlementFact, string>>;

/** The value at a dotted path of an answer (`settlement.liquidTxid`), own properties only. */
export function valueAtPath(answer: unknown, path: string): unknown {
  let value: unknown = answer;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A settlement fact's value in its one form, or null when `value` is not one. */
function factValue(field: SettlementFact, value: unknown): string | null {
  if (field === 'confirmedAt') return isIsoTimestamp(value) ? value : null;
  return isHex32(value) ? value : null;
}

/** The settlement facts an answer (or a kept part of one) states; the others are left out. */
export function settlementFactsOf(answer: unknown): SettlementFacts {
  const facts: SettlementFacts = {};
  for (const field of SETTLEMENT_FACT_FIELDS) {
    const value = factValue(field, valueAtPath(answer, field));
    if (value !== null) facts[field] = value;
  }
  return facts;
}

/** Facts as a record keeps them, checked: each a fact field in its one form, or null when any is not. */
export function readSettlementFacts(value: unknown): SettlementFacts | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const facts: SettlementFacts = {};
  for (const [field, fact] of Object.entries(value)) {
    if (!(SETTLEMENT_FACT_FIELDS as readonly string[]).includes(field)) return null;
    const checked = factValue(field as SettlementFact, fact);
    if (checked === null) return null;
    facts[field as SettlementFact] = checked;
  }
  return facts;
}
