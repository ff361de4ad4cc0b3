/**
 * The sandbox Deposit service over HTTP: the rules of the service interface, Bearer
 * authentication, validation errors that name the field, and idempotent creates.
 *
 * Error body: {"error":{"code":"...","message":"...","field":"..."}} (field only on 400).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeLiquidAddress } from '../domain/address.js';
import { buildDynamicBrCode } from '../domain/brcode.js';
import { centsToDecimalText } from '../domain/money.js';
import { parseDepositId } from '../domain/values.js';
import { createView, feeFor, getView, type StoredDeposit } from './lifecycle.js';
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
}

const MAX_BODY = 64 * 1024;
const SPLIT_FEE = /^(\d{1,3})\.(\d{2})%$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

function send(
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

function invalid(field: string, message: string): HttpError {
  return new HttpError(400, 'validation_error', message, field);
}

function checkAddress(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalid(field, `${field} is required: a Liquid address`);
  const r = decodeLiquidAddress(value);
  if (!r.ok) throw invalid(field, `${field} is not a valid Liquid address: ${r.reason}`);
  return r.value.address;
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
  const b = body as Record<string, unknown>;
  const cents = b.amountInCents;
  if (cents === undefined) throw invalid('amountInCents', 'amountInCents is required');
  if (typeof cents !== 'number' || !Number.isInteger(cents))
    throw invalid('amountInCents', 'amountInCents must be an integer');
  if (cents < 1 || cents > 600_000)
    throw invalid('amountInCents', 'amountInCents must be between 1 and 600000');
  const lbrlAddress = checkAddress('lbrlAddress', b.lbrlAddress);
  const hasSplitAddress = b.lbrlSplitAddress !== undefined && b.lbrlSplitAddress !== null;
  const hasSplitFee = b.splitFee !== undefined && b.splitFee !== null;
  if (hasSplitFee && !hasSplitAddress)
    throw invalid('lbrlSplitAddress', 'splitFee requires lbrlSplitAddress');
  if (hasSplitAddress && !hasSplitFee) throw invalid('splitFee', 'lbrlSplitAddress requires splitFee');
  if (!hasSplitAddress)
    return { amountInCents: cents, lbrlAddress, lbrlSplitAddress: null, splitBasisPoints: null };
  const lbrlSplitAddress = checkAddress('lbrlSplitAddress', b.lbrlSplitAddress);
  const m = typeof b.splitFee === 'string' ? SPLIT_FEE.exec(b.splitFee) : null;
  const bp = m ? Number(m[1]) * 100 + Number(m[2]) : 0;
  if (!m || bp < 1 || bp > 10_000) {
    throw invalid(
      'splitFee',
      'splitFee must be a percentage written "X.XX%", above 0.00% and at most 100.00%',
    );
  }
  return { amountInCents: cents, lbrlAddress, lbrlSplitAddress, splitBasisPoints: bp };
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw new HttpError(413, 'payload_too_large', `the body is larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createHandler(o: SandboxOptions): http.RequestListener {
  const expected = Buffer.from(`Bearer ${o.token}`);
  const authorised = (header: string | undefined) => {
    if (!header) return false;
    const got = Buffer.from(header);
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  async function create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalid('body', 'the body is not valid JSON');
    }
    const v = validateCreate(body);
    const key = req.headers['idempotency-key'];
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255)) {
      throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    }
    let id: string = randomUUID();
    let replayed = false;
    if (key) {
      const claim = o.store.claimKey(key, JSON.stringify(v), id);
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
          send(res, 201, createView(prior), { 'idempotent-replayed': 'true' });
          return;
        }
        // the request that claimed the key died before writing its deposit: finish it here
        id = claim.id;
        replayed = true;
      }
    }
    const qrCodeText = buildDynamicBrCode({
      url: `pix.sandbox.lbrl.invalid/v2/${id.replace(/-/g, '')}`,
      amountText: centsToDecimalText(v.amountInCents),
      merchantName: 'LBRL SANDBOX',
      merchantCity: 'SAO PAULO',
    });
    const deposit: StoredDeposit = {
      id,
      amountInCents: v.amountInCents,
      feeCents: feeFor(v.amountInCents),
      destinationAddress: v.lbrlAddress,
      splitAddress: v.lbrlSplitAddress,
      splitBasisPoints: v.splitBasisPoints,
      qrCodeText,
      qrCode: await o.qrPng(qrCodeText),
      createdAt: o.now(),
      autopayAfterMs: o.autopaySeconds === null ? null : o.autopaySeconds * 1000,
    };
    const stored = o.store.publish(deposit);
    send(
      res,
      201,
      createView(stored),
      replayed || stored !== deposit ? { 'idempotent-replayed': 'true' } : {},
    );
  }

  /** A deposit another request is still writing: wait a little for it. */
  async function waitForDeposit(id: string): Promise<StoredDeposit | undefined> {
    const until = Date.now() + (o.claimWaitMs ?? 2000);
    for (;;) {
      const found = o.store.load(id);
      if (found || Date.now() >= until) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  function get(id: string, res: http.ServerResponse): void {
    const parsed = parseDepositId(id);
    const deposit = parsed.ok ? o.store.load(parsed.value) : undefined;
    if (!deposit) throw new HttpError(404, 'not_found', `deposit ${id} not found`);
    send(res, 200, getView(deposit, o.store.eventsOf(deposit.id), o.now()));
  }

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const route = url.pathname.replace(/\/+$/, '');
    const handle = async () => {
      const isCreate = route === '/v1/api/deposit';
      const getMatch = /^\/v1\/api\/deposit\/([^/]+)$/.exec(route);
      if (!isCreate && !getMatch)
        throw new HttpError(404, 'not_found', `no such endpoint: ${req.method} ${url.pathname}`);
      if (!authorised(req.headers.authorization)) {
        throw new HttpError(
          401,
          'unauthorized',
          'missing or invalid access token (Authorization: Bearer <token>)',
        );
      }
      if (isCreate) {
        if (req.method !== 'POST')
          throw new HttpError(405, 'method_not_allowed', 'use POST to create a deposit');
        await create(req, res);
      } else {
        if (req.method !== 'GET') throw new HttpError(405, 'method_not_allowed', 'use GET to read a deposit');
        get(decodeURIComponent(getMatch![1]!), res);
      }
    };
    handle().catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (error instanceof HttpError) {
        const body: Record<string, string> = { code: error.code, message: error.message };
        if (error.field) body.field = error.field;
        send(res, error.status, { error: body });
      } else {
        send(res, 500, { error: { code: 'internal', message: 'the sandbox failed to answer' } });
      }
    });
  };
}

export interface RunningServer {
  baseUrl: string;
  server: http.Server;
  close(): Promise<void>;
}

export function listen(handler: http.RequestListener, host: string, port: number): Promise<RunningServer> {
  const server = http.createServer({ keepAliveTimeout: 5000 }, handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as AddressInfo;
      const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        baseUrl: `http://${h}:${addr.port}`,
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
