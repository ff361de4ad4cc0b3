/**
 * The report's cents of an answer's amount (answerCents, deposits/ledger.ts) are exactCents's
 * (domain/money.ts), which reads the number's shortest decimal: for every count of cents a
 * deposit can hold, for numbers that are not whole cents, and at the edges of the fast path.
 */
import { describe, expect, it } from 'vitest';
import { answerCents } from '../../src/deposits/ledger.js';
import { exactCents, MAX_CENTS } from '../../src/domain/money.js';

describe('answerCents', () => {
  it('is exactCents for every amount of cents a deposit holds, and a tenth of a cent above each', () => {
    const differ: number[] = [];
    for (let cents = 0; cents <= MAX_CENTS; cents++) {
      const reais = cents / 100;
      if (answerCents(reais) !== exactCents(reais)) differ.push(reais);
      const off = (cents * 10 + 1) / 1000;
      if (answerCents(off) !== exactCents(off)) differ.push(off);
    }
    expect(differ).toEqual([]);
  });

  it.each([
    -0,
    0.07,
    0.1 + 0.2,
    1.005,
    1e-7,
    -0.01,
    999_999_999.99,
    1e9,
    1e9 + 0.01,
    12_345_678_901.23,
    2 ** 53,
    1e300,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.MIN_VALUE,
  ])('%s: as exactCents says', (reais) => {
    expect(answerCents(reais)).toBe(exactCents(reais));
  });

  it('many numbers up to the fast path edge, whole cents or not, as exactCents says', () => {
    let seed = 7;
    const differ: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      const cents = seed * 23;
      const reais = i % 2 ? cents / 100 : cents / 1000;
      if (answerCents(reais) !== exactCents(reais)) differ.push(reais);
    }
    expect(differ).toEqual([]);
  });

  it('is not a number: null', () => {
    expect(answerCents('15.50')).toBeNull();
    expect(answerCents(undefined)).toBeNull();
  });
});
