/**
 * The compact set of deposit ids every reader of the whole history keeps: the same answers as a
 * Set of the ids, for UUIDs in lower case (held in 16 bytes) and anything else (held as text).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../src/store/id-set.js';

const HEX = '0123456789abcdef';
const uuid = fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 32, maxLength: 32 }).map((digits) => {
  const hex = digits.map((d) => HEX[d]).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
});
/** An id as a hand-edited line may hold it: upper case, a dash moved, a character that is no hex digit. */
const oddId = fc.oneof(
  uuid.map((id) => id.toUpperCase()),
  uuid.map((id) => `${id.slice(0, 7)}-${id.slice(8)}`),
  uuid.map((id) => `${id.slice(0, 35)}g`),
  fc.string({ maxLength: 40 }),
);

describe('IdSet', () => {
  it('answers has and add as a Set of the same ids does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(uuid, uuid, oddId), { maxLength: 3000 }),
        fc.array(uuid, { maxLength: 50 }),
        (ids, others) => {
          const set = new IdSet();
          const reference = new Set<string>();
          for (const id of ids)
            expect(set.add(id)).toBe(!reference.has(id) && reference.add(id) !== undefined);
          expect(set.size).toBe(reference.size);
          for (const id of [...ids, ...others]) expect(set.has(id)).toBe(reference.has(id));
        },
      ),
      { numRuns: 30 },
    );
  });
});
