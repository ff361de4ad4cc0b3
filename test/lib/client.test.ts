/**
 * The library as a program sees it: only what src/index.ts exports, against the real sandbox
 * server on a loopback port and against a local server that answers as each test says (lies
 * included). The clock is injected: no test waits for real seconds.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createClient,
  type Deposit,
  EXIT_CODES,
  isLbrlError,
  type LbrlClient,
  type LbrlError,
} from '../../src/index.js';
import { failure } from '../helpers/failure.js';
import { createAnswer, getAnswer, ID, LQ, TEX, TOKEN, VJL } from '../helpers/fixtures.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { forTest, json, startServer } from '../helpers/server.js';

const clients: LbrlClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

/** A clock whose sleep moves time on at once (and the sandbox's with it). */
function fakeClock(time: { now: number }) {
  return {
    now: () => time.now,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw new Error('aborted');
      time.now += ms;
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw new Error('aborted');
    },
    random: () => 0.5,
  };
}

function client(settings: Parameters<typeof createClient>[0]): LbrlClient {
  const c = createClient(settings);
  clients.push(c);
  return c;
}

describe('against the sandbox server', () => {
  it('create, get, then watch to FINALIZED through the iterator', async () => {
    const sandbox = await forTest(startTestSandbox({ autopaySeconds: 5 }));
    const lbrl = client({ baseUrl: sandbox.baseUrl, token: SANDBOX_TOKEN, clock: fakeClock(sandbox.clock) });

    const charge = await lbrl.create({ amount: '15,50', to: LQ, splitTo: VJL, splitFee: '2.99' });
    expect(charge.status).toBe('WAITING_PAYMENT');
    expect(charge.amountInCents).toBe(1550);
    expect(charge.destinationAddress).toBe(LQ);
    expect(charge.splitAddress).toBe(VJL);
    expect(charge.splitPercent).toBe(0.0299);
    expect(charge.qrCode.length).toBeGreaterThan(0);
    expect(charge.sandbox).toBe(true);

    const got = await lbrl.get(charge.id, { known: charge });
    expect(got).toMatchObject({ id: charge.id, status: 'WAITING_PAYMENT', settlement: null });

    const seen: Deposit[] = [];
    for await (const d of lbrl.watch(charge.id, { intervalMs: 1000 })) seen.push(d);
    const statuses = seen.map((d) => d.status);
    expect(statuses[0]).toBe('WAITING_PAYMENT');
    expect(statuses.at(-1)).toBe('FINALIZED');
    // each a change, in the order a deposit moves
    const order = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'];
    expect(statuses.map((s) => order.indexOf(s))).toEqual(
      [...new Set(statuses.map((s) => order.indexOf(s)))].sort((a, b) => a - b),
    );
    const last = seen.at(-1)!;
    expect(last.settlement?.liquidTxid).toMatch(/^[0-9a-f]{64}$/);
    expect(last.confirmedAt).not.toBeNull();
  });

  it('a FAILED deposit is yielded, and the iteration ends there without an error', async () => {
    const sandbox = await forTest(startTestSandbox());
    const lbrl = client({ baseUrl: sandbox.baseUrl, token: SANDBOX_TOKEN, clock: fakeClock(sandbox.clock) });
    const charge = await lbrl.create({ amountCents: 500, to: LQ });
    const statuses: string[] = [];
    for await (const d of lbrl.watch(charge.id)) {
      statuses.push(d.status);
      if (d.status === 'WAITING_PAYMENT') await sandbox.call('POST', `/v1/api/deposit/${charge.id}/fail`);
    }
    expect(statuses).toEqual(['WAITING_PAYMENT', 'FAILED']);
  });

  it('an AbortSignal stops the watch promptly, with the real clock: LbrlError interrupted (130)', async () => {
    const sandbox = await forTest(startTestSandbox());
    const lbrl = client({ baseUrl: sandbox.baseUrl, token: SANDBOX_TOKEN });
    const charge = await lbrl.create({ amount: '1', to: LQ });
    const controller = new AbortController();
    const statuses: string[] = [];
    let abortedAt = 0;
    const error = await failure(
      (async () => {
        for await (const d of lbrl.watch(charge.id, { signal: controller.signal, intervalMs: 3000 })) {
          statuses.push(d.status);
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort();
          }, 20);
        }
      })(),
    );
    const took = performance.now() - abortedAt;
    expect(statuses).toEqual(['WAITING_PAYMENT']);
    expect(error.type).toBe('interrupted');
    expect(error.exitCode).toBe(130);
    expect(took).toBeLessThan(500); // the next poll was 3 s away
  });

  it('watch timeoutMs ends with watch_timeout (124)', async () => {
    const sandbox = await forTest(startTestSandbox());
    const lbrl = client({ baseUrl: sandbox.baseUrl, token: SANDBOX_TOKEN, clock: fakeClock(sandbox.clock) });
    const charge = await lbrl.create({ amount: '1', to: LQ });
    const statuses: string[] = [];
    const error = await failure(
      (async () => {
        for await (const d of lbrl.watch(charge.id, { timeoutMs: 10_000 })) statuses.push(d.status);
      })(),
    );
    expect(statuses).toEqual(['WAITING_PAYMENT']);
    expect(error.type).toBe('watch_timeout');
    expect(error.exitCode).toBe(124);
  });
});

