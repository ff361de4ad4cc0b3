import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDynamicBrCode, readBrCode } from '../../src/domain/brcode.js';
import {
  type AskedDeposit,
  type CheckContext,
  sameAddressText,
} from '../../src/domain/deposit-rules/rule.js';
import { checkDeposit, describeViolations } from '../../src/domain/deposit-rules.js';
import { STATUS_ORDER } from '../../src/domain/values.js';
import { brCode, createAnswer, EX, getAnswer, ID, LQ, VJL } from '../helpers/fixtures.js';

const TXID = 'a'.repeat(64);
const KNOWN: AskedDeposit = {
  id: ID,
  amountInCents: 150000,
  destinationAddress: LQ,
  splitAddress: null,
  splitFee: null,
};
const FIRST = createAnswer({ amountInCents: 150000, lbrlAddress: LQ });

/** An honest get answer at each status. */
function at(status: string, overrides: Record<string, unknown> = {}) {
  const settled = {
    WAITING_PAYMENT: { settlement: null, confirmedAt: null },
    PIX_CONFIRMED: { settlement: null, confirmedAt: '2026-11-22T10:01:00.000Z' },
    SETTLEMENT_CREATED: { settlement: { status: 'CREATED' }, confirmedAt: '2026-11-22T10:01:00.000Z' },
    TX_SENT: { settlement: { liquidTxid: TXID, status: 'SENT' }, confirmedAt: '2026-11-22T10:01:00.000Z' },
    FINALIZED: {
      settlement: { liquidTxid: TXID, status: 'FINALIZED' },
      confirmedAt: '2026-11-22T10:02:00.000Z',
    },
    FAILED: { settlement: null, confirmedAt: null },
  }[status];
  return getAnswer({ status, ...settled, ...overrides });
}

const GET: CheckContext = { kind: 'get', known: KNOWN, first: FIRST };

function fields(answer: unknown, ctx: CheckContext = GET): string[] {
  return checkDeposit(answer, ctx).map((v) => v.field);
}

describe('honest answers keep every rule', () => {
  it('a create answer, checked against its request', () => {
    expect(checkDeposit(FIRST, { kind: 'create', known: { ...KNOWN, id: undefined } })).toEqual([]);
  });

  it.each(['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED', 'FAILED'])(
    'a get answer at %s, after the previous status',
    (status) => {
      const previous = at(status === 'FAILED' ? 'PIX_CONFIRMED' : 'WAITING_PAYMENT');
      expect(checkDeposit(at(status), { ...GET, previous })).toEqual([]);
    },
  );

  it('a split answered as asked, an id in upper case, a segwit address in upper case', () => {
    const asked = createAnswer({
      amountInCents: 100,
      lbrlAddress: LQ,
      lbrlSplitAddress: VJL,
      splitFee: '2.99%',
    });
    const known = { amountInCents: 100, destinationAddress: LQ, splitAddress: VJL, splitFee: '2.99%' };
    expect(checkDeposit(asked, { kind: 'create', known })).toEqual([]);
    const later = {
      ...asked,
      id: ID.toUpperCase(),
      destinationAddress: LQ.toUpperCase(),
      status: 'WAITING_PAYMENT',
    };
    const { qrCode: _q, ...get } = { ...later, settlement: null, confirmedAt: null };
    expect(checkDeposit(get, { kind: 'get', known: { ...known, id: ID }, first: asked })).toEqual([]);
  });

  it('a split lbrl does not know (left out) is not compared; one it knows is', () => {
    const split = { splitAddress: VJL, splitPercent: 0.5 };
    const unknownSplit = { amountInCents: 150000, destinationAddress: LQ };
    expect(fields(at('WAITING_PAYMENT', split), { kind: 'get', known: unknownSplit })).toEqual([]);
    expect(fields(at('WAITING_PAYMENT', split), { kind: 'get', known: KNOWN })).toEqual([
      'splitAddress',
      'splitPercent',
    ]);
  });

  it('a get of a deposit lbrl did not create still gets the internal rules', () => {
    expect(checkDeposit(at('TX_SENT'), { kind: 'get' })).toEqual([]);
    expect(fields(at('TX_SENT', { netAmount: 1 }), { kind: 'get' })).toEqual(['netAmount']);
  });
});

