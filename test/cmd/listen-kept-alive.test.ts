/**
 * `lbrl listen` delivering on a kept-alive connection the receiver closes (its idle time-out) just
 * as the next event is written on it: a real receiver on a socket that answers each delivery and
 * keeps the connection, except that a chosen request is met by closing it without a byte of answer
 * (a FIN, or a reset). Such a delivery is sent again at once on a new connection, once, saying
 * nothing (a delivery is idempotent by its webhook-id); a failure that is not that case (an answer
 * begun, a fresh connection refused twice) goes through the back-off and is said.
 */
import type net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { httpAnswer, startFaulty } from '../helpers/faulty.js';
import { listenWorld, signedProblem } from '../helpers/listen.js';

const STORY = [
  'deposit.created',
  'deposit.pix_confirmed',
  'deposit.settlement_created',
  'deposit.tx_sent',
  'deposit.finalized',
];

type Closing = 'fin' | 'reset' | 'half an answer';

const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

interface Seen {
  id: string;
  type: string;
  deposit: string;
  answered: boolean;
}

/**
 * A receiver that keeps connections alive and takes each delivery (200), except the requests
 * `closes(connection, request on it)` names: those it meets by closing the connection as `closing`
 * says. Every delivery is checked with the standardwebhooks package.
 */
async function closingReceiver(
  secret: string,
  clockNow: () => number,
  closing: Closing,
  closes: (connection: number, request: number) => boolean,
) {
  const wh = new Webhook(secret);
  const seen: Seen[] = [];
  const problems: string[] = [];
  const carried = new WeakMap<net.Socket, { connection: number; requests: number }>();
  const server = await startFaulty(
    (socket, request) => {
      const on = carried.get(socket)!;
      on.requests += 1;
      const [head = '', body = ''] = request.split('\r\n\r\n');
      const headers = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
      ) as Record<string, string>;
      const event = JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) as {
        type: string;
        data: { deposit: { id: string } };
      };
      const closed = closes(on.connection, on.requests);
      seen.push({
        id: headers['webhook-id']!,
        type: event.type,
        deposit: event.data.deposit.id,
        answered: !closed,
      });
      const problem = signedProblem(wh, Buffer.from(body, 'latin1').toString('utf8'), headers, clockNow());
      if (problem) problems.push(problem);
      if (!closed) return void socket.write(httpAnswer(200, 'ok', { 'content-type': 'text/plain' }));
      if (closing === 'fin') socket.end();
      else if (closing === 'reset') socket.resetAndDestroy();
      else socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 50\r\n\r\nok');
    },
    (socket, connection) => {
      carried.set(socket, { connection, requests: 0 });
      return true;
    },
  );
  closers.push(server);
  const taken = (deposit: string) =>
    seen.filter((s) => s.answered && s.deposit === deposit).map((s) => s.type);
  return { url: `${server.url}/hooks`, server, seen, problems, taken };
}

describe('listen: a delivery on a kept-alive connection the receiver has just closed', () => {
  it.each(['fin', 'reset'] as const)(
    '(%s) is sent again at once on a new connection: no retry line, no back-off, each event taken once',
    async (closing) => {
      const w = listenWorld();
      const secret = await w.secret();
      // the first connection's second delivery finds it closed
      const rx = await closingReceiver(
        secret,
        () => w.clock.now,
        closing,
        (c, n) => c === 1 && n === 2,
      );
      const id = await w.trigger('paid');
      const r = await w.listen(['--forward-to', rx.url], () => rx.taken(id).includes('deposit.finalized'));
      expect(r.code, r.stderr).toBe(130);
      expect(rx.taken(id)).toEqual(STORY);
      expect(rx.problems).toEqual([]);
      // one request was closed, and the same event was sent again and taken; no other twice
      const closed = rx.seen.filter((s) => !s.answered);
      expect(closed).toHaveLength(1);
      expect(rx.seen.filter((s) => s.id === closed[0]!.id).map((s) => s.answered)).toEqual([false, true]);
      expect(new Set(rx.seen.map((s) => s.id)).size).toBe(STORY.length);
      expect(r.stderr).not.toContain('retrying in');
      expect(r.stderr).not.toMatch(/ERR /);
      const lines = r.stderr.split('\n').filter((l) => l.includes(' --> '));
      expect(lines).toHaveLength(STORY.length);
      expect(lines.every((l) => / --> 200 \(\d+ ms\) {2}\[evt_/.test(l))).toBe(true);
    },
  );

  it('an answer that had begun is no such case: the retry schedule, said as one', async () => {
    const w = listenWorld();
    const secret = await w.secret();
    const rx = await closingReceiver(
      secret,
      () => w.clock.now,
      'half an answer',
      (c, n) => c === 1 && n === 2,
    );
    const id = await w.trigger('paid');
    const r = await w.listen(['--forward-to', rx.url], () => rx.taken(id).includes('deposit.finalized'));
    expect(rx.taken(id)).toEqual(STORY);
    const cut = rx.seen.find((s) => !s.answered)!;
    expect(r.stderr).toMatch(
      new RegExp(`${cut.type}  ${id}  --> ERR [^;]+; retrying in \\d+ (ms|s)  \\[${cut.id}\\]`),
    );
    expect(rx.seen.filter((s) => s.id === cut.id).map((s) => s.answered)).toEqual([false, true]);
  });

  it.each(['fin', 'reset'] as const)(
    '(%s) closed again on the new connection too: sent again only once, then the back-off, said',
    async (closing) => {
      const w = listenWorld();
      const secret = await w.secret();
      // the first connection's second delivery, and the first on the second connection
      const rx = await closingReceiver(
        secret,
        () => w.clock.now,
        closing,
        (c, n) => (c === 1 && n === 2) || (c === 2 && n === 1),
      );
      const id = await w.trigger('paid');
      const r = await w.listen(['--forward-to', rx.url], () => rx.taken(id).includes('deposit.finalized'));
      expect(rx.taken(id)).toEqual(STORY);
      const cut = rx.seen.find((s) => !s.answered)!;
      expect(r.stderr).toMatch(
        new RegExp(
          `${cut.type}  ${id}  --> ERR connection reset \\(\\d+ ms\\); retrying in \\d+ (ms|s)  \\[${cut.id}\\]`,
        ),
      );
      expect(r.stderr.match(/retrying in/g)).toHaveLength(1);
      // two attempts before the back-off (the second at once), then one after it
      expect(rx.seen.filter((s) => s.id === cut.id).map((s) => s.answered)).toEqual([false, false, true]);
    },
  );
});
