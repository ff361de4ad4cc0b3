/**
 * The sandbox Deposit service over HTTP: the rules of the service interface, Bearer
 * authentication, validation errors that name the field, and idempotent creates; and,
 * as a sandbox-only extension, POST .../:id/pay and .../:id/fail for whoever holds the token.
 *
 * Error body: {"error":{"code":"...","message":"...","field":"..."}} (field only on 400).
 *
 * No request ends the server: every request's work runs inside one catch at the handler's
 * boundary, requests the HTTP parser refuses are answered by the 'clientError' handler, and
 * each request's work is bounded (headers, body size and time are capped before decoding).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { buildDynamicBrCode } from '../domain/brcode.js';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { centsToDecimalText, MAX_CENTS, MIN_CENTS } from '../domain/money.js';
import { parseDepositId } from '../domain/values.js';
import { actOn, type SandboxAction } from './actions.js';
import { createView, feeFor, getView, type StoredDeposit, sentAt } from './lifecycle.js';
import type { SandboxStore } from './store.js';

export interface SandboxOptions {
  store: SandboxStore;
  token: string;
  /** seconds after creation at which a deposit pays itself, or null */
  autopaySeconds: number | null;
  now: () => number;
  qrPng: (text: string) => Promise<string>;
  /** how long a repeated Idempotency-Key waits for the first request's deposit */
  claimWaitMs?: number;
  /** one line per request answered: method, path, status, time in ms; nothing when absent */
  log?: (line: string) => void;
  /** a monotonic clock in ms, for the times logged */
  elapsed?: () => number;
}

