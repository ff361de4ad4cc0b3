/** The error a promise rejects with: it must reject, and with an LbrlError (else the test fails). */
import { expect } from 'vitest';
import { LbrlError } from '../../src/errors.js';
import { isLbrlError } from '../../src/index.js';

export async function failure(promise: Promise<unknown>): Promise<LbrlError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LbrlError);
    // as a program using the library tells it
    expect(isLbrlError(error)).toBe(true);
    return error as LbrlError;
  }
  throw new Error('expected it to fail, and it did not');
}