describe('each lie is caught by a rule, naming the field and both values', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    // internal
    [
      'amount is not cents/100',
      { amount: 1500.01 },
      'amount',
      'expected amountInCents / 100 = 1500.00, received 1500.01',
    ],
    ['amount as text', { amount: '1500.00' }, 'amount', 'expected a number of reais, received 1500.00'],
    [
      'a negative net',
      { feeAmount: 1505, netAmount: -5 },
      'feeAmount',
      'expected at most the amount, 1500, received 1505',
    ],
    ['a negative fee', { feeAmount: -1, netAmount: 1501 }, 'feeAmount', 'expected at least 0, received -1'],
    [
      'net not amount - fee',
      { netAmount: 1500 },
      'netAmount',
      'expected amount - feeAmount = 1485, received 1500',
    ],
    [
      'a split percent with no address',
      { splitPercent: 0.1 },
      'splitPercent',
      'expected null exactly when splitAddress is null',
    ],
    ['a split percent over 1', { splitAddress: VJL, splitPercent: 1.5 }, 'splitPercent', 'received 1.5'],
    [
      'a split percent with 5 decimals',
      { splitAddress: VJL, splitPercent: 0.02999 },
      'splitPercent',
      'received 0.02999',
    ],
    ['an unknown status', { status: 'PAID' }, 'status', 'expected one of WAITING_PAYMENT, PIX_CONFIRMED'],
    [
      'qrCodeText "hello"',
      { qrCodeText: 'hello' },
      'qrCodeText',
      'expected a valid PIX BR Code, received one where',
    ],
    [
      'a BR Code for another amount',
      { qrCodeText: brCode(500000) },
      'qrCodeText amount (54)',
      'expected 1500.00, received 5000.00',
    ],
    ['an id that is no UUID', { id: 'abc' }, 'id', 'expected a UUID, received abc'],
    ['cents out of range', { amountInCents: 0, amount: 0 }, 'amountInCents', 'received 0'],
    [
      'confirmedAt before createdAt',
      { status: 'PIX_CONFIRMED', confirmedAt: '2026-11-21T00:00:00Z' },
      'confirmedAt',
      'not before createdAt',
    ],
    // asked, and as first seen
    [
      'the amount of 1 cent',
      { amountInCents: 1, amount: 0.01, feeAmount: 0, netAmount: 0.01, qrCodeText: brCode(1) },
      'amountInCents',
      'expected 150000, received 1',
    ],
    [
      'another destination',
      { destinationAddress: EX },
      'destinationAddress',
      `expected ${LQ}, received ${EX}`,
    ],
    [
      'a 50% split that appeared',
      { splitAddress: VJL, splitPercent: 0.5 },
      'splitAddress',
      `expected null, received ${VJL}`,
    ],
    ['another deposit', { id: '00000000-0000-4000-8000-000000000000' }, 'id', `expected ${ID}`],
    [
      'a raised fee',
      { feeAmount: 100, netAmount: 1400 },
      'feeAmount',
      'as first answered (it never changes), received 100',
    ],
    ['another createdAt', { createdAt: '2026-11-22T11:00:00.000Z' }, 'createdAt', 'as first answered'],
  ])('%s', (_name, overrides, field, text) => {
    const violations = checkDeposit(at('WAITING_PAYMENT', overrides), GET);
    expect(violations.map((v) => v.field)).toContain(field);
    expect(describeViolations(violations)).toContain(text);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['settlement null', { settlement: null }, 'settlement'],
    ['settlement {}', { settlement: {} }, 'settlement.liquidTxid'],
    ['a FAILED settlement', { settlement: { liquidTxid: TXID, status: 'FAILED' } }, 'settlement.status'],
    ['a 1-hex txid', { settlement: { liquidTxid: 'a', status: 'FINALIZED' } }, 'settlement.liquidTxid'],
    [
      'a 63-hex txid',
      { settlement: { liquidTxid: 'a'.repeat(63), status: 'FINALIZED' } },
      'settlement.liquidTxid',
    ],
    [
      'a 128-hex txid',
      { settlement: { liquidTxid: 'a'.repeat(128), status: 'FINALIZED' } },
      'settlement.liquidTxid',
    ],
    [
      'an upper-case txid',
      { settlement: { liquidTxid: 'A'.repeat(64), status: 'FINALIZED' } },
      'settlement.liquidTxid',
    ],
    ['no confirmedAt', { confirmedAt: null }, 'confirmedAt'],
    ['a settlement that is a string', { settlement: 'done' }, 'settlement'],
  ])('FINALIZED with %s is refused', (_name, overrides, field) => {
    expect(fields(at('FINALIZED', overrides))).toContain(field);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['WAITING_PAYMENT', { settlement: { liquidTxid: TXID } }, 'settlement'],
    ['WAITING_PAYMENT', { confirmedAt: '2026-11-22T10:01:00Z' }, 'confirmedAt'],
    ['PIX_CONFIRMED', { settlement: { liquidTxid: TXID } }, 'settlement.liquidTxid'],
    ['SETTLEMENT_CREATED', { settlement: null }, 'settlement'],
    ['TX_SENT', { settlement: { status: 'SENT' } }, 'settlement.liquidTxid'],
    ['TX_SENT', { settlement: null }, 'settlement'],
  ])('%s with %j is refused', (status, overrides, field) => {
    expect(fields(at(status, overrides))).toEqual([field]);
  });

  it('a status that goes back, or a final status that changes, is refused', () => {
    expect(fields(at('PIX_CONFIRMED'), { ...GET, previous: at('TX_SENT') })).toEqual(['status']);
    expect(fields(at('WAITING_PAYMENT'), { ...GET, previous: at('FAILED') })).toEqual(['status']);
    expect(fields(at('FAILED'), { ...GET, previous: at('FINALIZED') })).toEqual(['status']);
    const other = at('FINALIZED', { settlement: { liquidTxid: 'b'.repeat(64), status: 'FINALIZED' } });
    expect(fields(other, { ...GET, previous: at('FINALIZED') })).toEqual(['settlement']);
  });

  it('a create answer that is not new, or has no QR image, is refused', () => {
    expect(fields({ ...FIRST, status: 'FINALIZED' }, { kind: 'create', known: KNOWN })).toEqual([
      'status',
      'settlement',
      'confirmedAt',
    ]);
    expect(
      fields({ ...FIRST, confirmedAt: '2026-11-22T10:01:00Z' }, { kind: 'create', known: KNOWN }),
    ).toEqual(['confirmedAt']);
    expect(fields({ ...FIRST, qrCode: '' }, { kind: 'create', known: KNOWN })).toEqual(['qrCode']);
  });

  it('an unknown field fixed in the first answer may not change either', () => {
    const first = { ...FIRST, memo: 'order 1' };
    expect(fields(at('WAITING_PAYMENT', { memo: 'order 2' }), { ...GET, first })).toEqual(['memo']);
    expect(fields(at('WAITING_PAYMENT'), { ...GET, first })).toEqual([]);
  });

  it('with the body as received: a number JSON.parse cannot hold exactly is refused, as written', () => {
    const text = JSON.stringify(FIRST).replace('"amount":1500', '"amount":1500.0000000000001');
    const raw = JSON.parse(text);
    expect(raw.amount).toBe(1500);
    expect(checkDeposit(raw, { kind: 'create', text })).toEqual([
      {
        field: 'amount',
        expected: 'a number JSON reads exactly (it reads as 1500)',
        received: '1500.0000000000001',
      },
    ]);
    // another notation of the same value is the same number of reais
    const other = JSON.stringify(FIRST).replace('"amount":1500', '"amount":1.5e3');
    expect(checkDeposit(JSON.parse(other), { kind: 'create', text: other })).toEqual([]);
    // but the interface types amountInCents as an integer: written so, or refused
    const cents = JSON.stringify(FIRST).replace('"amountInCents":150000', '"amountInCents":1.5e5');
    expect(checkDeposit(JSON.parse(cents), { kind: 'create', text: cents })).toEqual([
      {
        field: 'amountInCents',
        expected: 'an integer written as one (digits only, as the interface types it)',
        received: '1.5e5',
      },
    ]);
  });

  it('anything but an object is one violation of the body', () => {
    expect(checkDeposit('FINALIZED', GET)).toEqual([
      { field: '(body)', expected: 'a deposit object', received: 'FINALIZED' },
    ]);
  });

  it('values with escape sequences are shown escaped, in every violation', () => {
    const text = describeViolations(
      checkDeposit(
        at('WAITING_PAYMENT', { destinationAddress: `${EX}\r\x1b[2K\x1b[32mStatus FINALIZED` }),
        GET,
      ),
    );
    expect(text).toContain('\\r\\x1b[2K\\x1b[32mStatus FINALIZED');
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });
});

