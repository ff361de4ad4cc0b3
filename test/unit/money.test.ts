import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalFromNumber, decimalSub, decimalToString } from '../../src/domain/decimal.js';
import { centsToDecimalText, formatCents, parseReais, readCents } from '../../src/domain/money.js';
import { readSplitFee } from '../../src/domain/split.js';
import {
  parseDepositId,
  parseDuration,
  parseIntervalSeconds,
  parseProfileName,
} from '../../src/domain/values.js';

describe('amounts in reais', () => {
  it.each([
    ['1500', 150000],
    ['15.5', 1550],
    ['15,50', 1550],
    ['0.01', 1],
    ['6000', 600000],
    ['6000.00', 600000],
    ['0001', 100],
    ['0,1', 10],
  ])('%s is %i cents', (input, cents) => {
    expect(parseReais(input)).toEqual({ ok: true, value: cents });
  });

  it.each([
    '1.500,00',
    '1.500',
    '1e3',
    '-5',
    '+5',
    ' 5',
    '5 ',
    '',
    '.5',
    '5.',
    '0',
    '0.00',
    '6000.01',
    '99999999999999999999',
    '١٢',
    '1_000',
    'NaN',
    'Infinity',
    '0x10',
    '1,5,0',
  ])('refuses %j', (input) => {
    expect(parseReais(input).ok).toBe(false);
  });

  it('property: every cent value round-trips through its reais text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600000 }), fc.boolean(), (cents, comma) => {
        const text = centsToDecimalText(cents);
        expect(parseReais(comma ? text.replace('.', ',') : text)).toEqual({ ok: true, value: cents });
      }),
    );
  });

  it('cents: whole numbers in range only', () => {
    expect(readCents('150000')).toEqual({ ok: true, value: 150000 });
    for (const bad of ['0', '600001', '1.5', '-1', '1e3', '', ' 1', '0x1', '9999999999']) {
      expect(readCents(bad).ok, bad).toBe(false);
    }
  });

  it('formats in the Brazilian way', () => {
    expect(formatCents(150000)).toBe('R$ 1.500,00');
    expect(formatCents(1)).toBe('R$ 0,01');
    expect(formatCents(123456789)).toBe('R$ 1.234.567,89');
  });
});

describe('exact decimals', () => {
  it('reads what JSON numbers mean, not their binary value', () => {
    expect(decimalToString(decimalFromNumber(0.1 + 0.2)!)).toBe('0.30000000000000004');
    expect(decimalToString(decimalSub(decimalFromNumber(15)!, decimalFromNumber(0.99)!))).toBe('14.01');
    expect(decimalToString(decimalFromNumber(1e-7)!)).toBe('0.0000001');
    expect(decimalToString(decimalFromNumber(1e21)!)).toBe('1000000000000000000000');
  });
});

describe('split fee', () => {
  it.each([
    ['2.99%', '2.99%', 299],
    ['2.99', '2.99%', 299],
    ['2,99', '2.99%', 299],
    ['5', '5.00%', 500],
    ['100', '100.00%', 10000],
    ['0.01', '0.01%', 1],
    ['0,5%', '0.50%', 50],
  ])('%s is sent as %s', (input, wire, bp) => {
    expect(readSplitFee(input)).toEqual({ ok: true, value: { wire, basisPoints: bp } });
  });
  it.each(['0', '0.00', '100.01', '101', '2.999', '-1', '2.99%%', '%', '', ' 2', '1e1', '2.99 %'])(
    'refuses %j',
    (input) => {
      expect(readSplitFee(input).ok).toBe(false);
    },
  );
});

describe('ids, durations, intervals, profiles', () => {
  it('ids are UUIDs', () => {
    expect(parseDepositId('3F2B8C1E-9A4D-4C6B-8E21-5D7F0A9B1C2D')).toEqual({
      ok: true,
      value: '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d',
    });
    for (const bad of ['../etc/passwd', '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d?x=1', '%2e%2e', '', 'abc']) {
      expect(parseDepositId(bad).ok, bad).toBe(false);
    }
  });
  it('durations', () => {
    expect(parseDuration('90')).toEqual({ ok: true, value: 90000 });
    expect(parseDuration('90s')).toEqual({ ok: true, value: 90000 });
    expect(parseDuration('10m')).toEqual({ ok: true, value: 600000 });
    expect(parseDuration('1h')).toEqual({ ok: true, value: 3600000 });
    expect(parseDuration('1h30m')).toEqual({ ok: true, value: 5400000 });
    expect(parseDuration('2m30s')).toEqual({ ok: true, value: 150000 });
    expect(parseDuration('7d')).toEqual({ ok: true, value: 7 * 86400000 });
    for (const bad of [
      '0',
      '7d1s',
      '-1',
      '1.5m',
      '',
      'm',
      '10 m',
      '9999999h',
      '1h 30m',
      '30m1h',
      '1m1m',
      '1ms',
    ])
      expect(parseDuration(bad).ok, bad).toBe(false);
  });
  it('intervals', () => {
    expect(parseIntervalSeconds('3')).toEqual({ ok: true, value: 3000 });
    for (const bad of ['0', '0.5', '3601', '-1', 'x', ''])
      expect(parseIntervalSeconds(bad).ok, bad).toBe(false);
  });
  it('profile names', () => {
    expect(parseProfileName('work-2').ok).toBe(true);
    for (const bad of ['', '../x', 'a.b', '-x', 'a b', 'x'.repeat(65)])
      expect(parseProfileName(bad).ok, bad).toBe(false);
  });
});
