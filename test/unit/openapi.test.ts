import { afterEach, describe, expect, it } from 'vitest';
import { EX, LQ, VJL } from '../helpers/fixtures.js';
import { validateAnswer } from '../helpers/openapi.js';
import { startTestSandbox } from '../helpers/sandbox.js';

let sb: Awaited<ReturnType<typeof startTestSandbox>> | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const CREATE = '/v1/api/deposit';
const GET = '/v1/api/deposit/{id}';

describe('the sandbox answers as docs/openapi.yaml says', () => {
  it('create, and get through the whole lifecycle', async () => {
    sb = await startTestSandbox({ autopaySeconds: 1 });
    const created = await sb.call('POST', CREATE, {
      amountInCents: 12345,
      lbrlAddress: LQ,
      lbrlSplitAddress: VJL,
      splitFee: '10.00%',
    });
    expect(validateAnswer(CREATE, 'post', created.status, created.body)).toEqual([]);
    const t0 = sb.clock.now;
    for (let t = 0; t <= 6000; t += 500) {
      sb.clock.now = t0 + t;
      const got = await sb.call('GET', `/v1/api/deposit/${created.body.id}`);
      expect(validateAnswer(GET, 'get', got.status, got.body), `at +${t} ms`).toEqual([]);
    }
  });

  it('errors: 400, 401, 404, 422', async () => {
    sb = await startTestSandbox();
    const bad = await sb.call('POST', CREATE, { amountInCents: 0, lbrlAddress: EX });
    expect(validateAnswer(CREATE, 'post', bad.status, bad.body)).toEqual([]);
    const unauth = await sb.call('POST', CREATE, {}, { authorization: 'Bearer x' });
    expect(validateAnswer(CREATE, 'post', unauth.status, unauth.body)).toEqual([]);
    const missing = await sb.call('GET', '/v1/api/deposit/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d');
    expect(validateAnswer(GET, 'get', missing.status, missing.body)).toEqual([]);
    const h = { 'idempotency-key': 'same' };
    await sb.call('POST', CREATE, { amountInCents: 1, lbrlAddress: EX }, h);
    const conflict = await sb.call('POST', CREATE, { amountInCents: 2, lbrlAddress: EX }, h);
    expect(validateAnswer(CREATE, 'post', conflict.status, conflict.body)).toEqual([]);
  });

  it('the check itself catches an answer that breaks the document', () => {
    expect(validateAnswer(GET, 'get', 200, { id: 'x' })).not.toEqual([]);
    expect(validateAnswer(CREATE, 'post', 201, { status: 'FINALIZED' })).not.toEqual([]);
  });
});
