/**
 * The customer's screen over HTTP: exactly three routes, each only with the display's key.
 *
 *   GET  /?k=KEY         the page (one self-contained HTML document, a strict CSP)
 *   GET  /events?k=KEY   the screens, as Server-Sent Events (`event: screen`)
 *   POST /show?k=KEY     {"id": "<uuid>", "target"?: "<service>"}: show this deposit of the profile's history now
 *   POST /hello          {"challenge": "<text>"}: the display's proof of identity, and nothing else
 *
 * A request without the key (or with another) gets 403 and no data (/hello carries no key: it
 * answers only an HMAC of the challenge with the display's secret, which is never sent); the key is compared in
 * constant time. The hardening is the sandbox's (its `listen`: header, body and time caps, the
 * parser's refusals answered and the connection closed), plus a cap on connections and streams.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { isIP } from 'node:net';
import type { Lang, Screen } from '../domain/display.js';
import { parseDepositId } from '../domain/values.js';
import { listen, type RunningServer } from '../sandbox/listen.js';
import { displayPage, pageCsp } from '../ui/display-page.js';
import { displayProof } from './state.js';

const CHALLENGE = /^[A-Za-z0-9_-]{16,64}$/;

export interface DisplayServerOptions {
  key: string;
  /** the secret of its proof of identity (display/state.ts's displayProof), never sent */
  secret: string;
  lang: Lang;
  /** the screen now */
  current(): Screen;
  /** calls `listener` with each new screen; gives back how to stop */
  subscribe(listener: (screen: Screen) => void): () => void;
  /**
   * Show this deposit (a canonical id) of the service `target` (default: the display's own);
   * false when the profile's history does not have it, or it was withdrawn.
   */
  show(id: string, target?: string): boolean;
  now(): number;
  /** a comment line on every stream this often, so a dead connection is noticed (default 15 s) */
  heartbeatMs?: number;
  /** at most this many event streams at once (default 16) */
  maxStreams?: number;
  /** a connection that sends nothing this long after it opens is closed (default 10 s) */
  firstByteMs?: number;
  /** a stream with more than this many bytes not yet taken by its reader is closed (default 1 MB) */
  maxUnreadBytes?: number;
  /** the name it was told to listen on (--host), also accepted in a request's Host header */
  host?: string;
}

/** The most connections the display accepts at once. */
export const MAX_CONNECTIONS = 64;
const MAX_SHOW_BODY = 1024;
/** RFC 3986 path and query characters only. */
const TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;

const BASE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

function text(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    ...BASE_HEADERS,
    'content-security-policy': "default-src 'none'",
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** A new key for a display: 128 bits, URL-safe. */
export function newDisplayKey(): string {
  return randomBytes(16).toString('base64url');
}

/** Whether `given` is the key: both hashed first, so neither the length nor the content leaks by time. */
export function keyMatches(given: string | null, key: string): boolean {
  const givenDigest = createHash('sha256')
    .update(given ?? '')
    .digest();
  const keyDigest = createHash('sha256').update(key).digest();
  return timingSafeEqual(givenDigest, keyDigest) && given !== null;
}

/**
 * Whether a request's Host header names this display, not another site: an IP address, localhost,
 * or the name it listens on. A page of another site whose name was made to resolve to this
 * machine (DNS rebinding) sends its own name, and is refused before anything else is looked at.
 */
export function hostAllowed(header: string | undefined, listening: string | undefined): boolean {
  if (header === undefined) return false;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header);
  if (!match) return false;
  const name = match[1]!.toLowerCase();
  if (name.startsWith('[')) return isIP(name.slice(1, -1)) === 6;
  if (isIP(name) === 4) return true;
  const told = listening?.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === told;
}

function parseTarget(target: string): { path: string; keys: string[] } | undefined {
  if (!TARGET.test(target) || target.length > 2048) return undefined;
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const keys = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1)).getAll('k');
  return { path, keys };
}

export function displayHandler(options: DisplayServerOptions): http.RequestListener {
  const display: OpenDisplay = {
    options,
    streams: new Set<http.ServerResponse>(),
    maxStreams: options.maxStreams ?? 16,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxUnread: options.maxUnreadBytes ?? 1024 * 1024,
  };
  return (req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    routeDisplay(display, req, res).catch(() => {
      if (res.headersSent) return void res.destroy();
      try {
        text(res, 500, 'the display failed to answer\n', { connection: 'close' });
      } catch {
        res.destroy();
      }
    });
  };
}

/** What the display's routes share: its options, its limits, and the screens' streams open. */
interface OpenDisplay {
  options: DisplayServerOptions;
  streams: Set<http.ServerResponse>;
  maxStreams: number;
  heartbeatMs: number;
  /** bytes a screen may leave unread before it is cut off */
  maxUnread: number;
}

