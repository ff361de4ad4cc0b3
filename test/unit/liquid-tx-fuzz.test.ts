import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTransaction, TxParseError } from '../../src/domain/liquid/tx.js';

const REAL = readFileSync(new URL('../fixtures/liquid/lwk-regtest-tx.hex', import.meta.url), 'utf8').trim();

function outcome(hex: string): 'parsed' | 'refused' {
  try {
    parseTransaction(hex);
    return 'parsed';
  } catch (e) {
    // only ever a reasoned refusal, never a crash of another kind
    expect(e).toBeInstanceOf(TxParseError);
    return 'refused';
  }
}

describe('parseTransaction on bytes that are not a transaction', () => {
  it('truncations of a real transaction are refused with a reason', () => {
    // every byte of the inputs and outputs, then every 7th byte of the proofs
    for (let end = 0; end < REAL.length; end += end < 1200 ? 2 : 14) {
      expect(outcome(REAL.slice(0, end))).toBe('refused');
    }
  });

  it('random bytes are parsed or refused, never thrown at otherwise', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        outcome(Buffer.from(bytes).toString('hex'));
      }),
      { numRuns: 500 },
    );
  });

  it('a real transaction with one byte changed is parsed or refused, never thrown at otherwise', () => {
    fc.assert(
      fc.property(fc.nat({ max: REAL.length / 2 - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const b = Buffer.from(REAL, 'hex');
        b[at] = b[at]! ^ xor;
        outcome(b.toString('hex'));
      }),
      { numRuns: 300 },
    );
  });
});