describe('a create answer against the request', () => {
  it('names the field, what was sent and what came back', () => {
    expect(
      checkDeposit(
        { ...FIRST, destinationAddress: EX },
        {
          kind: 'create',
          known: { amountInCents: 150000, destinationAddress: LQ, splitAddress: null, splitFee: null },
        },
      ),
    ).toEqual([{ field: 'destinationAddress', expected: LQ, received: EX }]);
  });
});

describe('properties', () => {
  const cents = fc.integer({ min: 1, max: 600_000 });

  /** An honest answer for any amount and fee, built from integer cents. */
  const honest = fc.tuple(cents, fc.nat()).map(([c, f]) => {
    const fee = f % (c + 1);
    return {
      ...FIRST,
      amountInCents: c,
      amount: c / 100,
      feeAmount: fee / 100,
      netAmount: (c - fee) / 100,
      qrCodeText: brCode(c),
    };
  });

  it('an honest answer for any amount and fee keeps every rule', () => {
    fc.assert(
      fc.property(honest, (a) => {
        const known = { amountInCents: a.amountInCents, destinationAddress: LQ };
        expect(checkDeposit(a, { kind: 'create', known })).toEqual([]);
      }),
    );
  });

  it('any amount that is not amountInCents / 100 is refused', () => {
    fc.assert(
      fc.property(honest, fc.double({ noNaN: true }), (a, amount) => {
        fc.pre(amount * 100 !== a.amountInCents);
        expect(fields({ ...a, amount }, { kind: 'create' })).toContain('amount');
      }),
    );
  });

  it('any change of a field fixed at creation is refused, whatever the field', () => {
    const fixed = [
      'id',
      'amount',
      'amountInCents',
      'feeAmount',
      'netAmount',
      'qrCodeText',
      'destinationAddress',
      'createdAt',
      'splitAddress',
      'splitPercent',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fixed),
        fc.oneof(fc.string(), fc.double(), fc.constant(null), fc.integer()),
        (field, value) => {
          const first = FIRST as Record<string, unknown>;
          fc.pre(first[field] !== value && !(field === 'id' && String(value).toLowerCase() === ID));
          expect(fields(at('WAITING_PAYMENT', { [field]: value }), { kind: 'get', first })).toContain(field);
        },
      ),
    );
  });

  it('status moves forward freely (polls skip states) and never back', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUS_ORDER), fc.constantFrom(...STATUS_ORDER), (was, now) => {
        const got = fields(at(now), { ...GET, previous: at(was) });
        expect(got).toEqual(STATUS_ORDER.indexOf(now) < STATUS_ORDER.indexOf(was) ? ['status'] : []);
      }),
    );
  });
});

