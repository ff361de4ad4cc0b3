/** The local history's deposits: which are pending, and bringing their statuses up to date. */
import { IN_FLIGHT, isDueToExpire, lastLookDueAt } from '../domain/expiry.js';
import { isPaid, isTerminal } from '../domain/values.js';
import { LbrlError } from '../errors.js';
import {
  expiredRecord,
  type HistoryEntry,
  type StoredRecord,
  statusRecord,
} from '../store/history-records.js';
import { getChecked } from './answers.js';
import type { DepositApi, HistoryReader, Notes, Recorder, Scope } from './ports.js';
import { GONE } from './watch.js';

/** The profile's deposits, newest first, at most `limit`. */
export function listEntries(
  history: Pick<HistoryReader, 'entries'>,
  profile: string,
  limit: number,
): HistoryEntry[] {
  return history.entries((r) => r.profile === profile, { limit });
}

/** What `watch --pending` follows, in the order it asks about them. */
export interface PendingWork {
  /** the ids named, then the deposits in flight, then those waiting, newest first */
  ids: string[];
  /** the deposits past expire-after that get one last look (watch's lastLook) */
  lastLook: Set<string>;
  /** the deposits waiting for payment not yet past expire-after, and when each passes it (watch's dueAt) */
  dueAt: Map<string, number>;
  /** when each deposit followed that was recorded expired was (a late payment is reported) */
  expiredAt: Map<string, string>;
}

/**
 * The scope's deposits that can still change: not FINALIZED or FAILED, not recorded as gone
 * from the service, and not expired (unless `includeExpired`), after `ids` and without repeats.
 * Memory and requests follow what is open, not the size of the history. Which are due their last
 * look is told by the clock once the history is read: a large file read on a loaded machine
 * takes time, and a charge that passed expire-after meanwhile is due, not live.
 */
export function pendingWork(
  history: HistoryReader,
  scope: Scope,
  ids: string[],
  opts: { includeExpired?: boolean; now: () => number; expireAfterMs: number },
): PendingWork {
  const named = new Set(ids);
  const inFlight: string[] = [];
  const waiting: string[] = [];
  const due: string[] = [];
  const lastLook = new Set<string>();
  const dueAt = new Map<string, number>();
  const expiredAt = new Map<string, string>();
  const entries = history.pending((r) => r.profile === scope.profile && r.baseUrl === scope.target, {
    includeExpired: opts.includeExpired === true,
  });
  const now = opts.now();
  for (const entry of entries) {
    if (entry.status === GONE) continue;
    if (entry.expiredAt) expiredAt.set(entry.id, entry.expiredAt);
    if (named.has(entry.id)) continue;
    if ((IN_FLIGHT as readonly string[]).includes(entry.status)) inFlight.push(entry.id);
    else if (isDueToExpire(entry, now, opts.expireAfterMs)) {
      due.push(entry.id);
      lastLook.add(entry.id);
    } else {
      waiting.push(entry.id);
      const at = lastLookDueAt(entry, now, opts.expireAfterMs);
      if (at !== undefined) dueAt.set(entry.id, at);
    }
  }
  return { ids: [...ids, ...inFlight, ...waiting, ...due], lastLook, dueAt, expiredAt };
}

/**
 * Ask the service for the status of the entries of this target not yet terminal; the entries
 * are updated in place and the statuses recorded (also those got before a failure).
 * The client is asked for only when there is something to refresh.
 */
export async function refreshEntries(
  entries: HistoryEntry[],
  deps: {
    api: () => Promise<DepositApi>;
    target: string;
    recorder: Recorder;
    now: () => number;
    notes: Notes;
    /** the profile's expire-after: a deposit past it still waiting is recorded expired */
    expireAfterMs?: number;
    /** a deposit recorded expired was found paid */
    paidAfterExpiry?: (entry: HistoryEntry, status: string) => void;
  },
): Promise<void> {
  // a deposit recorded as gone is not asked about again
  const open = (e: HistoryEntry) => !isTerminal(e.status) && e.status !== GONE;
  const stale = entries.filter((e) => e.baseUrl === deps.target && open(e));
  const skipped = entries.filter((e) => e.baseUrl !== deps.target && open(e)).length;
  if (skipped > 0) deps.notes.info(`${skipped} deposit(s) of another service were not refreshed`);
  if (stale.length === 0) return;
  const api = await deps.api();
  const records: StoredRecord[] = [];
  try {
    for (const entry of stale) {
      try {
        const { value } = await getChecked(api, entry.id, { recorded: entry });
        const now = deps.now();
        const record = statusRecord(entry.id, value.status, now, value);
        if (entry.expiredAt && value.status !== 'WAITING_PAYMENT') {
          // FAILED after lbrl gave up is an end, not a payment: no alarm
          if (isPaid(value.status)) deps.paidAfterExpiry?.(entry, value.status);
          entry.expiredAt = undefined;
        }
        records.push(record);
        entry.status = record.status;
        entry.statusAt = record.at;
        if (record.final) entry.final = record.final;
        if (deps.expireAfterMs !== undefined && isDueToExpire(entry, now, deps.expireAfterMs)) {
          const expired = expiredRecord(entry.id, now);
          records.push(expired);
          entry.expiredAt = expired.at;
        }
      } catch (error) {
        if (error instanceof LbrlError && error.type === 'not_found') {
          deps.notes.warn(`warning: the service does not know deposit ${entry.id}`);
          continue;
        }
        throw error;
      }
    }
  } finally {
    await deps.recorder.record(records);
  }
}
