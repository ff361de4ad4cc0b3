/**
 * What the sandbox keeps does not grow with what it stores: a deposit is a small file (the
 * PNG is drawn again from its text), idempotency keys expire after 24 hours of the sandbox's
 * clock and are swept, and pay and fail are part of its own API for whoever holds the token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBaseUrl } from '../../src/api/baseurl.js';
import { listen } from '../../src/sandbox/listen.js';
import { createHandler } from '../../src/sandbox/server.js';
import { KEY_TTL_MS, SandboxStore } from '../../src/sandbox/store.js';
import { keepsTheRules, LQ } from '../helpers/fixtures.js';
import { validateAnswer } from '../helpers/openapi.js';
import { decodePng } from '../helpers/qr.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

let sb: Awaited<ReturnType<typeof startTestSandbox>> | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const CREATE = '/v1/api/deposit';
const body = { amountInCents: 100, lbrlAddress: LQ };

describe('sandbox storage', () => {
  it('stores no PNG: a deposit file is under 1 KB, and the create answer and a replay still carry a PNG of the text', async () => {
    sb = await startTestSandbox();
    const a = await sb.call('POST', CREATE, body, { 'idempotency-key': 'png' });
    const d = keepsTheRules('create', a.body);
    expect(decodePng(Buffer.from(d.qrCode, 'base64'))).toBe(d.qrCodeText);
    const file = path.join(sb.dir, 'deposits', `${d.id}.json`);
    expect(fs.statSync(file).size).toBeLessThan(1024);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('qrCode"');
    const again = await sb.call('POST', CREATE, body, { 'idempotency-key': 'png' });
    expect(again.body).toEqual(a.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('reads data written with the PNG inside, and does not answer it on get', async () => {
    sb = await startTestSandbox();
    const id = '0b6a1f3c-2d4e-4f5a-8b6c-7d8e9f0a1b2c';
    const old = {
      id,
      amountInCents: 500,
      feeCents: 5,
      destinationAddress: LQ,
      splitAddress: null,
      splitBasisPoints: null,
      qrCodeText: '00020101021226',
      qrCode: 'iVBORw0KGgo=',
      createdAt: sb.clock.now,
      autopayAfterMs: null,
    };
    fs.writeFileSync(path.join(sb.dir, 'deposits', `${id}.json`), JSON.stringify(old));
    const r = await sb.call('GET', `${CREATE}/${id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, amountInCents: 500, status: 'WAITING_PAYMENT' });
    expect(r.body).not.toHaveProperty('qrCode');
  });

  it('an Idempotency-Key answers for 24 hours of the sandbox clock, then makes a new deposit', async () => {
    sb = await startTestSandbox();
    const h = { 'idempotency-key': 'day' };
    const first = await sb.call('POST', CREATE, body, h);
    sb.clock.now += KEY_TTL_MS - 1;
    const within = await sb.call('POST', CREATE, body, h);
    expect(within.body.id).toBe(first.body.id);
    expect((await sb.call('POST', CREATE, { ...body, amountInCents: 2 }, h)).status).toBe(422);
    sb.clock.now += 1;
    const after = await sb.call('POST', CREATE, body, h);
    expect(after.status).toBe(201);
    expect(after.body.id).not.toBe(first.body.id);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    // and the new claim holds in its turn
    expect((await sb.call('POST', CREATE, body, h)).body.id).toBe(after.body.id);
  });

  it('expired keys are swept: the key directory holds about a day of keys, not all of them', async () => {
    sb = await startTestSandbox();
    const keys = path.join(sb.dir, 'idempotency');
    for (let i = 0; i < 12; i++) {
      await sb.call('POST', CREATE, body, { 'idempotency-key': `k-${i}` });
      sb.clock.now += 6 * 3600 * 1000; // one every 6 hours: 3 days in all
    }
    const left = fs.readdirSync(keys);
    expect(left.length).toBeLessThanOrEqual(5);
    expect(left.length).toBeGreaterThanOrEqual(4);
    expect(fs.readdirSync(path.join(sb.dir, 'deposits'))).toHaveLength(12);
  });

  it('key files of an older layout are swept, and do not answer', async () => {
    sb = await startTestSandbox();
    const stale = path.join(sb.dir, 'idempotency', `${'a'.repeat(64)}.json`);
    fs.writeFileSync(stale, '{"id":"x","bodyHash":"y"}');
    await sb.call('POST', CREATE, body, { 'idempotency-key': 'new' });
    expect(fs.existsSync(stale)).toBe(false);
  });
});

describe('pay and fail through the sandbox API', () => {
  it('POST /:id/pay pays a waiting deposit once; /:id/fail ends one not yet terminal', async () => {
    sb = await startTestSandbox();
    const a = await sb.call('POST', CREATE, body);
    const id = a.body.id as string;
    const paid = await sb.call('POST', `${CREATE}/${id}/pay`);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id, status: 'PIX_CONFIRMED', confirmedAt: '2026-11-22T10:00:00.000Z' });
    const again = await sb.call('POST', `${CREATE}/${id}/pay`);
    expect(again).toMatchObject({
      status: 409,
      body: {
        error: {
          code: 'invalid_state',
          message: `deposit ${id} is PIX_CONFIRMED; only a WAITING_PAYMENT deposit can be paid`,
        },
      },
    });
    const failed = await sb.call('POST', `${CREATE}/${id}/fail`);
    expect(failed.body).toMatchObject({ id, status: 'FAILED' });
    expect((await sb.call('POST', `${CREATE}/${id}/fail`)).status).toBe(409);
    expect((await sb.call('GET', `${CREATE}/${id}`)).body.status).toBe('FAILED');
  });

  it('answers as docs/openapi.yaml says: 200, 401, 404, 409', async () => {
    sb = await startTestSandbox();
    const id = (await sb.call('POST', CREATE, body)).body.id as string;
    for (const action of ['pay', 'fail'] as const) {
      const key = `/v1/api/deposit/{id}/${action}`;
      const ok = await sb.call('POST', `${CREATE}/${id}/${action}`);
      expect(validateAnswer(key, 'post', ok.status, ok.body)).toEqual([]);
      const conflict = await sb.call('POST', `${CREATE}/${id}/${action}`);
      expect(validateAnswer(key, 'post', conflict.status, conflict.body)).toEqual([]);
      const unknown = await sb.call('POST', `${CREATE}/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d/${action}`);
      expect(validateAnswer(key, 'post', unknown.status, unknown.body)).toEqual([]);
      const unauth = await sb.call('POST', `${CREATE}/${id}/${action}`, undefined, { authorization: 'x' });
      expect(validateAnswer(key, 'post', unauth.status, unauth.body)).toEqual([]);
    }
  });

  it('needs the token, POST, and a known id', async () => {
    sb = await startTestSandbox();
    const id = (await sb.call('POST', CREATE, body)).body.id as string;
    const noToken = await sb.call('POST', `${CREATE}/${id}/pay`, undefined, { authorization: 'Bearer nope' });
    expect(noToken.status).toBe(401);
    expect((await sb.call('GET', `${CREATE}/${id}/pay`)).status).toBe(405);
    const unknown = await sb.call('POST', `${CREATE}/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d/fail`);
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await sb.call('POST', `${CREATE}/%zz/pay`)).status).toBe(404);
    expect((await sb.call('POST', `${CREATE}/${id}/refund`)).status).toBe(404);
    expect((await sb.call('GET', `${CREATE}/${id}`)).body.status).toBe('WAITING_PAYMENT');
  });
});

describe('the standing server', () => {
  it('listening on every interface, it gives a loopback base URL this machine can use', async () => {
    const running = await listen(
      createHandler({
        store: new SandboxStore(tempDir()),
        token: SANDBOX_TOKEN,
        autopaySeconds: null,
        now: () => 0,
        qrPng: async () => '',
      }),
      '0.0.0.0',
      0,
    );
    try {
      expect(running.address).toBe('0.0.0.0');
      expect(running.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(parseBaseUrl(running.baseUrl)).toEqual({ ok: true, value: running.baseUrl });
      const res = await fetch(`${running.baseUrl}/v1/api/deposit/x`, {
        headers: { authorization: `Bearer ${SANDBOX_TOKEN}` },
      });
      expect(res.status).toBe(404);
    } finally {
      await running.close();
    }
  });
});
