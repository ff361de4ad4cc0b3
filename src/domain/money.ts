import { type Decimal, decimalToCents } from './decimal.js';

export const MIN_CENTS = 1;
export const MAX_CENTS = 600_000;

export type Parsed<T> = { ok: true; value: T } | { ok: false; expected: string };

const REAIS = /^(\d+)(?:[.,](\d{1,2}))?$/;
const CENTS = /^\d+$/;
const RANGE = `from 0.01 to 6000.00 reais (${MIN_CENTS} to ${MAX_CENTS} cents)`;

/** Reais as typed (`1500`, `15.5`, `15,50`) to integer cents, by string arithmetic only. */
export function parseReais(input: string): Parsed<number> {
  const m = REAIS.exec(input);
  if (!m) {
    return {
      ok: false,
      expected: 'an amount in reais with at most two decimals and no thousands separator, e.g. 1500 or 15,50',
    };
  }
  const whole = m[1]!.replace(/^0+(?=\d)/, '');
  const frac = (m[2] ?? '').padEnd(2, '0');
  if (whole.length > 5) return { ok: false, expected: `an amount ${RANGE}` };
  const cents = Number(whole) * 100 + Number(frac);
  if (cents < MIN_CENTS || cents > MAX_CENTS) return { ok: false, expected: `an amount ${RANGE}` };
  return { ok: true, value: cents };
}

export function parseCents(input: string): Parsed<number> {
  if (!CENTS.test(input)) return { ok: false, expected: `a whole number of cents ${RANGE}` };
  const digits = input.replace(/^0+(?=\d)/, '');
  if (digits.length > 6) return { ok: false, expected: `a whole number of cents ${RANGE}` };
  const cents = Number(digits);
  if (cents < MIN_CENTS || cents > MAX_CENTS)
    return { ok: false, expected: `a whole number of cents ${RANGE}` };
  return { ok: true, value: cents };
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/** `R$ 1.500,00` from integer cents. */
export function formatCents(cents: number | bigint): string {
  const big = BigInt(cents);
  const negative = big < 0n;
  const abs = negative ? -big : big;
  const whole = (abs / 100n).toString();
  const frac = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}R$ ${groupThousands(whole)},${frac}`;
}

/** `R$ 1.500,00` from an exact decimal in reais; more than two decimals are shown as they are. */
export function formatReais(value: Decimal): string {
  const cents = decimalToCents(value);
  if (cents !== null) return formatCents(cents);
  const negative = value.units < 0n;
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, '0');
  const whole = digits.slice(0, digits.length - value.scale);
  const frac = digits.slice(digits.length - value.scale);
  return `${negative ? '-' : ''}R$ ${groupThousands(whole)},${frac}`;
}

/** The decimal text of cents in reais, as a BR Code's field 54 carries it: `1500.00`. */
export function centsToDecimalText(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
