import { afterEach, describe, expect, it } from 'vitest';
import { readBrCode } from '../../src/domain/brcode.js';
import { checkDeposit } from '../../src/domain/deposit-rules.js';
import { EX, keepsTheRules, LQ, VJL } from '../helpers/fixtures.js';
import { decodePng } from '../helpers/qr.js';
import { startTestSandbox } from '../helpers/sandbox.js';

let sb: Awaited<ReturnType<typeof startTestSandbox>> | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

describe('sandbox service', () => {
  it('creates a deposit that satisfies the interface, with a PNG of exactly its BR Code', async () => {
    sb = await startTestSandbox();
    const r = await sb.call('POST', '/v1/api/deposit', { amountInCents: 1550, lbrlAddress: LQ });
    expect(r.status).toBe(201);
    const d = keepsTheRules('create', r.body);
    expect(d).toMatchObject({
      status: 'WAITING_PAYMENT',
      amount: 15.5,
      amountInCents: 1550,
      feeAmount: 0.15,
      netAmount: 15.35,
      splitAddress: null,
      splitPercent: null,
      destinationAddress: LQ,
      createdAt: '2026-11-22T10:00:00.000Z',
      sandbox: true,
    });
    expect(
      checkDeposit(d, {
        kind: 'create',
        known: { amountInCents: 1550, destinationAddress: LQ, splitAddress: null, splitFee: null },
      }),
    ).toEqual([]);
    const code = readBrCode(d.qrCodeText);
    expect(code.ok && code.value.url).toMatch(/\.invalid\//);
    expect(decodePng(Buffer.from(d.qrCode, 'base64'))).toBe(d.qrCodeText);
  });

  it('splits: "2.99%" gives splitPercent 0.0299', async () => {
    sb = await startTestSandbox();
    const r = await sb.call('POST', '/v1/api/deposit', {
      amountInCents: 100,
      lbrlAddress: LQ,
      lbrlSplitAddress: VJL,
      splitFee: '2.99%',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ splitAddress: VJL, splitPercent: 0.0299 });
  });

  it.each([
    [{ amountInCents: 0, lbrlAddress: LQ }, 'amountInCents', 'amountInCents must be between 1 and 600000'],
    [
      { amountInCents: 600001, lbrlAddress: LQ },
      'amountInCents',
      'amountInCents must be between 1 and 600000',
    ],
    [{ amountInCents: 1.5, lbrlAddress: LQ }, 'amountInCents', 'amountInCents must be an integer'],
    [{ amountInCents: '100', lbrlAddress: LQ }, 'amountInCents', 'amountInCents must be an integer'],
    [{ lbrlAddress: LQ }, 'amountInCents', 'amountInCents is required'],
    [{ amountInCents: 100 }, 'lbrlAddress', 'lbrlAddress is required: a Liquid address'],
    [
      { amountInCents: 100, lbrlAddress: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
      'lbrlAddress',
      'lbrlAddress is not a valid Liquid address',
    ],
    [
      { amountInCents: 100, lbrlAddress: LQ, splitFee: '1.00%' },
      'lbrlSplitAddress',
      'splitFee requires lbrlSplitAddress',
    ],
    [
      { amountInCents: 100, lbrlAddress: LQ, lbrlSplitAddress: VJL },
      'splitFee',
      'lbrlSplitAddress requires splitFee',
    ],
    [
      { amountInCents: 100, lbrlAddress: LQ, lbrlSplitAddress: VJL, splitFee: '2.9%' },
      'splitFee',
      'splitFee must be a percentage written "X.XX%"',
    ],
    [
      { amountInCents: 100, lbrlAddress: LQ, lbrlSplitAddress: VJL, splitFee: '0.00%' },
      'splitFee',
      'above 0.00%',
    ],
    [[1, 2], 'body', 'the body must be a JSON object'],
  ])('400 names the field for %j', async (body, field, message) => {
    sb = await startTestSandbox();
    const r = await sb.call('POST', '/v1/api/deposit', body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: { code: 'validation_error', field, message: expect.stringContaining(message) },
    });
  });

  it('401 without the right token, 404 for an unknown id', async () => {
    sb = await startTestSandbox();
    expect(
      (await sb.call('GET', '/v1/api/deposit/x', undefined, { authorization: 'Bearer nope' })).status,
    ).toBe(401);
    expect((await sb.call('POST', '/v1/api/deposit', {}, { authorization: '' })).status).toBe(401);
    const r = await sb.call('GET', '/v1/api/deposit/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d');
    expect(r).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });

  it('honours Idempotency-Key: same body, same deposit; another body, refused', async () => {
    sb = await startTestSandbox();
    const h = { 'idempotency-key': 'k-1' };
    const a = await sb.call('POST', '/v1/api/deposit', { amountInCents: 100, lbrlAddress: LQ }, h);
    const b = await sb.call('POST', '/v1/api/deposit', { amountInCents: 100, lbrlAddress: LQ }, h);
    expect(b.status).toBe(201);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers['idempotent-replayed']).toBe('true');
    const c = await sb.call('POST', '/v1/api/deposit', { amountInCents: 200, lbrlAddress: LQ }, h);
    expect(c).toMatchObject({ status: 422, body: { error: { code: 'idempotency_conflict' } } });
    const d = await sb.call(
      'POST',
      '/v1/api/deposit',
      { amountInCents: 100, lbrlAddress: LQ },
      { 'idempotency-key': 'k-2' },
    );
    expect(d.body.id).not.toBe(a.body.id);
  });

  it('a key claimed by a request that died before writing its deposit is finished by the next one', async () => {
    // the next request waits this long (real time) for the deposit before it finishes it itself
    sb = await startTestSandbox({ claimWaitMs: 100 });
    const body = { amountInCents: 100, lbrlAddress: LQ };
    // what a kill -9 between claiming the key and writing the deposit leaves behind
    const orphan = '11111111-2222-4333-8444-555555555555';
    const validated = { amountInCents: 100, lbrlAddress: LQ, lbrlSplitAddress: null, splitBasisPoints: null };
    expect(sb.store.claimKey('k-dead', JSON.stringify(validated), orphan, sb.clock.now)).toEqual({
      kind: 'claimed',
    });
    const r = await sb.call('POST', '/v1/api/deposit', body, { 'idempotency-key': 'k-dead' });
    expect(r.status).toBe(201);
    expect(r.body.id).toBe(orphan);
    const again = await sb.call('POST', '/v1/api/deposit', body, { 'idempotency-key': 'k-dead' });
    expect(again.body.id).toBe(orphan);
    expect((await sb.call('GET', `/v1/api/deposit/${orphan}`)).status).toBe(200);
  });

  it('concurrent requests with one key make one deposit', async () => {
    sb = await startTestSandbox();
    const body = { amountInCents: 100, lbrlAddress: LQ };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        sb!.call('POST', '/v1/api/deposit', body, { 'idempotency-key': 'k-race' }),
      ),
    );
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.every((a) => a.status === 201)).toBe(true);
  });

  it('follows the lifecycle from stored facts and the clock, one step a second', async () => {
    sb = await startTestSandbox({ autopaySeconds: 5 });
    const created = await sb.call('POST', '/v1/api/deposit', { amountInCents: 150000, lbrlAddress: EX });
    const path = `/v1/api/deposit/${created.body.id}`;
    const seen: Array<[number, Record<string, unknown>]> = [];
    for (const t of [0, 4999, 5000, 6000, 7000, 8000, 60000]) {
      sb.clock.now = Date.parse('2026-11-22T10:00:00Z') + t;
      const r = await sb.call('GET', path);
      expect(r.status).toBe(200);
      keepsTheRules('get', r.body);
      expect(r.body).not.toHaveProperty('qrCode');
      seen.push([t, r.body]);
    }
    expect(seen.map(([t, b]) => [t, b.status])).toEqual([
      [0, 'WAITING_PAYMENT'],
      [4999, 'WAITING_PAYMENT'],
      [5000, 'PIX_CONFIRMED'],
      [6000, 'SETTLEMENT_CREATED'],
      [7000, 'TX_SENT'],
      [8000, 'FINALIZED'],
      [60000, 'FINALIZED'],
    ]);
    expect(seen[0]![1]).toMatchObject({ settlement: null, confirmedAt: null });
    expect(seen[2]![1]).toMatchObject({ settlement: null, confirmedAt: '2026-11-22T10:00:05.000Z' });
    expect(seen[3]![1]).toMatchObject({ settlement: { status: 'SETTLEMENT_CREATED' } });
    expect(seen[5]![1]).toMatchObject({
      settlement: { status: 'FINALIZED', liquidTxid: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });

  it('a failure before the end wins; one after FINALIZED does not count', async () => {
    sb = await startTestSandbox();
    const t0 = sb.clock.now;
    const a = await sb.call('POST', '/v1/api/deposit', { amountInCents: 100, lbrlAddress: EX });
    const id = a.body.id as string;
    sb.store.record(id, 'paid', t0 + 1000);
    sb.store.record(id, 'failed', t0 + 2500);
    sb.clock.now = t0 + 2400;
    expect((await sb.call('GET', `/v1/api/deposit/${id}`)).body.status).toBe('SETTLEMENT_CREATED');
    sb.clock.now = t0 + 9000;
    expect((await sb.call('GET', `/v1/api/deposit/${id}`)).body).toMatchObject({
      status: 'FAILED',
      settlement: { status: 'FAILED' },
    });
    const b = await sb.call('POST', '/v1/api/deposit', { amountInCents: 100, lbrlAddress: EX });
    sb.store.record(b.body.id as string, 'paid', t0);
    sb.store.record(b.body.id as string, 'failed', t0 + 3000);
    expect((await sb.call('GET', `/v1/api/deposit/${b.body.id}`)).body.status).toBe('FINALIZED');
  });

  it('netAmount is never negative and sums are exact for every amount', async () => {
    sb = await startTestSandbox();
    for (const cents of [1, 2, 99, 100, 101, 12345, 599999, 600000]) {
      const r = await sb.call('POST', '/v1/api/deposit', { amountInCents: cents, lbrlAddress: LQ });
      const d = keepsTheRules('create', r.body);
      expect(d.netAmount).toBeGreaterThanOrEqual(0);
      expect(
        checkDeposit(d, {
          kind: 'create',
          known: { amountInCents: cents, destinationAddress: LQ, splitAddress: null, splitFee: null },
        }),
      ).toEqual([]);
    }
  });
});
