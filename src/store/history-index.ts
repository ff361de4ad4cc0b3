/**
 * The creation index: a cache beside the history (`history.ndjson.index`, private like it) that
 * holds, for a prefix [0, covered) of the file, what the look before a read's stop needs of each
 * creation there (where its line starts, its time, its id's print), so `deposit list` does not
 * read the whole file to know that nothing far back changes its page.
 *
 * It is trusted only while the file is provably the one it describes: its header holds the file's
 * key (device, inode, size, mtime and ctime, in nanoseconds) when it was made, and a read finds it
 * valid only when the file's key is that one now. No key proves a prefix unchanged after an append
 * by itself, so lbrl's own append (History.append) checks the key before it writes and brings the
 * index to the key after, when the size after is exactly the size before and what it wrote (else
 * someone else wrote too, and the index is dropped). Any other change of the file (an editor, a
 * backup appended, a truncation, a same-size edit: ctime moves; a replaced file: a new inode), or a
 * crash between an append and the index's update, leaves a key that does not match: the look reads
 * the file as it would without an index, and makes it again.
 */
import fs from 'node:fs';
import { checkOwnFile } from './files.js';
import { indexableCreations, TEXT_BLOCK } from './history-creations.js';
import { forEachBlock, type HistoryFile } from './history-lines.js';

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const MAGIC = 'LBRLIDX1';
const HEADER = 64;
/** Per creation: its offset, its timeKey, the latest timeKey up to it (float64 each), its print (uint32), padding. */
const ENTRY = 32;
const CHECK_AT = 60;

/** What identifies the file an index was made from (a bigint stat). */
export interface FileKey {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export function indexFileOf(historyFile: string): string {
  return `${historyFile}.index`;
}

/** An index read and found valid for the file as it is: its creations in file order. */
export class CreationIndex {
  private readonly numbers: Float64Array;
  private readonly prints: Uint32Array;

  constructor(
    readonly covered: number,
    readonly count: number,
    body: ArrayBuffer,
  ) {
    this.numbers = new Float64Array(body);
    this.prints = new Uint32Array(body);
  }

  /** How many creations start before `end` (a binary search of their offsets). */
  before(end: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.numbers[middle * 4]! < end) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  offset(nth: number): number {
    return this.numbers[nth * 4]!;
  }

  /** timeKey of the nth creation's time */
  atKey(nth: number): number {
    return this.numbers[nth * 4 + 1]!;
  }

  /** The latest timeKey of the creations up to the nth. */
  latestKey(nth: number): number {
    return this.numbers[nth * 4 + 2]!;
  }

  print(nth: number): number {
    return this.prints[nth * 8 + 6]!;
  }
}

/** The key of the file at `file` now; undefined when it is not there. */
export function keyOfFile(file: string): FileKey | undefined {
  try {
    return keyOf(fs.statSync(file, { bigint: true }));
  } catch {
    return undefined;
  }
}

export function keyOfFd(fd: number): FileKey {
  return keyOf(fs.fstatSync(fd, { bigint: true }));
}

function keyOf(stat: fs.BigIntStats): FileKey {
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs };
}

function sameKey(a: FileKey, b: FileKey): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}

/** The index of the history file, when there is one, whole, and made from the file whose key is `key`. */
export function readIndex(historyFile: string, key: FileKey): CreationIndex | undefined {
  const opened = openIndex(historyFile, O_RDONLY);
  if (opened === undefined) return undefined;
  try {
    const header = readHeader(opened.fd, opened.size);
    if (!header || !sameKey(header.key, key)) return undefined;
    const body = new ArrayBuffer(header.count * ENTRY);
    if (fs.readSync(opened.fd, new Uint8Array(body), 0, body.byteLength, HEADER) !== body.byteLength)
      return undefined;
    return new CreationIndex(header.covered, header.count, body);
  } finally {
    fs.closeSync(opened.fd);
  }
}

