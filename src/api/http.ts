/**
 * The two pieces of undici the client uses, imported from their own modules: the package's
 * index also loads fetch, WebSocket, caches and mocks, which cost every command tens of
 * milliseconds at start. Same library, same behaviour; the lock file pins the version.
 */
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
// @ts-expect-error: as above
import requestImpl from 'undici/lib/api/api-request.js';
// @ts-expect-error: undici ships no types for its internal modules
import buildConnector from 'undici/lib/core/connect.js';
// @ts-expect-error: as above
import { ClientDestroyedError } from 'undici/lib/core/errors.js';
// @ts-expect-error: as above
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import { skipInterimAnswers } from './interim.js';

export type { Dispatcher };

export interface AgentOptions {
  connect?: { timeout?: number; rejectUnauthorized?: boolean };
  headersTimeout?: number;
  bodyTimeout?: number;
  allowH2?: boolean;
}

type Connector = (
  options: Record<string, unknown>,
  callback: (error: Error | null, socket: Socket | null) => void,
) => void;

/** undici's Agent, on sockets that skip interim (1xx) answers (see interim.ts). */
export class Agent extends (AgentImpl as new (options?: unknown) => Dispatcher) {
  constructor(options: AgentOptions = {}) {
    const { connect, ...rest } = options;
    const base = (buildConnector as (options: unknown) => Connector)({
      ...connect,
      allowH2: options.allowH2 ?? false,
    });
    const connector: Connector = (connectOptions, callback) =>
      base(connectOptions, (error, socket) =>
        callback(error, socket ? markStaleFailures(skipInterimAnswers(socket)) : socket),
      );
    super({ ...rest, connect: connector });
  }
}

export interface RequestOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal;
  dispatcher: Dispatcher;
}

/** undici's request(), on a dispatcher of ours. */
export function request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const parsed = new URL(url);
  return (
    requestImpl as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>
  ).call(options.dispatcher, {
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
    method: options.method,
    headers: options.headers,
    body: options.body ?? null,
    signal: options.signal ?? null,
  });
}

/**
 * The error undici destroys a pool with when given none (ClientDestroyedError), made without the
 * frames of a stack. Node reads the stack of the error a socket is destroyed with, and placing
 * each frame had V8 find every line of the scripts they are in (the client's chunk is 500 KB):
 * about 6M instructions, a tenth of what a get costs above the floor. Same class, code and message.
 */
export function destroyedError(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new (ClientDestroyedError as new () => Error)();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

const STALE = Symbol('lbrl.staleConnection');
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.1\r\n/;

/**
 * A kept-alive connection the server closed (its idle time-out) just as a request was written on
 * it: the request failed on a connection that had carried an earlier one, before a single byte of
 * answer came back. Browsers and undici-based clients send an idempotent request again at once,
 * on a new connection, saying nothing: the service never saw a request it answered. undici writes
 * one request at a time on a connection, each starting with its request line, so the bytes read
 * since that line are this request's answer.
 */
export function isStaleConnection(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [STALE]?: boolean })[STALE] === true;
}

/** Tag the error a socket fails with when it failed as `isStaleConnection` says. */
function markStaleFailures(socket: Socket): Socket {
  let requests = 0;
  let bytesReadAtRequest = 0;
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    const chunk = args[0];
    if (typeof chunk === 'string' && REQUEST_LINE.test(chunk)) {
      requests += 1;
      bytesReadAtRequest = socket.bytesRead;
    }
    return write(...args);
  }) as Socket['write'];
  socket.prependListener('error', (error: unknown) => {
    if (requests < 2 || socket.bytesRead !== bytesReadAtRequest) return;
    if (typeof error === 'object' && error !== null && Object.isExtensible(error))
      Object.defineProperty(error, STALE, { value: true });
  });
  return socket;
}
