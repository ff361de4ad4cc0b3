/**
 * An answer too large to read, or in a content coding lbrl did not ask for, on a real socket (the
 * wire is what matters): the service's client, the explorer's and a webhook receiver's. A body that
 * says its length is judged by its Content-Length before a byte of it is read; a body without one
 * is read up to the limit and no further; either way the connection is closed at once. A
 * compressed body is never inflated: lbrl asks for `identity`, so an answer in gzip, br or deflate
 * breaks the contract (a 2xx one is refused; an error keeps its status).
 */
import type net from 'node:net';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { webhookPoster } from '../../src/api/webhook-post.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { esploraClient } from '../helpers/esplora-client.js';
import { failure } from '../helpers/failure.js';
import { type FaultyServer, httpAnswer, startFaulty } from '../helpers/faulty.js';
import { getAnswer, ID } from '../helpers/fixtures.js';
import { forTest } from '../helpers/server.js';

const GET = ['deposit', 'get', ID];
/** a time-out far longer than a refusal takes: an answer read on past its headers fails by it */
const client = { timeoutMs: 3000, connectTimeoutMs: 3000, maxRetries: 0 };
const SIXTY_MB = 60 * 1024 * 1024;

/** A server whose sockets report when they close, so a test can see lbrl hang up. */
async function serverThat(
  behave: (socket: net.Socket) => void,
): Promise<FaultyServer & { closed: Promise<void> }> {
  let closedNow: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    closedNow = resolve;
  });
  const server = await forTest(
    startFaulty((socket) => {
      socket.on('close', closedNow);
      behave(socket);
    }),
  );
  return Object.assign(server, { closed });
}

