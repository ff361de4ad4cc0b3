/**
 * One delivery attempt of a webhook: a POST of the body with its signed headers, its answer's
 * status and how long it took. The answer's body is read (at most MAX_ANSWER bytes) and dropped:
 * only the status matters. Nothing is thrown: a failure is an outcome, for the retry schedule.
 */
import type { Parsed } from '../domain/money.js';
import { isLoopbackHost } from './baseurl.js';
import { Agent, type Dispatcher, request } from './http.js';

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
  return {
    async post(url, headers, body, signal) {
      const started = options.now();
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
      const onAbort = () => timeout.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const res = await request(url, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            'user-agent': options.userAgent,
          },
          body,
          dispatcher,
          signal: timeout.signal,
        });
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > MAX_ANSWER) {
            res.body.destroy();
            break;
          }
        }
        return { kind: 'answer', status: res.statusCode, ms: options.now() - started };
      } catch (error) {
        return {
          kind: 'failure',
          reason: failureReason(error, timeout.signal.aborted),
          ms: options.now() - started,
        };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
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
