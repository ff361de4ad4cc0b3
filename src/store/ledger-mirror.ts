/**
 * A host's local copy of a database ledger: the records the database took, in its order, as a
 * file history (store/history.ts) that the commands read as they read the file. Each command
 * that reads the ledger first brings the copy up to date: it asks the database only for the
 * records after the last position it saw (store/ledger-postgres.ts keeps those positions in the
 * order the appends committed), so a charge created on another host is seen by the next command
 * here, and a command pays for what is new, not for the whole ledger.
 *
 * The copy is a cache, never the ledger: every write goes to the database (its constraints and
 * transactions are the guarantees); a copy of another database, or of one made anew, is
 * dropped and read again. One process at a time brings it up to date (a claim file, taken over
 * from a process that is gone); a copy cut short by a kill is cut back to where its
 * position file says it ended.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LbrlError } from '../errors.js';
import { claimFile, RowClaim } from './claims.js';
import { ensurePrivateDir, openOwnFile } from './files.js';
import { History } from './history.js';
import { keyOfFd, noteAppend } from './history-index.js';
import { ledgerCopyDir, namingTheLedger } from './ledger-copy-dir.js';
import type { Ledger } from './ledger-port.js';

/** Records read from the database at a time. */
const PAGE = 5000;
/** How often a copy held by another process is looked at again, and for how long at most. */
const LOCK_POLL_MS = 25;
const LOCK_WAIT_MS = 120_000;

interface Position {
  /** the database the copy is of (Ledger.identity) */
  identity: string;
  /** the last position read */
  seq: number;
  /** the copy's length in bytes after it */
  bytes: number;
}

type LogRows = Awaited<ReturnType<NonNullable<Ledger['logAfter']>>>;

export interface MirrorClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal?: AbortSignal;
}

export class LedgerMirror {
  /** the directory of the copy: its history.ndjson is what the commands read */
  readonly dir: string;
  private readonly positionFile: string;
  private readonly lockFile: string;

  /** what a reader of the copy says, naming the ledger's records rather than the copy */
  private readonly readerWarn: (line: string) => void;

  constructor(
    configDir: string,
    /** the ledger as shown (its URL, the password redacted) */
    where: string,
    private readonly warn: (line: string) => void,
  ) {
    this.dir = ledgerCopyDir(configDir, where);
    this.readerWarn = namingTheLedger(warn, this.dir, where);
    this.positionFile = path.join(this.dir, 'position.json');
    this.lockFile = path.join(this.dir, 'lock');
  }

  get file(): string {
    return path.join(this.dir, 'history.ndjson');
  }

  /** The copy as a file history (a new reader each time: what it cached may be behind). */
  history(): History {
    return new History(this.dir, this.readerWarn);
  }

  /**
   * The page of the log catchUp will ask first, as the copy's position says now (read again under
   * the copy's claim then): asked with the schema's version, it saves the catch-up a round trip.
   */
  expectedPage(): { after: number; limit: number } {
    return { after: this.position()?.seq ?? 0, limit: PAGE };
  }

  /**
   * Reads what the database took since the copy's last position; how many records came. A copy
   * found up to date (what most commands find) is left as it is without taking its claim: the
   * database's log had nothing after the copy's position, and the copy is exactly as long as its
   * position says (no other run is writing to it, none was cut short in it).
   */
  async catchUp(ledger: Pick<Ledger, 'logAfter' | 'identity'>, clock: MirrorClock): Promise<number> {
    if (!ledger.logAfter || !ledger.identity) throw new Error('catchUp: the ledger keeps no log');
    const identity = await ledger.identity();
    const seen = this.position();
    // the first page after the copy's position (the one read as the connection began)
    const first = seen?.identity === identity ? await ledger.logAfter(seen.seq, PAGE) : undefined;
    if (seen && first?.length === 0 && this.sizeOfCopy() === seen.bytes) return 0;
    ensurePrivateDir(path.dirname(this.dir));
    ensurePrivateDir(this.dir);
    const claim = await this.lock(clock);
    try {
      let position = this.position();
      if (position?.identity !== identity || !this.cutTo(position.bytes)) {
        position = { identity, seq: 0, bytes: 0 };
        this.cutTo(0);
      }
      // the page read above, while it is still the one this position asks for
      let known: LogRows | undefined = seen && first && position.seq === seen.seq ? first : undefined;
      let taken = 0;
      for (;;) {
        const rows: LogRows = known ?? (await ledger.logAfter(position.seq, PAGE));
        known = undefined;
        if (rows.length === 0) break;
        const bytes = this.write(rows.map((row) => `${row.line}\n`).join(''));
        position = { identity, seq: rows[rows.length - 1]!.seq, bytes: position.bytes + bytes };
        this.savePosition(position);
        taken += rows.length;
        if (rows.length < PAGE) break;
      }
      if (taken === 0 && !fs.existsSync(this.positionFile)) this.savePosition(position);
      return taken;
    } finally {
      claim.release();
    }
  }

  /** The copy's length in bytes (none yet: 0, as cutTo takes it). */
  private sizeOfCopy(): number {
    try {
      return fs.lstatSync(this.file).size;
    } catch {
      return 0;
    }
  }

  private async lock(clock: MirrorClock): Promise<RowClaim> {
    const started = clock.now();
    for (;;) {
      const got = claimFile(this.lockFile, 'ledger copy', this.warn);
      if (got instanceof RowClaim) return got;
      if (clock.now() - started >= LOCK_WAIT_MS)
        throw new LbrlError(
          `the local copy of the ledger in ${this.dir} is held by another lbrl run (pid ${got.pid} on ${got.host}) for longer than ${LOCK_WAIT_MS / 1000} s; if no such run is going on, remove ${this.lockFile}`,
          'config',
        );
      await clock.sleep(LOCK_POLL_MS, clock.signal);
    }
  }

  private position(): Position | undefined {
    try {
      const read = JSON.parse(fs.readFileSync(this.positionFile, 'utf8')) as Partial<Position>;
      if (
        typeof read.identity !== 'string' ||
        !Number.isSafeInteger(read.seq) ||
        !Number.isSafeInteger(read.bytes)
      )
        return undefined;
      return read as Position;
    } catch {
      return undefined;
    }
  }

  private savePosition(position: Position): void {
    const tmp = `${this.positionFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(position), { mode: 0o600 });
    fs.renameSync(tmp, this.positionFile);
  }

  /**
   * The copy cut back to `bytes` (what a run killed after writing, before saving its position,
   * left); false when it is shorter than that (cut or removed by hand): it is read again whole.
   */
  private cutTo(bytes: number): boolean {
    let size = 0;
    try {
      size = fs.lstatSync(this.file).size;
    } catch {}
    if (size < bytes) return false;
    if (size > bytes) fs.truncateSync(this.file, bytes);
    return true;
  }

  private write(text: string): number {
    const opened = openOwnFile(this.file, 'append', 'ledger copy', this.warn)!;
    try {
      const before = keyOfFd(opened.fd);
      const bytes = Buffer.from(text);
      const written = fs.writeSync(opened.fd, bytes);
      // the copy is read by list like a file history: its creation index follows this append
      noteAppend(this.file, before, keyOfFd(opened.fd), bytes);
      return written;
    } finally {
      fs.closeSync(opened.fd);
    }
  }
}
