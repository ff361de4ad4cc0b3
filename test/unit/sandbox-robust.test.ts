/**
 * The sandbox as a server others use: no request, however malformed, ends it, and every
 * failure is answered with the JSON error body. Raw sockets against a real server; after
 * each case the same server still answers a normal request.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/sandbox/listen.js';
import { createHandler } from '../../src/sandbox/server.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { qrPng } from '../../src/ui/qrpng.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const TOKEN = 'sbx_robust';
const AUTH = `Authorization: Bearer ${TOKEN}\r\n`;
const MISSING = '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';

let running: RunningServer | undefined;
let logged: string[] = [];
afterEach(async () => {
  await running?.close();
  running = undefined;
  logged = [];
});

async function start(limits: { requestTimeoutMs?: number } = {}): Promise<RunningServer> {
  const log = (line: string) => logged.push(line);
  running = await listen(
    createHandler({
      store: new SandboxStore(tempDir('lbrl-robust-')),
      token: TOKEN,
      autopaySeconds: null,
      now: () => Date.parse('2026-11-22T10:00:00Z'),
      qrPng: async (text: string) => (await qrPng(text)).toString('base64'),
      log,
      elapsed: () => 0,
    }),
    '127.0.0.1',
    0,
    { requestTimeoutMs: 300, headersTimeoutMs: 300, checkEveryMs: 50, log, ...limits },
  );
  return running;
}

function portOf(r: RunningServer): number {
  return Number(new URL(r.baseUrl).port);
}

/** Write the chunks (a function is called with the socket), then read until the server closes or a pause. */
function exchange(
  r: RunningServer,
  chunks: Array<string | Buffer | ((s: net.Socket) => void)>,
  idleMs = 1500,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(portOf(r), '127.0.0.1');
    const got: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), idleMs);
    socket.on('data', (d) => {
      got.push(d);
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), idleMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(got).toString('latin1'));
    });
    socket.on('connect', () => {
      for (const c of chunks) {
        if (typeof c === 'function') c(socket);
        else socket.write(c);
      }
    });
  });
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Split a stream of HTTP/1.1 answers (each with a content-length). */
function answers(raw: string): Answer[] {
  const out: Answer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    expect(end, `an HTTP head in ${JSON.stringify(rest)}`).toBeGreaterThan(0);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines)
      headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const length = Number(headers['content-length']);
    const text = rest.slice(end + 4, end + 4 + length);
    expect(text).toHaveLength(length);
    out.push({
      status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)![1]),
      headers,
      body: JSON.parse(text),
    });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

