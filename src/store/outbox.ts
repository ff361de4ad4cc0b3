/**
 * The webhook outbox of a profile (`lbrl listen`): an append-only NDJSON file under the config
 * directory, `webhooks/<profile>.ndjson`, private (0600 in a 0700 directory). Every event is
 * written here (and synced to disk) before it is sent; a 2xx answer appends a `done` line. Each
 * append is one write of whole lines on a file opened for appending, so a kill -9 loses at most the
 * line being written, and a torn last line is skipped on reading.
 *
 * Only the process holding the profile's listen lock (`webhooks/<profile>.lock`) writes it. It is
 * compacted by that process (a new file written beside it, synced, and renamed over it, so a crash
 * leaves the old file or the new one): events delivered long ago are dropped, so it does not grow
 * with the number of events ever sent.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LbrlError } from '../errors.js';
import { type LeaseWatch, leaseClaim, RowClaim } from './claims.js';
import { ensurePrivateDir, lstatOwnFile, openOwnFile } from './files.js';

/** An event to deliver: its body is sent byte for byte on every attempt. */
export interface EventRecord {
  v: 1;
  type: 'event';
  id: string;
  deposit: string;
  event: string;
  at: string;
  body: string;
}

/** What listen has said of a deposit: the last status it sent an event for, and whether it is done with it. */
export interface SeenRecord {
  v: 1;
  type: 'seen';
  deposit: string;
  status: string;
  at: string;
  /** no more events will come for it (final, or verified/mismatch when verifying) */
  closed?: true;
  /** deposit.expired was made */
  expired?: true;
}

/** The receiver took the event (a 2xx answer). */
export interface DoneRecord {
  v: 1;
  type: 'done';
  id: string;
  at: string;
  http: number;
}

/** The event was given up on after the retention period. */
export interface DroppedRecord {
  v: 1;
  type: 'dropped';
  id: string;
  at: string;
}

/**
 * Deposits the history holds created after this date (a date the history wrote, never the clock
 * of listen) are covered even when they ended while listen was not running.
 */
export interface SinceRecord {
  v: 1;
  type: 'since';
  at: string;
}

/**
 * An attempt of the event failed: how many so far and for how long it has been tried, on a
 * clock that does not jump, summed over the runs of listen (the retention is measured on it).
 */
export interface RetryRecord {
  v: 1;
  type: 'retry';
  id: string;
  at: string;
  attempts: number;
  triedMs: number;
}

/**
 * listen met the deposit open in the history: it follows it to its end whatever the dates say,
 * even when another lbrl process records that end while listen is stopped.
 */
export interface FollowRecord {
  v: 1;
  type: 'follow';
  deposit: string;
  at: string;
}

export type OutboxRecord =
  | EventRecord
  | SeenRecord
  | DoneRecord
  | DroppedRecord
  | SinceRecord
  | RetryRecord
  | FollowRecord;

export interface OutboxEvent {
  record: EventRecord;
  state: 'pending' | 'done' | 'dropped';
}

/** The outbox as read: events in file order, what was said of each deposit, since when. */
export interface OutboxState {
  events: Map<string, OutboxEvent>;
  seen: Map<string, SeenRecord>;
  since: string | undefined;
  /** each undelivered event's failed attempts so far, and for how long it was tried */
  tried: Map<string, { attempts: number; triedMs: number }>;
  /** the deposits listen met open and follows to their end */
  following: Set<string>;
  /** lines in the file, for deciding when to compact */
  lines: number;
  /** bytes in the file */
  bytes: number;
}

const RECORD_START = '{"v":1,';

/** The listen lock's heartbeat: its claim is written again this often while listen runs. */
export const BEAT_MS = 5000;
/** A holder whose heartbeat did not change for this long is gone (three beats). */
export const LEASE_MS = 3 * BEAT_MS;

/** What waiting on a lease needs: a sleep, a clock that does not jump, Ctrl-C. */
export type LockClock = Pick<LeaseWatch, 'sleep' | 'elapsed' | 'signal'>;

const REAL_LOCK_CLOCK: LockClock = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  elapsed: () => performance.now(),
};

/**
 * Where listen keeps its events: this file (class Outbox), or a database's table
 * (store/coordination-postgres.ts). Only the process delivering the profile's events writes it.
 */
export interface OutboxStore {
  /** Every record, folded. */
  load(): OutboxState;
  /** Appends, in order after every append before; `sync` as sync() does. */
  append(records: OutboxRecord[], sync?: boolean): void;
  /** Every append before it is kept for good (on disk, or committed): at once, or when the promise settles. */
  sync(): void | Promise<void>;
  /** Replaces every record with `records`, at once (a crash leaves the old ones or the new). */
  rewrite(records: OutboxRecord[]): void;
  close(): void;
}

export function emptyOutboxState(): OutboxState {
  return {
    events: new Map(),
    seen: new Map(),
    since: undefined,
    tried: new Map(),
    following: new Set(),
    lines: 0,
    bytes: 0,
  };
}

