/**
 * The readers of deposits: from the end of the file back, stopping once the answer is whole
 * (eachBackward), and from the start, holding what the answer needs (allEntries, the total
 * reader every other must agree with; newestCreated; pendingEntries).
 */
import fs from 'node:fs';
import { canonicalId, isTerminal } from '../domain/values.js';
import { openOwnFile } from './files.js';
import { CHUNK, type HistoryFile, PREFIXES, scanBackward, scanForward } from './history-lines.js';
import {
  applyLater,
  entryOfCreated,
  entryOfRanked,
  expires,
  type Held,
  holdEarlier,
  Newest,
  newerFirst,
  type Ranked,
} from './history-merge.js';
import { type CreatedRecord, type HistoryEntry, MAX_ENTRIES, type StoredRecord } from './history-records.js';
import { IdSet } from './id-set.js';

/** How many statuses of deposits not yet met a read from the end holds before it reads from the start. */
const STATUS_ROOM = 100_000;

/**
 * The deposits from the end of the file back, each given to `visit` once all that was written
 * of it since its creation was met, until `visit` returns true. The facts met before their
 * deposit are held until it is met; past STATUS_ROOM of those it stops (`overflow`: the caller
 * then reads the whole file instead).
 *
 * A deposit is created once: a record of a deposit met after its creation (further back) means
 * its lines repeat out of order. Those deposits are returned in `disordered`, each with the
 * offset of its first creation; given back as `merge`, their records are held until that first
 * creation, where the deposit is given to `visit` with all of them merged. When `visit` stops
 * the read, the rest of the file is still searched for an earlier creation of the deposits
 * given (those in `kept`, when the caller names them), which makes them `disordered` too.
 */
export function eachBackward(
  source: HistoryFile,
  filter: (r: CreatedRecord) => boolean,
  visit: (e: HistoryEntry) => boolean,
  opts: { merge?: ReadonlyMap<string, number>; ids?: ReadonlySet<string>; kept?: ReadonlySet<string> } = {},
): { overflow: boolean; disordered: Map<string, number> } {
  const held = new Map<string, Held>();
  const merge = opts.merge;
  const met = new IdSet();
  const disordered = new Map<string, number>();
  let overflow = false;
  let stopped = false;
  // once `visit` stops the read, the rest of the file is searched for earlier creations of the
  // deposits kept, by a scan that parses nothing (see createdBefore)
  const floor = { at: 0 };
  const hold = (record: StoredRecord & { id: string }): boolean => {
    let later = held.get(record.id);
    if (!later) held.set(record.id, (later = {}));
    holdEarlier(later, record);
    overflow = held.size > STATUS_ROOM + (merge?.size ?? 0);
    return overflow;
  };
  scanBackward(
    source,
    (record, offset) => {
      if (record.type === 'attempt') return false;
      if (met.has(record.id)) {
        if (!disordered.has(record.id) || record.type === 'created')
          disordered.set(record.id, record.type === 'created' ? offset : -1);
        return false;
      }
      if (stopped) return false;
      if (record.type !== 'created') return hold(record);
      if (merge?.has(record.id) && merge.get(record.id) !== offset) return hold(record);
      const later = held.get(record.id);
      held.delete(record.id);
      if (!merge) met.add(record.id);
      if (!filter(record)) return false;
      // the record was parsed for this read alone: it becomes the entry, without a copy
      stopped = visit(entryOfCreated(record, later));
      if (stopped) floor.at = offset;
      return false;
    },
    (type, id) => type !== 'attempt' && (id === undefined || ((!opts.ids || opts.ids.has(id)) && !stopped)),
    Number.POSITIVE_INFINITY,
    floor,
  );
  // a record met before the only creation of its deposit is damage, as it always was
  for (const [id, offset] of disordered) if (offset < 0) disordered.delete(id);
  const kept = opts.kept ?? met;
  if (stopped && floor.at > 0) for (const id of createdBefore(source, floor.at, kept)) disordered.set(id, -2);
  return { overflow, disordered };
}

/**
 * The ids of `ids` created (as lbrl writes a created line) before offset `end`: a forward scan
 * that finds each created line by its start with a native search and parses nothing, so the
 * newest few deposits are known to be created once without reading the whole file as records.
 */
function createdBefore(source: HistoryFile, end: number, ids: { has(id: string): boolean }): string[] {
  const opened = openOwnFile(source.file, 'read', 'history', source.warn);
  if (!opened) return [];
  const found: string[] = [];
  const head = PREFIXES[0]![1];
  const span = head.length + 36;
  const buf = Buffer.allocUnsafe(CHUNK + span);
  try {
    for (let base = 0; base < end; base += CHUNK) {
      const length = fs.readSync(opened.fd, buf, 0, Math.min(CHUNK + span, end - base), base);
      for (let at = buf.indexOf(head, 0); at !== -1 && at + span <= length && at < CHUNK; ) {
        const id = canonicalId(buf.toString('latin1', at + head.length, at + span));
        if (ids.has(id)) found.push(id);
        at = buf.indexOf(head, at + head.length);
      }
    }
  } finally {
    fs.closeSync(opened.fd);
  }
  return found;
}

/** Every deposit the filter takes, in one pass from the start, held in memory: the fallback. */
export function allEntries(source: HistoryFile, filter: (r: CreatedRecord) => boolean): HistoryEntry[] {
  const all = new Map<string, Ranked>();
  const created = new IdSet();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit is created once: a created line repeated says nothing new
        if (created.add(record.id) && filter(record))
          all.set(record.id, { created: record, seq: seq++, status: record.status, statusAt: record.at });
        return;
      }
      const ranked = all.get(record.id);
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
  const created = new IdSet();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit is created once: a created line repeated says nothing new
        if (created.add(record.id) && filter(record)) newest.offer(record, seq++);
        return;
      }
      const ranked = newest.map.get(record.id);
      // appends are ordered: a later line is later news, whatever the clocks of the writers said
      if (ranked) applyLater(ranked, record);
    },
    0,
    (type, id) => type === 'created' || (type !== 'attempt' && (id === undefined || newest.map.has(id))),
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
  const created = new IdSet();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit is created once: a created line repeated (after its end, too) says nothing new
        if (created.add(record.id) && filter(record) && !isTerminal(record.status)) open.offer(record, seq++);
        return;
      }
      if (record.type === 'expired') {
        const ranked = open.map.get(record.id);
        if (!ranked || !expires(ranked.status)) return;
        ranked.expiredAt = record.at;
        if (!opts.includeExpired) {
          open.map.delete(record.id);
          dormant.set(record.id, ranked);
        }
        return;
      }
      const sleeping = dormant.get(record.id);
      if (sleeping) {
        const was = sleeping.status;
        applyLater(sleeping, record);
        if (sleeping.status === was) return;
        // a status that moves it on: news from the service, the deposit is followed again
        dormant.delete(record.id);
        if (!isTerminal(sleeping.status)) open.offer(sleeping.created, sleeping.seq);
        if (open.map.has(record.id)) open.map.set(record.id, sleeping);
        return;
      }
      const openEntry = open.map.get(record.id);
      if (!openEntry) return;
      applyLater(openEntry, record);
      if (isTerminal(openEntry.status)) open.map.delete(openEntry.created.id);
    },
    0,
    (type, id) =>
      type === 'created' || (type !== 'attempt' && (id === undefined || open.map.has(id) || dormant.has(id))),
  );
  const out = open.result();
  if (open.truncated) {
    source.warn(
      `warning: ${source.file} holds more than ${cap} deposits not yet ended; only the newest ${cap} are taken`,
    );
  }
  return out;
}
