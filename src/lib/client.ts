/**
 * The client a Node program uses: the command line's flows (request checks, the one choke point
 * of answers, the watch loop) on settings passed as arguments. No config file, no history, no
 * output: what happens is returned or thrown as LbrlError.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { parseBaseUrl, parseToken, withoutCredentials } from '../api/baseurl.js';
import { DepositClient } from '../api/client.js';
import { Agent, type Dispatcher } from '../api/http.js';
import type { CreateRequest } from '../api/models.js';
import { checkAnswer, createAnswer, getChecked } from '../deposits/answers.js';
import type { DepositApi } from '../deposits/ports.js';
import { checkRequest, type Labels, ROW_LABELS } from '../deposits/request.js';
import { decimalFromNumber } from '../domain/decimal.js';
import { ownFields } from '../domain/own.js';
import { splitFeeFromBasisPoints } from '../domain/split.js';
import { MIN_FRAGMENT_SECRET, Redactor } from '../domain/text/redact.js';
import { type LocalFields, readLocalFlags, withLocalFields } from '../domain/text/reference.js';
import { canonicalId, parseDepositId } from '../domain/values.js';
import { invalidValue, type LbrlError, redactedError, usageError } from '../errors.js';
import { scrubbedIterable, watchOne } from './iterate.js';
import type { ChargeNotes, CreatedDeposit, Deposit, DepositRequest } from './types.js';
import { type Network, parseCents, parseNetwork } from './values.js';

/** Time, for tests of a program: a clock whose sleep need not wait. */
export interface Clock {
  /** the wall clock (ms since the epoch): dates */
  now(): number;
  /**
   * A clock that never jumps (ms from any start), for every duration of a watch: its waits and
   * its timeoutMs, so that a wall clock stepped by NTP or by hand neither ends nor stretches one.
   * performance.now() with the real clock; a clock given without it measures durations on now().
   */
  monotonic?(): number;
  /** resolves after ms; rejects when the signal aborts */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** in [0, 1), for the jitter of back-off; Math.random by default */
  random?(): number;
}

/** Where requests go and how patiently: every setting is an argument, none is read from a file. */
export interface ClientSettings {
  /** https:// (plain http:// only for loopback); a path prefix is kept, /v1/api/... is appended */
  baseUrl: string;
  /** the access token, sent as `Authorization: Bearer <token>` and never in an error message */
  token: string;
  /** the network addresses must belong to: `liquid` (the default), `liquidtestnet`, `elementsregtest` */
  network?: Network;
  /** per attempt, from sending to the last byte of the answer (default 30000) */
  timeoutMs?: number;
  /** to open a connection (default 30000) */
  connectTimeoutMs?: number;
  /** retries of a request that is safe to repeat (default 3); a create that may have arrived is never repeated */
  maxRetries?: number;
  /** sent as User-Agent (default `lbrl`) */
  userAgent?: string;
  /** the clock; the real one by default */
  clock?: Clock;
}

/** The fields of a charge besides its amount. */
export interface ChargeFields {
  /** the Liquid address that receives the asset */
  to: string;
  /** with splitFee: a second address that gets splitFee of the net amount */
  splitTo?: string;
  /** `"2.99%"`, `"2.99"` or `"2,99"` */
  splitFee?: string;
  /**
   * Your reference (order, table, invoice; at most 100 characters) and a note (at most 500), no
   * control or invisible characters. Never sent: the service has no field for them, and the
   * library keeps no ledger, so they come back on the created deposit for you to keep.
   */
  ref?: string;
  note?: string;
}

/**
 * What a charge is made of: exactly one amount, as the command line's --amount or --amount-cents,
 * either reais as a string (never a float of reais) or whole cents as a number.
 */
export type CreateInput =
  | (ChargeFields & {
      /** reais as people write them: `"1500"`, `"15.50"`, `"15,50"` */
      amount: string;
      amountCents?: never;
    })
  | (ChargeFields & {
      /** integer cents, 1 to 600000 */
      amountCents: number;
      amount?: never;
    });

