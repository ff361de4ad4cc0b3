/**
 * The ledger's port: what every store of it offers (store/ledger.ts opens the configured one).
 * Types only.
 */
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
  /** Records the records in one step: all of them, or none (a failure throws). */
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
}