/** Headers saying `length` bytes are coming, then a few of them, then nothing: the rest never comes. */
function declaresThenHolds(length: number, headers = ''): (socket: net.Socket) => void {
  return (socket) =>
    socket.write(
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${headers}\r\n{"pad":"`,
    );
}

/** A chunked body of `size` bytes in one chunk, then nothing: no end. */
function chunkedThenHolds(size: number): (socket: net.Socket) => void {
  return (socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    socket.write(`${size.toString(16)}\r\n${'a'.repeat(size)}\r\n`);
  };
}

function errorLines(stderr: string): string[] {
  expect(stderr).not.toMatch(/\n\s+at /);
  return stderr.split('\n').filter((line) => line.startsWith('error:'));
}

const TOO_LARGE = "error: the service's answer is larger than 1048576 bytes; refused";

describe('an answer larger than the limit, from the service', () => {
  it.each([
    ['a Content-Length of 60 MB, the body never sent', declaresThenHolds(SIXTY_MB)],
    ['a Content-Length one byte over the limit', declaresThenHolds(1024 * 1024 + 1)],
    ['a Content-Length of 2^64', declaresThenHolds(Number.MAX_SAFE_INTEGER)],
    ['a chunked body past the limit that never ends', chunkedThenHolds(1024 * 1024 + 10)],
  ])('%s: refused at once, exit 1, the connection closed', async (_name, behave) => {
    const server = await serverThat(behave);
    const started = Date.now();
    const r = await runCli(GET, { env: liveEnv(server.url), client });
    expect(errorLines(r.stderr)).toEqual([`${TOO_LARGE}. Do not pay this charge or trust its status`]);
    expect(r.code).toBe(1);
    // refused on what it said, not on the time-out (3 s)
    expect(Date.now() - started).toBeLessThan(2000);
    await server.closed;
    expect(server.requests).toHaveLength(1);
  });
});

/** 2 MB of spaces in 2 KB: past the limits below once inflated */
const gzipBomb = () => zlib.gzipSync(Buffer.alloc(2 * 1024 * 1024, 0x20));
const good = () => Buffer.from(JSON.stringify(getAnswer()));

describe('an answer in a content coding lbrl did not ask for', () => {
  it('every request asks for the body as it is', async () => {
    const server = await serverThat((socket) => socket.end(httpAnswer(200, JSON.stringify(getAnswer()))));
    const r = await runCli(GET, { env: liveEnv(server.url), client });
    expect(r.code).toBe(0);
    expect(server.requests[0]).toMatch(/\r\naccept-encoding: identity\r\n/i);
  });

  it.each([
    ['gzip', 'a gzip bomb (2 MB of spaces)', gzipBomb],
    ['gzip', 'a deposit, gzipped', () => zlib.gzipSync(good())],
    ['br', 'a deposit, in brotli', () => zlib.brotliCompressSync(good())],
    ['deflate', 'a deposit, deflated', () => zlib.deflateSync(good())],
    ['identity, GZIP', 'a list of codings', () => zlib.gzipSync(good())],
    ['x-unknown', 'a coding nobody knows', good],
  ])('content-encoding %s (%s): refused, never inflated, exit 1', async (coding, _name, bodyOf) => {
    const body = bodyOf();
    const server = await serverThat((socket) => {
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: ${coding}\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      socket.end(body);
    });
    const r = await runCli(GET, { env: liveEnv(server.url), client });
    expect(errorLines(r.stderr)).toEqual([
      `error: the service's answer is encoded (content-encoding "${coding.replace('identity, ', '')}"), though lbrl asked for it as it is (accept-encoding identity); refused. Do not pay this charge or trust its status`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('content-encoding identity is the body as it is: read', async () => {
    const server = await serverThat((socket) =>
      socket.end(httpAnswer(200, JSON.stringify(getAnswer()), { 'content-encoding': 'identity' })),
    );
    const r = await runCli([...GET, '--json'], { env: liveEnv(server.url), client });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(getAnswer());
  });

  it('a 401 with a gzipped body still says the token was refused (exit 3), no bytes of it shown', async () => {
    const body = zlib.gzipSync(Buffer.from('{"message":"token expired"}'));
    const server = await serverThat((socket) => {
      socket.write(
        `HTTP/1.1 401 X\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      socket.end(body);
    });
    const r = await runCli(GET, { env: liveEnv(server.url), client });
    expect(r.code).toBe(3);
    const [line] = errorLines(r.stderr);
    expect(line).toMatch(/^error: the service refused the token \(401\)/);
    expect(line).not.toContain('\\x1f');
    expect(line).not.toMatch(/[^\x20-\x7e]/);
  });
});

describe("the explorer's answers, alike (its limit made 64 KB here; 8 MB by default)", () => {
  it.each([
    ['a Content-Length of 60 MB', declaresThenHolds(SIXTY_MB), 'is larger than 65536 bytes; refused'],
    [
      'a chunked body past the limit',
      chunkedThenHolds(64 * 1024 + 10),
      'is larger than 65536 bytes; refused',
    ],
    [
      'a gzip bomb',
      (socket: net.Socket) => {
        const body = gzipBomb();
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n`,
        );
        socket.end(body);
      },
      'is encoded (content-encoding "gzip"), though lbrl asked for it as it is (accept-encoding identity); refused',
    ],
  ])('%s: a contract error (exit 1), asked once, the connection closed', async (_name, behave, message) => {
    const server = await serverThat(behave);
    const sleeps: number[] = [];
    const error = await failure(
      esploraClient(server.url, sleeps, { timeoutMs: 3000, maxBodyBytes: 64 * 1024 }).getTipHeight(),
    );
    expect(error.message).toBe(`the explorer's answer to /blocks/tip/height ${message}`);
    expect(error.exitCode).toBe(1);
    expect(sleeps).toEqual([]);
    await server.closed;
    expect(server.requests[0]).toMatch(/\r\naccept-encoding: identity\r\n/i);
  });
});

describe("a webhook receiver's answer", () => {
  it('declaring 60 MB: its status counts, nothing of the body is waited for, the connection closed', async () => {
    const server = await serverThat(declaresThenHolds(SIXTY_MB));
    const poster = webhookPoster({
      timeoutMs: 3000,
      connectTimeoutMs: 3000,
      now: Date.now,
      userAgent: 'test',
    });
    const outcome = await poster.post(`${server.url}/hooks`, { 'webhook-id': 'evt_x' }, '{}');
    await poster.close();
    expect(outcome).toMatchObject({ kind: 'answer', status: 200 });
    expect(outcome.ms).toBeLessThan(2000);
    await server.closed;
  });
});