export interface CreateOptions {
  /**
   * The Idempotency-Key header: a fresh UUID per call unless given. Give the same key to send the
   * same charge again after an error that says a deposit may exist; retries reuse it.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** What lbrl knows of a deposit: the create answer (or the request) checks later answers. */
export type KnownDeposit = CreatedDeposit | DepositRequest;

export interface GetOptions {
  /** the deposit as created; the last 10,000 this client created are known without it */
  known?: KnownDeposit;
  signal?: AbortSignal;
}

export interface WatchOptions extends GetOptions {
  /** between two requests, at least 1000 (default 3000) */
  intervalMs?: number;
  /** give up after this long: LbrlError `watch_timeout` (exit code 124) */
  timeoutMs?: number;
}

export interface LbrlClient {
  /**
   * Create a charge: the input checked as the command line checks flags (LbrlError `usage`
   * before any request), sent with an Idempotency-Key, and the answer checked against the
   * request (LbrlError `mismatch` when the service changed the amount, an address, the split).
   * A `ref` and `note` given are checked, never sent, and returned on the deposit.
   */
  create(input: CreateInput, options?: CreateOptions): Promise<CreatedDeposit & ChargeNotes>;
  /** One deposit by id (a UUID), its answer checked. */
  get(id: string, options?: GetOptions): Promise<Deposit>;
  /**
   * The deposit's statuses as they change, the first one as found; the iteration ends after
   * FINALIZED or FAILED (yielded like any other: look at `status`). Aborting the signal ends it
   * with LbrlError `interrupted`; so does `timeoutMs` with `watch_timeout`. Transient failures
   * (network, 5xx, 429) are ridden out with back-off for up to five minutes. Leaving the loop
   * early (break) stops the polling.
   */
  watch(id: string, options?: WatchOptions): AsyncIterable<Deposit>;
  /** Closes the connections; the client cannot be used afterwards. */
  close(): Promise<void>;
}

/** Values are named as the fields of CreateInput, as in a batch row; only the missing ones say more. */
const LABELS: Labels = {
  ...ROW_LABELS,
  missingAmount: 'missing amount: give amount (reais, a string) or amountCents (an integer)',
  missingTo: 'missing to: give the Liquid address that receives the asset',
};

/** How many created deposits a client remembers as known. */
const KNOWN_LIMIT = 10_000;

const realClock: Required<Clock> = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
  random: Math.random,
};

function positive(name: string, value: number | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min)
    throw invalidValue(name, String(value), `a whole number of milliseconds, at least ${min}`);
  return value;
}

function depositId(id: string): string {
  const parsed = parseDepositId(typeof id === 'string' ? id : String(id));
  if (!parsed.ok) throw invalidValue('deposit id', String(id), parsed.expected);
  return parsed.value;
}

/** The request a known deposit was created with: as given, or read back from its create answer. */
function requestOf(given: KnownDeposit | undefined): CreateRequest | undefined {
  if (!given || typeof given !== 'object') return undefined;
  // its own fields only: a field inherited is none the program gave
  const known = ownFields(given as Record<string, unknown>, [
    'lbrlAddress',
    'amountInCents',
    'lbrlSplitAddress',
    'splitFee',
    'destinationAddress',
    'splitAddress',
    'splitPercent',
  ]) as Partial<DepositRequest & CreatedDeposit>;
  if (typeof known.lbrlAddress === 'string') {
    const request: CreateRequest = { amountInCents: known.amountInCents!, lbrlAddress: known.lbrlAddress };
    if (known.lbrlSplitAddress !== undefined) request.lbrlSplitAddress = known.lbrlSplitAddress;
    if (known.splitFee !== undefined) request.splitFee = known.splitFee;
    return request;
  }
  const answer = known as CreatedDeposit;
  const request: CreateRequest = {
    amountInCents: answer.amountInCents,
    lbrlAddress: answer.destinationAddress,
  };
  const fraction = typeof answer.splitPercent === 'number' ? decimalFromNumber(answer.splitPercent) : null;
  if (answer.splitAddress && fraction && fraction.scale <= 4) {
    request.lbrlSplitAddress = answer.splitAddress;
    request.splitFee = splitFeeFromBasisPoints(
      Number(fraction.units * 10n ** BigInt(4 - fraction.scale)),
    ).wire;
  }
  return request;
}

