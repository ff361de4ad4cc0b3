import { randomUUID } from 'node:crypto';
import { safeText } from '../domain/safe-text.js';
import { interrupted, LbrlError } from '../errors.js';
import { Agent, type Dispatcher, request } from './http.js';
import {
  type CreateRequest,
  type CreateResponse,
  createAnswerShape,
  describeIssues,
  type GetResponse,
  getAnswerShape,
} from './models.js';

export interface ClientOptions {
  /** validated, without a trailing slash; /v1/api/... is appended */
  baseUrl: string;
  token: string;
  /** per attempt, from sending to the last byte of the answer */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** retries of a request that is safe to repeat */
  maxRetries?: number;
  /** longest Retry-After honoured; a longer one ends the request */
  maxRetryAfterMs?: number;
  maxBodyBytes?: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
  trace?: ((line: string) => void) | undefined;
  /** told of each retry, so a long wait never looks like a hang */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  signal?: AbortSignal | undefined;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** only from --insecure-skip-tls-verify */
  insecureSkipTlsVerify?: boolean;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
  /** the HTTP status that caused the retry, when there was an answer */
  status?: number;
}

export interface ApiResult<T> {
  /** checked against the models */
  value: T;
  /** the JSON exactly as the service returned it */
  raw: unknown;
  /** the body as received, for the rules that read numbers as written (and keys given twice) */
  text?: string;
}

const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TLS_FAILURES = /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_VERIFY/;

/** A 2xx answer, not yet read as JSON. */
interface Answer {
  status: number;
  contentType: string | undefined;
  text: string;
}

type Outcome =
  | { kind: 'answer'; status: number; headers: Record<string, string | string[] | undefined>; body: string }
  | { kind: 'error'; error: unknown; sent: boolean };

