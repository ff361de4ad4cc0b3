/**
 * A client of an Esplora server (Blockstream's explorer API), transport only: the transaction
 * (JSON and raw), its status, the tip height and an asset's registry data, each checked against
 * its model. What they prove is decided in src/deposits/chain-check.ts and src/domain.
 * The same rules as the Deposit service's client: undici on our own Agent, HTTP/1.1, no redirect
 * followed, TLS verified, a time-out per attempt, GETs retried with capped back-off and jitter
 * (honouring Retry-After), an unreachable explorer is exit 6 and never a pass. Every answer is
 * checked against a model before use; a 404 (plain text at Esplora) is "not found", not an error.
 */

import * as z from 'zod/mini';
import type { Network } from '../domain/liquid/networks.js';
import { ownCopy } from '../domain/own.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../domain/text/json-exact.js';
import { safeText } from '../domain/text/safe-text.js';
import { HEX_BYTES, HEX32, isHex32, isHexBytes, readHex32 } from '../domain/values.js';
import { interrupted, LbrlError } from '../errors.js';
import { ACCEPT_ENCODING, readAnswerBody } from './body.js';
import { bodyText } from './body-text.js';
import { retryAfterMs, serviceMessage, TLS_FAILURES } from './classify.js';
import {
  brokenFraming,
  type ClientOptions,
  errorCode,
  headerValue as header,
  httpAgent,
  REQUEST_DEFAULTS,
} from './client.js';
import { type Dispatcher, isStaleConnection, request } from './http.js';
import { describeIssues } from './models.js';

/** The service client's options without a token; `baseUrl` is the explorer's API, e.g. https://blockstream.info/liquid/api. */
export type EsploraOptions = Omit<ClientOptions, 'token'>;

/** Blockstream's public Esplora for the public networks; none for elementsregtest. */
export const DEFAULT_ESPLORA: Record<Network, string | null> = {
  liquid: 'https://blockstream.info/liquid/api',
  liquidtestnet: 'https://blockstream.info/liquidtestnet/api',
  elementsregtest: null,
};

const hex32 = z.string().check(z.regex(HEX32, 'expected 64 lowercase hex digits'));
const hexText = z.string().check(z.regex(HEX_BYTES, 'expected hex'));
const height = z.int().check(z.minimum(0));

const statusShape = z.looseObject({
  confirmed: z.boolean(),
  block_height: z.optional(z.nullable(height)),
  block_hash: z.optional(z.nullable(hex32)),
  block_time: z.optional(z.nullable(z.int())),
});
export const txStatusSchema = statusShape.check(
  z.refine((s) => !s.confirmed || typeof s.block_height === 'number', {
    message: 'a confirmed transaction without a block_height',
  }),
);
export type EsploraTxStatus = z.infer<typeof statusShape>;

const voutSchema = z
  .looseObject({
    scriptpubkey: hexText,
    scriptpubkey_type: z.optional(z.string()),
    scriptpubkey_address: z.optional(z.string()),
    value: z.optional(z.int().check(z.minimum(0))),
    asset: z.optional(hex32),
    valuecommitment: z.optional(
      z.string().check(z.regex(/^0[89][0-9a-f]{64}$/, 'expected a value commitment')),
    ),
    assetcommitment: z.optional(
      z.string().check(z.regex(/^0[ab][0-9a-f]{64}$/, 'expected an asset commitment')),
    ),
  })
  .check(
    z.refine((output) => !(output.value !== undefined && output.valuecommitment !== undefined), {
      message: 'an output with both an explicit value and a value commitment',
    }),
  );

export const txSchema = z.looseObject({
  txid: hex32,
  version: z.int(),
  locktime: z.int(),
  vin: z.array(z.looseObject({})),
  vout: z.array(voutSchema),
  status: txStatusSchema,
});
export type EsploraTx = z.infer<typeof txSchema>;

export const assetSchema = z.looseObject({
  asset_id: hex32,
  /** the registry's copy of the contract's precision: proves nothing by itself */
  precision: z.optional(z.int().check(z.minimum(0), z.maximum(8))),
  /** the issuance contract the id commits to (with issuance_prevout) */
  contract: z.optional(z.unknown()),
  issuance_prevout: z.optional(z.nullable(z.looseObject({ txid: hex32, vout: z.int().check(z.minimum(0)) }))),
  ticker: z.optional(z.nullable(z.string())),
  name: z.optional(z.nullable(z.string())),
  entity: z.optional(z.nullable(z.looseObject({ domain: z.optional(z.nullable(z.string())) }))),
});
export type EsploraAsset = z.infer<typeof assetSchema>;

