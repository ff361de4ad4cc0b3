import { describe, expect, it } from 'vitest';
import type { CreateResponse } from '../../src/api/models.js';
import { describeViolations, readDeposit } from '../../src/domain/deposit-rules.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';

const known = { amountInCents: 150000, destinationAddress: LQ };

describe('readDeposit: the rules, then a typed deposit', () => {
  it('an honest create answer, its id in canonical lower case; the raw answer untouched', () => {
    const raw = { ...createAnswer({ amountInCents: 150000, lbrlAddress: LQ }), id: ID.toUpperCase() };
    const r = readDeposit<CreateResponse>(raw, { kind: 'create', known });
    expect(r).toEqual({ ok: true, value: { ...raw, id: ID } });
    expect(raw.id).toBe(ID.toUpperCase());
  });

  it('fields of the wrong JSON type are violations that read as such, not schema noise', () => {
    const r = readDeposit({ ...getAnswer(), amount: '1500.00', status: 7 }, { kind: 'get' });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(describeViolations(r.violations)).toBe(
        'status: expected one of WAITING_PAYMENT, PIX_CONFIRMED, SETTLEMENT_CREATED, TX_SENT, FINALIZED, FAILED, received 7; amount: expected a number of reais, received 1500.00',
      );
  });

  it('a get answer without settlement or confirmedAt is refused: the interface requires both', () => {
    const { settlement: _s, confirmedAt: _c, ...rest } = getAnswer();
    const r = readDeposit(rest, { kind: 'get' });
    expect(r.ok ? [] : r.violations.map((x) => x.field)).toEqual(['settlement', 'confirmedAt']);
  });

  it('"sandbox": true is only a field: it may not appear in a later answer as a change either', () => {
    const first = { ...createAnswer({ amountInCents: 150000, lbrlAddress: LQ }), sandbox: false };
    expect(readDeposit({ ...getAnswer(), sandbox: true }, { kind: 'get', first }).ok).toBe(false);
    expect(readDeposit({ ...getAnswer(), sandbox: true }, { kind: 'get' }).ok).toBe(true);
  });
});