/** The address and the key checked, then the route's work. */
async function routeDisplay(
  display: OpenDisplay,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const { options } = display;
  const target = parseTarget(req.url ?? '');
  if (!target) return text(res, 400, 'bad request\n', { connection: 'close' });
  if (!hostAllowed(req.headers.host, options.host))
    return text(res, 403, 'forbidden: this display answers only to its own address\n', {
      connection: 'close',
    });
  if (target.path === '/hello' && target.keys.length === 0) {
    if (req.method !== 'POST') return text(res, 405, 'use POST\n', { allow: 'POST' });
    return serveHello(options, req, res);
  }
  if (target.keys.length !== 1 || !keyMatches(target.keys[0]!, options.key))
    return text(res, 403, 'forbidden: open the address that lbrl display printed, with its key\n');
  const route =
    target.path === '/'
      ? 'page'
      : target.path === '/events'
        ? 'events'
        : target.path === '/show'
          ? 'show'
          : '';
  if (!route) return text(res, 404, 'not found\n');
  const allow = route === 'show' ? 'POST' : 'GET';
  if (req.method !== allow) return text(res, 405, `use ${allow}\n`, { allow });
  if (route === 'page') return servePage(options, res);
  if (route === 'events') return serveEvents(display, req, res);
  return serveShow(options, req, res);
}

/** The page itself, its script allowed by a nonce of its own. */
function servePage(options: DisplayServerOptions, res: http.ServerResponse): void {
  const nonce = randomBytes(16).toString('base64');
  const html = displayPage({ lang: options.lang, nonce, screen: options.current() });
  res.writeHead(200, {
    ...BASE_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'content-security-policy': pageCsp(nonce),
  });
  res.end(html);
}

/** The screens as server-sent events: the current one first, then each change, with a heartbeat. */
function serveEvents(display: OpenDisplay, req: http.IncomingMessage, res: http.ServerResponse): void {
  const { options, streams } = display;
  if (streams.size >= display.maxStreams) {
    text(res, 503, 'too many screens are open on this display\n', { 'retry-after': '5' });
    return;
  }
  res.writeHead(200, {
    ...BASE_HEADERS,
    'content-security-policy': "default-src 'none'",
    'content-type': 'text/event-stream; charset=utf-8',
    'x-accel-buffering': 'no',
  });
  // a reader that stops reading is cut off, not buffered for: memory stays bounded
  const write = (chunk: string) => {
    if (res.destroyed) return;
    res.write(chunk);
    if (res.writableLength > display.maxUnread) res.destroy();
  };
  const send = (screen: Screen) => {
    // JSON has no raw line breaks: one data line per event
    write(`event: screen\ndata: ${JSON.stringify({ now: options.now(), screen })}\n\n`);
  };
  res.write('retry: 1000\n\n');
  send(options.current());
  streams.add(res);
  const stop = options.subscribe(send);
  const beat = setInterval(() => write(': keep-alive\n\n'), display.heartbeatMs);
  beat.unref();
  const end = () => {
    clearInterval(beat);
    stop();
    streams.delete(res);
  };
  res.once('close', end);
  req.once('close', end);
}

/** The body as JSON, at most MAX_SHOW_BODY bytes; undefined (and answered) when it is not. */
async function jsonBody(req: http.IncomingMessage, res: http.ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_SHOW_BODY) {
      text(res, 413, 'the body is too large\n', { connection: 'close' });
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) ?? {};
  } catch {
    text(res, 400, 'the body must be JSON\n');
    return undefined;
  }
}

/** Shows a deposit of this profile on the screen (`lbrl display` told by another command). */
async function serveShow(
  options: DisplayServerOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const body = (await jsonBody(req, res)) as { id?: unknown; target?: unknown } | undefined;
  if (body === undefined) return;
  const id = typeof body === 'object' ? body.id : undefined;
  const parsed = typeof id === 'string' ? parseDepositId(id) : undefined;
  const target = typeof body === 'object' ? body.target : undefined;
  if (!parsed?.ok || (target !== undefined && (typeof target !== 'string' || target.length > 2048)))
    return text(res, 400, 'the body must be JSON: {"id":"<deposit id>"}\n');
  if (!options.show(parsed.value, target as string | undefined))
    return text(res, 404, 'no such deposit in this profile\n');
  text(res, 200, 'shown\n');
}

/** Proves to lbrl that this is its display, on this port, without the key. */
async function serveHello(
  options: DisplayServerOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const body = (await jsonBody(req, res)) as { challenge?: unknown } | undefined;
  if (body === undefined) return;
  const challenge = typeof body === 'object' ? body.challenge : undefined;
  if (typeof challenge !== 'string' || !CHALLENGE.test(challenge))
    return text(res, 400, 'the body must be JSON: {"challenge":"<16 to 64 URL-safe characters>"}\n');
  const port = req.socket.localPort ?? 0;
  text(res, 200, 'lbrl display\n', { 'lbrl-display': displayProof(options.secret, challenge, port) });
}

/** The display's server, on `host` (loopback unless told otherwise) and `port` (0: a free one). */
export async function startDisplayServer(
  options: DisplayServerOptions,
  host: string,
  port: number,
): Promise<RunningServer> {
  // a connection that never sends a byte is closed as the sandbox's are (listen's firstByteMs)
  const running = await listen(displayHandler({ host, ...options }), host, port, {
    requestTimeoutMs: 10_000,
    firstByteMs: options.firstByteMs ?? 10_000,
  });
  running.server.maxConnections = MAX_CONNECTIONS;
  return running;
}
