/** The client's outcome classification, as a table: what a user's command does after each outcome. */
import { describe, expect, it } from 'vitest';
import { classify, type RequestFacts, retryDelay, type Seen } from '../../src/api/classify.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const base = {
  baseUrl: 'https://pay.example.com',
  host: 'pay.example.com',
  timeoutMs: 30_000,
  maxRetryAfterMs: 60_000,
};
const GET: RequestFacts = { ...base, method: 'GET', depositId: 'abc' };
const POST: RequestFacts = { ...base, method: 'POST', idempotencyKey: 'key-1' };

const answer = (status: number, retryAfter?: string): Seen => ({
  kind: 'answer',
  status,
  body: '{"message":"nope"}',
  retryAfter,
});
const refused: Seen = { kind: 'error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED', sent: false };
const reset: Seen = { kind: 'error', code: 'ECONNRESET', message: 'socket hang up', sent: true };
const timeout: Seen = { kind: 'error', code: 'UND_ERR_HEADERS_TIMEOUT', message: 'timeout', sent: true };
const tls: Seen = { kind: 'error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self signed', sent: false };

// request, outcome -> error type, exit code, retried, wait asked (ms)
const TABLE: Array<[string, RequestFacts, Seen, string, number, boolean, number | undefined]> = [
  ['GET 5xx', GET, answer(503), 'service', 1, true, undefined],
  ['GET 5xx with Retry-After', GET, answer(503, '7'), 'service', 1, true, 7000],
  ['create 5xx: may exist, never again', POST, answer(500), 'service', 1, false, undefined],
  ['GET 429', GET, answer(429, '2'), 'rate_limited', 1, true, 2000],
  ['create 429: refused, so sent again', POST, answer(429), 'rate_limited', 1, true, undefined],
  ['429 asking too long a wait', GET, answer(429, '3600'), 'rate_limited', 1, false, 3_600_000],
  ['GET 404', GET, answer(404), 'not_found', 4, false, undefined],
  ['401', GET, answer(401), 'auth', 3, false, undefined],
  ['403 on create', POST, answer(403), 'auth', 3, false, undefined],
  ['400', POST, answer(400), 'validation', 2, false, undefined],
  ['422', POST, answer(422), 'validation', 2, false, undefined],
  ['302', GET, answer(302), 'service', 1, false, undefined],
  ['418', GET, answer(418), 'service', 1, false, undefined],
  ['GET refused', GET, refused, 'network', 6, true, undefined],
  ['create refused: never reached, sent again', POST, refused, 'network', 6, true, undefined],
  ['GET reset', GET, reset, 'network', 6, true, undefined],
  ['create reset: may exist, never again', POST, reset, 'network', 6, false, undefined],
  ['create timed out: may exist, never again', POST, timeout, 'timeout', 6, false, undefined],
  ['GET timed out', GET, timeout, 'timeout', 6, true, undefined],
  ['TLS failure', GET, tls, 'network', 6, false, undefined],
];

describe('classify', () => {
  it.each(TABLE)('%s', (_name, request, outcome, type, exitCode, retry, waitMs) => {
    const v = classify(request, outcome, NOW);
    if (v.ok) throw new Error('expected a failure');
    expect({ type: v.error.type, exitCode: v.error.exitCode, retry: v.retry, waitMs: v.waitMs }).toEqual({
      type,
      exitCode,
      retry,
      waitMs,
    });
  });

  it('a 2xx is done', () => {
    expect(classify(GET, answer(200), NOW)).toEqual({ ok: true });
  });

  it('a create that may have arrived says so, with its Idempotency-Key', () => {
    const v = classify(POST, reset, NOW);
    expect(v.ok ? '' : v.error.message).toBe(
      'the connection to pay.example.com:443 was reset (ECONNRESET). The create request may have reached the service, so it was not sent again: a deposit may exist (Idempotency-Key key-1)',
    );
  });

  it('Retry-After as an HTTP date', () => {
    const v = classify(GET, answer(503, new Date(NOW + 4000).toUTCString()), NOW);
    expect(v.ok ? 0 : v.waitMs).toBe(4000);
  });
});

describe('retryDelay', () => {
  it('doubles from 0.5 s, capped at 5 s, jittered to half, never under what was asked', () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => retryDelay(a, 1))).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(retryDelay(0, 0)).toBe(250);
    expect(retryDelay(0, 0, 9000)).toBe(9000);
  });
});