describe('a watch on a wall clock that jumps', () => {
  it.each([
    ['forward a day', 86_400_000],
    ['back a day', -86_400_000],
  ])(
    'stepped %s mid-watch: timeoutMs ends it after its own 10 s of clock.monotonic, not sooner or later',
    async (_how, step) => {
      const server = await forTest(startServer((_req, res) => json(res, 200, getAnswer({ id: ID }))));
      const time = { now: Date.parse('2026-11-22T10:00:00Z'), m: 0, sleeps: 0 };
      const lbrl = client({
        baseUrl: server.url,
        token: TOKEN,
        clock: {
          now: () => time.now,
          monotonic: () => time.m,
          sleep: async (ms: number) => {
            time.sleeps += 1;
            // a watch stretched by the step would go on for a day: stopped here, and the test fails
            if (time.sleeps > 100) throw new Error('slept too often');
            time.now += ms + (time.sleeps === 1 ? step : 0);
            time.m += ms;
            await new Promise((resolve) => setImmediate(resolve));
          },
          random: () => 0.5,
        },
      });
      const statuses: string[] = [];
      const error = await failure(
        (async () => {
          for await (const d of lbrl.watch(ID, { intervalMs: 1000, timeoutMs: 10_000 }))
            statuses.push(d.status);
        })(),
      );
      expect(error.type).toBe('watch_timeout');
      expect(error.message).toMatch(/^timed out after 10 s /);
      expect(statuses).toEqual(['WAITING_PAYMENT']);
      // its 10 s, by the clock that does not jump: no wait of a day
      expect(time.m).toBeGreaterThanOrEqual(10_000);
      expect(time.m).toBeLessThanOrEqual(11_000);
      // a look a second for its 10 s
      expect(server.requests.length).toBeGreaterThanOrEqual(10);
      expect(server.requests.length).toBeLessThanOrEqual(11);
    },
  );
});

