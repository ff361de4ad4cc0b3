/**
 * The hardened HTTP server the sandbox and the customer's display both listen with: bounded headers
 * and request times, a connection that sends nothing closed, a request the parser refuses answered
 * as the service would (after any answer still owed on the connection), no Expect or CONNECT, and an
 * error of the listening socket logged rather than ending the process.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody, rawAnswer, respond, shown } from './http-answers.js';

export interface RunningServer {
  baseUrl: string;
  /** the address it listens on, as given (0.0.0.0 or :: for every interface) */
  address: string;
  server: http.Server;
  close(): Promise<void>;
}

export interface ListenLimits {
  /** the whole request, headers and body, must arrive within this */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** how often the time-outs above are checked */
  checkEveryMs?: number;
  /**
   * a connection that sends no byte within this is closed: the parser's time-outs start with a
   * request's first byte, so a silent connection would otherwise hold a slot for ever
   */
  firstByteMs?: number;
  log?: (line: string) => void;
}

function clientErrorAnswer(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return [431, 'headers_too_large', 'the request headers are larger than 16384 bytes'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'request_timeout', 'the request did not arrive in time'];
  return [400, 'bad_request', `the request is not well-formed HTTP/1.1 (${shown(code ?? 'unknown')})`];
}

/** 0.0.0.0 and :: listen on every interface; this machine reaches them on loopback. */
function reachableHost(address: string, family: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return family === 'IPv6' ? `[${address}]` : address;
}

/**
 * A request the HTTP parser refused (too large, too slow, badly framed): answered as the service
 * would, after any answer still owed on the connection, and the connection then closed.
 */
function clientErrorListener(
  log: ((line: string) => void) | undefined,
): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error: NodeJS.ErrnoException, socket) => {
    socket.on('error', () => {});
    const [status, code, message] = clientErrorAnswer(error.code);
    const pending = (socket as unknown as { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (!pending?.req || pending.req.complete || pending.headersSent)
      log?.(`- - ${error.code === 'ECONNRESET' ? 'reset' : status} 0 ms (${shown(error.code ?? 'unknown')})`);
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    // the answer is the last thing on this connection: once written, the socket is released,
    // not left half-open reading whatever a slow client keeps sending
    const answer = () => {
      if (socket.writable) socket.end(rawAnswer(status, code, message), () => socket.destroy());
      else socket.destroy();
    };
    if (!pending || pending.writableFinished) return answer();
    if (!pending.req.complete && !pending.headersSent) {
      // the request being handled is the one at fault (a body too slow or badly framed); its
      // own log line says how it ended
      return respond(pending, status, errorBody(code, message), { connection: 'close' });
    }
    // an answer still owed on this connection (pipelined requests) goes out first
    pending.once('finish', answer);
    pending.once('close', () => socket.destroy());
  };
}

export function listen(
  handler: http.RequestListener,
  host: string,
  port: number,
  limits: ListenLimits = {},
): Promise<RunningServer> {
  const server = http.createServer(
    {
      keepAliveTimeout: 5000,
      maxHeaderSize: 16 * 1024,
      requestTimeout: limits.requestTimeoutMs ?? 30_000,
      headersTimeout: limits.headersTimeoutMs ?? 10_000,
      connectionsCheckingInterval: limits.checkEveryMs ?? 1000,
    },
    handler,
  );
  const log = limits.log;
  server.on('clientError', clientErrorListener(log));
  const firstByteMs = limits.firstByteMs ?? limits.headersTimeoutMs ?? 10_000;
  server.on('connection', (socket: Socket) => {
    const silent = setTimeout(() => socket.destroy(), firstByteMs);
    silent.unref();
    const done = () => clearTimeout(silent);
    socket.once('data', done);
    socket.once('close', done);
  });
  server.on('checkExpectation', (req, res) => {
    res.on('error', () => {});
    respond(
      res,
      417,
      errorBody('expectation_failed', `Expect: ${shown(String(req.headers.expect))} is not supported`),
      {
        connection: 'close',
      },
    );
  });
  server.on('connect', (_req, socket) => {
    socket.on('error', () => {});
    socket.end(rawAnswer(405, 'method_not_allowed', 'CONNECT is not supported'));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // an error of the listening socket (too many open files, say) must not end the process
      server.on('error', (error: NodeJS.ErrnoException) =>
        log?.(`- - error 0 ms (${shown(error.code ?? error.message)})`),
      );
      const addr = server.address() as AddressInfo;
      resolve({
        baseUrl: `http://${reachableHost(addr.address, addr.family)}:${addr.port}`,
        address: addr.address,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
