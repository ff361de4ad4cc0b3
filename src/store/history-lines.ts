/**
 * The history file read line by line: forward from an offset, or backward from the end, a buffer
 * at a time, each line a record (read totally by record-read.ts) or a counted, named damage.
 * A line written as lbrl writes it is told by its start, so a reader passes over the lines it
 * does not want without parsing them.
 */
import fs from 'node:fs';
import { NOTE_MAX, REF_MAX } from '../domain/text/reference.js';
import { canonicalId } from '../domain/values.js';
import { openHistory } from './history-encoding.js';
import type { StoredRecord } from './history-records.js';
import { LINE_CLAIMS, LINE_DAMAGES, type LineClaim, type LineDamage, readRecordLine } from './record-read.js';

/** The file a reader reads, and where it says what it skipped. */
export interface HistoryFile {
  readonly file: string;
  readonly warn: (line: string) => void;
  /** the damage warnings said already: a command that reads the file three times says it once */
  readonly damageSaid?: Set<string>;
}

const RECORD_START = '{"v":1,';
const ID_LENGTH = 36;
export const NEWLINE = 0x0a;
/** Read this much at a time. */
export const CHUNK = 1 << 20;
/** A record is a few hundred bytes; a longer line is damage, skipped without being kept. */
export const MAX_LINE = 64 * 1024;

/** Every record from `from` on, to `visit`; returns the offset after the last whole line. */
export function scanForward(
  source: HistoryFile,
  visit: (r: StoredRecord) => void,
  from = 0,
  want: RecordFilter = anyRecord,
  counted?: DamageCount,
): number {
  const iterator = readRecords(source, from, want, counted);
  for (;;) {
    const step = iterator.next();
    if (step.done) return step.value;
    visit(step.value);
  }
}

/**
 * The file in [from, to) a buffer of whole lines at a time, to `onBlock` (its lines are buf[0, end),
 * valid only during the call; buf[0] at file offset `base`; `last`: the file's last line, without
 * its newline) until it returns true, split as readRecords splits them: what a
 * search that parses only some lines reads. Returns whether `onBlock` stopped it.
 */
export function forEachBlock(
  source: HistoryFile,
  from: number,
  to: number,
  onBlock: (buf: Buffer, end: number, base: number, last: boolean) => boolean,
  chunk = CHUNK,
  damage?: DamageCount,
): boolean {
  for (const block of lineBlocks(source, from, to, chunk, damage))
    if (onBlock(block.buf, block.end, block.base, block.last)) return true;
  return false;
}

/** Whole lines of the file: buf[0, end) holds them, buf[0] at file offset `base`. */
interface LineBlock {
  buf: Buffer;
  end: number;
  base: number;
  /** the file's last bytes, a line without its newline (a write cut short) at the end of buf */
  last: boolean;
}

/**
 * The file in [from, to) a buffer of whole lines at a time (one object, valid until the next).
 * NULs and carriage returns end a line; a line longer than MAX_LINE is skipped as damage without
 * being held (counted in `damage`); a last line without its newline comes alone, `last`.
 */
function* lineBlocks(
  source: HistoryFile,
  from: number,
  to: number,
  chunk: number,
  damage?: DamageCount,
): Generator<LineBlock> {
  const opened = openHistory(source.file, 'read', source.warn);
  if (!opened) return;
  const buf = Buffer.allocUnsafe(chunk + MAX_LINE);
  const block: LineBlock = { buf, end: 0, base: from, last: false };
  let base = from; // the file offset of buf[0]
  let have = 0;
  let skipping = false;
  try {
    for (;;) {
      const room = Math.min(buf.length - have, to - base - have);
      const bytesRead = room > 0 ? fs.readSync(opened.fd, buf, have, room, base + have) : 0;
      const limit = have + bytesRead;
      lineEndsToNewlines(buf, have, limit);
      if (bytesRead === 0) {
        if (limit > 0 && !skipping) yield Object.assign(block, { buf, end: limit, base, last: true });
        return;
      }
      let start = 0;
      if (skipping) {
        const newline = buf.indexOf(NEWLINE, 0);
        if (newline !== -1 && newline < limit) {
          skipping = false;
          start = newline + 1;
        } else start = limit;
      }
      const lastNewline = start < limit ? buf.lastIndexOf(NEWLINE, limit - 1) : -1;
      if (lastNewline >= start) {
        yield Object.assign(block, {
          buf: start === 0 ? buf : buf.subarray(start),
          end: lastNewline + 1 - start,
          base: base + start,
        });
        start = lastNewline + 1;
      }
      if (skipping || limit - start >= MAX_LINE) {
        if (!skipping) damage?.add('too long');
        skipping = true;
        base += limit;
        have = 0;
      } else {
        buf.copy(buf, 0, start, limit);
        base += start;
        have = limit - start;
      }
    }
  } finally {
    fs.closeSync(opened.fd);
  }
}

