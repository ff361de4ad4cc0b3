/**
 * The creation index's time key (store/history-creations.ts): read from the bytes in place, it
 * must order times in lbrl's one form exactly as their text orders them, and be NaN for any other
 * form (the index then stops there and the look reads the file), whoever wrote the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexableCreations, timeKey } from '../../src/store/history-creations.js';

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const strictTime = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 19 }),
    fc.integer({ min: 0, max: 39 }),
    fc.integer({ min: 0, max: 29 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 69 }),
    fc.integer({ min: 0, max: 999 }),
  )
  .map(
    ([y, mo, d, h, mi, s, ms]) =>
      `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`,
  );

describe('timeKey', () => {
  it('orders two times of the one form as their text does', () => {
    fc.assert(
      fc.property(strictTime, strictTime, (a, b) => {
        expect(Math.sign(timeKey(a) - timeKey(b))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });

  it('a known time: its fields in mixed radix', () => {
    const days = (2026 * 20 + 11) * 40 + 28;
    expect(timeKey('2026-11-28T09:45:41.704Z')).toBe((((days * 30 + 9) * 60 + 45) * 70 + 41) * 1000 + 704);
  });

  it.each([
    '2026-11-28T09:45:41Z',
    '2026-11-28T09:45:41.704+00:00',
    '2026-11-28 09:45:41.704Z',
    '2026-21-28T09:45:41.704Z',
    '2026-11-28T09:45:41.7040Z',
    ' 2026-11-28T09:45:41.704Z',
    '2026-11-28T09:45:41.704Z ',
    '２026-11-28T09:45:41.704Z',
    '٢026-11-28T09:45:41.704Z',
    '2026-11-28T09:45:41.70\u0134Z',
    '',
  ])('%j is no time of the one form: NaN', (text) => {
    expect(timeKey(text)).toBeNaN();
  });
});

describe('indexableCreations: a time held only when its whole text is the one form', () => {
  const line = (at: string) =>
    `{"v":1,"type":"created","id":"00000000-0000-4000-8000-000000000001","profile":"default","baseUrl":"sandbox","at":"${at}","amountInCents":1000}\n`;

  it.each([
    'X2026-11-28T09:45:41.704Z',
    '12026-11-28T09:45:41.704Z',
    '026-11-28T09:45:41.704Z',
    '2026-11-28T09:45:41.704',
  ])('%j, which ends like one: not held, the look reads it whole', (at) => {
    const text = `${line('2026-11-28T09:45:41.704Z')}${line(at)}`;
    const held: number[] = [];
    const stop = indexableCreations(text, Buffer.from(text, 'latin1'), 100, (offset) => held.push(offset));
    expect(held).toEqual([100]);
    expect(stop).toBe(line('2026-11-28T09:45:41.704Z').length);
  });

  it('one in the form: held with its key', () => {
    const text = line('2026-11-28T09:45:41.704Z');
    const keys: number[] = [];
    expect(indexableCreations(text, Buffer.from(text, 'latin1'), 0, (_offset, key) => keys.push(key))).toBe(
      text.length,
    );
    expect(keys).toEqual([timeKey('2026-11-28T09:45:41.704Z')]);
  });
});
