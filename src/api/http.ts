/**
 * One HTTP/1.1 exchange for the client, on Node's own `node:http` / `node:https`.
 *
 * Why not undici: its HTTP/1.1 client destroys the connection with "bad response" when a server
 * sends an interim `100 Continue` before the real answer (it only knows 100 as a reply to
 * `Expect: 100-continue`, which it never sends over HTTP/1.1). RFC 9110 (15.2) says a client must
 * read and skip any 1xx before the final answer, and proxies and servers do send one unasked.
 * Node's parser does exactly that. It is also lighter to load, and does not pull in HTTP/2.
 *
 * The modules are loaded with require (an ES import of a built-in reads every one of its
 * properties at start), node:http with the client and node:https only for an https service.
 */
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';

const load = createRequire(import.meta.url);
// loaded with the client, before the first request: https only for an https service
const http = load('node:http') as typeof Http;

export interface AgentOptions {
  connect?: { timeout?: number; rejectUnauthorized?: boolean };
  /** kept for the caller's options; the caller's own signal bounds each exchange */
  headersTimeout?: number;
  bodyTimeout?: number;
  /** always HTTP/1.1 */
  allowH2?: boolean;
}

/** What the client needs of a connection pool: to close it. */
export interface Dispatcher {
  close(): Promise<void>;
}

/**
 * The connection settings of one client, per scheme. Each request has its own connection
 * (`Connection: close`): a kept-alive connection the server has just closed fails the next
 * request as a reset, which for a create would mean "a deposit may exist" for a request that
 * never left. A poll every few seconds loses nothing worth that.
 */
export class Agent implements Dispatcher {
  private readonly pools = new Map<string, Http.Agent>();

  constructor(readonly options: AgentOptions = {}) {}

  pool(protocol: string): Http.Agent {
    let pool = this.pools.get(protocol);
    if (!pool) {
      pool =
        protocol === 'https:'
          ? new (load('node:https') as typeof Https).Agent({
              keepAlive: false,
              rejectUnauthorized: this.options.connect?.rejectUnauthorized ?? true,
            })
          : new http.Agent({ keepAlive: false });
      this.pools.set(protocol, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    for (const pool of this.pools.values()) pool.destroy();
    this.pools.clear();
  }
}

export interface RequestOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal;
  dispatcher: Dispatcher;
}

export interface ResponseData {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** the answer's body, read as it arrives; destroy() to stop reading */
  body: Readable;
}

/** A connection not made in time: named as the client names connect failures. */
function connectTimeout(ms: number): Error {
  return Object.assign(new Error(`connect timeout after ${ms} ms`), { code: 'UND_ERR_CONNECT_TIMEOUT' });
}

/** Send one request; resolves with the final (non-1xx) answer's status, headers and body. */
export function request(url: string, o: RequestOptions): Promise<ResponseData> {
  if (!(o.dispatcher instanceof Agent)) throw new TypeError('request() needs an Agent from src/api/http');
  const agent = o.dispatcher;
  const u = new URL(url);
  const https = u.protocol === 'https:';
  const mod = https ? (load('node:https') as typeof Http) : http;
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
  return new Promise((resolve, reject) => {
    const req = mod.request(u, {
      method: o.method,
      headers,
      agent: agent.pool(u.protocol),
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const limit = agent.options.connect?.timeout;
    req.on('socket', (socket) => {
      if (!limit || !socket.connecting) return;
      const timer = setTimeout(() => req.destroy(connectTimeout(limit)), limit);
      socket.once(https ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.on('response', (res) => {
      // Node says only "aborted" when the connection closes before the body is complete
      res.on('error', (error: Error & { code?: string }) => {
        if (!o.signal?.aborted && error.message === 'aborted')
          error.message = 'the connection closed before the answer was complete';
      });
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
    });
    req.on('error', reject);
    req.end(o.body);
  });
}