export const MAX_BODY = 64 * 1024;
/** the longest value echoed in a message or the log */
const ECHO_LIMIT = 120;
const SPLIT_FEE = /^(\d{1,3})\.(\d{2})%$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function respond(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function errorBody(code: string, message: string, field?: string) {
  const error: Record<string, string> = { code, message };
  if (field) error.field = field;
  return { error };
}

/**
 * A value from the request as it may be shown in a message or a log line: printable ASCII,
 * anything else percent-escaped, cut at ECHO_LIMIT characters.
 */
export function shown(value: string): string {
  const cut = value.length > ECHO_LIMIT ? value.slice(0, ECHO_LIMIT) : value;
  let out = '';
  for (const piece of cut) {
    const code = piece.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f) out += piece;
    else
      for (const b of Buffer.from(piece, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return value.length > ECHO_LIMIT ? `${out}...` : out;
}

/** A path segment percent-decoded, or undefined when its encoding is malformed. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

type Route =
  | { kind: 'create' }
  | { kind: 'get'; id: string | undefined; raw: string }
  | { kind: 'act'; action: SandboxAction; id: string | undefined; raw: string };

/**
 * The route of a request target, in one pass over it (no regular expression that could
 * backtrack on a long run of slashes): origin-form paths only, trailing slashes ignored.
 */
function routeOf(target: string): Route | 'malformed' | 'unknown' {
  if (!target.startsWith('/') || !TARGET.test(target)) return 'malformed';
  const queryAt = target.indexOf('?');
  const parts = (queryAt < 0 ? target : target.slice(0, queryAt)).split('/');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (
    parts.length < 4 ||
    parts[0] !== '' ||
    parts[1] !== 'v1' ||
    parts[2] !== 'api' ||
    parts[3] !== 'deposit'
  )
    return 'unknown';
  if (parts.length === 4) return { kind: 'create' };
  const raw = parts[4]!;
  if (raw === '') return 'unknown';
  const id = decodedSegment(raw);
  if (parts.length === 5) return { kind: 'get', id, raw };
  const action = parts[5];
  if (parts.length === 6 && (action === 'pay' || action === 'fail')) return { kind: 'act', action, id, raw };
  return 'unknown';
}

/** RFC 3986 path and query characters: anything else ('[', spaces, non-ASCII) is a malformed target. */
const TARGET = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

function invalid(field: string, message: string): HttpError {
  return new HttpError(400, 'validation_error', message, field);
}

function checkAddress(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalid(field, `${field} is required: a Liquid address`);
  const address = decodeLiquidAddress(value);
  if (!address.ok) throw invalid(field, `${field} is not a valid Liquid address: ${address.reason}`);
  return address.value.address;
}

interface ValidBody {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress: string | null;
  splitBasisPoints: number | null;
}

export function validateCreate(body: unknown): ValidBody {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid('body', 'the body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const cents = fields.amountInCents;
  if (cents === undefined) throw invalid('amountInCents', 'amountInCents is required');
  if (typeof cents !== 'number' || !Number.isInteger(cents))
    throw invalid('amountInCents', 'amountInCents must be an integer');
  if (cents < MIN_CENTS || cents > MAX_CENTS)
    throw invalid('amountInCents', `amountInCents must be between ${MIN_CENTS} and ${MAX_CENTS}`);
  const lbrlAddress = checkAddress('lbrlAddress', fields.lbrlAddress);
  const hasSplitAddress = fields.lbrlSplitAddress !== undefined && fields.lbrlSplitAddress !== null;
  const hasSplitFee = fields.splitFee !== undefined && fields.splitFee !== null;
  if (hasSplitFee && !hasSplitAddress)
    throw invalid('lbrlSplitAddress', 'splitFee requires lbrlSplitAddress');
  if (hasSplitAddress && !hasSplitFee) throw invalid('splitFee', 'lbrlSplitAddress requires splitFee');
  if (!hasSplitAddress)
    return { amountInCents: cents, lbrlAddress, lbrlSplitAddress: null, splitBasisPoints: null };
  const lbrlSplitAddress = checkAddress('lbrlSplitAddress', fields.lbrlSplitAddress);
  const match = typeof fields.splitFee === 'string' ? SPLIT_FEE.exec(fields.splitFee) : null;
  const basisPoints = match ? Number(match[1]) * 100 + Number(match[2]) : 0;
  if (!match || basisPoints < 1 || basisPoints > 10_000) {
    throw invalid(
      'splitFee',
      'splitFee must be a percentage written "X.XX%", above 0.00% and at most 100.00%',
    );
  }
  return { amountInCents: cents, lbrlAddress, lbrlSplitAddress, splitBasisPoints: basisPoints };
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(): HttpError {
  return new HttpError(413, 'payload_too_large', `the body is larger than ${MAX_BODY} bytes`);
}

export function createHandler(sandbox: SandboxOptions): http.RequestListener {
  const expected = Buffer.from(`Bearer ${sandbox.token}`);
  const authorised = (header: string | undefined) => {
    if (!header) return false;
    const got = Buffer.from(header);
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  const elapsed = sandbox.elapsed ?? (() => performance.now());

  async function create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const type = req.headers['content-type'];
    if (type !== undefined && !JSON_TYPE.test(type)) {
      throw new HttpError(
        415,
        'unsupported_media_type',
        `the body must be JSON (Content-Type: application/json), not ${shown(type)}`,
      );
    }
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalid('body', 'the body is not valid JSON');
    }
    const valid = validateCreate(body);
    const key = req.headers['idempotency-key'];
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255)) {
      throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    }
    let id: string = randomUUID();
    let replayed = false;
    if (key) {
      const claim = sandbox.store.claimKey(key, JSON.stringify(valid), id, sandbox.now());
      if (claim.kind === 'conflict') {
        throw new HttpError(
          422,
          'idempotency_conflict',
          'this Idempotency-Key was already used with another request body',
        );
      }
      if (claim.kind === 'existing') {
        const prior = await waitForDeposit(claim.id);
        if (prior) {
          respond(res, 201, createView(prior, await sandbox.qrPng(prior.qrCodeText)), {
            'idempotent-replayed': 'true',
          });
          return;
        }
        // the request that claimed the key died before writing its deposit: finish it here
        id = claim.id;
        replayed = true;
      }
    }
    const qrCodeText = buildDynamicBrCode({
      url: `pix.sandbox.lbrl.invalid/v2/${id.replace(/-/g, '')}`,
      amountText: centsToDecimalText(valid.amountInCents),
      merchantName: 'LBRL SANDBOX',
      merchantCity: 'SAO PAULO',
    });
    const deposit: StoredDeposit = {
      id,
      amountInCents: valid.amountInCents,
      feeCents: feeFor(valid.amountInCents),
      destinationAddress: valid.lbrlAddress,
      splitAddress: valid.lbrlSplitAddress,
      splitBasisPoints: valid.splitBasisPoints,
      qrCodeText,
      createdAt: sandbox.now(),
      autopayAfterMs: sandbox.autopaySeconds === null ? null : sandbox.autopaySeconds * 1000,
    };
    const stored = sandbox.store.publish(deposit);
    respond(
      res,
      201,
      createView(stored, await sandbox.qrPng(stored.qrCodeText)),
      replayed || stored !== deposit ? { 'idempotent-replayed': 'true' } : {},
    );
  }

  /** A deposit another request is still writing: wait a little for it. */
  async function waitForDeposit(id: string): Promise<StoredDeposit | undefined> {
    const until = Date.now() + (sandbox.claimWaitMs ?? 2000);
    for (;;) {
      const found = sandbox.store.load(id);
      if (found || Date.now() >= until) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The stored deposit a path names; 404 for an unknown or malformed id alike. */
  function depositId(id: string | undefined, raw: string): string {
    const parsed = id === undefined ? undefined : parseDepositId(id);
    if (!parsed?.ok) throw new HttpError(404, 'not_found', `deposit ${shown(id ?? raw)} not found`);
    return parsed.value;
  }

  /** The get answer; a settlement sent by now carries its transaction's txid (built on first read). */
  async function view(deposit: StoredDeposit, now: number): Promise<Record<string, unknown>> {
    const events = sandbox.store.eventsOf(deposit.id);
    const txid = sentAt(deposit, events, now)
      ? await (await import('./chain-store.js')).settlementTxid(sandbox.store, deposit, events, now)
      : undefined;
    return getView(deposit, events, now, txid);
  }

  async function get(id: string, res: http.ServerResponse): Promise<void> {
    const deposit = sandbox.store.load(id);
    if (!deposit) throw new HttpError(404, 'not_found', `deposit ${id} not found`);
    respond(res, 200, await view(deposit, sandbox.now()));
  }

  /** The sandbox's chain, as an Esplora API under /esplora (public, like a block explorer). */
  async function esplora(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const [{ handleEsplora }, { findChainTx, chainTxsPaying }] = await Promise.all([
      import('./chain-esplora.js'),
      import('./chain-store.js'),
    ]);
    await handleEsplora(
      req,
      res,
      {
        now: sandbox.now,
        findTx: (txid) => findChainTx(sandbox.store, txid),
        txsPaying: (script) => chainTxsPaying(sandbox.store, script, sandbox.now()),
      },
      '/esplora',
    );
  }

  async function act(req: http.IncomingMessage, res: http.ServerResponse, id: string, action: SandboxAction) {
    await readBody(req); // a body means nothing here, but is read (within the cap) to keep the connection
    const now = sandbox.now();
    const outcome = actOn(sandbox.store, id, action, now);
    if (!outcome.ok && outcome.reason === 'not_found')
      throw new HttpError(404, 'not_found', `deposit ${id} not found`);
    if (!outcome.ok)
      throw new HttpError(409, 'invalid_state', `deposit ${id} is ${outcome.status}; ${outcome.rule}`);
    respond(res, 200, await view(outcome.deposit, now));
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = req.url ?? '';
    if (target.startsWith('/esplora/') && TARGET.test(target)) return esplora(req, res);
    const route = routeOf(target);
    if (route === 'malformed')
      throw new HttpError(400, 'bad_request', 'the request target must be a path such as /v1/api/deposit');
    if (route === 'unknown')
      throw new HttpError(
        404,
        'not_found',
        `no such endpoint: ${shown(req.method ?? '')} ${shown(req.url ?? '')}`,
      );
    if (!authorised(req.headers.authorization)) {
      throw new HttpError(
        401,
        'unauthorized',
        'missing or invalid access token (Authorization: Bearer <token>)',
      );
    }
    const allow = route.kind === 'get' ? 'GET' : 'POST';
    if (req.method !== allow) {
      const what =
        route.kind === 'create'
          ? 'create a deposit'
          : route.kind === 'get'
            ? 'read a deposit'
            : route.action === 'pay'
              ? 'pay a deposit'
              : 'fail a deposit';
      throw new HttpError(405, 'method_not_allowed', `use ${allow} to ${what}`, undefined, { allow });
    }
    if (route.kind === 'create') return create(req, res);
    const id = depositId(route.id, route.raw);
    if (route.kind === 'get') return get(id, res);
    return act(req, res, id, route.action);
  }

  return (req, res) => {
    const started = elapsed();
    req.on('error', () => {}); // a client that resets mid-body: the read below fails, and that is all
    res.on('error', () => {});
    if (sandbox.log) {
      const log = sandbox.log;
      res.once('close', () => {
        const status = res.headersSent ? String(res.statusCode) : 'aborted';
        log(
          `${shown(req.method ?? '-')} ${shown(req.url ?? '-')} ${status} ${Math.round(elapsed() - started)} ms`,
        );
      });
    }
    let work: Promise<void>;
    try {
      work = handle(req, res);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return void res.destroy();
      // a body left unread (refused before or while reading it) is not drained: close after answering
      const close: Record<string, string> = req.complete ? {} : { connection: 'close' };
      try {
        if (error instanceof HttpError) {
          respond(res, error.status, errorBody(error.code, error.message, error.field), {
            ...close,
            ...error.headers,
          });
        } else {
          respond(res, 500, errorBody('internal', 'the sandbox failed to answer'), close);
        }
      } catch {
        res.destroy();
      }
    });
  };
}

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

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/** A whole answer written straight to a socket the HTTP parser has given up on. */
function rawAnswer(status: number, code: string, message: string): string {
  const body = JSON.stringify(errorBody(code, message));
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
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
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
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
  });
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
