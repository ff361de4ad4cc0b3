/**
 * Times as RFC 3339 (5.6, its note) allows them: a lowercase `t` and `z` name the same instant as
 * `T` and `Z`, in an answer's timestamps and in `--since`. Still refused: no offset, a time the
 * calendar does not have, a space for the `T` (a choice RFC 3339 leaves to applications: lbrl
 * takes none, docs/money-safety.md), and every form Date.parse would read by guessing.
 */
import { describe, expect, it } from 'vitest';
import { parseWhen } from '../../src/domain/expiry.js';
import { isIsoTimestamp } from '../../src/domain/settlement-facts.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');

describe('lowercase t and z', () => {
  it.each([
    ['2026-11-22t10:00:00z', '2026-11-22T10:00:00Z'],
    ['2026-11-22t10:00:00.5z', '2026-11-22T10:00:00.5Z'],
    ['2026-11-22t07:00:00-03:00', '2026-11-22T10:00:00Z'],
    ['2026-11-22T10:00z', '2026-11-22T10:00Z'],
  ])('%s is read, the instant of %s', (lower, upper) => {
    expect(isIsoTimestamp(lower)).toBe(true);
    expect(Date.parse(lower)).toBe(Date.parse(upper));
    expect(parseWhen(lower, NOW)).toEqual({ ok: true, value: Date.parse(upper) });
  });

  it.each([
    '2026-11-22 10:00:00Z',
    '2026-11-22 10:00:00z',
    '2026-11-22t10:00:00',
    '2026-11-22t24:00:00z',
    '2026-02-29t10:00:00z',
    '2026-11-22T10:00:00 z',
    '2026-11-22T10:00:00UTC',
    '2026-11-22T10:00:00Zz',
    '2026-11-22\u0074\u030110:00:00Z',
    '2026-11-22T10:00:00\u1e8f',
  ])('%s is refused', (value) => {
    expect(isIsoTimestamp(value)).toBe(false);
    expect(parseWhen(value, NOW).ok).toBe(false);
  });
});
