import { type Decimal, decimalFromNumber, decimalToCents } from './decimal.js';

export const MIN_CENTS = 1;
export const MAX_CENTS = 600_000;

export type Parsed<T> = { ok: true; value: T } | { ok: false; expected: string };

const REAIS = /^(\d+)(?:[.,](\d{1,2}))?$/;
const CENTS = /^\d+$/;
const RANGE = `from ${centsToDecimalText(MIN_CENTS)} to ${centsToDecimalText(MAX_CENTS)} reais (${MIN_CENTS} to ${MAX_CENTS} cents)`;

const LIMIT = `the limit of ${centsToDecimalText(MAX_CENTS).replace('.', ',')} reais`;

/** `1.5e2` -> `150`, by string arithmetic; undefined when it does not name a plain amount. */
function expandExponent(match: RegExpExecArray): string | undefined {
  const [, whole, frac = '', expText] = match;
  const exp = Number(expText);
  if (exp > 10) return undefined;
  const digits = `${whole}${frac}`;
  const point = whole!.length + exp;
  const int = digits
    .padEnd(point, '0')
    .slice(0, point)
    .replace(/^0+(?=\d)/, '');
  const rest = digits.slice(point).replace(/0+$/, '');
  return rest ? `${int}.${rest}` : int;
}

/**
 * Why an amount that does not parse is refused, and what to write instead: the writing a person
 * used (thousands separators, a currency sign, spaces, a minus, an exponent) is named.
 */
function amountProblem(input: string): string {
  const base = 'an amount in reais with at most two decimals and no thousands separator, e.g. 1500 or 15,50';
  /** what the amount must be without, and what to write instead (itself checked) */
  const offer = (what: string, fixed: string | undefined) => {
    if (fixed === undefined) return `an amount in reais ${what}, e.g. 1500 or 15,50`;
    const parsed = parseReais(fixed);
    return parsed.ok
      ? `an amount in reais ${what}: write ${fixed}`
      : `an amount in reais ${what}, at most 6000,00 (${fixed} would be above it)`;
  };
  const trimmed = input.trim();
  if (trimmed !== input && trimmed !== '')
    return offer('without spaces', trimmed.includes(' ') ? undefined : plainAmount(trimmed));
  // a currency sign or word before or after the number
  const currency = /^(?:R\$|BRL|reais|real)\s*(.+)$|^(.+?)\s*(?:R\$|BRL|reais|real)$/i.exec(trimmed);
  if (currency) return offer('without the currency', plainAmount((currency[1] ?? currency[2])!));
  if (/^[-\u2212\u2010\u2013]\s*\d/.test(trimmed))
    return `an amount ${RANGE}; a negative amount is never accepted`;
  if (/^\+\d/.test(trimmed)) return offer('without a sign', plainAmount(trimmed.slice(1)));
  const exp = /^(\d+)(?:[.,](\d+))?[eE]\+?(\d{1,3})$/.exec(trimmed);
  if (exp) return offer('without scientific notation', expandExponent(exp));
  if (/^\d/.test(trimmed) && /\s/.test(trimmed))
    return offer('without spaces (no thousands separators)', plainAmount(trimmed.replace(/\s+/g, '.')));
  if (/^[.,]\d{1,2}$/.test(trimmed)) return offer('with a digit before the separator', `0${trimmed}`);
  if (/^\d+[.,]$/.test(trimmed))
    return offer('with digits after the separator, or none', trimmed.slice(0, -1));
  if (/^\d+[.,]\d{3,}$/.test(trimmed)) return threeDecimals(trimmed);
  const grouped = plainAmount(trimmed);
  if (grouped !== undefined && grouped !== trimmed) return offer('without thousands separators', grouped);
  if (/[^\x00-\x7f]/.test(trimmed) && /\p{Nd}/u.test(trimmed))
    return 'an amount in reais written with the digits 0-9, e.g. 1500 or 15,50';
  return base;
}

/**
 * An amount with three decimals or more (`10,123`, `0.001`). One group of three after one to three
 * digits (`1.500`, `15.000`) may also be a thousands separator: said after the decimals, with
 * what to write for either reading that is an amount.
 */
