/**
 * A kept-alive connection that the service closes (its idle time-out) just as lbrl writes the next
 * request on it: a real local server that, on the second request a connection carries, closes it
 * without a byte of answer (a FIN, or a reset). A GET is sent again at once on a new connection,
 * silently, as browsers and undici-based clients do; a create is never sent again, since its bytes
 * were written. An answer that had begun is not such a case: it goes through the usual retries.
 */
import type net from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createClient, type LbrlError } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { httpAnswer, startFaulty } from '../helpers/faulty.js';
import { getAnswer, ID, LQ, TOKEN } from '../helpers/fixtures.js';
import { forTest } from '../helpers/server.js';

type Closing = 'fin' | 'reset' | 'half an answer';

/**
 * A server that keeps connections alive and answers the requests in turn with `answers`, except
 * that the second request on the first connection is met by closing it as `closing` says.
 */
async function keptAliveServer(answers: (n: number, request: string) => string, closing: Closing) {
  // each connection's number, and the requests it has carried
  const carried = new WeakMap<net.Socket, { connection: number; requests: number }>();
  let answered = 0;
  const server = startFaulty(
    (socket, request) => {
      const on = carried.get(socket)!;
      on.requests += 1;
      if (on.connection === 1 && on.requests === 2) {
        if (closing === 'fin') socket.end();
        else if (closing === 'reset') socket.resetAndDestroy();
        else
          socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"id"');
        return;
      }
      answered += 1;
      socket.write(answers(answered, request));
    },
    (socket, connection) => {
      carried.set(socket, { connection, requests: 0 });
      return true;
    },
  );
  return forTest(server);
}

const waiting = JSON.stringify(getAnswer({ status: 'WAITING_PAYMENT' }));
const finalized = JSON.stringify(
  getAnswer({
    status: 'FINALIZED',
    settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
    confirmedAt: '2026-11-22T10:00:05Z',
  }),
);

describe('a GET on a kept-alive connection the service has just closed', () => {
  it.each(['fin', 'reset'] as const)(
    'watch (%s): sent again at once on a new connection, no retry note, no back-off',
    async (closing) => {
      const s = await keptAliveServer((n) => httpAnswer(200, n === 1 ? waiting : finalized), closing);
      const r = await runCli(['deposit', 'watch', ID, '--interval', '1'], {
        env: liveEnv(s.url),
        clock: { now: Date.parse('2026-11-22T10:00:00Z') },
      });
      expect(r.stderr).not.toContain('retrying');
      expect(r.stderr).not.toContain('UND_ERR_SOCKET');
      expect(r.stderr).not.toContain('ECONNRESET');
      expect(r.stdout).toContain('FINALIZED');
      expect(r.code).toBe(0);
      // the poll's interval, and no back-off
      expect(r.sleeps).toEqual([1000]);
      expect(s.requests).toHaveLength(3);
      expect(s.connections).toBe(2);
    },
  );

  it('--verbose says what happened, in the trace only', async () => {
    const s = await keptAliveServer((n) => httpAnswer(200, n === 1 ? waiting : finalized), 'fin');
    const r = await runCli(['deposit', 'watch', ID, '--interval', '1', '--verbose'], {
      env: liveEnv(s.url),
      clock: { now: Date.parse('2026-11-22T10:00:00Z') },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      '* the service had closed the kept-alive connection; sent again at once on a new one',
    );
    expect(r.stderr).not.toContain('retrying in');
  });

  it('an answer that had begun is no such case: the usual retry, said as one', async () => {
    const s = await keptAliveServer((n) => httpAnswer(200, n === 1 ? waiting : finalized), 'half an answer');
    const r = await runCli(['deposit', 'watch', ID, '--interval', '1', '--verbose'], {
      env: liveEnv(s.url),
      clock: { now: Date.parse('2026-11-22T10:00:00Z') },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('sent again at once');
    expect(r.stderr).toMatch(/retrying in \d+ m?s/);
  });
});

describe('the library, a GET on a kept-alive connection the service has just closed', () => {
  it.each(['fin', 'reset'] as const)('get (%s) answers, and sleeps no back-off', async (closing) => {
    const s = await keptAliveServer((n) => httpAnswer(200, n === 1 ? waiting : finalized), closing);
    const sleeps: number[] = [];
    const lbrl = createClient({
      baseUrl: s.url,
      token: TOKEN,
      clock: { now: () => 0, sleep: async (ms: number) => void sleeps.push(ms) },
    });
    onTestFinished(() => lbrl.close());
    expect((await lbrl.get(ID)).status).toBe('WAITING_PAYMENT');
    // a moment later (undici lends a connection again once it has seen it idle)
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await lbrl.get(ID)).status).toBe('FINALIZED');
    expect(sleeps).toEqual([]);
    expect(s.requests).toHaveLength(3);
  });
});

describe('a create on a kept-alive connection the service has just closed', () => {
  it.each(['fin', 'reset'] as const)(
    'the library (%s): not sent again, it says a deposit may exist',
    async (closing) => {
      const s = await keptAliveServer(() => httpAnswer(200, waiting), closing);
      const lbrl = createClient({
        baseUrl: s.url,
        token: TOKEN,
        clock: { now: () => 0, sleep: async () => {} },
      });
      onTestFinished(() => lbrl.close());
      await lbrl.get(ID);
      const error = await lbrl.create({ amount: '1', to: LQ }).then(
        () => undefined,
        (e: unknown) => e as LbrlError,
      );
      expect(error?.message).toContain('a deposit may exist (Idempotency-Key ');
      expect(s.requests.filter((q) => q.startsWith('POST'))).toHaveLength(1);
      expect(s.requests).toHaveLength(2);
    },
  );
});