function errorCode(error: unknown): string {
  let e = error as { code?: string; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && e; i++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return '';
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/** Delay the service asked for, from `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d{1,7}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The service's own message, whatever the shape of its error body. */
export function serviceMessage(body: string): string {
  let text = body.trim();
  try {
    const json = JSON.parse(body) as unknown;
    const pick = (v: unknown): string | undefined => {
      if (typeof v === 'string' && v.trim()) return v;
      if (Array.isArray(v)) return v.map(pick).filter(Boolean).join('; ') || undefined;
      if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        for (const k of ['message', 'error_description', 'detail', 'title', 'error', 'errors', 'msg']) {
          const found = pick(o[k]);
          if (found) {
            const field =
              typeof o.field === 'string' ? o.field : typeof o.path === 'string' ? o.path : undefined;
            return field && !found.includes(field) ? `${field}: ${found}` : found;
          }
        }
      }
      return undefined;
    };
    text = pick(json) ?? text;
  } catch {
    // not JSON: the text itself
  }
  // the service's words reach a terminal: control characters shown as escapes, never acted on
  const clean = safeText(text.replace(/[\r\n\t]+/g, ' ').trim());
  return clean.length > 300 ? `${clean.slice(0, 300)}…` : clean;
}

export class DepositClient {
  private readonly o: Required<
    Pick<ClientOptions, 'timeoutMs' | 'connectTimeoutMs' | 'maxRetries' | 'maxRetryAfterMs' | 'maxBodyBytes'>
  > &
    ClientOptions;
  private readonly dispatcher: Dispatcher;

  constructor(options: ClientOptions) {
    this.o = {
      timeoutMs: 30_000,
      connectTimeoutMs: 30_000,
      maxRetries: 3,
      maxRetryAfterMs: 60_000,
      maxBodyBytes: 1024 * 1024,
      ...options,
    };
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connect: {
          timeout: this.o.connectTimeoutMs,
          ...(this.o.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
        },
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
        // HTTP/1.1 only: the bundle leaves undici's HTTP/2 client out (src/api/no-http2.ts)
        allowH2: false,
      });
  }

  async close(): Promise<void> {
    if (!this.o.dispatcher) await this.dispatcher.close();
  }

  async createDeposit(
    body: CreateRequest,
    idempotencyKey: string = randomUUID(),
  ): Promise<ApiResult<CreateResponse>> {
    const answer = await this.send('POST', '/v1/api/deposit', JSON.stringify(body), idempotencyKey);
    try {
      return this.parse(answer, createAnswerShape);
    } catch (error) {
      // the service said yes, in words we cannot read: the charge may well exist
      if (error instanceof LbrlError) {
        throw new LbrlError(
          `${error.message}. The service accepted the create, so a deposit may exist (Idempotency-Key ${idempotencyKey}); do not pay anything from this answer`,
          error.type,
        );
      }
      throw error;
    }
  }

  async getDeposit(id: string): Promise<ApiResult<GetResponse>> {
    const answer = await this.send(
      'GET',
      `/v1/api/deposit/${encodeURIComponent(id)}`,
      undefined,
      undefined,
      id,
    );
    const result = this.parse(answer, getAnswerShape);
    // an answer about another deposit is no answer about this one (get, watch and list alike)
    if (result.value.id.toLowerCase() !== id.toLowerCase()) {
      throw new LbrlError(
        `asked for deposit ${id}, but the service answered with deposit ${result.value.id}`,
        'mismatch',
      );
    }
    return result;
  }

  /** A 2xx answer to the models: JSON by its content type and its text, then the schema. */
  private parse<T>(
    { status, contentType, text }: Answer,
    schema: {
      safeParse(
        v: unknown,
        params: { reportInput: boolean },
      ): { success: true; data: T } | { success: false; error: import('zod/mini').core.$ZodError };
    },
  ): ApiResult<T> {
    if (contentType && !/^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim())) {
      throw new LbrlError(
        `the service answered ${status} with content-type ${JSON.stringify(contentType)}, not JSON; a proxy or a wrong base URL?`,
        'contract',
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new LbrlError(
        `the service's answer is not valid JSON (${text.length} bytes): ${JSON.stringify(text.slice(0, 60))}`,
        'contract',
      );
    }
    // with what was there, so the message can name both values
    const result = schema.safeParse(raw, { reportInput: true });
    if (!result.success) {
      throw new LbrlError(
        `the service's answer breaks the contract: ${describeIssues(result.error)}`,
        'contract',
      );
    }
    return { value: result.data, raw, text };
  }

  private trace(line: string): void {
    this.o.trace?.(line);
  }

  private async attempt(
    method: string,
    url: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<Outcome> {
    const timeout = AbortSignal.timeout(this.o.timeoutMs);
    const signal = this.o.signal ? AbortSignal.any([this.o.signal, timeout]) : timeout;
    let sent = false;
    try {
      const res = await request(url, {
        method: method as 'GET' | 'POST',
        headers,
        body,
        dispatcher: this.dispatcher,
        signal,
      });
      sent = true;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > this.o.maxBodyBytes) {
          res.body.destroy();
          throw new LbrlError(
            `the service's answer is larger than ${this.o.maxBodyBytes} bytes; refused`,
            'contract',
          );
        }
        chunks.push(chunk as Buffer);
      }
      return {
        kind: 'answer',
        status: res.statusCode,
        headers: res.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
    } catch (error) {
      if (error instanceof LbrlError) throw error;
      if (this.o.signal?.aborted) {
        const key = headers['idempotency-key'];
        if (method === 'POST' && key) {
          // Ctrl-C while a create was on its way: say what may have happened
          throw new LbrlError(
            `interrupted. The create request may have reached the service: a deposit may exist (Idempotency-Key ${key})`,
            'interrupted',
          );
        }
        throw interrupted();
      }
      const code = errorCode(error);
      // a refused or never-made connection cannot have carried the request
      return { kind: 'error', error, sent: sent || !CONNECT_FAILURES.has(code) };
    }
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    idempotencyKey: string | undefined,
    depositId?: string,
  ): Promise<Answer> {
    const url = `${this.o.baseUrl}${path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.o.token}`,
      accept: 'application/json',
      'user-agent': this.o.userAgent ?? 'lbrl',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const request = {
      method,
      baseUrl: this.o.baseUrl,
      host: new URL(url).host,
      timeoutMs: this.o.timeoutMs,
      maxRetryAfterMs: this.o.maxRetryAfterMs,
      idempotencyKey,
      depositId,
    };

    for (let attempt = 0; ; attempt++) {
      this.trace(`> ${method} ${url}`);
      for (const [k, v] of Object.entries(headers))
        this.trace(`> ${k}: ${k === 'authorization' ? 'Bearer [redacted]' : v}`);
      if (body !== undefined) this.trace(`> ${body}`);
      const started = this.o.now();
      const outcome = await this.attempt(method, url, body, headers);
      this.traceOutcome(outcome, this.o.now() - started);
      const verdict = classify(request, seen(outcome), this.o.now());
      if (verdict.ok) {
        const answer = outcome as Extract<Outcome, { kind: 'answer' }>;
        return {
          status: answer.status,
          contentType: headerValue(answer.headers['content-type']),
          text: answer.body,
        };
      }
      if (!verdict.retry || attempt >= this.o.maxRetries) throw verdict.error;
      const delayMs = retryDelay(attempt, this.o.random(), verdict.waitMs);
      this.o.onRetry?.({
        attempt: attempt + 1,
        delayMs,
        reason: verdict.reason,
        ...(outcome.kind === 'answer' ? { status: outcome.status } : {}),
      });
      this.trace(`* retrying in ${delayMs} ms (${verdict.reason})`);
      try {
        await this.o.sleep(delayMs, this.o.signal);
      } catch {
        throw interrupted();
      }
    }
  }

  private traceOutcome(outcome: Outcome, elapsed: number): void {
    if (outcome.kind === 'error') {
      const code = errorCode(outcome.error);
      this.trace(`< (no answer after ${elapsed} ms: ${code || errorMessage(outcome.error)})`);
      return;
    }
    const { status, headers: h, body: text } = outcome;
    this.trace(`< ${status} (${elapsed} ms)`);
    const ct = headerValue(h['content-type']);
    if (ct) this.trace(`< content-type: ${ct}`);
    this.trace(`< ${text.length > 1500 ? `${text.slice(0, 1500)}… (${text.length} bytes)` : text}`);
  }
}