/** One JSON error answer, with its code and a message containing the given text. */
function expectError(a: Answer | undefined, status: number, code: string, message = ''): void {
  expect(a?.status).toBe(status);
  expect(a?.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(a?.body).toEqual({ error: { code, message: expect.stringContaining(message) } });
}

/** The server still answers a normal request on a new connection. */
async function stillServes(r: RunningServer): Promise<void> {
  const res = await fetch(`${r.baseUrl}/v1/api/deposit/${MISSING}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ error: { code: 'not_found', message: `deposit ${MISSING} not found` } });
}

const get = (target: string, extra = '') =>
  `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${AUTH}${extra}\r\n`;

describe('the sandbox answers every request and stays up', () => {
  it.each([
    ['a target that is no path: //[', get('//['), 400, 'bad_request', 'must be a path'],
    ['an absolute-form target', get('http://x/v1/api/deposit'), 400, 'bad_request', 'must be a path'],
    ['a non-ASCII path', get('/v1/api/d\xc3\xa9posit'), 400, 'bad_request', 'HPE_INVALID_URL'],
    ['bad percent-encoding in the id', get('/v1/api/deposit/%zz'), 404, 'not_found', 'deposit %zz not found'],
    ['a cut percent-encoding', get('/v1/api/deposit/abc%'), 404, 'not_found', 'deposit abc% not found'],
    ['an id that is no UUID', get('/v1/api/deposit/..%2F..%2Fetc'), 404, 'not_found', 'not found'],
    [
      'an unknown endpoint',
      get('/v1/api/deposits'),
      404,
      'not_found',
      'no such endpoint: GET /v1/api/deposits',
    ],
    ['16 KB of slashes', get(`/${'/'.repeat(15_000)}x`), 404, 'not_found', 'no such endpoint'],
    ['a NUL in the path', 'GET /v1/api/deposit/\0 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request', 'HPE_'],
    ['an unknown method', 'FROBNICATE / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request', 'HPE_'],
    [
      'a method the route does not take',
      `PROPFIND /v1/api/deposit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${AUTH}\r\n`,
      405,
      'method_not_allowed',
      'use POST',
    ],
    [
      'DELETE on a deposit',
      `DELETE /v1/api/deposit/${MISSING} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${AUTH}\r\n`,
      405,
      'method_not_allowed',
      'use GET',
    ],
    [
      'CONNECT',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n',
      405,
      'method_not_allowed',
      'CONNECT',
    ],
    ['no HTTP at all', 'hello\r\n\r\n', 400, 'bad_request', 'HPE_'],
    ['a header line with no colon', 'GET / HTTP/1.1\r\nHost x\r\n\r\n', 400, 'bad_request', 'HPE_'],
    ['20 KB of headers', get('/', `X-Big: ${'a'.repeat(20_000)}\r\n`), 431, 'headers_too_large', '16384'],
    [
      'an expectation it cannot meet',
      get('/v1/api/deposit', 'Expect: teapot\r\n'),
      417,
      'expectation_failed',
      'teapot',
    ],
    [
      'no token',
      `GET /v1/api/deposit/${MISSING} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      401,
      'unauthorized',
      'Bearer',
    ],
  ])('%s', async (_name, request, status, code, message) => {
    const r = await start();
    const all = answers(await exchange(r, [Buffer.from(request, 'latin1')]));
    expect(all).toHaveLength(1);
    expectError(all[0], status, code, message);
    await stillServes(r);
  });

  const post = (body: string, headers = 'Content-Type: application/json\r\n') =>
    `POST /v1/api/deposit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${AUTH}${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  it.each([
    ['bad JSON', post('{"amountInCents": 1,'), 400, 'validation_error', 'not valid JSON'],
    ['JSON that is a string', post('"x"'), 400, 'validation_error', 'must be a JSON object'],
    ['deeply nested JSON', post('['.repeat(60_000)), 400, 'validation_error', 'not valid JSON'],
    [
      'a body of another type',
      post('amountInCents=1', 'Content-Type: text/plain\r\n'),
      415,
      'unsupported_media_type',
      'text/plain',
    ],
    [
      'a 60 KB address',
      post(JSON.stringify({ amountInCents: 100, lbrlAddress: 'V'.repeat(60_000) })),
      400,
      'validation_error',
      'at most 1000',
    ],
  ])('POST with %s', async (_name, request, status, code, message) => {
    const r = await start();
    const t0 = performance.now();
    const all = answers(await exchange(r, [request], 3000));
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(all).toHaveLength(1);
    expect(all[0]?.status).toBe(status);
    expect(all[0]?.body).toMatchObject({ error: { code, message: expect.stringContaining(message) } });
    await stillServes(r);
  });

  it('a declared body over 64 KiB is refused before it is sent', async () => {
    const r = await start();
    const head = `POST /v1/api/deposit HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`;
    const all = answers(await exchange(r, [head]));
    expectError(all[0], 413, 'payload_too_large', '65536 bytes');
    expect(all[0]?.headers.connection).toBe('close');
    await stillServes(r);
  });

  it('a chunked body that grows past 64 KiB is cut off with 413', async () => {
    const r = await start();
    const head = `POST /v1/api/deposit HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = `${(16 * 1024).toString(16)}\r\n${'x'.repeat(16 * 1024)}\r\n`;
    const all = answers(await exchange(r, [head, ...Array(6).fill(chunk)]));
    expectError(all[0], 413, 'payload_too_large');
    await stillServes(r);
  });

  it('a body that never finishes arriving is answered 408 when the request time runs out', async () => {
    const r = await start();
    const head = `POST /v1/api/deposit HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"amo`;
    const all = answers(await exchange(r, [head]));
    expectError(all[0], 408, 'request_timeout');
    await stillServes(r);
  });

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400],
    ['a request whose headers never end', 'GET /v1/api/deposit HTTP/1.1\r\nX: ', 408],
  ])(
    'after answering %s the connection is closed, even if the client keeps sending',
    async (_, first, status) => {
      // the headers' time runs out long before the request's, as in the served defaults
      const r = await start({ requestTimeoutMs: 5000 });
      const held: net.Socket[] = [];
      r.server.on('connection', (s) => held.push(s));
      // a client that does not close its side when the server closes its own
      const socket = net.connect({ port: portOf(r), host: '127.0.0.1', allowHalfOpen: true });
      socket.on('error', () => {});
      let got = '';
      socket.on('data', (d) => {
        got += d.toString('latin1');
      });
      await new Promise((done) => socket.once('connect', done));
      socket.write(first);
      // a slow client dribbles a byte now and then, as a slowloris does: the server's side of
      // the connection must be released, not left half-closed reading for as long as it drips
      const drip = setInterval(() => socket.writable && socket.write('a'), 100);
      for (let i = 0; i < 40 && !(got && held[0]?.destroyed); i++)
        await new Promise((done) => setTimeout(done, 50));
      await new Promise((done) => setTimeout(done, 300));
      clearInterval(drip);
      const released = held[0]?.destroyed;
      socket.destroy();
      expect(got).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(released).toBe(true);
      await stillServes(r);
    },
  );

  it('a client that resets mid-body leaves the server serving', async () => {
    const r = await start();
    const head = `POST /v1/api/deposit HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"amountInCents":`;
    const got = await exchange(r, [head, (s) => setTimeout(() => s.resetAndDestroy(), 50)]);
    expect(got).toBe('');
    await stillServes(r);
  });

  it('pipelined garbage after a good request: the good one is answered first, then 400', async () => {
    const r = await start();
    const good = `GET /v1/api/deposit/${MISSING} HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`;
    const all = answers(await exchange(r, [`${good}\x01\x02garbage\r\n\r\n`]));
    expect(all.map((a) => a.status)).toEqual([404, 400]);
    expectError(all[0], 404, 'not_found', MISSING);
    expectError(all[1], 400, 'bad_request', 'HPE_');
    await stillServes(r);
  });

  it('logs one line per request: method, path (escaped, cut), status and time', async () => {
    const r = await start();
    await exchange(r, [get('/v1/api/deposit/%zz')]);
    await exchange(r, ['hello\r\n\r\n']);
    await stillServes(r);
    await exchange(r, [get(`/v1/api/deposit/${'['.repeat(200)}`)]);
    expect(logged).toEqual([
      'GET /v1/api/deposit/%zz 404 0 ms',
      expect.stringMatching(/^- - 400 0 ms \(HPE_[A-Z_]+\)$/),
      `GET /v1/api/deposit/${MISSING} 404 0 ms`,
      `GET /v1/api/deposit/${'['.repeat(120 - 16)}... 400 0 ms`,
    ]);
  });

  it('creates still work over the same hardened path', async () => {
    const r = await start();
    const body = JSON.stringify({ amountInCents: 100, lbrlAddress: LQ });
    const all = answers(await exchange(r, [post(body)], 3000));
    expect(all[0]?.status).toBe(201);
    expect(all[0]?.body).toMatchObject({ amountInCents: 100, status: 'WAITING_PAYMENT' });
  });
});

describe('a silent connection', () => {
  it('is closed when it sends no byte, so sockets that never ask cannot hold the server', async () => {
    const server = await listen((_req, res) => res.end('ok'), '127.0.0.1', 0, { firstByteMs: 200 });
    try {
      const { port } = new URL(server.baseUrl);
      const silent = net.connect(Number(port), '127.0.0.1');
      silent.on('error', () => {});
      const closedAfter = await new Promise<number>((resolve) => {
        const t0 = Date.now();
        silent.once('close', () => resolve(Date.now() - t0));
      });
      expect(closedAfter).toBeGreaterThanOrEqual(150);
      expect(closedAfter).toBeLessThan(5000);
      // one that asks in time is answered
      const r = await fetch(server.baseUrl);
      expect(await r.text()).toBe('ok');
    } finally {
      await server.close();
    }
  });
});