/** An address's history page: Esplora gives 25 confirmed (and up to 50 unconfirmed) at a time. */
const addressTxsSchema = z
  .array(z.looseObject({ txid: hex32, status: txStatusSchema }))
  .check(z.maxLength(1000, 'more transactions in one page than Esplora ever gives'));
export type AddressTx = z.infer<typeof addressTxsSchema>[number];

type Body = { status: 200; contentType: string | undefined; text: string } | { status: 404 };

export class EsploraClient {
  private readonly settings: Required<
    Pick<EsploraOptions, 'timeoutMs' | 'connectTimeoutMs' | 'maxRetries' | 'maxRetryAfterMs' | 'maxBodyBytes'>
  > &
    EsploraOptions;
  private readonly dispatcher: Dispatcher;
  /**
   * When set (on the injected clock), no attempt runs past it and no retry is scheduled after it:
   * a watch's --timeout holds whatever the explorer does.
   */
  deadline: number | undefined;

  constructor(options: EsploraOptions) {
    this.settings = {
      ...REQUEST_DEFAULTS,
      // a transaction with many confidential outputs carries ~4 kB of proofs per output
      maxBodyBytes: 8 * 1024 * 1024,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
    this.dispatcher = options.dispatcher ?? httpAgent(this.settings);
  }

  async close(): Promise<void> {
    if (!this.settings.dispatcher) await this.dispatcher.close();
  }

  /** The transaction as the explorer describes it; null when it does not know it. */
  async getTx(txid: string): Promise<EsploraTx | null> {
    const id = checkTxid(txid);
    const body = await this.get(`/tx/${id}`, 'application/json');
    if (body.status === 404) return null;
    const tx = this.json(body, txSchema, `/tx/${id}`);
    if (tx.txid !== id)
      throw this.contract(`asked for transaction ${id}, the explorer answered with ${tx.txid}`);
    return tx;
  }

  /** The raw transaction (the only place with nonces and range proofs); null when unknown. */
  async getTxHex(txid: string): Promise<string | null> {
    const id = checkTxid(txid);
    const body = await this.get(`/tx/${id}/hex`, 'text/plain');
    if (body.status === 404) return null;
    const text = body.text.trim();
    if (!isHexBytes(text, 1)) {
      throw this.contract(`the explorer's /tx/${id}/hex is not hex (${body.text.length} bytes)`);
    }
    return text;
  }

  async getTxStatus(txid: string): Promise<EsploraTxStatus | null> {
    const id = checkTxid(txid);
    const body = await this.get(`/tx/${id}/status`, 'application/json');
    if (body.status === 404) return null;
    return this.json(body, txStatusSchema, `/tx/${id}/status`);
  }

  async getTipHeight(): Promise<number> {
    const body = await this.get('/blocks/tip/height', 'text/plain');
    if (body.status === 404)
      throw this.contract('the explorer has no /blocks/tip/height: is the URL an Esplora API?');
    const text = body.text.trim();
    if (!/^\d{1,10}$/.test(text)) {
      throw this.contract(`the explorer's tip height is not a number: ${JSON.stringify(text.slice(0, 40))}`);
    }
    return Number(text);
  }

  /** Registry data of an asset; null when the explorer does not know it. */
  async getAsset(assetId: string): Promise<EsploraAsset | null> {
    if (!isHex32(assetId)) throw new LbrlError(`invalid asset id ${JSON.stringify(assetId)}`, 'usage');
    const body = await this.get(`/asset/${assetId}`, 'application/json');
    if (body.status === 404) return null;
    const asset = this.json(body, assetSchema, `/asset/${assetId}`);
    if (asset.asset_id !== assetId) {
      throw this.contract(`asked for asset ${assetId}, the explorer answered with ${asset.asset_id}`);
    }
    return asset;
  }

  /**
   * One page of an address's history, newest first (`/address/:address/txs`; with `lastSeen`, the
   * confirmed ones after it: `/address/:address/txs/chain/:last_seen_txid`). Each entry's txid is
   * checked as hex; the transaction itself is read and authenticated separately (getTxHex).
   */
  async getAddressTxs(address: string, lastSeen?: string): Promise<AddressTx[]> {
    if (!/^[0-9A-Za-z]{20,200}$/.test(address))
      throw new LbrlError(`invalid address ${JSON.stringify(address.slice(0, 80))}`, 'usage');
    const path = `/address/${address}/txs${lastSeen ? `/chain/${checkTxid(lastSeen)}` : ''}`;
    const body = await this.get(path, 'application/json');
    if (body.status === 404) return [];
    return this.json(body, addressTxsSchema, path);
  }

  private pastDeadline(): LbrlError {
    return new LbrlError(
      `the explorer at ${this.settings.baseUrl} did not answer before the time-out`,
      'timeout',
    );
  }

  private contract(message: string): LbrlError {
    return new LbrlError(message, 'contract');
  }

  private json<T>(
    body: Extract<Body, { status: 200 }>,
    schema: {
      safeParse(v: unknown): { success: true; data: T } | { success: false; error: z.core.$ZodError };
    },
    path: string,
  ): T {
    if (body.contentType && !/^application\/([\w.+-]*\+)?json\b/i.test(body.contentType.trim())) {
      throw this.contract(
        `the explorer answered ${path} with content-type ${JSON.stringify(body.contentType)}, not JSON`,
      );
    }
    if (nestsDeeperThan(body.text))
      throw this.contract(`the explorer's answer to ${path} nests JSON deeper than ${MAX_JSON_DEPTH} levels`);
    let raw: unknown;
    try {
      raw = ownCopy(JSON.parse(body.text));
    } catch {
      throw this.contract(
        `the explorer's answer to ${path} is not valid JSON (${Buffer.byteLength(body.text)} bytes)`,
      );
    }
    const result = schema.safeParse(raw);
    if (!result.success) {
      throw this.contract(`the explorer's answer to ${path} breaks its API: ${describeIssues(result.error)}`);
    }
    return result.data;
  }

  /** A GET, tried again (with back-off, within the deadline) after a 429, a 5xx or a failure in transit. */
  private async get(path: string, accept: string): Promise<Body> {
    const url = `${this.settings.baseUrl}${path}`;
    const headers = {
      accept,
      'accept-encoding': ACCEPT_ENCODING,
      'user-agent': this.settings.userAgent ?? 'lbrl',
    };
    for (let attempt = 0; ; attempt++) {
      this.settings.trace?.(`> GET ${url}`);
      const left =
        this.deadline === undefined ? Number.POSITIVE_INFINITY : this.deadline - this.settings.now();
      if (left <= 0) throw this.pastDeadline();
      const attemptMs = Math.min(this.settings.timeoutMs, left);
      let outcome = await this.attempt(url, path, headers, attemptMs);
      if (outcome.kind === 'retry' && outcome.stale) {
        // a kept-alive connection the explorer had just closed: never answered, sent again at once
        this.settings.trace?.('* the explorer had closed the kept-alive connection; sent again at once');
        outcome = await this.attempt(url, path, headers, attemptMs);
      }
      if (outcome.kind === 'answer') return outcome.body;
      const { final, reason, wait, status } = outcome;
      if (attempt >= this.settings.maxRetries) throw final;
      const backoff = Math.min(5000, 500 * 2 ** attempt) * (0.5 + this.settings.random() / 2);
      const delayMs = Math.round(Math.max(backoff, wait ?? 0));
      if (this.deadline !== undefined && this.settings.now() + delayMs >= this.deadline) throw final;
      this.settings.onRetry?.({ attempt: attempt + 1, delayMs, reason, ...(status ? { status } : {}) });
      this.settings.trace?.(`* retrying in ${delayMs} ms (${reason})`);
      try {
        await this.settings.sleep(delayMs, this.settings.signal);
      } catch {
        throw interrupted();
      }
    }
  }

  /** One attempt: the answer, an error that ends the request, or a failure worth trying again. */
  private async attempt(
    url: string,
    path: string,
    headers: Record<string, string>,
    attemptMs: number,
  ): Promise<{ kind: 'answer'; body: Body } | RetryableFailure> {
    const timeout = AbortSignal.timeout(attemptMs);
    const signal = this.settings.signal ? AbortSignal.any([this.settings.signal, timeout]) : timeout;
    try {
      const res = await request(url, { method: 'GET', headers, dispatcher: this.dispatcher, signal });
      const bytes = await this.bodyOf(res, path);
      const { text, notUtf8 } = bodyText(bytes, header(res.headers['content-type']));
      const status = res.statusCode;
      this.settings.trace?.(`< ${status} (${bytes.length} bytes)`);
      if (status === 200 && notUtf8)
        throw this.contract(
          `the explorer's answer to ${path} is not UTF-8 (${bytes.length} bytes): ${notUtf8}; JSON and text are UTF-8`,
        );
      if (status === 200)
        return {
          kind: 'answer',
          body: { status: 200, contentType: header(res.headers['content-type']), text },
        };
      if (status === 404) return { kind: 'answer', body: { status: 404 } };
      const msg = serviceMessage(text, notUtf8) || `HTTP ${status}`;
      if (status >= 300 && status < 400) {
        throw new LbrlError(
          `the explorer answered ${status} redirecting to ${safeText(header(res.headers.location) ?? '(no location)')}; redirects are not followed`,
          'service',
        );
      }
      if (status !== 429 && status < 500)
        throw new LbrlError(`the explorer answered ${path} with ${status}: ${msg}`, 'service');
      const wait = retryAfterMs(header(res.headers['retry-after']), this.settings.now());
      const final = new LbrlError(
        `the explorer at ${this.settings.baseUrl} answered ${status}: ${msg}`,
        status === 429 ? 'rate_limited' : 'service',
      );
      if (wait !== undefined && wait > this.settings.maxRetryAfterMs) throw final;
      const reason = status === 429 ? 'rate limited (429)' : `the explorer answered ${status}`;
      return { kind: 'retry', final, reason, wait, status };
    } catch (error) {
      if (error instanceof LbrlError) throw error;
      const failure = this.transportFailure(error, url, attemptMs);
      return isStaleConnection(error) ? { ...failure, stale: true } : failure;
    }
  }

  /**
   * The answer's body, refused past maxBodyBytes (a Content-Length above it before any byte is
   * read) and in a content coding lbrl did not ask for (see api/body.ts).
   */
  private async bodyOf(res: Dispatcher.ResponseData, path: string): Promise<Buffer> {
    const read = await readAnswerBody(res, this.settings.maxBodyBytes);
    if (read.kind === 'too-large') {
      throw this.contract(
        `the explorer's answer to ${path} is larger than ${this.settings.maxBodyBytes} bytes; refused`,
      );
    }
    if (read.kind === 'encoded') {
      throw this.contract(
        `the explorer's answer to ${path} is encoded (content-encoding "${safeText(read.encoding).slice(0, 60)}"), though lbrl asked for it as it is (accept-encoding ${ACCEPT_ENCODING}); refused`,
      );
    }
    return read.bytes;
  }

  /** No answer: interrupted, a certificate, past the deadline; else a failure worth trying again. */
  private transportFailure(error: unknown, url: string, attemptMs: number): RetryableFailure {
    if (this.settings.signal?.aborted) throw interrupted();
    const code = errorCode(error);
    const message = (error as Error)?.message ?? String(error);
    this.settings.trace?.(`< (no answer: ${code || message})`);
    // an answer that breaks HTTP came from the explorer: it was reached, and broke its API
    const broken = brokenFraming(error);
    if (broken) throw this.contract(`the explorer's answer breaks HTTP/1.1 (${safeText(broken)})`);
    if (TLS_FAILURES.test(code)) {
      throw new LbrlError(
        `the TLS certificate of ${new URL(url).host} could not be verified (${code})`,
        'network',
      );
    }
    const timedOut = /TIMEOUT|AbortError|TimeoutError/i.test(code) || /timeout|aborted/i.test(message);
    if (timedOut && attemptMs < this.settings.timeoutMs) throw this.pastDeadline();
    const reason = timedOut
      ? `no answer within ${Math.round(this.settings.timeoutMs / 1000)} s`
      : `connection failed (${code || message})`;
    const final = new LbrlError(
      `could not reach the explorer at ${this.settings.baseUrl}: ${reason}`,
      timedOut ? 'timeout' : 'network',
    );
    return { kind: 'retry', final, reason, wait: undefined, status: undefined };
  }
}

/**
 * An attempt that failed in a way worth trying again: the error if it was the last, and why. Every
 * field is its own, undefined when unknown (never read from a polluted Object.prototype).
 */
interface RetryableFailure {
  kind: 'retry';
  final: LbrlError;
  reason: string;
  /** what the explorer asked to wait (Retry-After) */
  wait: number | undefined;
  status: number | undefined;
  /** failed on a kept-alive connection the explorer had just closed, before any answer (isStaleConnection) */
  stale?: boolean;
}

function checkTxid(txid: string): string {
  const id = readHex32(txid);
  if (id === null) {
    throw new LbrlError(`invalid transaction id ${JSON.stringify(txid)}: expected 64 hex digits`, 'usage');
  }
  return id;
}
