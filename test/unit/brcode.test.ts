import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brCodeAmountCents, buildDynamicBrCode, crc16, readBrCode } from '../../src/domain/brcode.js';

const STATIC =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const DYNAMIC =
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';

function withCrc(text: string): string {
  const body = text.slice(0, -4);
  return body + crc16(body);
}

describe('PIX BR Code', () => {
  it('computes the CRC-16/CCITT-FALSE check value', () => {
    expect(crc16('123456789')).toBe('29B1');
  });

  it('parses the manual examples', () => {
    expect(readBrCode(STATIC)).toMatchObject({
      ok: true,
      value: { kind: 'static', key: '123e4567-e12b-12d1-a456-426655440000', merchantName: 'Fulano de Tal' },
    });
    expect(readBrCode(DYNAMIC)).toMatchObject({
      ok: true,
      value: {
        kind: 'dynamic',
        url: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
        merchantCity: 'BRASILIA',
      },
    });
  });

  it.each([
    [STATIC.slice(0, -1) + 'E', 'its CRC is 1D3E, but its content gives 1D3D'],
    [
      withCrc(STATIC.replace('br.gov.bcb.pix', 'br.gov.bcb.pax')),
      'it has no merchant account with GUI br.gov.bcb.pix',
    ],
    ['', 'it is empty or has control characters'],
    ['000201', 'it does not end with a 4-digit CRC field 63'],
    ['hello', 'field at position 0 has no 2-digit id and 2-digit length'],
  ])('refuses %s', (text, reason) => {
    expect(readBrCode(text)).toEqual({ ok: false, reason });
  });

  it('refuses a corrupted currency even with a fixed-up CRC', () => {
    expect(readBrCode(withCrc(STATIC.replace('5303986', '5303840')))).toEqual({
      ok: false,
      reason: 'its currency (53) is 840, not 986 (BRL)',
    });
  });

  it('builds dynamic codes that parse back with their amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600000 }), fc.uuid(), (cents, hex) => {
        const amountText = `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        const text = buildDynamicBrCode({
          url: `pix.sandbox.invalid/${hex.replace(/-/g, '')}`,
          amountText,
          merchantName: 'LBRL SANDBOX',
          merchantCity: 'SAO PAULO',
        });
        const parsed = readBrCode(text);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(brCodeAmountCents(parsed.value)).toBe(BigInt(cents));
      }),
    );
  });

  it('property: any single character change is caught', () => {
    fc.assert(
      fc.property(fc.nat({ max: STATIC.length - 5 }), fc.constantFrom(...'0123456789ABCxyz'), (pos, ch) => {
        fc.pre(STATIC[pos] !== ch);
        const changed = STATIC.slice(0, pos) + ch + STATIC.slice(pos + 1);
        expect(readBrCode(changed).ok).toBe(false);
      }),
    );
  });
});
