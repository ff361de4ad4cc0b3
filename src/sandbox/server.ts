/**
 * The sandbox Deposit service over HTTP: the rules of the service interface, Bearer
 * authentication, validation errors that name the field, and idempotent creates; and,
 * as a sandbox-only extension, POST .../:id/pay and .../:id/fail for whoever holds the token.
 *
 * Error body: {"error":{"code":"...","message":"...","field":"..."}} (field only on 400).
 *
 * No request ends the server: every request's work runs inside one catch at the handler's
 * boundary, requests the HTTP parser refuses are answered by the 'clientError' handler
 * (sandbox/listen.ts), and each request's work is bounded (headers, body size and time are capped
 * before decoding). A request is served in named steps: `serveRequest` routes and authenticates,
 * then `serveCreate`, `serveGet`, `serveAction` or `serveEsplora` does its work.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { buildDynamicBrCode } from '../domain/brcode.js';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { centsToDecimalText, MAX_CENTS, MIN_CENTS } from '../domain/money.js';
import { parseDepositId } from '../domain/values.js';
import { actOn, type SandboxAction } from './actions.js';
import { errorBody, HttpError, respond, shown } from './http-answers.js';
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

const SPLIT_FEE = /^(\d{1,3})\.(\d{2})%$/;

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
      work = serveRequest(sandbox, authorised, req, res);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.catch((error: unknown) => answerFailure(req, res, error));
  };
}

/** A request that failed: its HttpError as the service words it, anything else a 500. */
function answerFailure(req: http.IncomingMessage, res: http.ServerResponse, error: unknown): void {
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
}

/** The route, the token, the method; then the work of the route. */
async function serveRequest(
  sandbox: SandboxOptions,
  authorised: (header: string | undefined) => boolean,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const target = req.url ?? '';
  if (target.startsWith('/esplora/') && TARGET.test(target)) return serveEsplora(sandbox, req, res);
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
  if (route.kind === 'create') return serveCreate(sandbox, req, res);
  const id = pathDepositId(route.id, route.raw);
  if (route.kind === 'get') return serveGet(sandbox, id, res);
  return serveAction(sandbox, req, res, id, route.action);
}

/** The create request's body read and checked, and its Idempotency-Key. */
async function readCreate(req: http.IncomingMessage): Promise<{ valid: ValidBody; key: string | undefined }> {
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
  return { valid, key: key as string | undefined };
}

async function serveCreate(
  sandbox: SandboxOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const { valid, key } = await readCreate(req);
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
      const prior = await waitForDeposit(sandbox, claim.id);
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
  const deposit = newDeposit(sandbox, id, valid);
  const stored = sandbox.store.publish(deposit);
  respond(
    res,
    201,
    createView(stored, await sandbox.qrPng(stored.qrCodeText)),
    replayed || stored !== deposit ? { 'idempotent-replayed': 'true' } : {},
  );
}

/** The deposit a valid create makes: its BR Code, its fee, when it pays itself. */
function newDeposit(sandbox: SandboxOptions, id: string, valid: ValidBody): StoredDeposit {
  const qrCodeText = buildDynamicBrCode({
    url: `pix.sandbox.lbrl.invalid/v2/${id.replace(/-/g, '')}`,
    amountText: centsToDecimalText(valid.amountInCents),
    merchantName: 'LBRL SANDBOX',
    merchantCity: 'SAO PAULO',
  });
  return {
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
}

/** A deposit another request is still writing: wait a little for it. */
async function waitForDeposit(sandbox: SandboxOptions, id: string): Promise<StoredDeposit | undefined> {
  const until = Date.now() + (sandbox.claimWaitMs ?? 2000);
  for (;;) {
    const found = sandbox.store.load(id);
    if (found || Date.now() >= until) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The stored deposit a path names; 404 for an unknown or malformed id alike. */
function pathDepositId(id: string | undefined, raw: string): string {
  const parsed = id === undefined ? undefined : parseDepositId(id);
  if (!parsed?.ok) throw new HttpError(404, 'not_found', `deposit ${shown(id ?? raw)} not found`);
  return parsed.value;
}

/** The get answer; a settlement sent by now carries its transaction's txid (built on first read). */
async function depositView(
  sandbox: SandboxOptions,
  deposit: StoredDeposit,
  now: number,
): Promise<Record<string, unknown>> {
  const events = sandbox.store.eventsOf(deposit.id);
  const txid = sentAt(deposit, events, now)
    ? await (await import('./chain-store.js')).settlementTxid(sandbox.store, deposit, events, now)
    : undefined;
  return getView(deposit, events, now, txid);
}

async function serveGet(sandbox: SandboxOptions, id: string, res: http.ServerResponse): Promise<void> {
  const deposit = sandbox.store.load(id);
  if (!deposit) throw new HttpError(404, 'not_found', `deposit ${id} not found`);
  respond(res, 200, await depositView(sandbox, deposit, sandbox.now()));
}

/** The sandbox's chain, as an Esplora API under /esplora (public, like a block explorer). */
async function serveEsplora(
  sandbox: SandboxOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
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

async function serveAction(
  sandbox: SandboxOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  id: string,
  action: SandboxAction,
): Promise<void> {
  await readBody(req); // a body means nothing here, but is read (within the cap) to keep the connection
  const now = sandbox.now();
  const outcome = actOn(sandbox.store, id, action, now);
  if (!outcome.ok && outcome.reason === 'not_found')
    throw new HttpError(404, 'not_found', `deposit ${id} not found`);
  if (!outcome.ok)
    throw new HttpError(409, 'invalid_state', `deposit ${id} is ${outcome.status}; ${outcome.rule}`);
  respond(res, 200, await depositView(sandbox, outcome.deposit, now));
}
