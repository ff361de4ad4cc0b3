/**
 * The Deposit service's HTTP client (`DepositClient`): one request per call, on undici with the
 * time-outs and limits of REQUEST_DEFAULTS, TLS always checked; each attempt's outcome classified by
 * `classify` (api/classify.ts) into done, retried with back-off, or one typed error; the token and
 * any secret redacted from the trace. An answer is read into the model's shapes (`readAnswerText`),
 * naming a field of the wrong type; the rules between fields are the deposits' (deposits/answers.ts).
 */

import { createdDepositShape, depositShape, FIELD_EXPECTED } from '../domain/deposit.js';
import { ownCopy } from '../domain/own.js';
import {
  JsonNumber,
  type JsonResult,
  type JsonValue,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  parseJsonExact,
} from '../domain/text/json-exact.js';
import { Redactor } from '../domain/text/redact.js';
import { safeText, terminalSafe } from '../domain/text/safe-text.js';
import { canonicalId } from '../domain/values.js';
import { interrupted, LbrlError } from '../errors.js';
import { ACCEPT_ENCODING, readAnswerBody } from './body.js';
import { bodyText } from './body-text.js';
import { classify, isHtml, JSON_MEDIA_TYPE, retryDelay, type Seen } from './classify.js';
import { Agent, type Dispatcher, destroyedError, isStaleConnection, request } from './http.js';
import { type CreateRequest, type CreateResponse, describeIssues, type GetResponse } from './models.js';

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

/** The time-outs and limits of a request, the service's and the explorer's alike. */
export const REQUEST_DEFAULTS = {
  timeoutMs: 30_000,
  connectTimeoutMs: 30_000,
  maxRetries: 3,
  maxRetryAfterMs: 60_000,
  maxBodyBytes: 1024 * 1024,
};

