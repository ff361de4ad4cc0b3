/**
 * The fast search of the history: from the end of the file back, stopping once the answer is
 * whole (eachBackward), and the look at the lines before where it stopped that tells whether they
 * change that answer (settledBefore). Whatever the file holds, it agrees with the total reader
 * (allEntries in history-forward.ts), or says it cannot and the caller reads the whole file.
 */
import { canonicalId } from '../domain/values.js';
import {
  DamageCount,
  forEachBlock,
  type HistoryFile,
  NEWLINE,
  PREFIXES,
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
  const prints = new Set<number>();
  const disordered = new Map<string, number>();
  let overflow = false;
  let stopped = false;
  // where `visit` stopped the read: the lines before it are left to settledBefore
  const floor = { at: 0 };
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
        if (!disordered.has(record.id) || record.type === 'created')
          disordered.set(record.id, record.type === 'created' ? offset : -1);
        return false;
      }
      if (stopped) return false;
      if (record.type !== 'created') return hold(record);
      if (merge?.has(record.id) && merge.get(record.id) !== offset) return hold(record);
      const own = held.get(depositKey(record.baseUrl, record.id));
      const unnamed = held.get(record.id);
      if (own && unnamed) mixed = true;
      const later = own ?? unnamed;
      held.delete(record.id);
      held.delete(depositKey(record.baseUrl, record.id));
      if (!merge && met.add(record.id)) prints.add(idPrint(record.id));
      if (!merge) {
        let ids = metOn.get(record.baseUrl);
        if (!ids) metOn.set(record.baseUrl, (ids = new IdSet()));
        ids.add(record.id);
      }
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
  return { overflow, disordered, stoppedAt: stopped ? floor.at : 0, met: { ids: met, prints }, mixed };
}

/**
 * Whether the lines before `end` change nothing of the newest entries a read from the end found
 * after it (whose oldest creation time is `oldest`): they hold no creation of a deposit that read
 * met (the first creation is the deposit's, and its later lines all count), and none newer than
 * `oldest` (which would rank among the newest; one as old ranks after, being earlier in the file),
 * of the deposits `only` names when given. A creation in any form counts (another tool's spacing
 * or key order, a record a torn write ran into): lines as lbrl writes them are told by their
 * first bytes and read no further than their time, any other line is read whole. Where a line
 * cannot be told so cheaply, the answer is no: the caller reads the whole file.
 */
export function settledBefore(
  source: HistoryFile,
  end: number,
  met: DepositsMet,
  oldest: string,
  only?: ReadonlySet<string>,
): boolean {
  const oldestBytes = Buffer.from(oldest, 'latin1');
  const changes = (record: StoredRecord): boolean =>
    record.type === 'created' &&
    (met.ids.has(record.id) || ((!only || only.has(record.id)) && record.at > oldest));
  const out: StoredRecord[] = [];
  const damage = new DamageCount();
  const readWhole = (buf: Buffer, at: number, stop: number): number => {
    const start = buf.lastIndexOf(NEWLINE, at) + 1;
    const newline = buf.indexOf(NEWLINE, at);
    const lineEnd = newline === -1 || newline > stop ? stop : newline;
    readLine(buf, start, lineEnd, out, damage);
    return out.splice(0).some(changes) ? -1 : lineEnd;
  };
  const stopped = forEachBlock(source, 0, end, (buf, stop) => {
    // a line with an escape may spell "created" otherwise: read whole
    for (let at = buf.indexOf(ESCAPE, 0); at !== -1 && at < stop; ) {
      const lineEnd = readWhole(buf, at, stop);
      if (lineEnd < 0) return true;
      at = buf.indexOf(ESCAPE, lineEnd);
    }
    // every creation holds `created"`: as lbrl writes it, at a line's start; else read whole
    for (let hit = buf.indexOf(CREATED_WORD, 0); hit !== -1 && hit < stop; ) {
      const start = hit - CREATED_AT;
      if (start >= 0 && (start === 0 || buf[start - 1] === NEWLINE) && isCreatedHead(buf, start, stop)) {
        if (changesAsWritten(buf, start + CREATED_HEAD.length, stop)) return true;
        hit = buf.indexOf(CREATED_WORD, hit + 1);
        continue;
      }
      const lineEnd = readWhole(buf, hit, stop);
      if (lineEnd < 0) return true;
      hit = buf.indexOf(CREATED_WORD, lineEnd);
    }
    return false;
  });
  return !stopped;

  /** Whether a created line as lbrl writes it (its id at `idStart`) changes the answer. */
  function changesAsWritten(buf: Buffer, idStart: number, stop: number): boolean {
    if (met.prints.has(idPrint(buf, idStart)) && met.ids.has(idAt(buf, idStart))) return true;
    if (only && !only.has(idAt(buf, idStart))) return false;
    return !timeNoLater(buf, idStart + ID_LENGTH, stop, oldestBytes);
  }
}