describe('against a service that lies or fails', () => {
  it('a create answer with another amount throws mismatch (exit code 1), naming both values', async () => {
    const server = await forTest(
      startServer((req, res) =>
        json(res, 201, createAnswer({ ...JSON.parse(req.body), amountInCents: 150000 })),
      ),
    );
    const lbrl = client({ baseUrl: server.url, token: TOKEN });
    const error = await failure(lbrl.create({ amount: '15.00', to: LQ }));
    expect(error.type).toBe('mismatch');
    expect(error.exitCode).toBe(1);
    expect(EXIT_CODES[error.type]).toBe(1);
    expect(error.message).toContain('amountInCents');
    expect(error.message).toContain('1500');
    expect(error.message).toContain('150000');
    expect(error.message).toContain('Do not pay this charge');
    expect(server.requests).toHaveLength(1);
  });

  it('a create answer with another destination throws mismatch', async () => {
    const server = await forTest(
      startServer((req, res) => json(res, 201, createAnswer({ ...JSON.parse(req.body), lbrlAddress: VJL }))),
    );
    const error = await failure(
      client({ baseUrl: server.url, token: TOKEN }).create({ amount: '15', to: LQ }),
    );
    expect(error.type).toBe('mismatch');
    expect(error.message).toContain('destinationAddress');
  });

  it('a get answer about another deposit throws mismatch', async () => {
    const server = await forTest(startServer((_req, res) => json(res, 200, getAnswer())));
    const other = '11111111-2222-4333-8444-555555555555';
    const error = await failure(client({ baseUrl: server.url, token: TOKEN }).get(other));
    expect(error.type).toBe('mismatch');
    expect(error.message).toContain(ID);
  });

  it('an answer whose fields are not of the types the contract gives throws contract (exit code 1)', async () => {
    const server = await forTest(
      startServer((_req, res) => json(res, 200, { ...getAnswer(), amountInCents: 'fifteen' })),
    );
    const error = await failure(client({ baseUrl: server.url, token: TOKEN }).get(ID));
    expect(error.type).toBe('contract');
    expect(error.exitCode).toBe(1);
  });

  it('an answer whose values contradict each other throws mismatch (exit code 1)', async () => {
    const server = await forTest(startServer((_req, res) => json(res, 200, getAnswer({ amount: 1500.01 }))));
    const error = await failure(client({ baseUrl: server.url, token: TOKEN }).get(ID));
    expect(error.type).toBe('mismatch');
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain('amount');
  });

  it('every create carries an Idempotency-Key: fresh per call, the caller’s when given, the same on a retry', async () => {
    const server = await forTest(
      startServer((req, res, n) =>
        n === 3
          ? json(res, 429, { message: 'slow down' }, { 'retry-after': '1' })
          : // an honest service: a new deposit, a new id (the same one again for the same key)
            json(res, 201, {
              ...createAnswer(JSON.parse(req.body)),
              id: `00000000-0000-4000-8000-${String(Math.min(n, 3)).padStart(12, '0')}`,
            }),
      ),
    );
    const time = { now: Date.parse('2026-11-22T10:00:00Z') };
    const lbrl = client({ baseUrl: server.url, token: TOKEN, clock: fakeClock(time) });
    await lbrl.create({ amount: '15', to: LQ });
    await lbrl.create({ amount: '15', to: LQ });
    await lbrl.create({ amount: '15', to: LQ }, { idempotencyKey: 'order-1234' });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys.slice(2)).toEqual(['order-1234', 'order-1234']); // 429, then sent again with the same key
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('a create that may have reached the service is never sent again: service (1), the key named', async () => {
    const server = await forTest(startServer((_req, res) => json(res, 503, { message: 'down' })));
    const time = { now: 0 };
    const lbrl = client({ baseUrl: server.url, token: TOKEN, clock: fakeClock(time) });
    const error = await failure(lbrl.create({ amount: '15', to: LQ }, { idempotencyKey: 'order-77' }));
    expect(server.requests).toHaveLength(1);
    expect(error.type).toBe('service');
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain('a deposit may exist (Idempotency-Key order-77)');
  });

  it('the service’s refusals keep the command line’s types and exit codes; the token is never shown', async () => {
    const server = await forTest(
      startServer((req, res) =>
        req.method === 'POST'
          ? json(res, 401, { message: 'bad token' })
          : json(res, 404, { message: 'no such deposit' }),
      ),
    );
    const lbrl = client({ baseUrl: server.url, token: TOKEN });
    const auth = await failure(lbrl.create({ amount: '15', to: LQ }));
    expect([auth.type, auth.exitCode]).toEqual(['auth', 3]);
    const missing = await failure(lbrl.get(ID));
    expect([missing.type, missing.exitCode]).toEqual(['not_found', 4]);
    expect(`${auth.message}${missing.message}`).not.toContain(TOKEN);
  });

  it('an AbortSignal ends a GET the service never answers', async () => {
    const server = await forTest(startServer(() => new Promise<void>(() => {})));
    const lbrl = client({ baseUrl: server.url, token: TOKEN });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    const error = await failure(
      (async () => {
        for await (const _ of lbrl.watch(ID, { signal: controller.signal })) {
          // nothing arrives
        }
      })(),
    );
    expect(error.type).toBe('interrupted');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('leaving the loop stops the polling', async () => {
    const server = await forTest(startServer((_req, res) => json(res, 200, getAnswer())));
    const lbrl = client({ baseUrl: server.url, token: TOKEN, clock: fakeClock({ now: 0 }) });
    for await (const d of lbrl.watch(ID)) {
      expect(d.status).toBe('WAITING_PAYMENT');
      break;
    }
    const after = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(after).toBe(1);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a ref and a note: checked, never sent, returned on the deposit', () => {
  it('the request carries neither; the created deposit has both; an inherited ref is not taken', async () => {
    // each create a new id: a service that answers two creates with one id is refused (a reused id)
    const ids = [ID, '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'];
    let answered = 0;
    const server = await forTest(
      startServer((req, res) =>
        json(res, 200, { ...createAnswer(JSON.parse(req.body)), id: ids[answered++] }),
      ),
    );
    const lbrl = client({ baseUrl: server.url, token: TOKEN });
    const charge = await lbrl.create({ amount: '15,50', to: LQ, ref: ' pedido 7 ', note: 'mesa 2' });
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([
      { amountInCents: 1550, lbrlAddress: LQ },
    ]);
    expect([charge.ref, charge.note, charge.id]).toEqual(['pedido 7', 'mesa 2', ID]);
    const inherited = Object.assign(Object.create({ ref: 'not mine' }), { amount: '1', to: LQ });
    const plain = await lbrl.create(inherited);
    expect(Object.hasOwn(plain, 'ref')).toBe(false);
  });
});

describe('values refused before any request: usage (exit code 2)', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'thousands separator',
      { amount: '1.500,00', to: LQ },
      /invalid amount "1\.500,00": expected an amount in reais/,
    ],
    ['three decimals', { amount: '15.555', to: LQ }, /invalid amount "15\.555"/],
    ['a number of reais (a float)', { amount: 15.5, to: LQ }, /amount must be a string of reais/],
    ['fractional cents', { amountCents: 15.5, to: LQ }, /invalid amountCents "15\.5"/],
    ['too much', { amountCents: 600001, to: LQ }, /invalid amountCents "600001"/],
    ['both amounts', { amount: '15', amountCents: 1500, to: LQ }, /either amount \(reais\) or amountCents/],
    ['no amount', { to: LQ }, /missing amount/],
    ['no destination', { amount: '15' }, /missing to/],
    [
      'an address of another network',
      { amount: '15', to: TEX },
      /invalid to "tex1.*a Liquid address on liquid/,
    ],
    ['a split fee without an address', { amount: '15', to: LQ, splitFee: '2%' }, /splitFee needs splitTo/],
    ['a split fee of 0', { amount: '15', to: LQ, splitTo: VJL, splitFee: '0' }, /invalid splitFee "0"/],
    ['a number as the destination', { amount: '15', to: 123 }, /to must be a string .*not a number/],
    ['an array as the destination', { amount: '15', to: [LQ] }, /to must be a string .*not an array/],
    [
      'cents as a string',
      { amountCents: '1550', to: LQ },
      /amountCents must be a whole number of cents, not a string/,
    ],
    [
      'a number as the split address',
      { amount: '15', to: LQ, splitTo: 5, splitFee: '2%' },
      /splitTo must be a string/,
    ],
    ['not an object', [LQ], /create needs \{ amount or amountCents, to \}/],
    [
      'a ref with a control character',
      { amount: '15', to: LQ, ref: 'a\u001b[2Jb' },
      /invalid ref "a\\u001b\[2Jb"/,
    ],
    ['a ref of 101 characters', { amount: '15', to: LQ, ref: 'x'.repeat(101) }, /expected text of 1 to 100/],
    ['a note with a line break', { amount: '15', to: LQ, note: 'a\nb' }, /invalid note "a\\nb"/],
    ['a ref that is not text', { amount: '15', to: LQ, ref: 1042 }, /ref must be a string, not a number/],
  ];
  it.each(cases)('%s', async (_name, input, message) => {
    const server = await forTest(startServer((_req, res) => json(res, 500, {})));
    const lbrl = client({ baseUrl: server.url, token: TOKEN });
    const error = await failure(lbrl.create(input as never));
    expect(error.type).toBe('usage');
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('bad settings and ids are refused when given', async () => {
    const settings = (o: Record<string, unknown>) => () =>
      createClient({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, ...o } as never);
    expect(settings({ baseUrl: 'http://example.com' })).toThrow(/invalid baseUrl "http:\/\/example\.com"/);
    expect(settings({ token: 'has space' })).toThrow(/invalid token/);
    expect(settings({ network: 'bitcoin' })).toThrow(/invalid network "bitcoin"/);
    const lbrl = client({ baseUrl: 'http://127.0.0.1:1', token: TOKEN });
    const error = await failure(lbrl.get('42'));
    expect([error.type, error.exitCode]).toEqual(['usage', 2]);
    expect(error.message).toContain('invalid deposit id "42"');
  });
});

describe('the token rules of the command line', () => {
  it.each([
    ['too short to be kept out of messages', 'short', /it is 5 character\(s\); lbrl needs at least 16/],
    ['with a space', 'tok en_abcdefghijklmnop', /printable characters with no spaces/],
    ['not a string', 1234567890123456, /token must be a string, not a number/],
  ])('a token %s is refused (usage) before anything is sent', async (_name, token, message) => {
    const server = await forTest(startServer((_req, res) => json(res, 200, getAnswer())));
    let error: unknown;
    try {
      client({ baseUrl: server.url, token: token as string });
    } catch (e) {
      error = e;
    }
    expect(isLbrlError(error)).toBe(true);
    expect((error as LbrlError).type).toBe('usage');
    expect((error as LbrlError).message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });
});

describe('no error of the library carries the token', () => {
  const b64 = Buffer.from(TOKEN).toString('base64');
  /** Every way a program prints an error. */
  const printed = (e: LbrlError) =>
    [e.message, e.stack ?? '', String(e), inspect(e), inspect(e, { depth: 9 })].join('\n');
  const forms = [TOKEN, b64, Buffer.from(TOKEN).toString('base64url'), encodeURIComponent(TOKEN)];

  it.each([
    [
      'a redirect whose Location holds the token',
      { status: 302, headers: { location: `https://evil.example/?t=${TOKEN}` } },
    ],
    [
      'a redirect whose Location holds it in base64',
      { status: 301, headers: { location: `https://evil.example/${b64}` } },
    ],
    [
      'a 200 whose Content-Type holds the token',
      { status: 200, headers: { 'content-type': `text/plain; t=${TOKEN}` } },
    ],
    [
      'a 200 whose Content-Type holds it URL-encoded',
      { status: 200, headers: { 'content-type': `text/x-${encodeURIComponent(TOKEN)}` } },
    ],
  ])('%s: get and create', async (_name, answer) => {
    const server = await forTest(
      startServer((_req, res) => {
        res.writeHead(answer.status, answer.headers);
        res.end('{}');
      }),
    );
    const lbrl = client({ baseUrl: server.url, token: TOKEN, maxRetries: 0 });
    for (const call of [() => lbrl.get(ID), () => lbrl.create({ amount: '15', to: LQ })]) {
      const error = await failure(call());
      const text = printed(error);
      for (const form of forms) expect(text).not.toContain(form);
      expect(text).toContain('[redacted]');
    }
  });
});

describe('options of the wrong type', () => {
  it('a signal that is no AbortSignal, or options that are no object, are usage errors, nothing sent', async () => {
    const server = await forTest(startServer((_req, res) => json(res, 200, getAnswer())));
    const lbrl = client({ baseUrl: server.url, token: TOKEN });
    for (const call of [
      () => lbrl.get(ID, { signal: 'stop' as never }),
      () => lbrl.create({ amount: '15', to: LQ }, 5 as never),
      async () => {
        for await (const _ of lbrl.watch(ID, { signal: {} as never })) break;
      },
    ]) {
      const error = await failure(call());
      expect(error.type).toBe('usage');
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('what one call saw binds the next, in a program that keeps no history', () => {
  const TX_A = 'a1'.repeat(32);
  const finalized = (txid: string) =>
    getAnswer({
      status: 'FINALIZED',
      settlement: { liquidTxid: txid, status: 'FINALIZED' },
      confirmedAt: '2026-11-22T10:05:00.000Z',
    });

  it('a settlement seen by get is kept: a later get naming another transaction is refused (exit 1)', async () => {
    const server = await forTest(
      startServer((_req, res, n) => json(res, 200, finalized(n === 1 ? TX_A : 'b2'.repeat(32)))),
    );
    const lbrl = client({
      baseUrl: server.url,
      token: TOKEN,
      clock: fakeClock({ now: Date.parse('2026-11-22T11:00:00Z') }),
    });
    await expect(lbrl.get(ID)).resolves.toMatchObject({ settlement: { liquidTxid: TX_A } });
    const error = await failure(lbrl.get(ID));
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(`settlement.liquidTxid: expected ${TX_A}, as lbrl recorded it`);
  });

  it('two creates answered with one id: the second is refused, never adopted; the same key again is the same deposit', async () => {
    const server = await forTest(
      startServer((req, res) => json(res, 201, createAnswer(JSON.parse(req.body)))),
    );
    const lbrl = client({
      baseUrl: server.url,
      token: TOKEN,
      clock: fakeClock({ now: Date.parse('2026-11-22T10:00:00Z') }),
    });
    await lbrl.create({ amount: '15', to: LQ }, { idempotencyKey: 'order-1' });
    await expect(lbrl.create({ amount: '15', to: LQ }, { idempotencyKey: 'order-1' })).resolves.toMatchObject(
      { id: ID },
    );
    const error = await failure(lbrl.create({ amount: '20', to: LQ }, { idempotencyKey: 'order-2' }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(
      `the id of deposit ${ID}, already answered to another request in this run`,
    );
  });
});
