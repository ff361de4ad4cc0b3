/**
 * The library's input types, checked by the project's own `tsc -p .` (test/ is part of it): each
 * `@ts-expect-error` below must meet an error, so a type that lets the misuse through fails the
 * type check. At run time the same misuses are refused as `usage` (test/lib/client.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { type CreateInput, createClient, type LbrlClient } from '../../src/index.js';

/** Never called: only compiled. */
async function misuses(lbrl: LbrlClient): Promise<void> {
  // @ts-expect-error: no amount
  await lbrl.create({ to: 'lq1' });
  // @ts-expect-error: cents as a string
  await lbrl.create({ amountCents: '1550', to: 'lq1' });
  // @ts-expect-error: both amounts
  await lbrl.create({ amount: '15.50', amountCents: 1550, to: 'lq1' });
  // @ts-expect-error: reais as a float
  await lbrl.create({ amount: 15.5, to: 'lq1' });
  // @ts-expect-error: the destination as a number
  await lbrl.create({ amount: '15', to: 123 });
  // @ts-expect-error: the destination as a list
  await lbrl.create({ amount: '15', to: ['lq1'] });
  // @ts-expect-error: no destination
  await lbrl.create({ amountCents: 1550 });
  // @ts-expect-error: a split fee as a number
  await lbrl.create({ amount: '15', to: 'lq1', splitTo: 'lq1', splitFee: 2.99 });
  // @ts-expect-error: the token is required
  createClient({ baseUrl: 'https://x' });
  // @ts-expect-error: the token is a string
  createClient({ baseUrl: 'https://x', token: 1234567890 });
}

describe('the input types', () => {
  it('accept each amount on its own', () => {
    // the misuses above are for the compiler only
    expect(typeof misuses).toBe('function');
    const inputs: CreateInput[] = [
      { amount: '15,50', to: 'lq1' },
      { amountCents: 1550, to: 'lq1', splitTo: 'lq1', splitFee: '2%' },
    ];
    expect(inputs.map((i) => ('amount' in i ? i.amount : i.amountCents))).toEqual(['15,50', 1550]);
  });
});