/** The connection pool of a client: its time-outs, and TLS always checked but for --insecure-skip-tls-verify. */
export function httpAgent(settings: {
  connectTimeoutMs: number;
  timeoutMs: number;
  insecureSkipTlsVerify?: boolean;
}): Agent {
  return new Agent({
    connect: {
      timeout: settings.connectTimeoutMs,
      // said outright: NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment changes nothing
      rejectUnauthorized: settings.insecureSkipTlsVerify !== true,
    },
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
    // HTTP/1.1 only: the bundle leaves undici's HTTP/2 client out (src/api/no-http2.ts)
    allowH2: false,
  });
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

/** An answer (a 2xx one, except from probeDeposit), not yet read as JSON. */
export interface Answer {
  status: number;
  contentType: string | undefined;
  text: string;
  /** why the body is not UTF-8 (api/body-text.ts), when it is not */
  notUtf8?: string | undefined;
  /** the body's size in bytes */
  bytes?: number;
}

type AttemptResult =
  | { kind: 'answer'; status: number; headers: AnswerHeaders; body: string; bytes: number; notUtf8?: string }
  | { kind: 'error'; error: unknown; sent: boolean; broken?: string | undefined };

type AnswerHeaders = Record<string, string | string[] | undefined>;

/** The code of a network error, or of its cause (undici wraps them). */
export function errorCode(error: unknown): string {
  let link = error as { code?: string; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && link; i++) {
    if (typeof link.code === 'string') return link.code;
    link = link.cause as typeof link;
  }
  return '';
}

export function headerValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

export class DepositClient {
  private readonly settings: Required<
    Pick<ClientOptions, 'timeoutMs' | 'connectTimeoutMs' | 'maxRetries' | 'maxRetryAfterMs' | 'maxBodyBytes'>
  > &
    ClientOptions;
  private readonly dispatcher: Dispatcher;
  /** the token, kept out of every answer as it arrives: no message, trace or cut of it can show it */
  private readonly secrets = new Redactor();

  constructor(options: ClientOptions) {
    this.settings = { ...REQUEST_DEFAULTS, ...options };
    this.dispatcher = options.dispatcher ?? httpAgent(this.settings);
    this.secrets.add(options.token);
  }

  /**
   * Ends the connections at once: a request still waiting (a service that does not answer, after a
   * watch's --timeout) is dropped, never waited for.
   */
  async close(): Promise<void> {
    if (!this.settings.dispatcher) await this.dispatcher.destroy(destroyedError());
  }

  async createDeposit(body: CreateRequest, key?: string): Promise<ApiResult<CreateResponse>> {
    // node:crypto is loaded here, not with the client: a get has no key to make, and loading it
    // costs a short command a tenth of Node's own start
    const idempotencyKey = key ?? (await import('node:crypto')).randomUUID();
    const answer = await this.send('POST', '/v1/api/deposit', JSON.stringify(body), idempotencyKey);
    try {
      return this.parse(answer, createdDepositShape);
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
    const result = this.parse(answer, depositShape);
    // the interface answers a get with 200; a 201 or 202 (created? accepted, not yet done?) is
    // not the deposit's state
    if (answer.status !== 200) {
      throw new LbrlError(
        `the service answered a get with HTTP ${answer.status}, not 200 as the interface says`,
        'contract',
      );
    }
    // an answer about another deposit is no answer about this one (get, watch and list alike)
    if (canonicalId(result.value.id) !== canonicalId(id)) {
      throw new LbrlError(
        `asked for deposit ${id}, but the service answered with deposit ${result.value.id}`,
        'mismatch',
      );
    }
    return result;
  }

  /** A sandbox's own action on a deposit (pay, fail): answered with the deposit as get shows it. */
  async sandboxAction(id: string, action: 'pay' | 'fail'): Promise<ApiResult<GetResponse>> {
    const answer = await this.send(
      'POST',
      `/v1/api/deposit/${encodeURIComponent(id)}/${action}`,
      '{}',
      undefined,
      id,
    );
    return this.parse(answer, depositShape);
  }

  /**
   * One GET of a deposit with the answer as it came, whatever its status: for `auth login`, which
   * judges who answered. Sent once; a failure to reach the service throws as any request's does.
   */
  async probeDeposit(id: string): Promise<Answer> {
    const url = `${this.settings.baseUrl}/v1/api/deposit/${encodeURIComponent(id)}`;
    const headers = this.headers(undefined, undefined);
    this.traceRequest('GET', url, headers, undefined);
    const started = this.settings.now();
    const outcome = await this.attempt('GET', url, undefined, headers);
    this.traceOutcome(outcome, this.settings.now() - started);
    if (outcome.kind === 'error') {
      const facts = {
        method: 'GET' as const,
        baseUrl: this.settings.baseUrl,
        host: new URL(url).host,
        timeoutMs: this.settings.timeoutMs,
        maxRetryAfterMs: this.settings.maxRetryAfterMs,
        depositId: id,
      };
      const verdict = classify(facts, asSeen(outcome), this.settings.now());
      if (!verdict.ok) throw verdict.error;
    }
    const answer = outcome as Extract<AttemptResult, { kind: 'answer' }>;
    return {
      status: answer.status,
      contentType: headerValue(answer.headers['content-type']),
      text: answer.body,
      notUtf8: answer.notUtf8,
      bytes: answer.bytes,
    };
  }

  private headers(body: string | undefined, idempotencyKey: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.settings.token}`,
      accept: 'application/json',
      'accept-encoding': ACCEPT_ENCODING,
      'user-agent': this.settings.userAgent ?? 'lbrl',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    return headers;
  }

  private traceRequest(method: string, url: string, headers: Record<string, string>, body?: string): void {
    this.trace(`> ${method} ${url}`);
    for (const [k, v] of Object.entries(headers))
      this.trace(`> ${k}: ${k === 'authorization' ? 'Bearer [redacted]' : v}`);
    if (body !== undefined) this.trace(`> ${body}`);
  }

  /** A 2xx answer to the models: JSON by its content type and its text, then the schema. */
  private parse<T>(
    { status, contentType, text, notUtf8, bytes }: Answer,
    schema: AnswerSchema<T>,
  ): ApiResult<T> {
    // the type's letters in either case, spelled out: `\w` under the i flag costs a get about 1M
    // instructions to compile (bench/README.md), and matches the same strings
    if (contentType && !JSON_MEDIA_TYPE.test(contentType.trim())) {
      const page = isHtml(contentType, text) ? ': an HTML page' : '';
      throw new LbrlError(
        `the service answered ${status} with content-type ${terminalSafe(JSON.stringify(contentType))}, not JSON${page} (is the base URL right? a proxy?)`,
        'contract',
      );
    }
    if (isHtml(contentType, text)) {
      throw new LbrlError(
        `the service answered ${status} with an HTML page, not JSON (is the base URL right? a proxy?)`,
        'contract',
      );
    }
    if (notUtf8)
      throw new LbrlError(
        `the service's answer is not UTF-8 (${bytes ?? Buffer.byteLength(text)} bytes): ${notUtf8}; JSON is UTF-8`,
        'contract',
      );
    return readAnswerText(text, schema);
  }

  private trace(line: string): void {
    this.settings.trace?.(line);
  }

  /**
   * One attempt; a GET that failed on a kept-alive connection the service had just closed
   * (isStaleConnection) is sent again at once, once, on a new connection, without a note: it was
   * never answered. A POST is not: its bytes were written, and a create is never sent twice.
   */
  private async attempt(
    method: string,
    url: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<AttemptResult> {
    const outcome = await this.attemptOnce(method, url, body, headers);
    if (method !== 'GET' || outcome.kind !== 'error' || !isStaleConnection(outcome.error)) return outcome;
    this.trace('* the service had closed the kept-alive connection; sent again at once on a new one');
    return this.attemptOnce(method, url, body, headers);
  }

  private async attemptOnce(
    method: string,
    url: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<AttemptResult> {
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const signal = this.settings.signal ? AbortSignal.any([this.settings.signal, timeout]) : timeout;
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
      const bytes = await this.bodyOf(res);
      const headersSeen = this.redactedHeaders(res.headers);
      const { text, notUtf8 } = bodyText(bytes, headerValue(headersSeen['content-type']));
      return {
        kind: 'answer',
        status: res.statusCode,
        // and in its headers (Location, Content-Type, any): messages and traces quote them
        headers: headersSeen,
        // a service that echoes the token gets it replaced before anything reads the answer
        body: this.secrets.redact(text),
        bytes: bytes.length,
        ...(notUtf8 ? { notUtf8 } : {}),
      };
    } catch (error) {
      if (error instanceof LbrlError) throw error;
      if (this.settings.signal?.aborted) {
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
      // an answer whose HTTP framing is broken came from the service: it was sent, and answered
      const broken = brokenFraming(error);
      if (broken) return { kind: 'error', error, sent: true, broken };
      // a refused or never-made connection cannot have carried the request
      return { kind: 'error', error, sent: sent || !CONNECT_FAILURES.has(code) };
    }
  }

  /**
   * An answer's body as text, within maxBodyBytes (readAnswerBody: a Content-Length above it refused
   * before any byte is read, the connection closed at once). A body in a content coding lbrl did
   * not ask for is refused when it is the answer (2xx); an error's status still says what it
   * says, its body unread.
   */
  private async bodyOf(res: Dispatcher.ResponseData): Promise<Buffer> {
    const read = await readAnswerBody(res, this.settings.maxBodyBytes);
    if (read.kind === 'read') return read.bytes;
    if (read.kind === 'too-large') {
      throw new LbrlError(
        `the service's answer is larger than ${this.settings.maxBodyBytes} bytes; refused`,
        'contract',
      );
    }
    if (res.statusCode >= 200 && res.statusCode < 300) {
      throw new LbrlError(
        `the service's answer is encoded (content-encoding "${safeText(this.secrets.redact(read.encoding)).slice(0, 60)}"), though lbrl asked for it as it is (accept-encoding ${ACCEPT_ENCODING}); refused`,
        'contract',
      );
    }
    return Buffer.alloc(0);
  }

  /** The headers of an answer with the token kept out of every value. */
  private redactedHeaders(headers: AnswerHeaders): AnswerHeaders {
    const clean: AnswerHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      const safeName = this.secrets.redact(name);
      if (value === undefined) continue;
      clean[safeName] = Array.isArray(value)
        ? value.map((v) => this.secrets.redact(v))
        : this.secrets.redact(String(value));
    }
    return clean;
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    idempotencyKey: string | undefined,
    depositId?: string,
  ): Promise<Answer> {
    const url = `${this.settings.baseUrl}${path}`;
    const headers = this.headers(body, idempotencyKey);
    const request = {
      method,
      baseUrl: this.settings.baseUrl,
      host: new URL(url).host,
      timeoutMs: this.settings.timeoutMs,
      maxRetryAfterMs: this.settings.maxRetryAfterMs,
      idempotencyKey,
      depositId,
    };

    for (let attempt = 0; ; attempt++) {
      this.traceRequest(method, url, headers, body);
      const started = this.settings.now();
      const outcome = await this.attempt(method, url, body, headers);
      this.traceOutcome(outcome, this.settings.now() - started);
      const verdict = classify(request, asSeen(outcome), this.settings.now());
      if (verdict.ok) {
        const answer = outcome as Extract<AttemptResult, { kind: 'answer' }>;
        return {
          status: answer.status,
          contentType: headerValue(answer.headers['content-type']),
          text: answer.body,
          notUtf8: answer.notUtf8,
          bytes: answer.bytes,
        };
      }
      if (!verdict.retry || attempt >= this.settings.maxRetries) throw verdict.error;
      const delayMs = retryDelay(attempt, this.settings.random(), verdict.waitMs);
      this.settings.onRetry?.({
        attempt: attempt + 1,
        delayMs,
        reason: verdict.reason,
        ...(outcome.kind === 'answer' ? { status: outcome.status } : {}),
      });
      this.trace(`* retrying in ${delayMs} ms (${verdict.reason})`);
      try {
        await this.settings.sleep(delayMs, this.settings.signal);
      } catch {
        throw interrupted();
      }
    }
  }

  private traceOutcome(outcome: AttemptResult, elapsed: number): void {
    if (outcome.kind === 'error') {
      const code = errorCode(outcome.error);
      this.trace(`< (no answer after ${elapsed} ms: ${code || errorMessage(outcome.error)})`);
      return;
    }
    const { status, headers, body: text } = outcome;
    this.trace(`< ${status} (${elapsed} ms)`);
    const contentType = headerValue(headers['content-type']);
    if (contentType) this.trace(`< content-type: ${contentType}`);
    this.trace(`< ${text.length > 1500 ? `${text.slice(0, 1500)}… (${outcome.bytes} bytes)` : text}`);
  }
}

/**
 * What broke in an answer that does not keep HTTP/1.1's framing (a malformed status line or header,
 * chunked encoding that is not, a body longer or shorter than its Content-Length), or undefined
 * for a failure of the connection itself. Such an answer reached lbrl: the service was reached.
 */
export function brokenFraming(error: unknown): string | undefined {
  const failure = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const code = typeof failure?.code === 'string' ? failure.code : '';
  const message = typeof failure?.message === 'string' ? failure.message : '';
  if (failure?.name === 'HTTPParserError' || code.startsWith('HPE_'))
    return (
      message.replace(/^Response does not match the HTTP\/1\.1 protocol /, '').replace(/^\((.*)\)$/, '$1') ||
      code
    );
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'its body does not match its Content-Length';
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'its headers are larger than a client reads';
  return undefined;
}

function errorMessage(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}

function asSeen(outcome: AttemptResult): Seen {
  if (outcome.kind === 'error') {
    return {
      kind: 'error',
      code: errorCode(outcome.error),
      message: errorMessage(outcome.error),
      sent: outcome.sent,
      broken: outcome.broken,
    };
  }
  return {
    kind: 'answer',
    status: outcome.status,
    body: outcome.body,
    retryAfter: headerValue(outcome.headers['retry-after']),
    location: headerValue(outcome.headers.location),
    contentType: headerValue(outcome.headers['content-type']),
    notUtf8: outcome.notUtf8,
  };
}

/** A model's schema, as the client reads an answer with it. */
export interface AnswerSchema<T> {
  safeParse(
    value: unknown,
    params: { reportInput: boolean },
  ): { success: true; data: T } | { success: false; error: import('zod/mini').core.$ZodError };
}

/**
 * A deposit answer's JSON text read into the model: parsed, then its fields checked with the
 * schema, a failure named field by field in the words of the answer rules (FIELD_EXPECTED).
 */
/**
 * The literal text of the number at a path of the answer, as the service wrote it: a message
 * quotes 9007199254740993, never the 9007199254740992 JSON.parse read. Parsed again only when asked.
 */
function literalsOf(text: string): (path: readonly PropertyKey[]) => string | undefined {
  let exact: JsonResult | undefined;
  return (path) => {
    exact ??= parseJsonExact(text);
    if (!exact.ok) return undefined;
    let at: JsonValue | undefined = exact.value;
    for (const key of path) {
      if (typeof at !== 'object' || at === null || at instanceof JsonNumber) return undefined;
      at = Array.isArray(at) ? at[Number(key)] : Object.hasOwn(at, key) ? at[String(key)] : undefined;
    }
    return at instanceof JsonNumber ? at.text : undefined;
  };
}

export function readAnswerText<T>(text: string, schema: AnswerSchema<T>): ApiResult<T> {
  if (nestsDeeperThan(text)) {
    throw new LbrlError(
      `the service's answer nests JSON deeper than ${MAX_JSON_DEPTH} levels (${Buffer.byteLength(text)} bytes)`,
      'contract',
    );
  }
  let raw: unknown;
  try {
    // its own fields only: one inherited (a polluted Object.prototype) is nothing the service said
    raw = ownCopy(JSON.parse(text));
  } catch {
    throw new LbrlError(
      `the service's answer is not valid JSON (${Buffer.byteLength(text)} bytes): ${JSON.stringify(text.slice(0, 60))}`,
      'contract',
    );
  }
  // with what was there, so the message can name both values
  const result = schema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    throw new LbrlError(
      `the service's answer breaks the contract: ${describeIssues(result.error, FIELD_EXPECTED, literalsOf(text))}`,
      'contract',
    );
  }
  return { value: result.data, raw, text };
}
