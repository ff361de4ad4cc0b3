/**
 * Fault injection: a service that fails in every way we know of, each case asserting the
 * exit code, the one-line message and how many requests were made.
 */
import type net from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { type FaultyServer, httpAnswer, startFaulty, startSelfSigned } from '../helpers/faulty.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { forTest, freePort, json, startServer, type TestServer } from '../helpers/server.js';

const faulty = (...args: Parameters<typeof startFaulty>): Promise<FaultyServer> =>
  forTest(startFaulty(...args));

const envFor = (url: string) => liveEnv(url);
const GET = ['deposit', 'get', ID];
const CREATE = ['deposit', 'create', '--amount', '1500', '--to', LQ];
const fast = { timeoutMs: 300, connectTimeoutMs: 300 };

/** The error line: one line, no stack. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines.find((l) => l.startsWith('error:'))!;
}

const good = JSON.stringify(getAnswer());

/** A server that resets every connection as soon as it is made, before any request is read. */
function resetOnConnect() {
  return faulty(
    () => {},
    (socket) => {
      socket.resetAndDestroy();
      return false;
    },
  );
}

describe('faults on a GET (safe to repeat: retried)', () => {
  it('connection refused: exit 6 after retrying', async () => {
    const port = await freePort();
    const r = await runCli(GET, { env: envFor(`http://127.0.0.1:${port}`) });
    expect(r.code).toBe(6);
    expect(oneLine(r.stderr)).toBe(
      `error: could not reach the service at http://127.0.0.1:${port}: nothing is listening at 127.0.0.1:${port} (connection refused): is the service running, and is the port right?`,
    );
    expect(r.sleeps).toHaveLength(3);
  });

  it('reset on connect, before the request: retried, then exit 6', async () => {
    const s = await resetOnConnect();
    const r = await runCli(GET, { env: envFor(s.url), client: fast });
    expect(r.code).toBe(6);
    expect(oneLine(r.stderr)).toMatch(
      /could not reach the service at .*: the connection to 127\.0\.0\.1:\d+ was reset \(ECONNRESET\)/,
    );
    expect(s.connections).toBe(4);
  });

  it('reset after the request was sent: retried, recovers', async () => {
    const s = await faulty((socket, _req, n) =>
      n === 1 ? socket.resetAndDestroy() : socket.end(httpAnswer(200, good)),
    );
    const r = await runCli([...GET, '--json'], { env: envFor(s.url), client: fast });
    expect(r.code).toBe(0);
    expect(s.requests).toHaveLength(2);
  });

  it('a hung answer times out: exit 6', async () => {
    const s = await faulty(() => {});
    const r = await runCli(GET, { env: envFor(s.url), client: { ...fast, maxRetries: 1 } });
    expect(r.code).toBe(6);
    expect(oneLine(r.stderr)).toContain('no answer within');
    expect(s.requests).toHaveLength(2);
  });

  it('a body that trickles in is cut by the total time-out, not waited on byte by byte', async () => {
    const s = await faulty((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n');
      const timer = setInterval(() => (socket.writable ? socket.write(' ') : clearInterval(timer)), 20);
      socket.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const r = await runCli(GET, { env: envFor(s.url), client: { ...fast, maxRetries: 0 } });
    expect(r.code).toBe(6);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.requests).toHaveLength(1);
  });

  it.each([500, 502, 503, 504])('%i: retried three times, then exit 1', async (status) => {
    const s = await faulty((socket) => socket.end(httpAnswer(status, '{"message":"down"}')));
    const r = await runCli(GET, { env: envFor(s.url) });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(`error: the service answered ${status}: down`);
    expect(s.requests).toHaveLength(4);
  });

  it('429 without Retry-After backs off; with it, waits as asked', async () => {
    const a = await faulty((socket, _r, n) =>
      socket.end(n < 3 ? httpAnswer(429, '{}') : httpAnswer(200, good)),
    );
    const r = await runCli(GET, { env: envFor(a.url) });
    expect(r.code).toBe(0);
    expect(r.sleeps).toEqual([375, 750]);
    const b = await faulty((socket, _r, n) =>
      socket.end(n < 2 ? httpAnswer(429, '{}', { 'retry-after': '9' }) : httpAnswer(200, good)),
    );
    const r2 = await runCli(GET, { env: envFor(b.url) });
    expect(r2.sleeps).toEqual([9000]);
  });

  it('429 that never ends: exit 1 after the retries', async () => {
    const s = await faulty((socket) => socket.end(httpAnswer(429, '{"message":"quota"}')));
    const r = await runCli(GET, { env: envFor(s.url) });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe('error: the service is rate limiting requests (429): quota');
    expect(s.requests).toHaveLength(4);
  });

  it.each([
    [
      'truncated',
      (socket: net.Socket) =>
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"id":'),
      6,
      'connection failed',
    ],
    [
      'invalid JSON',
      (socket: net.Socket) => socket.end(httpAnswer(200, '{"id":')),
      1,
      "the service's answer is not valid JSON",
    ],
    [
      'not JSON at all',
      (socket: net.Socket) => socket.end(httpAnswer(200, 'OK', { 'content-type': 'application/json' })),
      1,
      'not valid JSON',
    ],
    [
      'a wrong content type',
      (socket: net.Socket) => socket.end(httpAnswer(200, good, { 'content-type': 'text/html' })),
      1,
      'with content-type "text/html", not JSON',
    ],
    [
      'a huge answer',
      (socket: net.Socket) => socket.end(httpAnswer(200, `{"x":"${'a'.repeat(1_200_000)}"}`)),
      1,
      'larger than 1048576 bytes; refused',
    ],
  ])('%s', async (_name, behave, code, message) => {
    const s = await faulty(behave);
    const r = await runCli(GET, { env: envFor(s.url), client: fast });
    expect(r.code).toBe(code);
    expect(oneLine(r.stderr)).toContain(message);
  });
});

describe('faults on a create (never repeated once it may have reached the service)', () => {
  it.each([
    ['a reset after sending', (socket: net.Socket) => socket.resetAndDestroy(), 6, 'was reset (ECONNRESET)'],
    ['a hung answer', () => {}, 6, 'no answer within 0 s'],
    [
      '500',
      (socket: net.Socket) => socket.end(httpAnswer(500, '{"message":"boom"}')),
      1,
      'the service answered 500: boom',
    ],
    ['503', (socket: net.Socket) => socket.end(httpAnswer(503, '{}')), 1, 'the service answered 503: {}'],
  ])('%s: one request, says a deposit may exist', async (_name, behave, code, what) => {
    const s = await faulty(behave);
    const r = await runCli(CREATE, { env: envFor(s.url), client: fast });
    expect(r.code).toBe(code);
    expect(s.requests).toHaveLength(1);
    const line = oneLine(r.stderr);
    expect(line).toContain(
      `${what}. The create request may have reached the service, so it was not sent again: a deposit may exist`,
    );
    expect(line).toMatch(/a deposit may exist \(Idempotency-Key [0-9a-f-]{36}\)/);
    expect(r.stdout).toBe('');
  });

  it('an accepted create answered as HTML: exit 1, and it says a deposit may exist', async () => {
    const s = await faulty((socket) =>
      socket.end(httpAnswer(201, '<html>ok</html>', { 'content-type': 'text/html' })),
    );
    const r = await runCli(CREATE, { env: envFor(s.url), client: fast });
    expect(r.code).toBe(1);
    expect(s.requests).toHaveLength(1);
    expect(oneLine(r.stderr)).toMatch(
      /content-type "text\/html", not JSON.*a deposit may exist \(Idempotency-Key [0-9a-f-]{36}\)/,
    );
  });

  it('a reset right after connecting is not repeated either: the request may be on its way', async () => {
    const s = await resetOnConnect();
    const r = await runCli(CREATE, { env: envFor(s.url), client: fast });
    expect(r.code).toBe(6);
    expect(s.connections).toBe(1);
    expect(oneLine(r.stderr)).toContain('a deposit may exist');
  });

  it('a refused connection carried nothing: the create is retried with the same Idempotency-Key', async () => {
    const port = await freePort();
    const seen: string[] = [];
    let _server: TestServer | undefined;
    const r = await runCli(CREATE, {
      env: envFor(`http://127.0.0.1:${port}`),
      client: fast,
      // the service comes up while the client waits to retry
      onSleep: async () => {
        _server ??= await forTest(
          startServer((req, res) => {
            seen.push(String(req.headers['idempotency-key']));
            json(res, 201, createAnswer(JSON.parse(req.body)));
          }, port),
        );
      },
    });
    expect(r.code).toBe(0);
    expect(r.sleeps).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });
});

describe('redirects and TLS', () => {
  it.each([301, 302, 307, 308])('%i is never followed, and the token goes nowhere else', async (status) => {
    const elsewhere = await faulty((socket) => socket.end(httpAnswer(200, good)));
    const s = await faulty((socket) =>
      socket.end(httpAnswer(status, '', { location: `${elsewhere.url}/v1/api/deposit/${ID}` })),
    );
    const r = await runCli(GET, { env: envFor(s.url) });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toContain(`answered ${status} redirecting to ${elsewhere.url}`);
    expect(elsewhere.connections).toBe(0);
    expect(s.requests).toHaveLength(1);
  });

  it('a self-signed certificate is a clear error (exit 6), nothing sent', async () => {
    const tls = await startSelfSigned(getAnswer());
    onTestFinished(() => tls.close());
    const r = await runCli(GET, { env: envFor(tls.url) });
    expect(r.code).toBe(6);
    expect(oneLine(r.stderr)).toMatch(
      /the TLS certificate of 127\.0\.0\.1:\d+ could not be verified \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    );
    expect(tls.hits).toBe(0);
    expect(r.sleeps).toEqual([]);
  });

  it('--insecure-skip-tls-verify is the only way around it, and says so', async () => {
    const tls = await startSelfSigned(getAnswer());
    onTestFinished(() => tls.close());
    const r = await runCli([...GET, '--json', '--insecure-skip-tls-verify'], { env: envFor(tls.url) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: TLS certificate checks are OFF');
    expect(tls.hits).toBe(1);
  });
});

describe('Ctrl-C', () => {
  it('during a create on its way: exit 130, and it says a deposit may exist', async () => {
    const controller = new AbortController();
    const s = await faulty(() => controller.abort());
    const r = await runCli(CREATE, { env: envFor(s.url), signal: controller.signal });
    expect(r.code).toBe(130);
    expect(oneLine(r.stderr)).toMatch(
      /^error: interrupted\. The create request may have reached the service: a deposit may exist \(Idempotency-Key [0-9a-f-]{36}\)$/,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('during a get: exit 130, nothing more to say', async () => {
    const controller = new AbortController();
    const s = await faulty(() => controller.abort());
    const r = await runCli(GET, { env: envFor(s.url), signal: controller.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('\n');
  });
});
