/**
 * The readers of deposits from the start of the file: allEntries (the total reader, which every
 * faster search must agree with), newestCreated and pendingEntries (which hold only what their
 * answer needs).
 */
import { isTerminal } from '../domain/values.js';
import { anyRecord, DamageCount, type HistoryFile, scanForward } from './history-lines.js';
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
import { type CreatedRecord, type HistoryEntry, MAX_ENTRIES, type StoredRecord } from './history-records.js';

/**
 * Every record of the file in order, by deposit (one id on one service): the first creation of
 * each deposit the filter takes, numbered in file order, to `onCreated`; every later record of a
 * deposit created, with its deposit's key, to `onLater`. A created line repeated says nothing new.
 * When `follows` is given, the records of deposits it does not follow are passed over unread.
 */
function eachDepositRecord(
  source: HistoryFile,
  filter: (r: CreatedRecord) => boolean,
  onCreated: (record: CreatedRecord, seq: number) => void,
  onLater: (key: string, record: LaterRecord) => void,
  follows?: (key: string) => boolean,
): void {
  const created = new CreatedWhere();
  const early = new EarlyLines();
  let seq = 0;
  scanForward(
    source,
    (record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        if (created.add(record) && filter(record)) onCreated(record, seq++);
        early.created(record.id);
        return;
      }
      const key = created.keyOf(record);
      if (key !== undefined) onLater(key, record);
      else if (!created.anyKey(record.id, () => true)) early.note(record.id);
    },
    0,
    follows === undefined
      ? anyRecord
      : (type, id) =>
          type === 'created' || (type !== 'attempt' && (id === undefined || created.anyKey(id, follows))),
    early.damage,
  );
  early.damage.say(source);
}

/**
 * Lines of a deposit placed before its created line (a file reversed or sorted, two files joined
 * newest first): read in order they are about no deposit yet, so they are not counted; each is
 * damage, counted and said as the backward read says it. A line of a deposit never created here
 * (a verify of another machine's deposit) is not one of them.
 */
class EarlyLines {
  /** lines by id met before its creation; bounded, as the reader's memory is */
  private readonly lines = new Map<string, number>();
  /** every damaged line of the read, these among them: said in one warning at its end */
  readonly damage = new DamageCount();

  note(id: string): void {
    if (this.lines.size < 100_000 || this.lines.has(id)) this.lines.set(id, (this.lines.get(id) ?? 0) + 1);
  }

  created(id: string): void {
    if (this.lines.size === 0) return;
    for (let n = this.lines.get(id) ?? 0; n > 0; n--) this.damage.add("before its deposit's creation");
    this.lines.delete(id);
  }
}

type LaterRecord = Exclude<StoredRecord, CreatedRecord | { type: 'attempt' }>;

/** Every deposit the filter takes, in one pass from the start, held in memory: the fallback. */
export function allEntries(source: HistoryFile, filter: (r: CreatedRecord) => boolean): HistoryEntry[] {
  const all = new Map<string, Ranked>();
  eachDepositRecord(
    source,
    filter,
    (record, seq) =>
      all.set(depositKey(record.baseUrl, record.id), {
        created: record,
        seq,
        status: record.status,
        statusAt: record.at,
      }),
    (key, record) => {
      const ranked = all.get(key);
      if (ranked) applyLater(ranked, record);
    },
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
  eachDepositRecord(
    source,
    filter,
    (record, seq) => newest.offer(record, seq),
    (key, record) => {
      const ranked = newest.map.get(key);
      // appends are ordered: a later line is later news, whatever the clocks of the writers said
      if (ranked) applyLater(ranked, record);
    },
    (key) => newest.map.has(key),
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
  eachDepositRecord(
    source,
    filter,
    // a deposit created ended (its created line repeated after its end, too) is not pending
    (record, seq) => {
      if (!isTerminal(record.status)) open.offer(record, seq);
    },
    (key, record) => {
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
    (key) => open.map.has(key) || dormant.has(key),
  );
  const out = open.result();
  if (open.truncated) {
    source.warn(
      `warning: ${source.file} holds more than ${cap} deposits not yet ended; only the newest ${cap} are taken`,
    );
  }
  return out;
}