/**
 * The file from `from` on, read a buffer at a time: yields each record, returns the offset
 * after the last whole line. Lines longer than MAX_LINE are skipped as damage without
 * being held; a last line without its newline (a write cut short) is read as it is.
 */
export function* readRecords(
  source: HistoryFile,
  from: number,
  want: RecordFilter = anyRecord,
  counted?: DamageCount,
): Generator<StoredRecord, number> {
  // the caller's count, which it says with what else it found; else said here at the end
  const damage = counted ?? new DamageCount();
  let end = from;
  const out: StoredRecord[] = [];
  for (const { buf, end: stop, base, last } of lineBlocks(
    source,
    from,
    Number.POSITIVE_INFINITY,
    CHUNK,
    damage,
  )) {
    if (last) {
      readLine(buf, 0, stop, out, damage, want);
      yield* out.splice(0);
      break;
    }
    for (let start = 0; start < stop; ) {
      const newline = buf.indexOf(NEWLINE, start);
      // each record is seen before the next line is read: what a reader wants may change
      readLine(buf, start, newline, out, damage, want);
      yield* out.splice(0);
      start = newline + 1;
    }
    end = base + stop;
  }
  if (!counted) damage.say(source);
  return end;
}

/**
 * Records from the end of the file back, until `visit` returns true or `maxBytes` were read;
 * the damaged lines met on the way are skipped and counted, as a forward read does (into
 * `damage` when given, for the caller to say with what else it read; said at the end otherwise).
 * `visit` is told where each record's line starts in the file.
 */
export function scanBackward(
  source: HistoryFile,
  visit: (r: StoredRecord, offset: number) => boolean,
  want: RecordFilter = anyRecord,
  maxBytes = Number.POSITIVE_INFINITY,
  floor: { at: number } = { at: 0 },
  counted?: DamageCount,
): void {
  const opened = openHistory(source.file, 'read', source.warn);
  if (!opened) return;
  const { fd, stat } = opened;
  let pos = stat.size; // what is left to read is before pos
  let carry = Buffer.alloc(0); // the start of a line cut by the previous read
  let skipTail = false; // the last piece of the next read belongs to an over-long line
  const out: StoredRecord[] = [];
  const damage = counted ?? new DamageCount();
  const take = (data: Buffer, start: number, stop: number): boolean => {
    readLine(data, start, stop, out, damage, want);
    // a line holds one record, at most two (a torn write run into a whole one): no array made per line
    for (let i = 0; i < out.length; i++)
      if (visit(out[i]!, pos + start)) {
        out.length = 0;
        return true;
      }
    out.length = 0;
    return false;
  };
  try {
    while (pos > floor.at && stat.size - pos < maxBytes) {
      const chunkSize = Math.min(CHUNK, pos);
      pos -= chunkSize;
      // the line cut by the previous read goes after this one, copied alone (not the whole chunk)
      const data = Buffer.allocUnsafe(chunkSize + carry.length);
      fs.readSync(fd, data, 0, chunkSize, pos);
      lineEndsToNewlines(data, 0, chunkSize);
      carry.copy(data, chunkSize);
      let stop = data.length;
      for (let newline = data.lastIndexOf(NEWLINE, stop - 1); newline !== -1; ) {
        if (skipTail) skipTail = false;
        else if (take(data, newline + 1, stop)) return;
        stop = newline;
        newline = stop > 0 ? data.lastIndexOf(NEWLINE, stop - 1) : -1;
      }
      // data[0, stop) began before this read: the first line of the file, or carried back
      if (pos === 0) {
        if (!skipTail) take(data, 0, stop);
        return;
      }
      if (!skipTail && stop >= MAX_LINE) {
        damage.add('too long');
        skipTail = true;
      }
      carry = skipTail ? Buffer.alloc(0) : Buffer.from(data.subarray(0, stop));
    }
  } finally {
    fs.closeSync(fd);
    if (!counted) damage.say(source);
  }
}