/** A client with every check of the command line, configured by its arguments only. */
export function createClient(given: ClientSettings): LbrlClient {
  // every error of this client, thrown here or by its calls, passes the one redactor
  const secrets = new Redactor();
  // its own settings only: one inherited (a polluted Object.prototype) is none the program gave
  const settings =
    given && typeof given === 'object'
      ? (ownFields(given, [
          'baseUrl',
          'token',
          'network',
          'timeoutMs',
          'connectTimeoutMs',
          'maxRetries',
          'userAgent',
          'clock',
        ]) as ClientSettings)
      : given;
  if (settings && typeof settings === 'object' && typeof settings.token === 'string')
    secrets.add(settings.token);
  const scrub = (error: unknown) => redactedError(error, (text) => secrets.redact(text));
  try {
    return makeClient(settings, secrets, scrub);
  } catch (error) {
    throw scrub(error);
  }
}

function makeClient(
  settings: ClientSettings,
  secrets: Redactor,
  scrub: (error: unknown) => LbrlError,
): LbrlClient {
  const read = readSettings(settings, secrets);
  const calls: Calls = {
    read,
    dispatcher: new Agent({
      // certificates always checked, whatever NODE_TLS_REJECT_UNAUTHORIZED says
      connect: { timeout: read.connectTimeoutMs, rejectUnauthorized: true },
      headersTimeout: read.timeoutMs,
      bodyTimeout: read.timeoutMs,
      allowH2: false,
    }),
    created: new Map(),
    closed: false,
    memory: {},
  };
  const client: LbrlClient = {
    create: (input, given = {}) => createCharge(calls, input, given),
    get: (id, given = {}) => getCharge(calls, id, given),
    watch: (id, given = {}) => watchCharge(calls, id, given),
    async close() {
      if (calls.closed) return;
      calls.closed = true;
      await calls.dispatcher.close();
    },
  };
  return scrubbedClient(client, scrub);
}

/** The settings, each checked as the command line checks its flags; the token joins the secrets. */
interface ReadSettings {
  baseUrl: string;
  token: string;
  network: Network;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxRetries: number;
  userAgent: string;
  clock: Required<Clock>;
}

function readSettings(settings: ClientSettings, secrets: Redactor): ReadSettings {
  if (typeof settings !== 'object' || settings === null)
    throw usageError('createClient needs settings: { baseUrl, token }');
  if (typeof settings.baseUrl !== 'string')
    throw usageError(`baseUrl must be a string (an https:// URL), not ${kindOf(settings.baseUrl)}`);
  const base = parseBaseUrl(settings.baseUrl);
  if (!base.ok) throw invalidValue('baseUrl', withoutCredentials(settings.baseUrl), base.expected);
  if (typeof settings.token !== 'string')
    throw usageError(`token must be a string, not ${kindOf(settings.token)}`);
  const token = parseToken(settings.token);
  if (!token.ok) throw usageError(`invalid token: expected ${token.expected}`);
  // the command line's rule: a short token cannot be told apart from ordinary text, so it could
  // not be kept out of messages
  if (token.value.length < MIN_FRAGMENT_SECRET)
    throw usageError(
      `invalid token: it is ${token.value.length} character(s); lbrl needs at least ${MIN_FRAGMENT_SECRET} to keep it out of every message`,
    );
  secrets.add(token.value);
  const network = parseNetwork(settings.network ?? 'liquid');
  const timeoutMs = positive('timeoutMs', settings.timeoutMs, 1) ?? 30_000;
  const connectTimeoutMs = positive('connectTimeoutMs', settings.connectTimeoutMs, 1) ?? 30_000;
  const maxRetries = positive('maxRetries', settings.maxRetries, 0) ?? 3;
  const given =
    settings.clock && typeof settings.clock === 'object'
      ? ownFields(settings.clock, ['now', 'monotonic', 'sleep', 'random'])
      : {};
  const clock: Required<Clock> = {
    ...realClock,
    // a clock's own now measures its durations, unless it gives the clock that does not jump too
    ...(typeof given.now === 'function' && given.monotonic === undefined ? { monotonic: given.now } : {}),
    ...given,
  } as Required<Clock>;
  const userAgent = settings.userAgent ?? 'lbrl';
  return {
    baseUrl: base.value,
    token: token.value,
    network,
    timeoutMs,
    connectTimeoutMs,
    maxRetries,
    userAgent,
    clock,
  };
}

