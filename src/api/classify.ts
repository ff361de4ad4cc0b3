/**
 * What the outcome of one HTTP request means, as plain values in and a verdict out (no socket): a
 * transport failure or an answer's status, read into one LbrlError with its exit code, whether the
 * request is safe and worth sending again, and how long the service asked to wait. A create is sent
 * again only when it cannot have reached the service (a refused connection) or the service said so
 * (429); a GET whenever it failed in transit or answered 5xx. The service's own message is read from
 * whatever its error body looks like, and every failure is said in words (the host, the port, the
 * certificate). The Deposit client and the explorer's client both use it.
 */
import { safeText } from '../domain/text/safe-text.js';
import { LbrlError } from '../errors.js';

export const TLS_FAILURES = /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_VERIFY/;

/** Delay the service asked for, from `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d{1,7}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The service's own message, whatever the shape of its error body; a body that is not UTF-8
 * (`notUtf8`, api/body-text.ts: UTF-16, Latin-1, another charset) is not quoted, as a 2xx one is
 * not read: its bytes read as UTF-8 would be garbage, so what is said is that it could not be read.
 */
export function serviceMessage(body: string, notUtf8?: string): string {
  if (notUtf8 !== undefined) return `its message could not be read as UTF-8 (${notUtf8})`;
  let text = body.trim();
  try {
    const json = JSON.parse(body) as unknown;
    const pick = (value: unknown): string | undefined => {
      if (typeof value === 'string' && value.trim()) return value;
      if (Array.isArray(value)) return value.map(pick).filter(Boolean).join('; ') || undefined;
      if (value && typeof value === 'object') {
        const fields = value as Record<string, unknown>;
        for (const key of ['message', 'error_description', 'detail', 'title', 'error', 'errors', 'msg']) {
          const found = pick(fields[key]);
          if (found) {
            const field =
              typeof fields.field === 'string'
                ? fields.field
                : typeof fields.path === 'string'
                  ? fields.path
                  : undefined;
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

/** An attempt's outcome as classify() needs it: plain values only. */
export type Seen =
  | {
      kind: 'answer';
      status: number;
      body: string;
      retryAfter?: string | undefined;
      location?: string | undefined;
      contentType?: string | undefined;
      /** why the body is not UTF-8 (api/body-text.ts), when it is not: its message is not quoted */
      notUtf8?: string | undefined;
    }
  | {
      kind: 'error';
      code: string;
      message: string;
      sent: boolean;
      /** what broke in an answer that does not keep HTTP's framing (it came, so the service was reached) */
      broken?: string | undefined;
    };

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

export type RequestVerdict =
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
export function classify(facts: RequestFacts, observed: Seen, now: number): RequestVerdict {
  if (observed.kind === 'error') return failureVerdict(facts, observed);
  const { status } = observed;
  // an HTML page with a 2xx is refused by parse(), which can say that a create may have arrived
  if (status >= 200 && status < 300) return { ok: true };
  const html = isHtml(observed.contentType, observed.body);
  const msg = html
    ? 'an HTML page, not the service'
    : serviceMessage(observed.body, observed.notUtf8) || `HTTP ${status}`;
  return refusalVerdict(facts, observed, msg, html) ?? busyVerdict(facts, observed, msg, now);
}

/** a POST is never sent again once it may have arrived; only a create carries an Idempotency-Key */
const isCreate = (facts: RequestFacts) => facts.method === 'POST' && facts.idempotencyKey !== undefined;

/** A create that may have reached the service: said so, with its key, so no second charge is made blindly. */
function mayExist(
  facts: RequestFacts,
  reason: string,
  type: 'timeout' | 'network' | 'service' | 'contract',
): LbrlError {
  return new LbrlError(
    `${reason}. The create request may have reached the service, so it was not sent again: a deposit may exist (Idempotency-Key ${facts.idempotencyKey})`,
    type,
    'check for the deposit before creating another; re-running the command makes a new charge',
  );
}

/** An error that sending again would not mend. */
function noRetry(error: LbrlError): RequestVerdict {
  return { ok: false, error, retry: false, reason: error.message };
}

/** A transport failure: plain HTTP to https, a certificate, a time-out, a connection that failed. */
function failureVerdict(facts: RequestFacts, observed: Extract<Seen, { kind: 'error' }>): RequestVerdict {
  const isPost = facts.method === 'POST';
  if (observed.broken) {
    // the service answered, in something that is not HTTP: the contract is broken, not the network
    const said = `the service's answer breaks HTTP/1.1 (${safeText(observed.broken)})`;
    return noRetry(isCreate(facts) ? mayExist(facts, said, 'contract') : new LbrlError(said, 'contract'));
  }
  const plain = plainHttpAnswer(facts, observed);
  if (plain) return noRetry(new LbrlError(plain, 'network'));
  if (TLS_FAILURES.test(observed.code))
    return noRetry(
      new LbrlError(`${certificateProblem(facts.host, observed.code)}; nothing was sent`, 'network'),
    );
  const timedOut =
    /TIMEOUT|AbortError|TimeoutError/i.test(observed.code) || /timeout|aborted/i.test(observed.message);
  const type = timedOut ? 'timeout' : 'network';
  const reason = timedOut
    ? `no answer within ${Math.round(facts.timeoutMs / 1000)} s`
    : `connection failed (${observed.code || observed.message})`;
  const said =
    timedOut && observed.code !== 'UND_ERR_CONNECT_TIMEOUT' ? reason : connectionProblem(facts, observed);
  const error =
    isPost && observed.sent
      ? isCreate(facts)
        ? mayExist(facts, said, type)
        : new LbrlError(`${said}; the request may have reached the service`, type)
      : new LbrlError(`could not reach the service at ${facts.baseUrl}: ${said}`, type);
  return { ok: false, error, retry: !isPost || !observed.sent, reason };
}

/** An answer that refuses the request for good (a redirect, 4xx but 429), or undefined. */
function refusalVerdict(
  facts: RequestFacts,
  observed: Extract<Seen, { kind: 'answer' }>,
  msg: string,
  html: boolean,
): RequestVerdict | undefined {
  const { status } = observed;
  if (status >= 300 && status < 400) {
    const said = `the service answered ${status} redirecting to ${observed.location === undefined ? '(no location)' : safeText(observed.location)}; redirects are not followed`;
    // a create answered 303 See Other was made, and points to it: never said as if nothing were
    return noRetry(isCreate(facts) ? mayExist(facts, said, 'service') : new LbrlError(said, 'service'));
  }
  if (status === 400 || status === 422)
    return noRetry(new LbrlError(`the service refused the request (${status}): ${msg}`, 'validation'));
  if (status === 401 || status === 403) {
    return noRetry(
      new LbrlError(
        `the service refused the token (${status}): ${msg}`,
        'auth',
        'run `lbrl auth login`, or set LBRL_TOKEN',
      ),
    );
  }
  if (status === 404) return noRetry(notFoundError(facts, observed, msg, html));
  if (status === 409) {
    // a conflict on a create is its Idempotency-Key's, or a deposit's that exists: not a plain refusal
    const said = `the service refused the request (409): ${msg}`;
    return noRetry(isCreate(facts) ? mayExist(facts, said, 'service') : new LbrlError(said, 'validation'));
  }
  return undefined;
}

/**
 * Only the service's own JSON error says the deposit is unknown; anything else is another URL. A
 * JSON error in another charset than UTF-8 is the service's by its content type (its words are
 * not read, so they are not quoted): the deposit is not found, and the message says it was unread.
 */
function notFoundError(
  facts: RequestFacts,
  observed: Extract<Seen, { kind: 'answer' }>,
  msg: string,
  html: boolean,
): LbrlError {
  const unread = observed.notUtf8 !== undefined;
  const problem = html
    ? 'answered 404 with an HTML page'
    : unread
      ? JSON_MEDIA_TYPE.test(observed.contentType?.trim() ?? '')
        ? undefined
        : `answered 404 without the service's JSON error (${msg})`
      : !serviceShaped(observed.body)
        ? `answered 404 without the service's JSON error (${msg})`
        : ROUTE_MISSING.test(msg)
          ? `answered 404: ${msg}`
          : undefined;
  if (problem === undefined && facts.depositId)
    return new LbrlError(`deposit ${facts.depositId} not found${unread ? `; ${msg}` : ''}`, 'not_found');
  return wrongEndpoint(facts, problem ?? `answered 404 without the service's JSON error (${msg})`);
}

/**
 * A JSON media type: application/json, or a +json suffix (application/problem+json). The type's
 * letters in either case, spelled out: `\w` under the i flag costs a get about 1M instructions to
 * compile (bench/README.md), and matches the same strings.
 */
export const JSON_MEDIA_TYPE =
  /^[Aa][Pp][Pp][Ll][Ii][Cc][Aa][Tt][Ii][Oo][Nn]\/([\w.+-]*\+)?[Jj][Ss][Oo][Nn]\b/;

/** Rate limited (429), a 5xx, or another status: with what the service asked to wait. */
function busyVerdict(
  facts: RequestFacts,
  observed: Extract<Seen, { kind: 'answer' }>,
  msg: string,
  now: number,
): RequestVerdict {
  const { status } = observed;
  const isPost = facts.method === 'POST';
  const waitMs = retryAfterMs(observed.retryAfter, now);
  if (status === 429) {
    const error = new LbrlError(
      `the service is rate limiting requests (429)${waitMs !== undefined ? `; it asks to wait ${Math.ceil(waitMs / 1000)} s` : ''}: ${msg}`,
      'rate_limited',
    );
    if (waitMs !== undefined) error.retryAfterMs = waitMs;
    return {
      ok: false,
      error,
      retry: waitMs === undefined || waitMs <= facts.maxRetryAfterMs,
      waitMs,
      reason: 'rate limited (429)',
    };
  }
  if (status >= 500) {
    const error = isPost
      ? mayExist(facts, `the service answered ${status}: ${msg}`, 'service')
      : new LbrlError(`the service answered ${status}: ${msg}`, 'service');
    if (waitMs !== undefined) error.retryAfterMs = waitMs;
    return { ok: false, error, retry: !isPost, waitMs, reason: `the service answered ${status}` };
  }
  // a status the interface does not name (418, 410, 402, ...): a create it answered may have been made
  const said = `the service answered ${status}: ${msg}`;
  return noRetry(isCreate(facts) ? mayExist(facts, said, 'service') : new LbrlError(said, 'service'));
}

/** An HTML page (a proxy's, a login wall), by its content type or its first bytes. */
export function isHtml(contentType: string | undefined, body: string): boolean {
  if (contentType && /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType)) return true;
  return /^\s*(<!doctype html|<html[\s>])/i.test(body.slice(0, 200));
}

/** A JSON object from which the service's message can be read: the shape of its errors. */
function serviceShaped(body: string): boolean {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return false;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return false;
  const msg = serviceMessage(body);
  return msg !== '' && msg !== body.trim();
}

/** A 404 message that says the route, not the deposit, is unknown. */
const ROUTE_MISSING =
  /no such endpoint|no route|cannot (get|post)|route not found|unknown (route|endpoint|path)|no handler|no static resource/i;

/** The URL is not the Deposit service's endpoint: the base URL is wrong (exit 2). */
function wrongEndpoint(facts: RequestFacts, what: string): LbrlError {
  return new LbrlError(
    `${facts.method} ${facts.baseUrl}/v1/api/... ${what}: the URL is not the Deposit service's endpoint (is the base URL right?)`,
    'endpoint',
    'the base URL is the part before /v1/api (e.g. https://pay.example.com); check it with `lbrl auth status`',
  );
}

/** `https://` to a server that speaks plain HTTP: the TLS handshake reads an HTTP answer. */
function plainHttpAnswer(
  facts: RequestFacts,
  failure: { code: string; message: string },
): string | undefined {
  if (!facts.baseUrl.startsWith('https:')) return undefined;
  if (
    !/WRONG_VERSION_NUMBER|HTTP_REQUEST|PACKET_LENGTH_TOO_LONG/i.test(failure.code) &&
    !/wrong version number|http request|packet length too long/i.test(failure.message)
  )
    return undefined;
  return `${facts.host} answered in plain HTTP to an https:// request (the TLS handshake failed: ${failure.code || 'wrong version number'}); this is not a certificate problem: use the server's HTTPS port, or http:// if it is a local server; nothing was sent`;
}

function certificateProblem(host: string, code: string): string {
  const what: Record<string, string> = {
    CERT_HAS_EXPIRED: 'has expired',
    CERT_NOT_YET_VALID: 'is not valid yet (is the clock right?)',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'is self-signed',
    SELF_SIGNED_CERT_IN_CHAIN:
      'comes from a self-signed authority this machine does not trust (NODE_EXTRA_CA_CERTS?)',
    ERR_TLS_CERT_ALTNAME_INVALID: `is for another host name than ${host}`,
    UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      'comes from an authority this machine does not trust (NODE_EXTRA_CA_CERTS?)',
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
      'comes from an authority this machine does not trust (NODE_EXTRA_CA_CERTS?)',
    CERT_REVOKED: 'has been revoked',
  };
  const said = what[code];
  return `the TLS certificate of ${host} could not be verified (${code})${said ? `: it ${said}` : ''}`;
}

/** What a failed connection means, in words: the host, the port, the network. */
function connectionProblem(facts: RequestFacts, failure: { code: string; message: string }): string {
  let hostname = facts.host;
  let port = '';
  try {
    const url = new URL(facts.baseUrl);
    hostname = url.hostname;
    port = url.port || (url.protocol === 'https:' ? '443' : '80');
  } catch {
    // the base URL was checked before; keep the host as given
  }
  switch (failure.code) {
    case 'ENOTFOUND':
      return `could not find the host ${hostname} (DNS: no such name; ENOTFOUND); check the base URL`;
    case 'EAI_AGAIN':
      return `could not look up the host ${hostname} (DNS did not answer: no network, or a DNS problem; EAI_AGAIN)`;
    case 'ECONNREFUSED':
      return `nothing is listening at ${hostname}:${port} (connection refused): is the service running, and is the port right?`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${hostname} (${failure.code}): is this machine on the network?`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect to ${hostname}:${port} in time (UND_ERR_CONNECT_TIMEOUT): a firewall, or the wrong host?`;
    case 'ECONNRESET':
      return `the connection to ${hostname}:${port} was reset (ECONNRESET)`;
    default:
      return `connection failed (${failure.code || failure.message})`;
  }
}

/** Capped exponential back-off with jitter, never shorter than what the service asked. */
export function retryDelay(attempt: number, random: number, waitMs?: number): number {
  const backoff = Math.min(5000, 500 * 2 ** attempt) * (0.5 + random / 2);
  return Math.round(Math.max(backoff, waitMs ?? 0));
}