export const MARK_BYTES = Buffer.from(RECORD_START);

/** The damaged lines a read met, by what is wrong with each: said in one warning at its end. */
export class DamageCount {
  private readonly counts = new Map<LineDamage, number>();
  private readonly claims = new Map<LineClaim, number>();
  private brokenTexts = 0;

  add(damage: LineDamage): void {
    this.counts.set(damage, (this.counts.get(damage) ?? 0) + 1);
  }

  /** A line read as a record without what it stated and cannot prove (record-read.ts LINE_CLAIMS). */
  claim(claim: LineClaim): void {
    this.claims.set(claim, (this.claims.get(claim) ?? 0) + 1);
  }

  /** A line read with a reference or note that breaks the input's rule (record-read.ts heldLocalTexts). */
  brokenText(): void {
    this.brokenTexts += 1;
  }

  say(source: HistoryFile): void {
    this.sayClaims(source);
    if (this.brokenTexts > 0)
      sayOnce(
        source,
        `warning: read ${this.brokenTexts} line(s) in ${source.file} with a reference or note that breaks the input rule (over ${REF_MAX} or ${NOTE_MAX} characters: cut, ending in …; control or invisible characters: shown escaped)`,
      );
    if (this.counts.size === 0) return;
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    const parts = LINE_DAMAGES.filter((damage) => this.counts.has(damage))
      .map((damage) => `${this.counts.get(damage)} ${damage}`)
      .join(', ');
    const line = `warning: skipped ${total} damaged line(s) in ${source.file} (${parts})`;
    sayOnce(source, line);
  }

  private sayClaims(source: HistoryFile): void {
    if (this.claims.size === 0) return;
    const total = [...this.claims.values()].reduce((a, b) => a + b, 0);
    const parts = LINE_CLAIMS.filter((claim) => this.claims.has(claim))
      .map((claim) => `${this.claims.get(claim)} ${claim}`)
      .join(', ');
    sayOnce(
      source,
      `warning: read ${total} line(s) in ${source.file} without what they cannot prove (${parts})`,
    );
  }
}

function sayOnce(source: HistoryFile, line: string): void {
  if (source.damageSaid?.has(line)) return;
  source.damageSaid?.add(line);
  source.warn(line);
}

/**
 * Pushes the record of buf[start, end) to out, or counts what is wrong with the line. A line
 * written as lbrl writes it is told by its start, and passed over unread when the reader does not
 * want it; any other line is read whole.
 */
export function readLine(
  buf: Buffer,
  start: number,
  end: number,
  out: StoredRecord[],
  damage: DamageCount,
  want: RecordFilter = anyRecord,
): void {
  // a byte order mark (an editor such as Notepad writes one at the start of the file, and a file
  // joined to another brings it to a line's start) is no part of the record, as the config reader says
  if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf)
    start += 3;
  while (start < end && (buf[start] === 0x20 || buf[start] === 0x0d || buf[start] === 0x09)) start += 1;
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x0d || buf[end - 1] === 0x09)) end -= 1;
  if (start === end) return;
  const head = peek(buf, start, end);
  if (head !== undefined && !want(head.type, head.id)) return;
  const read = readRecordLine(buf.toString('utf8', start, end));
  if (read.ok) {
    if (read.claim) damage.claim(read.claim);
    if (read.brokenText) damage.brokenText();
    const record = read.fields as unknown as StoredRecord;
    if (head !== undefined || want(record.type, record.type === 'attempt' ? undefined : record.id))
      out.push(record);
    return;
  }
  damage.add(read.damage);
  // a torn write may have run into a whole record: keep that record
  const last = buf.subarray(start, end).lastIndexOf(MARK_BYTES);
  if (last <= 0) return;
  const tail = readRecordLine(buf.toString('utf8', start + last, end));
  if (tail.ok) out.push(tail.fields as unknown as StoredRecord);
}

