/**
 * The readers of deposits from the start of the file: allEntries (the total reader, which every
 * faster search must agree with), newestCreated and pendingEntries (which hold only what their
 * answer needs).
 */
import { isTerminal } from '../domain/values.js';
import { type HistoryFile, scanForward } from './history-lines.js';
import {
  applyLater,
  CreatedWhere,
  depositKey,
  entryOfRanked,
  expires,
  Newest,
  newerFirst,
  type Ranked,
} from './history-merge.js';
import { type CreatedRecord, type HistoryEntry, MAX_ENTRIES } from './history-records.js';

/** Every deposit the filter takes, in one pass from the start, held in memory: the fallback. */
export function allEntries(source: HistoryFile, filter: (r: CreatedRecord) => boolean): HistoryEntry[] {
  const all = new Map<string, Ranked>();
  const created = new CreatedWhere();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit (one id on one service) is created once: a created line repeated says nothing new
        if (created.add(record) && filter(record))
          all.set(depositKey(record.baseUrl, record.id), {
            created: record,
            seq: seq++,
            status: record.status,
            statusAt: record.at,
          });
        return;
      }
      const key = created.keyOf(record);
      const ranked = key === undefined ? undefined : all.get(key);
      if (ranked) applyLater(ranked, record);
    },
    0,
  );
  return [...all.values()].sort(newerFirst).map(entryOfRanked);
}

/** The newest `limit` deposits by creation time, in one pass from the start. */
export function newestCreated(
  source: HistoryFile,
  filter: (r: CreatedRecord) => boolean,
  limit: number,
): HistoryEntry[] {
  const newest = new Newest(limit);
  const created = new CreatedWhere();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit (one id on one service) is created once: a created line repeated says nothing new
        if (created.add(record) && filter(record)) newest.offer(record, seq++);
        return;
      }
      const key = created.keyOf(record);
      const ranked = key === undefined ? undefined : newest.map.get(key);
      // appends are ordered: a later line is later news, whatever the clocks of the writers said
      if (ranked) applyLater(ranked, record);
    },
    0,
    (type, id) =>
      type === 'created' ||
      (type !== 'attempt' && (id === undefined || created.anyKey(id, (key) => newest.map.has(key)))),
  );
  return newest.result();
}

/**
 * The deposits not yet FINALIZED or FAILED, newest first, at most `cap`: one pass that forgets
 * a deposit as soon as it ends, so memory follows what is pending, not the file. A deposit
 * recorded expired is left out unless `includeExpired`; a later status brings it back.
 */
export function pendingEntries(
  source: HistoryFile,
  filter: (r: CreatedRecord) => boolean = () => true,
  opts: { includeExpired?: boolean; cap?: number } = {},
): HistoryEntry[] {
  const cap = opts.cap ?? MAX_ENTRIES;
  const open = new Newest(cap);
  // expired and still waiting: kept aside (not counted against the cap) until a status revives one
  const dormant = new Map<string, Ranked>();
  const created = new CreatedWhere();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit is created once: a created line repeated (after its end, too) says nothing new
        if (created.add(record) && filter(record) && !isTerminal(record.status)) open.offer(record, seq++);
        return;
      }
      const key = created.keyOf(record);
      if (key === undefined) return;
      if (record.type === 'expired') {
        const ranked = open.map.get(key);
        if (!ranked || !expires(ranked.status)) return;
        ranked.expiredAt = record.at;
        if (!opts.includeExpired) {
          open.map.delete(key);
          dormant.set(key, ranked);
        }
        return;
      }
      const sleeping = dormant.get(key);
      if (sleeping) {
        const was = sleeping.status;
        applyLater(sleeping, record);
        if (sleeping.status === was) return;
        // a status that moves it on: news from the service, the deposit is followed again
        dormant.delete(key);
        if (!isTerminal(sleeping.status)) open.offer(sleeping.created, sleeping.seq);
        if (open.map.has(key)) open.map.set(key, sleeping);
        return;
      }
      const openEntry = open.map.get(key);
      if (!openEntry) return;
      applyLater(openEntry, record);
      if (isTerminal(openEntry.status)) open.map.delete(key);
    },
    0,
    (type, id) =>
      type === 'created' ||
      (type !== 'attempt' &&
        (id === undefined || created.anyKey(id, (key) => open.map.has(key) || dormant.has(key)))),
  );
  const out = open.result();
  if (open.truncated) {
    source.warn(
      `warning: ${source.file} holds more than ${cap} deposits not yet ended; only the newest ${cap} are taken`,
    );
  }
  return out;
}
