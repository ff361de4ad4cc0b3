import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer, getAnswer, ID, LQ, TOKEN } from '../helpers/fixtures.js';
import { forTest, json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;

// times for people are local: in the zone TZ names
const envFor = (url: string) => liveEnv(url, undefined, { TZ: 'America/Sao_Paulo' });

async function get(handler: Parameters<typeof startServer>[0], extra: string[] = [], client = {}) {
  server = await forTest(startServer(handler));
  return runCli(['deposit', 'get', ID, ...extra], { env: envFor(server.url), client });
}

async function create(handler: Parameters<typeof startServer>[0], client = {}) {
  server = await forTest(startServer(handler));
  return runCli(['deposit', 'create', '--amount', '1500', '--to', LQ], { env: envFor(server.url), client });
}

describe('a standing sandbox used as a profile', () => {
  const finalized = (txid: string) =>
    getAnswer({
      status: 'FINALIZED',
      settlement: { liquidTxid: txid, status: 'FINALIZED' },
      confirmedAt: '2026-11-22T10:01:00Z',
      sandbox: true,
    });

  it('get and watch link its own explorer for a sandbox txid, never a public one', async () => {
    const txid = 'cd'.repeat(32);
    server = await forTest(startServer((_req, res) => json(res, 200, finalized(txid))));
    for (const args of [
      ['deposit', 'get', ID],
      ['deposit', 'watch', ID],
    ]) {
      // the token lbrl sandbox serve printed
      const env = { ...envFor(server.url), LBRL_TOKEN: `sbx_${'5e'.repeat(16)}` };
      const r = await runCli(args, { env, stdoutTTY: true });
      expect(r.code, args.join(' ')).toBe(0);
      const out = r.stdout + r.stderr;
      expect(out).not.toContain('blockstream.info');
      expect(out).toMatch(new RegExp(`Explorer\\s+${server.url.replace(/[.]/g, '\\.')}/esplora/tx/${txid}`));
    }
  });
});

describe('deposit get against a service that answers in every way', () => {
  it('prints the deposit, its settlement and an explorer link', async () => {
    const txid = 'ab'.repeat(32);
    const r = await get((_req, res) =>
      json(
        res,
        200,
        getAnswer({
          status: 'FINALIZED',
          settlement: { liquidTxid: txid, status: 'FINALIZED' },
          confirmedAt: '2026-11-22T10:01:00Z',
        }),
      ),
    );
    expect(r.code).toBe(0);
    expect(server!.requests[0]!.url).toBe(`/v1/api/deposit/${ID}`);
    expect(r.stdout).toContain('Status      FINALIZED');
    expect(r.stdout).toContain(`Settlement  FINALIZED txid ${txid}`);
    expect(r.stdout).toContain(`Explorer    https://blockstream.info/liquid/tx/${txid}`);
    expect(r.stdout).toContain('Confirmed   2026-11-22 07:01:00 -03:00');
  });

  it('--json prints the object as returned', async () => {
    const body = { ...getAnswer(), futureField: [1, 2] };
    const r = await get((_req, res) => json(res, 200, body), ['--json']);
    expect(JSON.parse(r.stdout)).toEqual(body);
  });

  it('401 exits 3 with the service message', async () => {
    const r = await get((_req, res) => json(res, 401, { message: 'token expired' }));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the service refused the token (401): token expired');
    expect(server!.requests).toHaveLength(1);
  });

  it('404 exits 4', async () => {
    const r = await get((_req, res) => json(res, 404, { error: 'nope' }), ['--json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { type: 'not_found', message: `deposit ${ID} not found`, exitCode: 4 },
    });
  });

  it('429 with Retry-After is waited out and retried', async () => {
    const r = await get((_req, res, n) =>
      n === 1
        ? json(res, 429, { message: 'slow down' }, { 'retry-after': '7' })
        : json(res, 200, getAnswer()),
    );
    expect(r.code).toBe(0);
    expect(server!.requests).toHaveLength(2);
    expect(r.sleeps).toEqual([7000]);
  });

  it('5xx is retried with capped, jittered exponential back-off, then exit 1', async () => {
    const r = await get((_req, res) => json(res, 502, 'Bad Gateway'));
    expect(r.code).toBe(1);
    expect(server!.requests).toHaveLength(4);
    // random() is 0.5 in tests: 0.75 of 500, 1000, 2000
    expect(r.sleeps).toEqual([375, 750, 1500]);
    expect(r.stderr).toContain('the service answered 502: Bad Gateway');
  });

  it('5xx then success recovers', async () => {
    const r = await get((_req, res, n) =>
      n < 3 ? json(res, 503, { message: 'maintenance' }) : json(res, 200, getAnswer()),
    );
    expect(r.code).toBe(0);
    expect(server!.requests).toHaveLength(3);
  });

  it.each([
    ['not JSON', 'hello', "the service's answer is not valid JSON"],
    ['a body missing fields', { id: ID }, "the service's answer breaks the contract: field status"],
    ['an unknown status', getAnswer({ status: 'PAID' }), 'field status'],
    [
      'a bad txid (one shape, checked by the rules every answer passes)',
      getAnswer({ status: 'TX_SENT', settlement: { liquidTxid: 'xyz' } }),
      'settlement.liquidTxid: expected 64 lower-case hex characters, service answered xyz',
    ],
    [
      'a null confirmedAt missing',
      (() => {
        const { confirmedAt: _c, ...rest } = getAnswer();
        return rest;
      })(),
      'field confirmedAt',
    ],
  ])('%s exits 1 naming the field', async (_name, body, message) => {
    const r = await get((_req, res) => json(res, 200, body));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('    at ');
  });

  it('a truncated body is retried as a failed connection', async () => {
    const r = await get((_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"id":');
        setTimeout(() => res.destroy(), 5);
        return;
      }
      json(res, 200, getAnswer());
    });
    expect(r.code).toBe(0);
    expect(server!.requests).toHaveLength(2);
  });

  it('a slow body times out (exit 6) after the retries', async () => {
    const r = await get(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
      },
      [],
      { timeoutMs: 150, maxRetries: 1 },
    );
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('no answer within');
    expect(server!.requests).toHaveLength(2);
  });

  it('an answer larger than the limit is refused', async () => {
    const r = await get((_req, res) => json(res, 200, { pad: 'x'.repeat(2 * 1024 * 1024) }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('larger than 1048576 bytes; refused');
  });

  it('a redirect is not followed and the token goes nowhere else', async () => {
    const r = await get((_req, res) => {
      res.writeHead(302, { location: 'http://evil.invalid/steal' });
      res.end();
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('redirecting to http://evil.invalid/steal; redirects are not followed');
    expect(server!.requests).toHaveLength(1);
  });

  it('--verbose traces requests with the token redacted everywhere', async () => {
    const r = await get((_req, res) => json(res, 401, { message: `bad token ${TOKEN}` }), ['--verbose']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`> GET ${server!.url}/v1/api/deposit/${ID}`);
    expect(r.stderr).toContain('> authorization: Bearer [redacted]');
    expect(r.stderr).toContain('< 401');
    expect(r.stderr + r.stdout).not.toContain(TOKEN);
  });
});

// a create that may have reached the service (5xx, time-out, reset) is in faults.test.ts
describe('deposit create against a service that answers in every way', () => {
  it('429 is safe to repeat: retried with the same Idempotency-Key', async () => {
    const r = await create((req, res, n) =>
      n === 1
        ? json(res, 429, { message: 'later' }, { 'retry-after': '2' })
        : json(res, 201, createAnswer(JSON.parse(req.body))),
    );
    expect(r.code).toBe(0);
    expect(server!.requests).toHaveLength(2);
    expect(server!.requests[0]!.headers['idempotency-key']).toBe(
      server!.requests[1]!.headers['idempotency-key'],
    );
    expect(r.sleeps).toEqual([2000]);
  });

  it('a Retry-After beyond the limit is not waited for', async () => {
    const r = await create((_req, res) => json(res, 429, { message: 'later' }, { 'retry-after': '3600' }));
    expect(r.code).toBe(1);
    expect(server!.requests).toHaveLength(1);
    expect(r.stderr).toContain('the service is rate limiting requests (429); it asks to wait 3600 s');
  });

  it('400 from the service exits 2 with its message, whatever the body shape', async () => {
    const r = await create((_req, res) =>
      json(res, 400, { errors: [{ field: 'amountInCents', message: 'too large' }] }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the service refused the request (400): amountInCents: too large');
  });
});
