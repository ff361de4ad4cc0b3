/**
 * A record's time as the reader checks it (isRecordTime, record-read.ts): the form lbrl writes is
 * told by its shape and parsed once; whatever the text, the answer is the full check's (ISO 8601
 * that Date.parse reads, within the moments every view shows).
 */
import { describe, expect, it } from 'vitest';
import { isIsoTimestamp } from '../../src/domain/settlement-facts.js';
import { isWithinTimeRange } from '../../src/domain/time-range.js';
import { isRecordTime } from '../../src/store/record-read.js';

const fullCheck = (value: unknown) => isIsoTimestamp(value) && isWithinTimeRange(Date.parse(value));

describe('isRecordTime', () => {
  it.each([
    '2026-11-20T10:00:00.000Z',
    '2026-02-30T10:00:00.000Z',
    '2026-13-01T10:00:00.000Z',
    '2026-11-20T24:00:00.000Z',
    '2026-11-20T23:59:60.000Z',
    '9999-12-31T23:59:59.999Z',
    '1969-12-31T23:59:59.999Z',
    '0000-01-01T00:00:00.000Z',
    '2026-11-20T10:00:00.000z',
    '2026-11-20 10:00:00.000Z',
    '2026-11-20T10:00:00.00xZ',
    '２026-11-20T10:00:00.000Z',
    '2026-11-20T10:00:00Z',
    '2026-11-20T10:00:00.000+03:00',
    '+010000-01-01T00:00:00.000Z',
    '',
    'yesterday',
  ])('%s: as the full check says', (value) => {
    expect(isRecordTime(value)).toBe(fullCheck(value));
  });

  it('is no time when not text', () => {
    for (const value of [1_700_000_000_000, null, undefined, {}, ['2026-11-20T10:00:00.000Z']])
      expect(isRecordTime(value)).toBe(false);
  });
});
