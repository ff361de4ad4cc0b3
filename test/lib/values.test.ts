/** The value parsers of the library: the command line's rules, a refusal thrown as usage (2). */
import { describe, expect, it } from 'vitest';
import {
  formatCents,
  isLbrlError,
  type LbrlError,
  parseAddress,
  parseAmount,
  parseBrCode,
  parseCents,
  parseSplitFee,
} from '../../src/index.js';
import { brCode, EX, LQ, TEX } from '../helpers/fixtures.js';

function refusal(f: () => unknown): LbrlError {
  try {
    f();
  } catch (error) {
    expect(isLbrlError(error)).toBe(true);
    return error as LbrlError;
  }
  throw new Error('expected a refusal');
}

describe('value parsers', () => {
  it('amounts in reais become integer cents by string arithmetic', () => {
    expect(parseAmount('1500')).toBe(150000);
    expect(parseAmount('15,5')).toBe(1550);
    expect(parseAmount('0.01')).toBe(1);
    expect(parseAmount('6000.00')).toBe(600000);
    // 0.1 + 0.2 is not 0.3 in floats; here it is never a float
    expect(parseAmount('0.29')).toBe(29);
    for (const bad of ['1.500,00', '1.500', '1e3', '-5', ' 15', '6000.01', '0', '']) {
      const e = refusal(() => parseAmount(bad));
      expect([e.type, e.exitCode]).toEqual(['usage', 2]);
      expect(e.message).toContain(`invalid amount ${JSON.stringify(bad)}`);
    }
    expect(refusal(() => parseAmount(15 as never)).message).toContain('amount must be a string');
  });

  it('cents: whole numbers 1 to 600000, as numbers or digits', () => {
    expect(parseCents(1550)).toBe(1550);
    expect(parseCents('600000')).toBe(600000);
    for (const bad of [0, 15.5, 600001, -1, Number.NaN, '1.5', '1e3']) {
      expect(refusal(() => parseCents(bad)).type).toBe('usage');
    }
  });

  it('addresses: checked for the network', () => {
    expect(parseAddress(LQ)).toMatchObject({ network: 'liquid', confidential: true, kind: 'p2wpkh' });
    expect(parseAddress(EX)).toMatchObject({ network: 'liquid', confidential: false });
    expect(parseAddress(TEX, 'liquidtestnet')).toMatchObject({ network: 'liquidtestnet' });
    const wrong = refusal(() => parseAddress(TEX));
    expect(wrong.message).toMatch(/^invalid address "tex1.*": expected a Liquid address on liquid/);
    const typo = refusal(() => parseAddress(`${LQ.slice(0, -1)}x`));
    expect(typo.message).toContain('checksum');
  });

  it('split fees: as the service wants them', () => {
    expect(parseSplitFee('2,99')).toEqual({ basisPoints: 299, wire: '2.99%' });
    expect(parseSplitFee('100%')).toEqual({ basisPoints: 10000, wire: '100.00%' });
    for (const bad of ['0', '100.01', '2.999', 'abc'])
      expect(refusal(() => parseSplitFee(bad)).type).toBe('usage');
  });

  it('BR Codes: parsed and checked, the amount in cents', () => {
    const code = parseBrCode(brCode(150000));
    expect(code).toMatchObject({ kind: 'dynamic', amountText: '1500.00', amountInCents: 150000 });
    expect(code.url).toBe('pix.example.invalid/abc');
    const bad = refusal(() => parseBrCode(`${brCode(150000).slice(0, -1)}0`));
    expect(bad.message).toContain('CRC');
  });

  it('formatCents writes reais as Brazilians read them', () => {
    expect(formatCents(150000)).toBe('R$ 1.500,00');
    expect(formatCents(1)).toBe('R$ 0,01');
  });
});
