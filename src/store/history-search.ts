/**
 * The fast search of the history: from the end of the file back, stopping once the answer is
 * whole (eachBackward), and the look at the lines before where it stopped that tells whether they
 * change that answer (settledBefore). Whatever the file holds, it agrees with the total reader
 * (allEntries in history-forward.ts), or says it cannot and the caller reads the whole file.
 */
import fs from 'node:fs';
import { canonicalId } from '../domain/values.js';
import {
  CREATED_AT,
  CREATED_LINE,
  CREATED_WORD,
  createdAsWritten,
  ESCAPE,
  idPrint,
  TEXT_BLOCK,
  timeKey,
} from './history-creations.js';
import { openHistory } from './history-encoding.js';
import { buildIndex, type CreationIndex, keyOfFile, readIndex } from './history-index.js';
import {
  DamageCount,
  forEachBlock,
  type HistoryFile,
  MAX_LINE,
  NEWLINE,
  readLine,
  scanBackward,
} from './history-lines.js';
import { depositKey, entryOfCreated, type Held, holdEarlier } from './history-merge.js';
import type { CreatedRecord, HistoryEntry, StoredRecord } from './history-records.js';
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
 * the read, what it gave is the answer only if the lines before `stoppedAt` change nothing of
 * it: `settledBefore` tells.
 */
/** What a read from the end back found besides the entries it gave. */
export interface BackwardRead {
  /** more facts held for deposits not yet met than STATUS_ROOM: read from the start instead */
  overflow: boolean;
  /** the deposits whose lines repeat out of order, each with the offset of its first creation */
  disordered: Map<string, number>;
  /** where `visit` stopped the read (the start of that deposit's line); 0 when it read it all */
  stoppedAt: number;
  /** the deposits whose creation the read met (a compact set, and each id's print: see idPrint) */
  met: DepositsMet;
  /** the damaged lines it met: said by the caller once it knows this read is its answer */
  damage: DamageCount;
  /**
   * an id created on two services, or a deposit with records that name their service and
   * records that do not (written before and after an upgrade): merged only by a read from the start
   */
  mixed: boolean;
}

export interface DepositsMet {
  ids: IdSet;
  prints: ReadonlySet<number>;
}

export function eachBackward(
  source: HistoryFile,
  filter: (r: CreatedRecord) => boolean,
  visit: (e: HistoryEntry) => boolean,
  opts: { merge?: ReadonlyMap<string, number>; ids?: ReadonlySet<string> } = {},
): BackwardRead {
  const held = new Map<string, Held>();
  const merge = opts.merge;
  const met = new IdSet();
  const metOn = new Map<string, IdSet>();
  let mixed = false;
  const markMixed = () => {
    mixed = true;
  };
  const prints = new Set<number>();
  const disordered = new Map<string, number>();
  // the lines of a deposit met (read from the end) after its creation: before it in the file
  const early = new Map<string, number>();
  let overflow = false;
  let stopped = false;
  // where `visit` stopped the read: the lines before it are left to settledBefore
  const floor = { at: 0 };
  const damage = new DamageCount();
  // a record naming its service is held for that service's deposit; one without, for the id's
  // (a creation held by a second read, too: it is the deposit's own, whatever its service)
  const heldKey = (record: StoredRecord & { id: string }) =>
    record.baseUrl === undefined || record.type === 'created'
      ? record.id
      : depositKey(record.baseUrl, record.id);
  const hold = (record: StoredRecord & { id: string }): boolean => {
    const key = heldKey(record);
    let later = held.get(key);
    if (!later) held.set(key, (later = {}));
    holdEarlier(later, record);
    overflow = held.size > STATUS_ROOM + (merge?.size ?? 0);
    return overflow;
  };
  scanBackward(
    source,
    (record, offset) => {
      if (record.type === 'attempt') return false;
      if (met.has(record.id)) {
        if (record.type === 'created' && !metOn.get(record.baseUrl)?.has(record.id)) mixed = true;
        if (record.type !== 'created') early.set(record.id, (early.get(record.id) ?? 0) + 1);
        if (!disordered.has(record.id) || record.type === 'created')
          disordered.set(record.id, record.type === 'created' ? offset : -1);
        return false;
      }
      if (stopped) return false;
      if (record.type !== 'created') return hold(record);
      if (merge?.has(record.id) && merge.get(record.id) !== offset) return hold(record);
      const later = takeHeld(held, record, markMixed);
      if (!merge && met.add(record.id)) prints.add(idPrint(record.id));
      if (!merge) {
        let ids = metOn.get(record.baseUrl);
        if (!ids) metOn.set(record.baseUrl, (ids = new IdSet()));
        ids.add(record.id);
      }
      if (!filter(record)) return false;
      // the record was parsed for this read alone: it becomes the entry, without a copy
      stopped = visit(entryOfCreated(record, later));
      if (!stopped) return false;
      // the lines before are settledBefore's to look at (a creation of a deposit met there among them)
      floor.at = offset;
      return true;
    },
    (type, id) => type !== 'attempt' && (id === undefined || ((!opts.ids || opts.ids.has(id)) && !stopped)),
    Number.POSITIVE_INFINITY,
    floor,
    damage,
  );
  countEarly(disordered, early, damage);
  const stoppedAt = stopped ? floor.at : 0;
  return { overflow, disordered, stoppedAt, met: { ids: met, prints }, mixed, damage };
}

