/**
 * A create the service answered with something other than the deposit or a definite refusal: a
 * redirect (303 See Other is how HTTP says "made, it is over there"), a 409 conflict (its
 * Idempotency-Key's, or a deposit's), a status the interface does not name (402, 410, 418). Each
 * may have made a charge: the error says a deposit may exist with the Idempotency-Key, the create is
 * never sent again, and nothing is recorded as created. The refusals that make nothing (400, 422,
 * 401, 403, 404, 429) keep their plain messages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { classify, type RequestFacts, type Seen } from '../../src/api/classify.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { LQ, TOKEN } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

const POST: RequestFacts = {
  baseUrl: 'https://pay.example.com',
  host: 'pay.example.com',
  timeoutMs: 30_000,
  maxRetryAfterMs: 60_000,
  method: 'POST',
  idempotencyKey: 'key-1',
};
const GET: RequestFacts = { ...POST, method: 'GET', idempotencyKey: undefined, depositId: 'abc' };
const answer = (status: number, location?: string): Seen => ({
  kind: 'answer',
  status,
  body: '{"message":"nope"}',
  ...(location ? { location } : {}),
});
const MAY_EXIST = 'a deposit may exist (Idempotency-Key key-1)';

describe('a create answered neither with the deposit nor a definite refusal', () => {
  it.each([
    [303, '/v1/api/deposit/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d'],
    [302, 'https://elsewhere.example/'],
    [307, 'https://elsewhere.example/'],
    [409, undefined],
    [402, undefined],
    [410, undefined],
    [418, undefined],
  ])('%s: says a deposit may exist, never sent again (exit 1)', (status, location) => {
    const verdict = classify(POST, answer(status, location), 0);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.retry).toBe(false);
    expect(verdict.error.message).toContain(MAY_EXIST);
    expect(verdict.error.exitCode).toBe(1);
  });

  it.each([400, 422, 401, 403, 404])('%s makes nothing: said plainly, no "may exist"', (status) => {
    const verdict = classify(POST, answer(status), 0);
    expect(verdict.ok ? '' : verdict.error.message).not.toContain('may exist');
  });

  it('a get answered so is not about a create', () => {
    const verdict = classify(GET, answer(303, '/x'), 0);
    expect(verdict.ok ? '' : verdict.error.message).toBe(
      'the service answered 303 redirecting to /x; redirects are not followed',
    );
    const conflict = classify(GET, answer(409), 0);
    expect(conflict.ok ? 0 : conflict.error.exitCode).toBe(2);
  });
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('deposit create answered 303 See Other', () => {
  it('tells the user a deposit may exist and how to find it; one request, nothing on stdout', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(303, { location: '/v1/api/deposit/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d' });
      res.end();
    });
    const env = { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN, NO_COLOR: '1' };
    const r = await runCli(['deposit', 'create', '--amount', '15', '--to', LQ, '--yes', '--no-qr'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const key = server.requests[0]?.headers['idempotency-key'];
    expect(r.stderr).toContain(
      `error: the service answered 303 redirecting to /v1/api/deposit/3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d; redirects are not followed. The create request may have reached the service, so it was not sent again: a deposit may exist (Idempotency-Key ${key})`,
    );
    expect(r.stderr).toContain('check for the deposit before creating another');
    expect(server.requests).toHaveLength(1);
  });
});