const CREATED_HEAD = PREFIXES[0]![1];
/** What every creation holds, whoever wrote it (unless escaped), and where lbrl's line has it. */
const CREATED_WORD = Buffer.from('created"');
const CREATED_AT = '{"v":1,"type":"'.length;
const ESCAPE = Buffer.from('\\u');
const ID_LENGTH = 36;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What follows the id of a created line as lbrl writes it, up to the time: `","profile":"…","baseUrl":"…","at":"`. */
const PROFILE_KEY = Buffer.from('","profile":"');
const BASE_URL_KEY = Buffer.from('","baseUrl":"');
const AT_KEY = Buffer.from('","at":"');

/** Whether buf[at...end) starts with `bytes` (compared here: a native call costs more for a few bytes). */
function startsWith(buf: Buffer, at: number, end: number, bytes: Buffer): boolean {
  if (end - at < bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

/** Whether a line starts as lbrl writes a created line, its id whole (no quote, escape or byte past ASCII). */
function isCreatedHead(buf: Buffer, start: number, end: number): boolean {
  if (!startsWith(buf, start, end, CREATED_HEAD)) return false;
  const idEnd = start + CREATED_HEAD.length + ID_LENGTH;
  if (idEnd >= end || buf[idEnd] !== QUOTE) return false;
  for (let i = start + CREATED_HEAD.length; i < idEnd; i++)
    if (buf[i] === BACKSLASH || buf[i] === QUOTE || buf[i]! >= 0x80) return false;
  return true;
}
/** The id of a created line in its one form (lower case). */
function idAt(buf: Buffer, from: number): string {
  return canonicalId(buf.toString('latin1', from, from + ID_LENGTH));
}

/**
 * A 32-bit print of an id in its one form, from its last 12 characters (of a UUID, 48 bits, the
 * part that differs most) in lower case, from a string or from the bytes of a line: a cheap first
 * look before the id is read as text.
 */
export function idPrint(source: string | Buffer, from = 0): number {
  let hash = 0x811c9dc5;
  if (typeof source === 'string')
    for (let i = ID_LENGTH - 12; i < ID_LENGTH; i++)
      hash = Math.imul(hash ^ lower(source.charCodeAt(i)), 0x01000193);
  else
    for (let i = from + ID_LENGTH - 12; i < from + ID_LENGTH; i++)
      hash = Math.imul(hash ^ lower(source[i]!), 0x01000193);
  return hash >>> 0;
}

function lower(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

/** The end of the JSON text value starting at `from` (its closing quote), or -1 past `end`. */
function textEnd(buf: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    if (buf[i] === BACKSLASH) i++;
    else if (buf[i] === QUOTE) return i;
    else if (buf[i] === NEWLINE) return -1;
  }
  return -1;
}

/**
 * Whether the time of a created line as lbrl writes it (after its id: the profile, the service,
 * then the time) is no later than `oldest`, compared as the readers compare times (as text); no
 * when it cannot be read so (the keys otherwise, an escape or a byte past ASCII in the time).
 */
function timeNoLater(buf: Buffer, idEnd: number, end: number, oldest: Buffer): boolean {
  if (!startsWith(buf, idEnd, end, PROFILE_KEY)) return false;
  const profileEnd = textEnd(buf, idEnd + PROFILE_KEY.length, end);
  if (profileEnd === -1 || !startsWith(buf, profileEnd, end, BASE_URL_KEY)) return false;
  const serviceEnd = textEnd(buf, profileEnd + BASE_URL_KEY.length, end);
  if (serviceEnd === -1 || !startsWith(buf, serviceEnd, end, AT_KEY)) return false;
  const start = serviceEnd + AT_KEY.length;
  for (let i = start; i < end; i++) {
    const byte = buf[i]!;
    if (byte === BACKSLASH || byte === NEWLINE || byte >= 0x80) return false;
    const index = i - start;
    // the time ends: it is no later when what it holds so far is all of oldest's start
    if (byte === QUOTE) return true;
    if (index >= oldest.length) return false;
    if (byte !== oldest[index]) return byte < oldest[index]!;
  }
  return false;
}