/**
 * Takes what was held for a creation's deposit: under its service's key, or (a record of an older
 * release) under its id (both: `onBoth`, a deposit to merge from the start). Each key made once,
 * and looked up only when something is held.
 */
function takeHeld(held: Map<string, Held>, record: CreatedRecord, onBoth: () => void): Held | undefined {
  let own: Held | undefined;
  if (held.size > 0) {
    const key = depositKey(record.baseUrl, record.id);
    own = held.get(key);
    if (own) held.delete(key);
  }
  const unnamed = held.size > 0 ? held.get(record.id) : undefined;
  if (unnamed) held.delete(record.id);
  if (own && unnamed) onBoth();
  return own ?? unnamed;
}

/** A record met before the only creation of its deposit is damage, counted (and said with the rest). */
function countEarly(
  disordered: Map<string, number>,
  early: ReadonlyMap<string, number>,
  damage: DamageCount,
): void {
  for (const [id, offset] of disordered) {
    if (offset >= 0) continue;
    disordered.delete(id);
    for (let n = early.get(id) ?? 0; n > 0; n--) damage.add("before its deposit's creation");
  }
}

/**
 * Whether the lines before `end` leave a read from the end's answer as it is: no creation there of
 * a deposit the read met (`met`), nor one (of `only`, when given) newer than `oldest`. What the
 * creation index (history-index.ts) covers is answered from it; the rest is read and searched.
 */
export function settledBefore(
  source: HistoryFile,
  end: number,
  met: DepositsMet,
  oldest: string,
  only: ReadonlySet<string> | undefined,
  damage: DamageCount,
): boolean {
  const key = keyOfFile(source.file);
  // the index compares times in lbrl's one form: a page whose oldest is in another is looked at whole
  const index = key && !Number.isNaN(timeKey(oldest)) && (readIndex(source.file, key) ?? buildIndex(source));
  let from = 0;
  if (index) {
    from = Math.min(end, index.covered);
    if (indexSaysChanged(source, index, from, met, oldest, only)) return false;
    if (from >= end) return true;
  }
  return searchedSettled(source, from, end, met, oldest, only, damage);
}

/**
 * Whether a creation the index holds before `end` changes the answer: one newer than `oldest`, or
 * one whose id's print is a deposit's met (or asked about): that line is read to tell.
 */
function indexSaysChanged(
  source: HistoryFile,
  index: CreationIndex,
  end: number,
  met: DepositsMet,
  oldest: string,
  only: ReadonlySet<string> | undefined,
): boolean {
  const count = index.before(end);
  if (count === 0) return false;
  const oldestKey = timeKey(oldest);
  if (!only && index.latestKey(count - 1) > oldestKey) return true;
  const asked = only && new Set([...only].map(idPrint));
  for (let i = 0; i < count; i++) {
    const print = index.print(i);
    if (met.prints.has(print) || (asked?.has(print) && index.atKey(i) > oldestKey))
      if (lineChanges(source, index.offset(i), met, oldest, only)) return true;
  }
  return false;
}