/** What a client's calls share: the settings, the connections, and what it created and saw. */
interface Calls {
  read: ReadSettings;
  dispatcher: Dispatcher;
  /**
   * What this client created, so that answers about them are checked without being told; the
   * oldest are forgotten past KNOWN_LIMIT, so a server that runs for months does not grow.
   */
  created: Map<string, CreateRequest>;
  closed: boolean;
  /** What this client's calls saw of each deposit (answers.ts keeps it): one call's answer binds the next. */
  memory: object;
}

/** One call's client: the shared connections, the call's signal. */
function callClient(calls: Calls, signal: AbortSignal | undefined): DepositClient {
  if (calls.closed) throw usageError('the client is closed');
  const { read } = calls;
  return new DepositClient({
    baseUrl: read.baseUrl,
    token: read.token,
    timeoutMs: read.timeoutMs,
    connectTimeoutMs: read.connectTimeoutMs,
    maxRetries: read.maxRetries,
    userAgent: read.userAgent,
    sleep: read.clock.sleep,
    random: read.clock.random,
    now: read.clock.now,
    signal,
    dispatcher: calls.dispatcher,
  });
}

/** GETs checked against what is known of the deposit. */
function checkedApi(
  calls: Calls,
  signal: AbortSignal | undefined,
  id: string,
  known?: KnownDeposit,
): DepositApi {
  const client = callClient(calls, signal);
  const request = requestOf(known) ?? calls.created.get(canonicalId(id));
  return {
    createDeposit: (body, key) => client.createDeposit(body, key),
    getDeposit: async (depositId) =>
      checkAnswer('get', await client.getDeposit(depositId), { request, network: calls.read.network }),
    seenAs: calls.memory,
    network: calls.read.network,
  };
}

async function createCharge(
  calls: Calls,
  input: CreateInput,
  given: CreateOptions,
): Promise<CreatedDeposit & ChargeNotes> {
  const options = checkOptions(given, ['idempotencyKey', 'signal']);
  const fields = checkInput(input);
  const amountCents = fields.amountCents === undefined ? undefined : String(parseCents(fields.amountCents));
  const key = options.idempotencyKey ?? randomUUID();
  if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key))
    throw invalidValue('idempotencyKey', String(key), 'printable characters without spaces, at most 255');
  const { body, problems } = checkRequest(
    {
      amount: fields.amount,
      amountCents,
      to: fields.to,
      splitTo: fields.splitTo,
      splitFee: fields.splitFee,
    },
    // no profile: no default address or split, whatever Object.prototype holds
    { network: calls.read.network, defaultAddress: undefined, splitAddress: undefined, splitFee: undefined },
    LABELS,
  );
  if (!body) throw usageError(problems.join('; '));
  const sender = callClient(calls, options.signal);
  const { value } = await createAnswer(
    {
      createDeposit: (b, k) => sender.createDeposit(b, k),
      getDeposit: (i) => sender.getDeposit(i),
      seenAs: calls.memory,
    },
    body,
    key,
  );
  calls.created.set(canonicalId(value.id), body);
  if (calls.created.size > KNOWN_LIMIT) calls.created.delete(calls.created.keys().next().value as string);
  return withLocalFields(value, fields.local);
}

async function getCharge(calls: Calls, id: string, given: GetOptions): Promise<Deposit> {
  const options = checkOptions(given, ['known', 'signal']);
  const depositIdValue = depositId(id);
  const { value } = await getChecked(
    checkedApi(calls, options.signal, depositIdValue, options.known),
    depositIdValue,
  );
  return value;
}

function watchCharge(calls: Calls, id: string, given: WatchOptions): AsyncIterable<Deposit> {
  const options = checkOptions(given, ['known', 'signal', 'intervalMs', 'timeoutMs']);
  const depositIdValue = depositId(id);
  const intervalMs = positive('intervalMs', options.intervalMs, 1000) ?? 3000;
  const limitMs = positive('timeoutMs', options.timeoutMs, 1);
  return watchOne(calls.read.clock, depositIdValue, intervalMs, limitMs, options.signal, (signal) =>
    checkedApi(calls, signal, depositIdValue, options.known),
  );
}

