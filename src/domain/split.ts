import type { Parsed } from './money.js';

export interface SplitFee {
  /** hundredths of a percent: 2.99% is 299 */
  readonly basisPoints: number;
  /** as the service wants it: `2.99%` */
  readonly wire: string;
}

const FEE_TEXT = /^(\d{1,3})(?:[.,](\d{1,2}))?%?$/;
const EXPECTED = 'a percentage above 0 and at most 100 with at most two decimals, e.g. 2.99% or 2,99';

export function readSplitFee(input: string): Parsed<SplitFee> {
  const match = FEE_TEXT.exec(input);
  if (!match) return { ok: false, expected: EXPECTED };
  const whole = Number(match[1]);
  const frac = Number((match[2] ?? '').padEnd(2, '0'));
  const basisPoints = whole * 100 + frac;
  if (basisPoints < 1 || basisPoints > 10_000) return { ok: false, expected: EXPECTED };
  return { ok: true, value: splitFeeFromBasisPoints(basisPoints) };
}

export function splitFeeFromBasisPoints(basisPoints: number): SplitFee {
  const wire = `${Math.trunc(basisPoints / 100)}.${String(basisPoints % 100).padStart(2, '0')}%`;
  return { basisPoints, wire };
}
