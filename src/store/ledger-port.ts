/**
 * The ledger's port: what every store of it offers (store/ledger.ts opens the configured one).
 * Types only.
 */
import type { ClaimWaitOptions, RowTurn } from './claims.js';
import type { BatchState, HistoryEntry, StoredRecord } from './history-records.js';

/** Which deposits: each part given must match (all of them when none is). */
export interface DepositSelection {
  profile?: string;
  baseUrl?: string;
  id?: string;
}

export interface Ledger {
  /** `file` or `postgres` */
  readonly kind: 'file' | 'postgres';
  /** where it is, as output may show it: the file's path, or the URL with its password redacted */
  readonly where: string;
  /**
   * Records the records in one step: all of them, or none (a failure throws). A created record
   * naming a deposit the ledger already holds on that service with another creation (another
   * time, amount, profile or batch row) is refused whole with an LbrlError of type `mismatch`:
   * a new charge never reuses an id. The same creation given again (a replay) changes nothing.
   */
  append(records: StoredRecord[]): Promise<void>;
  /** The deposits the filter takes, newest first, each with its latest status and facts. */
  entries(filter?: DepositSelection, options?: { limit?: number }): Promise<HistoryEntry[]>;
  /** What the ledger holds of deposit `id` on the service `baseUrl`. */
  recorded(id: string, baseUrl: string): Promise<HistoryEntry | undefined>;
  /** For `--resume`: the rows of one profile and service created, and those attempted. */
  batchState(profile: string, baseUrl: string): Promise<Pick<BatchState, 'done' | 'attempted'>>;
  /** Every record, in the order the ledger took them: what `ledger export` writes. */
  records(): AsyncIterable<StoredRecord>;
  /** How many deposits it holds. */
  count(): Promise<number>;
  /** A database's schema version; null for the file (each of its records carries its own). */
  schemaVersion(): Promise<number | null>;
  /**
   * A database only: the records of a file history, each taken once however often they are
   * imported, in one transaction; how many were met and how many were new.
   */
  importRecords?(
    records: AsyncIterable<StoredRecord> | Iterable<StoredRecord>,
  ): Promise<{ met: number; fresh: number }>;
  /**
   * A database only: the records taken after position `after`, in the order taken, at most
   * `limit`, each with its position: what a host's local copy of the ledger reads to catch up
   * (store/ledger-mirror.ts). A record is never given a position below one already readable.
   */
  logAfter?(after: number, limit: number): Promise<Array<{ seq: number; line: string }>>;
  /** A database only: what names this ledger; another database, or one made anew, names another. */
  identity?(): Promise<string>;
  /**
   * A database only, for `--resume`: the batch row claimed in the database (a lock only one
   * connection holds at a time, freed if it drops) with its attempt recorded before anything is
   * sent: done when the ledger holds its deposit, else its turn with the row's first
   * Idempotency-Key (`idempotencyKey`, unless another host recorded one first).
   */
  claimRow?(
    row: { profile: string; baseUrl: string; batchKey: string; idempotencyKey: string; at: string },
    wait: ClaimWaitOptions,
  ): Promise<RowTurn>;
  close(): Promise<void>;
}

export interface LedgerOptions {
  /** the config directory, where the file history lives */
  dir: string;
  warn: (line: string) => void;
  /** the environment libpq's conventions are read from (PGPASSWORD, PGSSLMODE, PGHOST...) */
  env: Record<string, string | undefined>;
  /** --insecure-skip-tls-verify: the only thing that skips certificate checks */
  insecureSkipTlsVerify?: boolean;
  /**
   * Where this host's copy of a database ledger expects to read its log from (store/ledger-mirror.ts):
   * that page is read with the schema's version, in the same round trip, and logAfter gives it once.
   * Asked once the connection is authenticated (the copy is read while the server authenticates).
   */
  logFrom?: () => { after: number; limit: number } | undefined;
}