function errorMessage(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}

/** An attempt's outcome as classify() needs it: plain values only. */
export type Seen =
  | {
      kind: 'answer';
      status: number;
      body: string;
      retryAfter?: string | undefined;
      location?: string | undefined;
    }
  | { kind: 'error'; code: string; message: string; sent: boolean };

function seen(outcome: Outcome): Seen {
  if (outcome.kind === 'error') {
    return {
      kind: 'error',
      code: errorCode(outcome.error),
      message: errorMessage(outcome.error),
      sent: outcome.sent,
    };
  }
  return {
    kind: 'answer',
    status: outcome.status,
    body: outcome.body,
    retryAfter: headerValue(outcome.headers['retry-after']),
    location: headerValue(outcome.headers.location),
  };
}

/** What a request is, for classify(). */
export interface RequestFacts {
  method: 'GET' | 'POST';
  baseUrl: string;
  host: string;
  timeoutMs: number;
  maxRetryAfterMs: number;
  idempotencyKey?: string | undefined;
  depositId?: string | undefined;
}

export type Verdict =
  | { ok: true }
  | {
      ok: false;
      error: LbrlError;
      /** safe and worth sending again */
      retry: boolean;
      /** what the service asked to wait (Retry-After), when it did */
      waitMs?: number | undefined;
      /** for the retry note and the trace */
      reason: string;
    };