interface Header {
  key: FileKey;
  covered: number;
  count: number;
}

function readHeader(fd: number, size: number): Header | undefined {
  if (size < HEADER) return undefined;
  const bytes = Buffer.alloc(HEADER);
  if (fs.readSync(fd, bytes, 0, HEADER, 0) !== HEADER) return undefined;
  if (bytes.toString('latin1', 0, 8) !== MAGIC || bytes.readUInt32LE(CHECK_AT) !== checksum(bytes))
    return undefined;
  const header = {
    key: {
      dev: bytes.readBigUInt64LE(8),
      ino: bytes.readBigUInt64LE(16),
      size: bytes.readBigUInt64LE(24),
      mtimeNs: bytes.readBigInt64LE(32),
      ctimeNs: bytes.readBigInt64LE(40),
    },
    covered: bytes.readDoubleLE(48),
    count: bytes.readUInt32LE(56),
  };
  const whole = header.covered <= Number(header.key.size) && size >= HEADER + header.count * ENTRY;
  return whole ? header : undefined;
}

function headerBytes(header: Header): Buffer {
  const bytes = Buffer.alloc(HEADER);
  bytes.write(MAGIC, 0, 'latin1');
  bytes.writeBigUInt64LE(header.key.dev, 8);
  bytes.writeBigUInt64LE(header.key.ino, 16);
  bytes.writeBigUInt64LE(header.key.size, 24);
  bytes.writeBigInt64LE(header.key.mtimeNs, 32);
  bytes.writeBigInt64LE(header.key.ctimeNs, 40);
  bytes.writeDoubleLE(header.covered, 48);
  bytes.writeUInt32LE(header.count, 56);
  bytes.writeUInt32LE(checksum(bytes), CHECK_AT);
  return bytes;
}

/** FNV-1a of the header before its check: a header torn by a crash is no header. */
function checksum(bytes: Buffer): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < CHECK_AT; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** The creations as the index stores them, each with the latest time up to it. */
class EntryWriter {
  private body = new ArrayBuffer(ENTRY * 1024);
  private numbers = new Float64Array(this.body);
  private prints = new Uint32Array(this.body);
  count = 0;

  constructor(public latestKey = Number.NEGATIVE_INFINITY) {}

  add(offset: number, atKey: number, print: number): void {
    if (ENTRY * (this.count + 1) > this.body.byteLength) {
      const larger = new ArrayBuffer(this.body.byteLength * 2);
      new Uint8Array(larger).set(new Uint8Array(this.body));
      this.body = larger;
      this.numbers = new Float64Array(larger);
      this.prints = new Uint32Array(larger);
    }
    if (atKey > this.latestKey) this.latestKey = atKey;
    const at = this.count * 4;
    this.numbers[at] = offset;
    this.numbers[at + 1] = atKey;
    this.numbers[at + 2] = this.latestKey;
    this.prints[at * 2 + 6] = print;
    this.count += 1;
  }

  /** Drops the creations from `offset` on (a line the index cannot hold, met after them). */
  dropFrom(offset: number): void {
    while (this.count > 0 && this.numbers[(this.count - 1) * 4]! >= offset) this.count -= 1;
    this.latestKey = this.count > 0 ? this.numbers[(this.count - 1) * 4 + 2]! : Number.NEGATIVE_INFINITY;
  }

  /** The entries' bytes (valid until the next add). */
  bytes(): Buffer {
    return Buffer.from(this.body, 0, this.count * ENTRY);
  }
}

/**
 * Makes the index of the file anew (what a look without a valid index does): the file read once,
 * up to the first line the index cannot hold, then written beside it atomically (a temporary file
 * renamed). Returns it; undefined when the file changed meanwhile or the index cannot be written
 * (a read-only directory): the look then reads the file as it would without one.
 */