/** What the created line at `offset` does to the answer, read from the file (one the index held). */
function lineChanges(
  source: HistoryFile,
  offset: number,
  met: DepositsMet,
  oldest: string,
  only: ReadonlySet<string> | undefined,
): boolean {
  const opened = openHistory(source.file, 'read', source.warn);
  if (!opened) return true;
  const buf = Buffer.alloc(MAX_LINE);
  let length: number;
  try {
    length = fs.readSync(opened.fd, buf, 0, MAX_LINE, offset);
  } finally {
    fs.closeSync(opened.fd);
  }
  const line = createdAsWritten(buf.toString('latin1', 0, length), 0);
  // not the line the index was made from: said changed, so the whole file is read
  if (line === undefined) return true;
  const id = canonicalId(line.id);
  if (met.ids.has(id)) return true;
  if (only && !only.has(id)) return false;
  return line.at > oldest;
}

/** settledBefore's look at [from, end), the file read and searched as text. */
function searchedSettled(
  source: HistoryFile,
  from: number,
  end: number,
  met: DepositsMet,
  oldest: string,
  only: ReadonlySet<string> | undefined,
  damage: DamageCount,
): boolean {
  const changes = (record: StoredRecord): boolean =>
    record.type === 'created' &&
    (met.ids.has(record.id) || ((!only || only.has(record.id)) && record.at > oldest));
  const out: StoredRecord[] = [];
  // the line around `at` read whole: -1 when it changes the answer, else where it ends
  const readWhole = (buf: Buffer, text: string, at: number, stop: number): number => {
    const start = text.lastIndexOf('\n', at) + 1;
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 ? stop : newline;
    readLine(buf, start, lineEnd, out, damage);
    return out.splice(0).some(changes) ? -1 : lineEnd;
  };
  const stopped = forEachBlock(
    source,
    from,
    end,
    (buf, stop) => {
      // searched as text (one byte one character): the engine's own search, no call out per line
      const text = buf.toString('latin1', 0, stop);
      // a line with an escape may spell "created" otherwise: read whole
      for (let at = text.indexOf(ESCAPE); at !== -1; ) {
        const lineEnd = readWhole(buf, text, at, stop);
        if (lineEnd < 0) return true;
        at = text.indexOf(ESCAPE, lineEnd);
      }
      // every creation holds `created"`: as lbrl writes it, at a line's start, read in place; else whole
      for (let hit = text.indexOf(CREATED_WORD); hit !== -1; ) {
        const start = hit - CREATED_AT;
        const asWritten =
          start >= 0 && (start === 0 || text.charCodeAt(start - 1) === NEWLINE)
            ? changesAsWritten(text, start)
            : UNTOLD;
        if (asWritten === CHANGES) return true;
        if (asWritten === SAME) {
          hit = text.indexOf(CREATED_WORD, hit + 1);
          continue;
        }
        const lineEnd = readWhole(buf, text, hit, stop);
        if (lineEnd < 0) return true;
        hit = text.indexOf(CREATED_WORD, lineEnd);
      }
      return false;
    },
    TEXT_BLOCK,
    damage,
  );
  return !stopped;

  /** What a created line as lbrl writes it, starting at `start`, does to the answer (UNTOLD: read it whole). */
  function changesAsWritten(text: string, start: number): LineVerdict {
    CREATED_LINE.lastIndex = start;
    const line = CREATED_LINE.exec(text);
    if (line === null) return UNTOLD;
    const id = line[1]!;
    if (met.prints.has(idPrint(id)) && met.ids.has(canonicalId(id))) return CHANGES;
    if (only && !only.has(canonicalId(id))) return SAME;
    return line[2]! > oldest ? CHANGES : SAME;
  }
}

/** What one line does to the answer of a read from the end, told in place or not. */
type LineVerdict = 0 | 1 | 2;
const SAME = 0;
const CHANGES = 1;
const UNTOLD = 2;