/**
 * The outcome of one attempt, classified: done, or an error with whether to send again and how
 * long the service asked to wait. A create is sent again only when it cannot have reached the
 * service (a refused connection) or the service said so (429); a GET whenever it failed in transit or 5xx.
 */
export function classify(r: RequestFacts, o: Seen, now: number): Verdict {
  const isCreate = r.method === 'POST';
  const mayExist = (reason: string, type: 'timeout' | 'network' | 'service') =>
    new LbrlError(
      `${reason}. The create request may have reached the service, so it was not sent again: a deposit may exist (Idempotency-Key ${r.idempotencyKey})`,
      type,
      'check for the deposit before creating another; re-running the command makes a new charge',
    );
  const never = (error: LbrlError): Verdict => ({ ok: false, error, retry: false, reason: error.message });

  if (o.kind === 'error') {
    if (TLS_FAILURES.test(o.code)) {
      return never(
        new LbrlError(
          `the TLS certificate of ${r.host} could not be verified (${o.code}); nothing was sent`,
          'network',
        ),
      );
    }
    const timedOut = /TIMEOUT|AbortError|TimeoutError/i.test(o.code) || /timeout|aborted/i.test(o.message);
    const type = timedOut ? 'timeout' : 'network';
    const reason = timedOut
      ? `no answer within ${Math.round(r.timeoutMs / 1000)} s`
      : `connection failed (${o.code || o.message})`;
    const error =
      isCreate && o.sent
        ? mayExist(reason, type)
        : new LbrlError(`could not reach the service at ${r.baseUrl}: ${reason}`, type);
    return { ok: false, error, retry: !isCreate || !o.sent, reason };
  }

  const { status } = o;
  if (status >= 200 && status < 300) return { ok: true };
  const msg = serviceMessage(o.body) || `HTTP ${status}`;
  if (status >= 300 && status < 400) {
    return never(
      new LbrlError(
        `the service answered ${status} redirecting to ${o.location ?? '(no location)'}; redirects are not followed`,
        'service',
      ),
    );
  }
  if (status === 400 || status === 422)
    return never(new LbrlError(`the service refused the request (${status}): ${msg}`, 'validation'));
  if (status === 401 || status === 403) {
    return never(
      new LbrlError(
        `the service refused the token (${status}): ${msg}`,
        'auth',
        'run `lbrl auth login`, or set LBRL_TOKEN',
      ),
    );
  }
  if (status === 404 && r.depositId)
    return never(new LbrlError(`deposit ${r.depositId} not found`, 'not_found'));
  const waitMs = retryAfterMs(o.retryAfter, now);
  if (status === 429) {
    const error = new LbrlError(
      `the service is rate limiting requests (429)${waitMs !== undefined ? `; it asks to wait ${Math.ceil(waitMs / 1000)} s` : ''}: ${msg}`,
      'rate_limited',
    );
    if (waitMs !== undefined) error.retryAfterMs = waitMs;
    return {
      ok: false,
      error,
      retry: waitMs === undefined || waitMs <= r.maxRetryAfterMs,
      waitMs,
      reason: 'rate limited (429)',
    };
  }
  if (status >= 500) {
    const error = isCreate
      ? mayExist(`the service answered ${status}: ${msg}`, 'service')
      : new LbrlError(`the service answered ${status}: ${msg}`, 'service');
    if (waitMs !== undefined) error.retryAfterMs = waitMs;
    return { ok: false, error, retry: !isCreate, waitMs, reason: `the service answered ${status}` };
  }
  return never(new LbrlError(`the service answered ${status}: ${msg}`, 'service'));
}

/** Capped exponential back-off with jitter, never shorter than what the service asked. */
export function retryDelay(attempt: number, random: number, waitMs?: number): number {
  const backoff = Math.min(5000, 500 * 2 ** attempt) * (0.5 + random / 2);
  return Math.round(Math.max(backoff, waitMs ?? 0));
}