/** The client with every error of its calls (thrown, rejected or met while iterating) passed through `scrub`. */
function scrubbedClient(client: LbrlClient, scrub: (error: unknown) => LbrlError): LbrlClient {
  return {
    create: (input, options) =>
      client.create(input, options).catch((error: unknown) => Promise.reject(scrub(error))),
    get: (id, options) => client.get(id, options).catch((error: unknown) => Promise.reject(scrub(error))),
    watch(id, options) {
      let inner: AsyncIterable<Deposit>;
      try {
        inner = client.watch(id, options);
      } catch (error) {
        throw scrub(error);
      }
      return scrubbedIterable(inner, scrub);
    },
    close: () => client.close().catch((error: unknown) => Promise.reject(scrub(error))),
  };
}

/** What a value is, for a message: `a number`, `an array`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? type : `a ${type}`;
}

/**
 * The command line's rules for a create's fields, at run time for a program without the types
 * (JavaScript, `as any`, JSON from elsewhere): exactly one amount, each field of its type.
 */
function checkInput(input: unknown): {
  amount: string | undefined;
  amountCents: number | undefined;
  to: string | undefined;
  splitTo: string | undefined;
  splitFee: string | undefined;
  local: LocalFields;
} {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw usageError('create needs { amount or amountCents, to }');
  // its own fields only: a splitTo inherited (a body's "__proto__", a polluted Object.prototype)
  // is an address the caller never gave, and never receives a share of the net
  const { amount, amountCents, to, splitTo, splitFee } = ownFields(input as Record<string, unknown>, [
    'amount',
    'amountCents',
    'to',
    'splitTo',
    'splitFee',
  ]);
  if (amount !== undefined && typeof amount !== 'string')
    throw usageError(
      `amount must be a string of reais such as "15.50", not ${kindOf(amount)} (a number of reais would be a float); for a number, give amountCents`,
    );
  if (amountCents !== undefined && typeof amountCents !== 'number')
    throw usageError(`amountCents must be a whole number of cents, not ${kindOf(amountCents)}`);
  // a missing amount or destination, or both amounts, are named by the request's own check
  if (to !== undefined && typeof to !== 'string')
    throw usageError(`to must be a string (the Liquid address that receives the asset), not ${kindOf(to)}`);
  for (const [name, value] of [
    ['splitTo', splitTo],
    ['splitFee', splitFee],
  ] as const) {
    if (value !== undefined && typeof value !== 'string')
      throw usageError(`${name} must be a string, not ${kindOf(value)}`);
  }
  // every field present, undefined where not given: nothing is left to inherit
  return {
    amount: amount as string | undefined,
    amountCents: amountCents as number | undefined,
    to: to as string | undefined,
    splitTo: splitTo as string | undefined,
    splitFee: splitFee as string | undefined,
    local: localInput(input as Record<string, unknown>),
  };
}

/**
 * The input's own `ref` and `note` (an inherited one is not the caller's), checked as the command
 * line's --ref and --note are.
 */
function localInput(fields: Record<string, unknown>): LocalFields {
  const own: Record<string, unknown> = {};
  for (const name of ['ref', 'note'] as const) {
    if (!Object.hasOwn(fields, name) || fields[name] === undefined) continue;
    const value = fields[name];
    if (typeof value !== 'string') throw usageError(`${name} must be a string, not ${kindOf(value)}`);
    own[name] = value;
  }
  return readLocalFlags(own as { ref?: string; note?: string }, (flag, value, expected) =>
    invalidValue(flag.slice(2), value, expected),
  );
}

/**
 * The options of a call: an object, its signal an AbortSignal (else `usage`, never a TypeError);
 * its own `names` only, as the call reads them.
 */
function checkOptions<T extends object, K extends keyof T>(
  options: T,
  names: readonly K[],
): Partial<Pick<T, K>> {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw usageError(`options must be an object, not ${kindOf(options)}`);
  const own = ownFields(options, names);
  const { signal } = own as { signal?: unknown };
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw usageError(`signal must be an AbortSignal, not ${kindOf(signal)}`);
  return own;
}