export function buildIndex(source: HistoryFile): CreationIndex | undefined {
  const key = keyOfFile(source.file);
  if (key === undefined) return undefined;
  const entries = new EntryWriter();
  let covered = 0;
  forEachBlock(
    source,
    0,
    Number(key.size),
    (buf, end, base, last) => {
      // a line skipped between blocks (too long), or the file's last line without its newline: the end
      if (base !== covered || last) return true;
      const text = buf.toString('latin1', 0, end);
      const stop = indexableCreations(text, buf, base, (offset, atKey, print) =>
        entries.add(offset, atKey, print),
      );
      entries.dropFrom(base + stop);
      covered = base + stop;
      return stop < end;
    },
    TEXT_BLOCK,
  );
  const now = keyOfFile(source.file);
  if (now === undefined || !sameKey(now, key)) return undefined;
  const header = { key, covered, count: entries.count };
  const body = entries.bytes();
  if (!writeIndexFile(source.file, headerBytes(header), body)) return undefined;
  const copy = new ArrayBuffer(body.length);
  new Uint8Array(copy).set(body);
  return new CreationIndex(covered, entries.count, copy);
}

function writeIndexFile(historyFile: string, header: Buffer, body: Buffer): boolean {
  const file = indexFileOf(historyFile);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // one left by a process of the same pid killed while writing it
    fs.rmSync(temp, { force: true });
    const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, header, 0, HEADER, 0);
      fs.writeSync(fd, body, 0, body.length, HEADER);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    return true;
  } catch {
    fs.rmSync(temp, { force: true });
    return false;
  }
}

/**
 * After lbrl's own append of `written` at the end of the history: brings the index to the file's
 * key after it, when the index was made from the file as it was just before (`before`) and the
 * file grew by exactly what was written (no one else wrote meanwhile); drops it otherwise. The
 * creations written are added when the index covered the whole file. A crash before this leaves
 * the old key, which the file no longer matches.
 */
export function noteAppend(historyFile: string, before: FileKey, after: FileKey, written: Buffer): void {
  const opened = openIndex(historyFile, O_RDWR);
  if (opened === undefined) return;
  try {
    const header = readHeader(opened.fd, opened.size);
    const grewBy = after.size - before.size;
    if (!header || !sameKey(header.key, before) || grewBy !== BigInt(written.length)) {
      fs.rmSync(indexFileOf(historyFile), { force: true });
      return;
    }
    let { covered, count } = header;
    if (covered === Number(before.size)) {
      const last = count > 0 ? lastLatest(opened.fd, count) : Number.NEGATIVE_INFINITY;
      const entries = new EntryWriter(last);
      const stop = indexableCreations(written.toString('latin1'), written, covered, (offset, atKey, print) =>
        entries.add(offset, atKey, print),
      );
      entries.dropFrom(covered + stop);
      fs.writeSync(opened.fd, entries.bytes(), 0, entries.count * ENTRY, HEADER + count * ENTRY);
      covered += stop;
      count += entries.count;
    }
    fs.writeSync(opened.fd, headerBytes({ key: after, covered, count }), 0, HEADER, 0);
  } catch {
    // a cache: an index that cannot be brought up to date is left to fail its key
  } finally {
    fs.closeSync(opened.fd);
  }
}

function lastLatest(fd: number, count: number): number {
  const bytes = Buffer.alloc(8);
  fs.readSync(fd, bytes, 0, 8, HEADER + (count - 1) * ENTRY + 16);
  return bytes.readDoubleLE(0);
}

/** The index file opened without following a link, an own regular file, with its size; else undefined. */
function openIndex(historyFile: string, flags: number): { fd: number; size: number } | undefined {
  const file = indexFileOf(historyFile);
  let fd: number;
  try {
    fd = fs.openSync(file, flags | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = checkOwnFile(fs.fstatSync(fd), file, 'history index');
    return { fd, size: stat.size };
  } catch {
    fs.closeSync(fd);
    return undefined;
  }
}