describe('sameAddressText: without the address codecs', () => {
  it('a segwit address in the other case is the same; mixed case and base58 case changes are not', () => {
    expect(sameAddressText(LQ, LQ)).toBe(true);
    expect(sameAddressText(LQ, LQ.toUpperCase())).toBe(true);
    expect(sameAddressText(EX, EX.toUpperCase())).toBe(true);
    expect(sameAddressText(LQ, `${LQ.slice(0, 10).toUpperCase()}${LQ.slice(10)}`)).toBe(false);
    expect(sameAddressText(VJL, VJL.toLowerCase())).toBe(false);
    expect(sameAddressText(LQ, EX)).toBe(false);
  });
});

describe('qrCodeText is shown as it is, so nothing in it may act on a terminal', () => {
  it('a bidirectional override or an invisible character in the BR Code is refused', () => {
    for (const ch of ['\u202e', '\u200b', '\u2066']) {
      // a well-formed BR Code (its CRC right) whose merchant name hides the character
      const code = buildDynamicBrCode({
        url: 'pix.example.invalid/abc',
        amountText: '1500.00',
        merchantName: `TE${ch}ST`,
        merchantCity: 'SAO PAULO',
      });
      expect(readBrCode(code).ok).toBe(true);
      const v = checkDeposit({ ...FIRST, qrCodeText: code }, { kind: 'create' });
      expect(describeViolations(v)).toContain(
        'qrCodeText: expected a PIX BR Code without control, bidirectional or invisible characters',
      );
      expect(describeViolations(v)).not.toContain(ch);
    }
  });
});
