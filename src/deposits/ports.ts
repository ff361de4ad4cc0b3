/**
 * What the deposit flows are handed: narrow pieces a command assembles from its factory, and
 * a test from plain objects (no commander, no HTTP).
 */
import type { ApiResult } from '../api/client.js';
import type { CreateRequest, CreateResponse, GetResponse } from '../api/models.js';
import type { Network } from '../domain/liquid/networks.js';
import type { CreatedRecord, HistoryEntry, HistoryRecord, StoredRecord } from '../store/history-records.js';

/** The two calls of the service the flows make (DepositClient has them). */
export interface DepositApi {
  createDeposit(body: CreateRequest, idempotencyKey: string): Promise<ApiResult<CreateResponse>>;
  getDeposit(id: string): Promise<ApiResult<GetResponse>>;
  /**
   * What the local history recorded of a deposit of this service, when lbrl created it (the
   * factory's client has it): every answer about it is then checked against it.
   */
  recorded?(id: string): HistoryEntry | undefined;
  /**
   * Whether the local history already holds a deposit of this id, on any service (cheap for many
   * calls): a create that answers such an id is refused, never recorded again.
   */
  holds?(id: string): boolean;
  /**
   * Whose memory of answers this client shares: a client made for one call (the library makes
   * one per call) names its long-lived owner, so what one call saw (a settlement, an id created)
   * holds for the next.
   */
  seenAs?: object;
  /** the profile's network: an address an answer names that lbrl did not send must belong to it */
  network?: Network;
}

/**
 * Appends to the ledger; a failure to record is the recorder's to report (a database's records
 * kept in the spool), never thrown: only the ledger's refusal of a deposit it holds with another
 * creation is (a create answered with a reused id). Awaited: a database's append is asynchronous.
 */
export interface Recorder {
  /** a promise when the append is asynchronous (a database); anything else when it is done */
  record(records: StoredRecord[]): unknown;
  /**
   * Throws when the ledger could not take a record (a history saved as UTF-16): asked before a
   * create is sent, so no charge is made that could not be recorded.
   */
  ready?(): void;
}

/**
 * Records from an event handler that cannot wait for it (a status seen while following): the
 * append goes on in order behind the others; a refusal, which only a created record can meet,
 * is said, never an unhandled rejection. The ledger link waits for every append before the command ends.
 */
export function recordLater(recorder: Recorder, records: StoredRecord[], warn: (line: string) => void): void {
  const write = recorder.record(records);
  if (write instanceof Promise) write.catch((error: unknown) => warn(`warning: ${(error as Error).message}`));
}

/**
 * How the history writes down a status seen (store/history.ts `statusRecord`). It is handed in,
 * not imported, so that the watch the library shares loads no file store.
 */
export type StatusRecordOf = (
  id: string,
  status: string,
  now: number,
  answer?: { settlement?: unknown; confirmedAt?: unknown },
) => HistoryRecord;

/** How the history writes down that lbrl gave up waiting for a deposit (store/history.ts `expiredRecord`). */
export type ExpiredRecordOf = (id: string, now: number) => StoredRecord;

/** Reads the local history. */
export interface HistoryReader {
  read(): Iterable<HistoryRecord>;
  entries(filter?: (r: CreatedRecord) => boolean, opts?: { limit?: number }): HistoryEntry[];
  /** the entries not yet FINALIZED or FAILED, read in one pass */
  pending(filter?: (r: CreatedRecord) => boolean, opts?: { includeExpired?: boolean }): HistoryEntry[];
}

/** Whose deposits and where they live, as the history records them. */
export interface Scope {
  profile: string;
  /** the base URL of a live service, or "sandbox" */
  target: string;
}

/** Where a command's requests go: a live service (its base URL and token, each with where it came from), or the sandbox. */
export type Target =
  | { mode: 'live'; baseUrl: string; token: string; baseUrlFrom: string; tokenFrom: string }
  | { mode: 'sandbox' };

/** Where a target's deposits live, as the history records them. */
export function targetKey(target: Target): string {
  return target.mode === 'live' ? target.baseUrl : 'sandbox';
}

/** A profile's deposits on a target, as the history records them. */
export function scopeOnTarget(profile: string, target: Target): Scope {
  return { profile, target: targetKey(target) };
}

/** The profile's settings a request is checked against. */
export interface RequestDefaults {
  network: Network;
  defaultAddress?: string | undefined;
  splitAddress?: string | undefined;
  splitFee?: string | undefined;
}

/** The clock and the Ctrl-C signal, from the Context. */
export interface FlowClock {
  /** the wall clock: dates, and only ever a hint for durations (it may jump, by NTP or by hand) */
  now(): number;
  /**
   * A clock that never jumps (performance.now()), for every duration: waits, retry windows,
   * time-outs. Without it, durations are measured on now().
   */
  monotonic?(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
  signal: AbortSignal;
}

/** One-line notes for a person (the Printer has them). */
export interface Notes {
  info(line: string): void;
  warn(line: string): void;
}
