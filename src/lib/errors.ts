import { type ErrorType, EXIT_CODES, LbrlError } from '../errors.js';

/**
 * Is this an LbrlError? Also true of one thrown by another copy of lbrl in the same program
 * (where `instanceof` would say no).
 */
export function isLbrlError(error: unknown): error is LbrlError {
  if (error instanceof LbrlError) return true;
  if (!(error instanceof Error)) return false;
  const shaped = error as Error & { type?: unknown; exitCode?: unknown };
  return (
    shaped.name === 'LbrlError' &&
    typeof shaped.type === 'string' &&
    Object.hasOwn(EXIT_CODES, shaped.type) &&
    shaped.exitCode === EXIT_CODES[shaped.type as ErrorType]
  );
}
