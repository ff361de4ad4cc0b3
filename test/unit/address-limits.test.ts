import { describe, expect, it } from 'vitest';
import { decodeLiquidAddress } from '../../src/domain/liquid/address.js';
import { cpuTimed } from '../helpers/cpu.js';

/** Milliseconds of CPU taken by one call. */
const timed = cpuTimed;

describe('address checks take time linear in the length (lengths are capped before decoding)', () => {
  it.each([
    [
      '1 MB of base58',
      'Q'.repeat(1_000_000),
      'it is 1000000 characters long; a Liquid address has at most 1000',
    ],
    [
      '200 KB of base58',
      '2'.repeat(200_000),
      'it is 200000 characters long; a Liquid address has at most 1000',
    ],
    ['60 KB of base58', 'V'.repeat(60_000), 'it is 60000 characters long; a Liquid address has at most 1000'],
    ['1 MB after a blech32 prefix', `lq1${'q'.repeat(1_000_000)}`, 'it is 1000003 characters long'],
    ['1 MB after a bech32 prefix', `ex1${'q'.repeat(1_000_000)}`, 'it is 1000003 characters long'],
    ['1 MB of spaces', ' '.repeat(1_000_000), 'it is 1000000 characters long'],
  ])('%s is refused in milliseconds with its length', (_name, input, message) => {
    const [r, ms] = timed(() => decodeLiquidAddress(input));
    expect(r).toEqual({ ok: false, reason: expect.stringContaining(message) });
    expect(ms).toBeLessThan(200);
  });

  it('a base58 value longer than a confidential address (80) is refused before decoding', () => {
    const [r, ms] = timed(() => decodeLiquidAddress('z'.repeat(999)));
    expect(r).toEqual({
      ok: false,
      reason: 'it is 999 characters long; a base58 Liquid address has at most 80',
    });
    expect(ms).toBeLessThan(50);
  });

  it('the longest values still decoded stay fast', () => {
    const [r, ms] = timed(() => {
      for (let i = 0; i < 10; i++) decodeLiquidAddress(`lq1${'q'.repeat(997)}`);
      return decodeLiquidAddress('V'.repeat(80));
    });
    expect(r.ok).toBe(false);
    // generous: a loaded 2-core machine; the quadratic decoder took seconds for far less
    expect(ms).toBeLessThan(1500);
  });
});