/** Records as lines of NDJSON, folded; a damaged line is skipped (and counted). */
export function foldOutbox(lines: Iterable<string>): { state: OutboxState; damaged: number } {
  const state = emptyOutboxState();
  let damaged = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    let record = parseRecord(line);
    if (!record) {
      damaged += 1;
      // a write cut short (kill -9, a full disk) that the next append ran into: keep that record
      const last = line.lastIndexOf(RECORD_START);
      record = last > 0 ? parseRecord(line.slice(last)) : undefined;
      if (!record) continue;
    }
    state.lines += 1;
    apply(state, record);
  }
  return { state, damaged };
}

export class Outbox implements OutboxStore {
  readonly dir: string;
  readonly file: string;
  readonly lockFile: string;

  /** the file's name without `.ndjson`: the profile's, or with several receivers `<profile>~<receiver key>` */
  private readonly name: string;

  constructor(
    configDir: string,
    readonly profile: string,
    private readonly warn: (line: string) => void = () => {},
    /** with several receivers, each has its own outbox, named by this key (receiverKey) */
    receiver?: string,
  ) {
    this.dir = path.join(configDir, 'webhooks');
    this.name = receiver === undefined ? profile : `${profile}~${receiver}`;
    this.file = path.join(this.dir, `${this.name}.ndjson`);
    this.lockFile = path.join(this.dir, `${profile}.lock`);
  }

  /** Every outbox of the profile: its own, and one per receiver of a listen to several (for --replay). */
  static allOf(configDir: string, profile: string, warn: (line: string) => void = () => {}): Outbox[] {
    const outboxes = [new Outbox(configDir, profile, warn)];
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(configDir, 'webhooks'));
    } catch {
      return outboxes;
    }
    for (const name of names.sort()) {
      const match = /^(.+)~([0-9a-f]{12})\.ndjson$/.exec(name);
      if (match && match[1] === profile) outboxes.push(new Outbox(configDir, profile, warn, match[2]));
    }
    return outboxes;
  }

  /** Every record of the file, folded. Damaged lines are skipped with one warning. */
  load(): OutboxState {
    const opened = openOwnFile(this.file, 'read', 'webhook outbox', this.warn);
    if (!opened) return emptyOutboxState();
    let text: string;
    try {
      text = fs.readFileSync(opened.fd, 'utf8');
    } finally {
      fs.closeSync(opened.fd);
    }
    const { state, damaged } = foldOutbox(text.split('\n'));
    state.bytes = Buffer.byteLength(text);
    if (damaged > 0) this.warn(`warning: skipped ${damaged} damaged line(s) in ${this.file}`);
    return state;
  }

  /** the file kept open for appending: only the lock holder appends, and it appends often */
  private fd: number | undefined;

  /** Appends in one write; `sync` waits until the disk has it (see sync()). */
  append(records: OutboxRecord[], sync = false): void {
    if (records.length === 0) return;
    let text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    if (this.fd === undefined) {
      ensurePrivateDir(this.dir);
      const opened = openOwnFile(this.file, 'append', 'webhook outbox', this.warn)!;
      this.fd = opened.fd;
      // a last line torn by a crash is ended first, so the next record starts a line of its own
      if (opened.stat.size > 0 && lastByte(this.file, opened.stat.size) !== 0x0a) text = `\n${text}`;
    }
    try {
      writeAll(this.fd, text);
    } catch (error) {
      // what was written of it is a torn line, ended by the next run before it appends
      this.close();
      throw this.cannot('write', error);
    }
    if (sync) this.sync();
  }

  /**
   * Waits until the disk holds what was appended: a kill -9 loses nothing written before it
   * anyway (the page cache outlives the process); this is for a power cut. One sync covers every
   * append before it, so events seen together are synced together.
   */
  sync(): void {
    try {
      if (this.fd !== undefined) fs.fdatasyncSync(this.fd);
    } catch (error) {
      throw this.cannot('sync', error);
    }
  }

  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // closed already, or its last write could not be flushed: reported by that write
      }
    }
  }

  /** A file system failure (a full disk, a file too large, an I/O error) said as what it stops. */
  private cannot(doing: 'write' | 'sync' | 'rewrite', error: unknown): LbrlError {
    if (error instanceof LbrlError) return error;
    const fsError = error as NodeJS.ErrnoException;
    const why =
      fsError.code === 'ENOSPC' || fsError.code === 'EDQUOT'
        ? 'the disk is full'
        : fsError.code === 'EFBIG'
          ? 'the file may not grow any larger'
          : fsError.code === 'EROFS'
            ? 'the file system is read-only'
            : (fsError.code ?? fsError.message);
    return new LbrlError(
      `cannot ${doing} the webhook outbox ${this.file} (${why}): events are sent only once written there, so none is sent until it can be; what was seen and not written is seen again after a restart`,
      'config',
    );
  }

  /**
   * Rewrites the file with only `records`: a new file beside it, synced, renamed over it. Only the
   * lock holder calls it, so no append can be lost between the read and the rename.
   */
  rewrite(records: OutboxRecord[]): void {
    this.close();
    ensurePrivateDir(this.dir);
    lstatOwnFile(this.file, 'webhook outbox');
    const temp = path.join(this.dir, `.${this.name}.ndjson.${process.pid}.tmp`);
    fs.rmSync(temp, { force: true });
    try {
      const fd = fs.openSync(
        temp,
        fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
        0o600,
      );
      try {
        writeAll(fd, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, this.file);
    } catch (error) {
      // the old file is whole: only the new one, half written, goes
      fs.rmSync(temp, { force: true });
      throw this.cannot('rewrite', error);
    }
    try {
      const dirFd = fs.openSync(this.dir, 'r');
      fs.fsyncSync(dirFd);
      fs.closeSync(dirFd);
    } catch {
      // a directory that cannot be synced (some file systems): the rename is still atomic
    }
  }

  /** Files of a rewrite cut short by a kill (only the lock holder rewrites, so none is in use). */
  private removeLeftovers(): void {
    const prefix = `.${this.profile}.ndjson.`;
    const receivers = new RegExp(
      `^\\.${this.profile.replace(/[^A-Za-z0-9]/g, '\\$&')}~[0-9a-f]{12}\\.ndjson\\.`,
    );
    for (const name of fs.readdirSync(this.dir)) {
      if ((name.startsWith(prefix) || receivers.test(name)) && name.endsWith('.tmp'))
        fs.rmSync(path.join(this.dir, name), { force: true });
    }
  }

  /**
   * The profile's listen lock: a claim file naming this process (pid, host, start), linked into
   * place whole, so of two listens started at the same instant exactly one gets it, and a lock
   * left by a process that is gone (a kill -9) is taken over by one of them only. One held by a
   * running process is refused.
   */
  async lock(clock: LockClock = REAL_LOCK_CLOCK): Promise<() => void> {
    ensurePrivateDir(this.dir);
    const got = await leaseClaim(this.lockFile, 'listen lock', this.warn, {
      ...clock,
      leaseMs: LEASE_MS,
      waiting: (holder, ms) =>
        this.warn(
          `the listen lock ${this.lockFile} names pid ${holder.pid} on host ${holder.host}, which this machine cannot ask (a container restarted, or another machine): waiting ${Math.round(ms / 1000)} s for its heartbeat`,
        ),
    });
    if (!(got instanceof RowClaim)) {
      throw new LbrlError(
        `another lbrl listen${got.pid > 0 ? ` (pid ${got.pid})` : ''} is already delivering the events of profile ${this.profile}: stop it first, or run this one with another --profile`,
        'usage',
        `the lock is ${this.lockFile}; remove it only if no lbrl listen runs`,
      );
    }
    this.removeLeftovers();
    // the lease's heartbeat, for a run that cannot ask this machine whether this process lives
    const heart = setInterval(() => got.beat(), BEAT_MS);
    heart.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(heart);
      got.release();
    };
  }
}

