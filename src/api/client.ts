import { randomUUID } from 'node:crypto';
import { EXIT, interrupted, LbrlError } from '../errors.js';
import { Agent, type Dispatcher, request } from './http.js';
import {
  type CreateRequest,
  type CreateResponse,
  createResponseSchema,
  describeIssues,
  type GetResponse,
  getResponseSchema,
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
  const clean = text.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
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
      return this.parse(answer, createResponseSchema);
    } catch (error) {
      // the service said yes, in words we cannot read: the charge may well exist
      if (error instanceof LbrlError) {
        throw new LbrlError(
          `${error.message}. The service accepted the create, so a deposit may exist (Idempotency-Key ${idempotencyKey}); do not pay anything from this answer`,
          error.type,
          error.exitCode,
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
    const result = this.parse(answer, getResponseSchema);
    // an answer about another deposit is no answer about this one (get, watch and list alike)
    if (result.value.id.toLowerCase() !== id.toLowerCase()) {
      throw new LbrlError(
        `asked for deposit ${id}, but the service answered with deposit ${result.value.id}`,
        'mismatch',
        EXIT.failure,
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
      ): { success: true; data: T } | { success: false; error: import('zod/mini').core.$ZodError };
    },
  ): ApiResult<T> {
    if (contentType && !/^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim())) {
      throw new LbrlError(
        `the service answered ${status} with content-type ${JSON.stringify(contentType)}, not JSON; a proxy or a wrong base URL?`,
        'contract',
        EXIT.failure,
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new LbrlError(
        `the service's answer is not valid JSON (${text.length} bytes): ${JSON.stringify(text.slice(0, 60))}`,
        'contract',
        EXIT.failure,
      );
    }
    const result = schema.safeParse(raw);
    if (!result.success) {
      throw new LbrlError(
        `the service's answer breaks the contract: ${describeIssues(result.error)}`,
        'contract',
        EXIT.failure,
      );
    }
    return { value: result.data, raw };
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
            EXIT.failure,
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
            EXIT.interrupted,
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
    const isCreate = method === 'POST';

    for (let attempt = 0; ; attempt++) {
      this.trace(`> ${method} ${url}`);
      for (const [k, v] of Object.entries(headers))
        this.trace(`> ${k}: ${k === 'authorization' ? 'Bearer [redacted]' : v}`);
      if (body !== undefined) this.trace(`> ${body}`);
      const started = this.o.now();
      const outcome = await this.attempt(method, url, body, headers);
      const elapsed = this.o.now() - started;
      let retryable: boolean;
      let reason: string;
      let wait: number | undefined;
      let final: LbrlError;

      if (outcome.kind === 'error') {
        const code = errorCode(outcome.error);
        const message = (outcome.error as Error)?.message ?? String(outcome.error);
        this.trace(`< (no answer after ${elapsed} ms: ${code || message})`);
        if (TLS_FAILURES.test(code)) {
          throw new LbrlError(
            `the TLS certificate of ${new URL(url).host} could not be verified (${code}); nothing was sent`,
            'network',
            EXIT.unreachable,
          );
        }
        const timedOut = /TIMEOUT|AbortError|TimeoutError/i.test(code) || /timeout|aborted/i.test(message);
        reason = timedOut
          ? `no answer within ${Math.round(this.o.timeoutMs / 1000)} s`
          : `connection failed (${code || message})`;
        retryable = !isCreate || !outcome.sent;
        final =
          isCreate && outcome.sent
            ? this.mayExist(reason, idempotencyKey!, EXIT.unreachable, timedOut ? 'timeout' : 'network')
            : new LbrlError(
                `could not reach the service at ${this.o.baseUrl}: ${reason}`,
                timedOut ? 'timeout' : 'network',
                EXIT.unreachable,
              );
      } else {
        const { status, headers: h, body: text } = outcome;
        this.trace(`< ${status} (${elapsed} ms)`);
        const ct = headerValue(h['content-type']);
        if (ct) this.trace(`< content-type: ${ct}`);
        this.trace(`< ${text.length > 1500 ? `${text.slice(0, 1500)}… (${text.length} bytes)` : text}`);
        if (status >= 200 && status < 300) return { status, contentType: ct, text };
        const msg = serviceMessage(text) || `HTTP ${status}`;
        if (status >= 300 && status < 400) {
          const location = headerValue(h.location) ?? '(no location)';
          throw new LbrlError(
            `the service answered ${status} redirecting to ${location}; redirects are not followed`,
            'service',
            EXIT.failure,
          );
        }
        if (status === 400 || status === 422) {
          throw new LbrlError(
            `the service refused the request (${status}): ${msg}`,
            'validation',
            EXIT.usage,
          );
        }
        if (status === 401 || status === 403) {
          throw new LbrlError(
            `the service refused the token (${status}): ${msg}`,
            'auth',
            EXIT.auth,
            'run `lbrl auth login`, or set LBRL_TOKEN',
          );
        }
        if (status === 404 && depositId) {
          throw new LbrlError(`deposit ${depositId} not found`, 'not_found', EXIT.notFound);
        }
        if (status === 429) {
          wait = retryAfterMs(headerValue(h['retry-after']), this.o.now());
          retryable = wait === undefined || wait <= this.o.maxRetryAfterMs;
          reason = 'rate limited (429)';
          final = new LbrlError(
            `the service is rate limiting requests (429)${wait !== undefined ? `; it asks to wait ${Math.ceil(wait / 1000)} s` : ''}: ${msg}`,
            'rate_limited',
            EXIT.failure,
          );
        } else if (status >= 500) {
          reason = `the service answered ${status}`;
          retryable = !isCreate;
          wait = retryAfterMs(headerValue(h['retry-after']), this.o.now());
          final = isCreate
            ? this.mayExist(
                `the service answered ${status}: ${msg}`,
                idempotencyKey!,
                EXIT.failure,
                'service',
              )
            : new LbrlError(`the service answered ${status}: ${msg}`, 'service', EXIT.failure);
        } else {
          throw new LbrlError(`the service answered ${status}: ${msg}`, 'service', EXIT.failure);
        }
      }

      if (wait !== undefined) final.retryAfterMs = wait;
      if (!retryable || attempt >= this.o.maxRetries) throw final;
      const backoff = Math.min(5000, 500 * 2 ** attempt) * (0.5 + this.o.random() / 2);
      const delayMs = Math.round(Math.max(backoff, wait ?? 0));
      this.o.onRetry?.({
        attempt: attempt + 1,
        delayMs,
        reason,
        ...(outcome.kind === 'answer' ? { status: outcome.status } : {}),
      });
      this.trace(`* retrying in ${delayMs} ms (${reason})`);
      try {
        await this.o.sleep(delayMs, this.o.signal);
      } catch {
        throw interrupted();
      }
    }
  }

  private mayExist(
    reason: string,
    key: string,
    exitCode: number,
    type: 'timeout' | 'network' | 'service',
  ): LbrlError {
    return new LbrlError(
      `${reason}. The create request may have reached the service, so it was not sent again: a deposit may exist (Idempotency-Key ${key})`,
      type,
      exitCode,
      'check for the deposit before creating another; re-running the command makes a new charge',
    );
  }
}
