/** The one deposit model (domain/deposit.ts) and the rules every answer passes (deposit-rules.ts). */
import { describe, expect, it } from 'vitest';
import { readAnswerText } from '../../src/api/client.js';
import {
  ALWAYS_FIELDS,
  CREATE_ONLY_FIELDS,
  createdDepositShape,
  depositShape,
  FIELD_EXPECTED,
  FIXED_FIELD_NAMES,
  fixedFieldsOf,
  INTEGER_FIELDS,
  MUTABLE_FIELDS,
  REQUIRED_NULLABLE,
} from '../../src/domain/deposit.js';
import { checkDeposit, describeViolations } from '../../src/domain/deposit-rules.js';
import { parseTransaction, TxParseError } from '../../src/domain/liquid/tx.js';
import {
  canonicalId,
  isHex32,
  isHexBytes,
  isPaid,
  parseDepositId,
  STATUS_ORDER,
  STATUSES,
} from '../../src/domain/values.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';

describe('the deposit model', () => {
  it('every field it defines is one every answer must carry: leaving one out is a violation', () => {
    for (const field of ALWAYS_FIELDS) {
      const rest: Record<string, unknown> = { ...getAnswer() };
      delete rest[field];
      const fields = checkDeposit(rest, { kind: 'get' }).map((x) => x.field);
      expect(fields, field).toContain(field);
    }
  });

  it('the field lists the rules read come from the shapes: what the interface says of each field', () => {
    // section 2: required even when null; only in a create answer; typed integer
    expect(REQUIRED_NULLABLE).toEqual({
      create: ['splitAddress', 'splitPercent'],
      get: ['settlement', 'confirmedAt'],
    });
    expect([...CREATE_ONLY_FIELDS]).toEqual(['qrCode']);
    expect([...INTEGER_FIELDS]).toEqual(['amountInCents']);
    expect([...MUTABLE_FIELDS].sort()).toEqual(['confirmedAt', 'settlement', 'status']);
  });

  it('the lists written out in the model are what its shapes say (null taken but not a missing value; whole numbers)', () => {
    type Schema = { safeParse(value: unknown): { success: boolean } };
    const fieldsWhere = (shape: Record<string, Schema>, test: (schema: Schema) => boolean, skip = {}) =>
      Object.entries(shape)
        .filter(([field, schema]) => !(field in skip) && test(schema))
        .map(([field]) => field);
    const nullNotMissing = (schema: Schema) =>
      schema.safeParse(null).success && !schema.safeParse(undefined).success;
    const always = Object.fromEntries(ALWAYS_FIELDS.map((field) => [field, true]));
    expect(REQUIRED_NULLABLE).toEqual({
      create: fieldsWhere(createdDepositShape.shape, nullNotMissing, always),
      get: fieldsWhere(depositShape.shape, nullNotMissing, always),
    });
    const whole = (schema: Schema) => schema.safeParse(1).success && !schema.safeParse(1.5).success;
    expect([...INTEGER_FIELDS]).toEqual(fieldsWhere(depositShape.shape, whole));
  });

  it("every field of the model is checked against its schema's type, and named with what it holds", () => {
    const honest = { create: createAnswer({ amountInCents: 150000, lbrlAddress: LQ }), get: getAnswer() };
    for (const kind of ['create', 'get'] as const) {
      const shape = kind === 'create' ? createdDepositShape.shape : depositShape.shape;
      expect(checkDeposit(honest[kind], { kind })).toEqual([]);
      for (const field of Object.keys(shape)) {
        // an array is of no field's type
        const found = checkDeposit({ ...honest[kind], [field]: [] }, { kind }).filter(
          (v) => v.field === field,
        );
        expect(found, `${kind} ${field}`).toEqual([
          { field, expected: FIELD_EXPECTED[field as keyof typeof FIELD_EXPECTED], received: '[]' },
        ]);
      }
    }
    const settled = { ...getAnswer(), status: 'FINALIZED', confirmedAt: '2026-11-22T10:05:00Z' };
    expect(
      checkDeposit({ ...settled, settlement: { liquidTxid: 'a'.repeat(64), status: 7 } }, { kind: 'get' }),
    ).toEqual([{ field: 'settlement.status', expected: 'a string', received: '7' }]);
  });

  it("an answer the client cannot read into the model is refused in the rules' words for the field", () => {
    const read = (answer: unknown) => () => readAnswerText(JSON.stringify(answer), depositShape);
    expect(read({ ...getAnswer(), amountInCents: '1500' })).toThrow(
      'the service\'s answer breaks the contract: field amountInCents: expected a whole number of cents from 1 to 600000, service answered "1500"',
    );
    expect(read({ ...getAnswer(), settlement: { liquidTxid: 7 } })).toThrow(
      'field settlement.liquidTxid: expected 64 lower-case hex characters, service answered 7',
    );
    expect(read({ ...getAnswer(), status: 'paid' })).toThrow(
      'field status: expected one of WAITING_PAYMENT, ',
    );
  });

  it('a field that breaks several checks said in the same words is named once', () => {
    for (const cents of ['1e26', '0.5', '-3']) {
      const text = JSON.stringify(getAnswer()).replace('"amountInCents":150000', `"amountInCents":${cents}`);
      let message = '';
      try {
        readAnswerText(text, depositShape);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, cents).toContain(
        'field amountInCents: expected a whole number of cents from 1 to 600000',
      );
      expect(message.split('field amountInCents').length - 1, message).toBe(1);
    }
  });

  it('the history keeps exactly the fixed fields it names, from a create answer', () => {
    const answer = createAnswer({ amountInCents: 150000, lbrlAddress: LQ });
    expect(Object.keys(fixedFieldsOf(answer as never)).sort()).toEqual([...FIXED_FIELD_NAMES].sort());
  });

  it('one txid shape: 64 lower-case hex characters, nothing else', () => {
    expect(isHex32('a'.repeat(64))).toBe(true);
    for (const bad of ['A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), '', 7, null]) {
      expect(isHex32(bad), String(bad)).toBe(false);
    }
    const settled = (liquidTxid: string) => ({
      ...getAnswer(),
      status: 'FINALIZED',
      settlement: { liquidTxid, status: 'FINALIZED' },
      confirmedAt: '2026-11-22T10:05:00Z',
    });
    expect(checkDeposit(settled('b'.repeat(64)), { kind: 'get' })).toEqual([]);
    expect(describeViolations(checkDeposit(settled('B'.repeat(64)), { kind: 'get' }))).toContain(
      'settlement.liquidTxid: expected 64 lower-case hex characters',
    );
  });

  it('one shape of bytes in hex, two lower-case digits a byte: the raw transaction is read only so', () => {
    expect(isHexBytes('')).toBe(true);
    expect(isHexBytes('', 1)).toBe(false);
    expect(isHexBytes('00ff', 2)).toBe(true);
    for (const bad of ['0', 'abc', '0A', 'zz', ' 00', 7, null])
      expect(isHexBytes(bad), String(bad)).toBe(false);
    expect(() => parseTransaction('0200000001')).toThrow(TxParseError);
    expect(() => parseTransaction('0A')).toThrow(/not hex/);
  });

  it('one list of statuses: their order, and which are paid, come from it', () => {
    expect(STATUS_ORDER).toEqual(STATUSES.filter((status) => status !== 'FAILED'));
    expect(STATUSES.filter(isPaid)).toEqual(['PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED']);
  });

  it('one canonical id: lower case, whichever way it came', () => {
    expect(canonicalId(ID.toUpperCase())).toBe(ID);
    expect(parseDepositId(ID.toUpperCase())).toEqual({ ok: true, value: ID });
  });

  it('the sums of an answer are checked with exact decimals, by the one rule set', () => {
    expect(checkDeposit(getAnswer(), { kind: 'get' })).toEqual([]);
    expect(describeViolations(checkDeposit({ ...getAnswer(), netAmount: 0.01 }, { kind: 'get' }))).toContain(
      'netAmount: expected amount - feeAmount = ',
    );
  });
});

describe('the rules, on any JSON', () => {
  const known = { amountInCents: 150000, destinationAddress: LQ };

  it('an honest create answer with its id in upper case keeps the rules', () => {
    const raw = { ...createAnswer({ amountInCents: 150000, lbrlAddress: LQ }), id: ID.toUpperCase() };
    expect(checkDeposit(raw, { kind: 'create', known })).toEqual([]);
  });

  it('fields of the wrong JSON type are violations that read as such, not schema noise', () => {
    const violations = checkDeposit({ ...getAnswer(), amount: '1500.00', status: 7 }, { kind: 'get' });
    expect(describeViolations(violations)).toBe(
      'status: expected one of WAITING_PAYMENT, PIX_CONFIRMED, SETTLEMENT_CREATED, TX_SENT, FINALIZED, FAILED, received 7; amount: expected a number of reais, received 1500.00',
    );
  });

  it('a get answer without settlement or confirmedAt is refused: the interface requires both', () => {
    const { settlement: _s, confirmedAt: _c, ...rest } = getAnswer();
    expect(checkDeposit(rest, { kind: 'get' }).map((x) => x.field)).toEqual(['settlement', 'confirmedAt']);
  });

  it('"sandbox": true is only a field: it may not appear in a later answer as a change either', () => {
    const first = { ...createAnswer({ amountInCents: 150000, lbrlAddress: LQ }), sandbox: false };
    expect(checkDeposit({ ...getAnswer(), sandbox: true }, { kind: 'get', first })).not.toEqual([]);
    expect(checkDeposit({ ...getAnswer(), sandbox: true }, { kind: 'get' })).toEqual([]);
  });
});