function threeDecimals(text: string): string {
  const decimals = 'an amount in reais with at most two decimals (a cent is the smallest unit)';
  const ambiguous = /^([1-9]\d{0,2})([.,])(\d{3})$/.exec(text);
  if (!ambiguous) return decimals;
  const [, whole, separator, three] = ambiguous as unknown as [string, string, string, string];
  // 15.000, 1.500: the last zero may be a slip for two decimals
  const twoDecimals = `${whole}${separator}${three.slice(0, 2)}`;
  const slip = three.endsWith('0')
    ? `; for ${formatCents(Number(whole) * 100 + Number(three.slice(0, 2)))} write ${twoDecimals}`
    : '';
  const thousands = `${whole}${three}`;
  if (parseReais(thousands).ok)
    return `${decimals} and no thousands separator: for ${thousands} reais write ${thousands}${slip}`;
  return `${decimals}${slip}`;
}

/**
 * A number written with thousands separators (`1.500,00`, `1,500.00`, `1.500`, `1 500,00`) as a
 * plain amount (`1500,00`, `1500.00`, `1500`); a plain amount as it is; undefined otherwise.
 */
function plainAmount(text: string): string | undefined {
  if (REAIS.test(text)) return text;
  // groups of three after the first, one separator throughout, then maybe the other one as decimal
  const match = /^([1-9]\d{0,2})((?:([.,\s])\d{3})+)(?:([.,])(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  const group = match[3]!;
  // one separator between all the groups: 1.500,123 is not grouped, it has three decimals
  if (match[2]!.replace(/\d/g, '') !== group.repeat(match[2]!.length / 4)) return undefined;
  const decimal = match[4];
  if (decimal !== undefined && decimal === group) return undefined;
  const whole = `${match[1]}${match[2]!.split(group).join('')}`;
  return decimal !== undefined ? `${whole}${decimal}${match[5]}` : whole;
}

/** Reais as typed (`1500`, `15.5`, `15,50`) to integer cents, by string arithmetic only. */
export function parseReais(input: string): Parsed<number> {
  const match = REAIS.exec(input);
  if (!match) return { ok: false, expected: amountProblem(input) };
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const frac = (match[2] ?? '').padEnd(2, '0');
  if (whole.length > 5) return { ok: false, expected: `an amount ${RANGE}; it is above ${LIMIT}` };
  const cents = Number(whole) * 100 + Number(frac);
  if (cents > MAX_CENTS) return { ok: false, expected: `an amount ${RANGE}; it is above ${LIMIT}` };
  if (cents < MIN_CENTS) return { ok: false, expected: `an amount ${RANGE}` };
  return { ok: true, value: cents };
}

export function readCents(input: string): Parsed<number> {
  if (!CENTS.test(input)) {
    const reais = /^\d+[.,]\d{1,2}$/.test(input) ? '; cents have no decimals (for reais, use --amount)' : '';
    const negative = /^[-\u2212]\d/.test(input) ? '; a negative amount is never accepted' : '';
    return { ok: false, expected: `a whole number of cents ${RANGE}${reais}${negative}` };
  }
  const digits = input.replace(/^0+(?=\d)/, '');
  const above = `a whole number of cents ${RANGE}; it is above the limit of ${MAX_CENTS} cents`;
  if (digits.length > 6) return { ok: false, expected: above };
  const cents = Number(digits);
  if (cents > MAX_CENTS) return { ok: false, expected: above };
  if (cents < MIN_CENTS) return { ok: false, expected: `a whole number of cents ${RANGE}` };
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

/**
 * Cents of a reais amount as an answer gave it (a JSON number), exactly; null when it is not a
 * number, not whole cents, below zero or beyond what a number holds exactly.
 */
export function exactCents(reais: unknown): number | null {
  if (typeof reais !== 'number') return null;
  const decimal = decimalFromNumber(reais);
  const cents = decimal ? decimalToCents(decimal) : null;
  return cents === null || cents < 0n || cents > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(cents);
}