/** The key of a receiver's own outbox: the first 12 hex digits of the SHA-256 of its URL. */
export function receiverKey(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 12);
}

/** All of `text`, or an error: a write that took only part of it (a full disk) goes on or fails. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

/** The file's byte at `size - 1` (undefined when it cannot be read). */
function lastByte(file: string, size: number): number | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const one = Buffer.alloc(1);
    return fs.readSync(fd, one, 0, 1, size - 1) === 1 ? one[0] : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function apply(state: OutboxState, record: OutboxRecord): void {
  switch (record.type) {
    case 'event':
      if (!state.events.has(record.id)) state.events.set(record.id, { record, state: 'pending' });
      break;
    case 'done': {
      const existing = state.events.get(record.id);
      if (existing) existing.state = 'done';
      break;
    }
    case 'dropped': {
      const existing = state.events.get(record.id);
      if (existing && existing.state === 'pending') existing.state = 'dropped';
      break;
    }
    case 'seen':
      state.seen.set(record.deposit, record);
      break;
    case 'since':
      state.since ??= record.at;
      break;
    case 'retry':
      state.tried.set(record.id, { attempts: record.attempts, triedMs: record.triedMs });
      break;
    case 'follow':
      state.following.add(record.deposit);
      break;
  }
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function parseRecord(line: string): OutboxRecord | undefined {
  if (!line.startsWith(RECORD_START)) return undefined;
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!fields || typeof fields !== 'object' || !isText(fields.at)) return undefined;
  switch (fields.type) {
    case 'event':
      return isText(fields.id) && isText(fields.deposit) && isText(fields.event) && isText(fields.body)
        ? (fields as unknown as EventRecord)
        : undefined;
    case 'seen':
      return isText(fields.deposit) && isText(fields.status) ? (fields as unknown as SeenRecord) : undefined;
    case 'done':
      return isText(fields.id) && typeof fields.http === 'number'
        ? (fields as unknown as DoneRecord)
        : undefined;
    case 'dropped':
      return isText(fields.id) ? (fields as unknown as DroppedRecord) : undefined;
    case 'since':
      return fields as unknown as SinceRecord;
    case 'retry':
      return isText(fields.id) && isCount(fields.attempts) && isCount(fields.triedMs)
        ? (fields as unknown as RetryRecord)
        : undefined;
    case 'follow':
      return isText(fields.deposit) ? (fields as unknown as FollowRecord) : undefined;
    default:
      return undefined;
  }
}