/**
 * NUL bytes (what a crash can leave where a write never landed) end a line, as a newline does:
 * no record holds one, and a run of them, however long, never swallows the record after it.
 * A carriage return ends a line too, alone (an old Mac's line end, or a tool that wrote them) or
 * before a newline (a Windows line end, whose empty line between is no line): JSON text holds
 * none within a value, so every reader reads such a file line by line, as lbrl wrote it.
 */
export function lineEndsToNewlines(buf: Buffer, from: number, to: number): void {
  // searched within what was read alone: the rest of the buffer is stale
  const read = buf.subarray(from, to);
  for (let nul = read.indexOf(0); nul !== -1; nul = read.indexOf(0, nul)) {
    let stop = nul;
    while (stop < read.length && read[stop] === 0) stop += 1;
    read.fill(NEWLINE, nul, stop);
    if (stop >= read.length) break;
  }
  for (let cr = read.indexOf(CARRIAGE_RETURN); cr !== -1; cr = read.indexOf(CARRIAGE_RETURN, cr + 1))
    read[cr] = NEWLINE;
}

const CARRIAGE_RETURN = 0x0d;

/** Which records a reader needs, told from the start of a line (the id, when one could be read). */
export type RecordFilter = (type: StoredRecord['type'], id: string | undefined) => boolean;
export const anyRecord: RecordFilter = () => true;

export const PREFIXES: Array<[StoredRecord['type'], Buffer, boolean]> = [
  ['created', Buffer.from('{"v":1,"type":"created","id":"'), true],
  ['status', Buffer.from('{"v":1,"type":"status","id":"'), true],
  ['attempt', Buffer.from('{"v":1,"type":"attempt",'), false],
  ['verified', Buffer.from('{"v":1,"type":"verified","id":"'), true],
  ['unverified', Buffer.from('{"v":1,"type":"unverified","id":"'), true],
  ['expired', Buffer.from('{"v":1,"type":"expired","id":"'), true],
];
/** What the start of a line says: its record type, and its id when one could be read. */
interface LineHead {
  type: StoredRecord['type'];
  id: string | undefined;
}

/**
 * The type (and id) of a line as lbrl writes it, read without parsing, so a reader can pass over
 * the lines it does not need; undefined for a line written otherwise, which is parsed whole.
 */
function peek(buf: Buffer, start: number, end: number): LineHead | undefined {
  // compared a byte at a time: a call out to native code per line and prefix cost more than the bytes
  for (const [type, prefix, hasId] of PREFIXES) {
    if (end - start < prefix.length || !startsWith(buf, start, prefix)) continue;
    if (!hasId) return { type, id: undefined };
    const from = start + prefix.length;
    // an id that is no deposit's (damaged, escaped, of another length) may be any deposit's: the
    // line is read whole; a UUID is followed by its closing quote
    if (end - from <= ID_LENGTH || buf[from + ID_LENGTH] !== 0x22 || !isUuidAt(buf, from)) return undefined;
    return { type, id: canonicalId(buf.toString('latin1', from, from + ID_LENGTH)) };
  }
  return undefined;
}

function startsWith(buf: Buffer, start: number, prefix: Buffer): boolean {
  for (let i = 0; i < prefix.length; i++) if (buf[start + i] !== prefix[i]) return false;
  return true;
}

/** Whether buf holds a UUID (DEPOSIT_ID: hex digits in any case, dashes at 8, 13, 18 and 23) at `from`. */
function isUuidAt(buf: Buffer, from: number): boolean {
  for (let i = 0; i < ID_LENGTH; i++) {
    const code = buf[from + i]!;
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== 0x2d) return false;
    } else if (
      !((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46))
    )
      return false;
  }
  return true;
}
