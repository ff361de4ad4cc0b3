/**
 * One delivery attempt of a webhook: a POST of the body with its signed headers, its answer's
 * status and how long it took. The answer's body is read (at most MAX_ANSWER bytes) and dropped:
 * only the status matters. Nothing is thrown: a failure is an outcome, for the retry schedule
 * (but for a kept-alive connection the receiver had just closed: sent again at once, see post).
 */
import type { Parsed } from '../domain/money.js';
import { isLoopbackHost } from './baseurl.js';
import { readAnswerBody } from './body.js';
import { Agent, type Dispatcher, isStaleConnection, request } from './http.js';

export type PostOutcome =
  | { kind: 'answer'; status: number; ms: number }
  | { kind: 'failure'; reason: string; ms: number };

/** An answer is cut after this many bytes: a receiver has nothing to say that lbrl reads. */
const MAX_ANSWER = 64 * 1024;

export interface WebhookPoster {
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<PostOutcome>;
  close(): Promise<void>;
}

export function webhookPoster(options: {
  timeoutMs: number;
  connectTimeoutMs: number;
  now: () => number;
  dispatcher?: Dispatcher;
  userAgent: string;
}): WebhookPoster {
  const dispatcher =
    options.dispatcher ??
    new Agent({
      // a receiver's certificate is always checked (--insecure-skip-tls-verify is for the service
      // alone), whatever NODE_TLS_REJECT_UNAUTHORIZED says
      connect: { timeout: options.connectTimeoutMs, rejectUnauthorized: true },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      allowH2: false,
    });
  const attempt = async (
    url: string,
    headers: Record<string, string>,
    body: string,
    started: number,
    signal?: AbortSignal,
  ): Promise<PostOutcome & { stale?: boolean }> => {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const onAbort = () => timeout.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': options.userAgent },
        body,
        dispatcher,
        signal: timeout.signal,
      });
      // read and dropped (a connection is kept only once its answer is read to the end); one
      // declared or found larger, or encoded, is cut at once: only the status is told
      await readAnswerBody(res, MAX_ANSWER);
      return { kind: 'answer', status: res.statusCode, ms: options.now() - started };
    } catch (error) {
      return {
        kind: 'failure',
        reason: failureReason(error, timeout.signal.aborted),
        ms: options.now() - started,
        stale: !timeout.signal.aborted && isStaleConnection(error),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };
  return {
    /**
     * A delivery that failed on a kept-alive connection the receiver had just closed, before a
     * byte of answer (isStaleConnection), is sent again at once, once, on a new connection, and
     * only its second outcome is told: the receiver answered nothing, and a delivery is idempotent
     * by its webhook-id. Any other failure is the retry schedule's.
     */
    async post(url, headers, body, signal) {
      const started = options.now();
      const first = await attempt(url, headers, body, started, signal);
      if (first.kind === 'answer' || !first.stale || signal?.aborted)
        return first.kind === 'answer' ? first : { kind: 'failure', reason: first.reason, ms: first.ms };
      const second = await attempt(url, headers, body, started, signal);
      return second.kind === 'answer' ? second : { kind: 'failure', reason: second.reason, ms: second.ms };
    },
    async close() {
      if (!options.dispatcher) await dispatcher.close().catch(() => {});
    },
  };
}

function failureReason(error: unknown, aborted: boolean): string {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timed out';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || aborted) return 'timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (typeof code === 'string') return code;
  return 'request failed';
}

/**
 * Where `listen --forward-to` may send: the base URL's rules (https://, or plain http:// only to
 * a loopback host; no credentials, no fragment), with any path and query the receiver wants.
 */
export function parseForwardUrl(input: string): Parsed<string> {
  const expected =
    'an https:// URL (plain http:// only for 127.0.0.1, ::1 or localhost), with no credentials or fragment';
  if (input.length > 2048 || !/^[\x21-\x7e]+$/.test(input)) return { ok: false, expected };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, expected };
  }
  if (url.username || url.password || url.hash || input.includes('#')) return { ok: false, expected };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return { ok: false, expected };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, expected };
  return { ok: true, value: url.href };
}
