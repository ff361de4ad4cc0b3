/** A reference is compared as it looks: composed (NFC), whichever way its accents were typed or recorded. */
import { describe, expect, it } from 'vitest';
import { REF_MAX, readLocalText, sameReference } from '../../src/domain/text/reference.js';

describe('references typed and recorded with accents', () => {
  it.each([
    ['cafe\u0301', 'caf\u00e9'],
    ['  Sa\u0303o Paulo ', 'S\u00e3o Paulo'],
    ['\u1e9b\u0323', '\u1e9b\u0323'],
    ['mesa 7', 'mesa 7'],
  ])('%j is read as %j', (typed, read) => {
    expect(readLocalText(typed, REF_MAX)).toEqual({ ok: true, value: read });
  });

  it('a record written decomposed (an older lbrl, a hand edit) is the reference asked for', () => {
    expect(sameReference('cafe\u0301 7', 'caf\u00e9 7')).toBe(true);
    expect(sameReference('caf\u00e9 7', 'caf\u00e9 7')).toBe(true);
    expect(sameReference('cafe 7', 'caf\u00e9 7')).toBe(false);
    expect(sameReference(undefined, 'caf\u00e9 7')).toBe(false);
  });
});
