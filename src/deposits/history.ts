/** The local history's deposits: which are pending, and bringing their statuses up to date. */
import { isTerminal } from '../domain/values.js';
import { LbrlError } from '../errors.js';
import { type HistoryEntry, type StatusRecord, statusRecord } from '../store/history.js';
import { getChecked } from './answers.js';
import type { DepositApi, HistoryReader, Notes, Recorder, Scope } from './ports.js';
import { GONE } from './watch.js';

/** The profile's deposits, newest first, at most `limit`. */
export function listEntries(history: HistoryReader, profile: string, limit: number): HistoryEntry[] {
  return history.entries((r) => r.profile === profile, { limit });
}

/**
 * Ids of the scope's deposits not yet FINALIZED or FAILED, nor recorded as gone from the service,
 * after `ids` and without repeats.
 */
export function pendingIds(history: HistoryReader, scope: Scope, ids: string[] = []): string[] {
  const out = [...ids];
  for (const e of history.pending((r) => r.profile === scope.profile && r.baseUrl === scope.target)) {
    if (e.status !== GONE && !out.includes(e.id)) out.push(e.id);
  }
  return out;
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
  },
): Promise<void> {
  // a deposit recorded as gone is not asked about again
  const open = (e: HistoryEntry) => !isTerminal(e.status) && e.status !== GONE;
  const stale = entries.filter((e) => e.baseUrl === deps.target && open(e));
  const skipped = entries.filter((e) => e.baseUrl !== deps.target && open(e)).length;
  if (skipped > 0) deps.notes.info(`${skipped} deposit(s) of another service were not refreshed`);
  if (stale.length === 0) return;
  const api = await deps.api();
  const records: StatusRecord[] = [];
  try {
    for (const e of stale) {
      try {
        const { value } = await getChecked(api, e.id, { recorded: e });
        const record = statusRecord(e.id, value.status, deps.now(), value);
        records.push(record);
        e.status = record.status;
        e.statusAt = record.at;
        if (record.final) e.final = record.final;
      } catch (error) {
        if (error instanceof LbrlError && error.type === 'not_found') {
          deps.notes.warn(`warning: the service does not know deposit ${e.id}`);
          continue;
        }
        throw error;
      }
    }
  } finally {
    deps.recorder.record(records);
  }
}
