/**
 * "A row of a file is created once, however many runs overlap": the two storage pieces of it.
 *
 * - `rowIdempotencyKey`: the Idempotency-Key of a batch row, derived from the row's identity
 *   (profile, service, the row key `--resume` uses), so every run sends the same key for the
 *   same row and a service that honours keys makes it once, even when two runs do send it.
 * - `RowClaims`: a claim on a row across processes, so runs of the same file never work on the
 *   same row at once. A claim is a file made with link(2), which either makes it whole or fails
 *   when it exists; it names its holder (pid, host, process start), so a claim left by a process
 *   that is gone (kill -9) is taken over, and one of a live process never is.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { interrupted, LbrlError } from '../errors.js';
import { currentUid, ensurePrivateDir, openOwnFile } from './files.js';
import type { History } from './history.js';
import type { BatchState } from './history-records.js';

/** lbrl's namespace for its name-based UUIDs; fixed forever, or every row's key would change. */
const NAMESPACE = '8a3f7c2e-5b1d-4e9f-a6c0-d2b4e8f01357';

/** A name-based UUID, version 5 (SHA-1 of the namespace's 16 bytes and the name; RFC 9562 §5.5). */
export function uuidV5(namespace: string, name: string): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest().subarray(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50; // version 5
  hash[8] = (hash[8]! & 0x3f) | 0x80; // the RFC's variant
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The Idempotency-Key of a batch row: the same for the same row in every run, different for any
 * other profile, service or row.
 */
export function rowIdempotencyKey(profile: string, service: string, rowKey: string): string {
  return uuidV5(NAMESPACE, JSON.stringify(['batch-row', profile, service, rowKey]));
}

/** Who holds a claim, as its file says. */
export interface ClaimHolder {
  pid: number;
  host: string;
  /** the holder's process start, where the system tells it (Linux), against a reused pid */
  start: string;
  since: string;
  nonce: string;
  /** the kernel's boot id (Linux): with the pid namespace, whether the pid can be asked from here */
  boot?: string;
  /** the holder's pid namespace (Linux): a container restarted has another */
  pidns?: string;
  /** the holder's heartbeat, counted up while it lives (a lease; see leaseClaim) */
  beat?: number;
}

export interface ClaimWaitOptions {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  signal?: AbortSignal;
  /** how often to look again while another live run holds the row */
  pollMs?: number;
  /** give up after this long (default: wait as long as the holder lives) */
  timeoutMs?: number;
}

/** A claim this process holds; release it when the row's outcome is recorded. */
export class RowClaim {
  constructor(
    readonly file: string,
    private readonly text: string,
  ) {}

  private beats = 0;

  /** Still ours: nobody took it over (only possible if this process was judged gone). */
  held(): boolean {
    try {
      return parseHolder(fs.readFileSync(this.file, 'utf8'))?.nonce === this.nonce();
    } catch {
      return false;
    }
  }

  private nonce(): string | undefined {
    return parseHolder(this.text)?.nonce;
  }

  /**
   * One heartbeat of the lease: the claim written again, whole, with its count moved on, so a
   * run that cannot ask this machine whether the holder lives (another host name, a container
   * restarted) sees it change. Nothing when the claim is no longer ours.
   */
  beat(): void {
    if (!this.held()) return;
    const holder = JSON.parse(this.text) as ClaimHolder;
    holder.beat = ++this.beats;
    const tmp = `${this.file}.${holder.nonce}.beat.tmp`;
    try {
      // made anew, never through whatever is at that name (O_EXCL follows no link)
      fs.rmSync(tmp, { force: true });
      fs.writeFileSync(tmp, JSON.stringify(holder), { flag: 'wx', mode: 0o600 });
      fs.renameSync(tmp, this.file);
    } catch {
      // a full disk: the next beat tries again; a holder that cannot beat may be taken over
      fs.rmSync(tmp, { force: true });
    }
  }

  release(): void {
    if (this.held()) fs.rmSync(this.file, { force: true });
  }
}

/** This machine's boot id and this process's pid namespace, where the system tells them (Linux). */
function machineIdentity(): { boot: string; pidns: string } {
  let boot = '';
  let pidns = '';
  try {
    boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // not Linux
  }
  try {
    pidns = fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    // not Linux
  }
  return { boot, pidns };
}

/**
 * Whether the holder's pid means a process of this machine, seen as this process sees it: the
 * same host name, or (the host name changed, as a container's does at each restart) the same
 * kernel boot and pid namespace.
 */
export function askable(holder: ClaimHolder): boolean {
  if (holder.host === os.hostname()) return true;
  const here = machineIdentity();
  return here.boot !== '' && holder.boot === here.boot && here.pidns !== '' && holder.pidns === here.pidns;
}

function processStart(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name (which may hold spaces), from field 3; start is field 22
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** Gone: no such process, or the pid now belongs to a process started later. */
function isGone(holder: ClaimHolder): boolean {
  if (!askable(holder)) return false; // another machine's process cannot be asked: see leaseClaim
  if (holder.pid === process.pid) return holder.start !== processStart(process.pid);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  return holder.start !== '' && processStart(holder.pid) !== '' && processStart(holder.pid) !== holder.start;
}

function parseHolder(text: string): ClaimHolder | undefined {
  // a bare pid: a listen lock as earlier versions wrote it, of this machine
  if (/^[1-9][0-9]{0,9}$/.test(text))
    return { pid: Number(text), host: os.hostname(), start: '', since: '', nonce: '' };
  try {
    const holder = JSON.parse(text) as ClaimHolder;
    if (Number.isInteger(holder.pid) && typeof holder.host === 'string' && typeof holder.nonce === 'string')
      return holder;
  } catch {
    // not a claim written by lbrl
  }
  return undefined;
}

/**
 * A claim on `file` across processes, or who holds it now; never waits. The claim is written
 * whole under a name of its own, then linked into place: it is never half there, and of runs
 * that try at the same instant exactly one makes it. A holder that is gone is taken over.
 */
export function claimFile(file: string, what: string, warn: (line: string) => void): RowClaim | ClaimHolder {
  const nonce = randomBytes(12).toString('hex');
  const ours: ClaimHolder = {
    pid: process.pid,
    host: os.hostname(),
    start: processStart(process.pid),
    since: new Date().toISOString(),
    nonce,
    ...machineIdentity(),
    beat: 0,
  };
  const text = JSON.stringify(ours);
  const tmp = `${file}.${nonce}.tmp`;
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // a full disk may leave the file made and empty: never leave it behind
    fs.rmSync(tmp, { force: true });
    throw cannotWrite(what, file, error);
  }
  try {
    for (let tries = 0; ; tries++) {
      try {
        fs.linkSync(tmp, file);
        return new RowClaim(file, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const seen = readClaim(file, what, warn);
      if (seen === undefined) continue; // released meanwhile: try again
      const holder = parseHolder(seen);
      if (holder && !isGone(holder)) return holder;
      if (tries >= 5) return holder ?? { pid: 0, host: '?', start: '', since: '', nonce: '' };
      takeOver(file, seen, nonce);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** A file system failure writing a claim, said as one line naming the file (exit 1). */
function cannotWrite(what: string, file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full'
      : code === 'EFBIG'
        ? 'no file may grow any larger'
        : code === 'EROFS'
          ? 'the file system is read-only'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : undefined;
  if (why === undefined) return error;
  return new LbrlError(`cannot write the ${what} ${file} (${why}): nothing was sent`, 'config');
}

/** How a claim whose holder this machine cannot ask is judged: by watching its heartbeat. */
export interface LeaseWatch {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** a clock that does not jump */
  elapsed(): number;
  signal?: AbortSignal;
  /** how long a heartbeat may stay unchanged before its holder is judged gone */
  leaseMs: number;
  /** said once, before the wait */
  waiting(holder: ClaimHolder, ms: number): void;
}

/**
 * claimFile, and for a holder this machine cannot ask (another host name: a container restarted,
 * or another machine sharing the directory) the lease: its claim is watched for `leaseMs` on a
 * clock that does not jump; a holder that lives beats (its claim changes) and keeps it, one that
 * does not is gone, and its claim is taken over.
 */
export async function leaseClaim(
  file: string,
  what: string,
  warn: (line: string) => void,
  watch: LeaseWatch,
): Promise<RowClaim | ClaimHolder> {
  const got = claimFile(file, what, warn);
  if (got instanceof RowClaim || askable(got) || got.nonce === '') return got;
  const seen = readClaim(file, what, warn);
  if (seen === undefined) return claimFile(file, what, warn);
  watch.waiting(got, watch.leaseMs);
  const began = watch.elapsed();
  while (watch.elapsed() - began < watch.leaseMs) {
    await watch.sleep(Math.min(1000, watch.leaseMs), watch.signal);
    const now = readClaim(file, what, warn);
    if (now !== seen) return now === undefined ? claimFile(file, what, warn) : (parseHolder(now) ?? got);
  }
  takeOver(file, seen, randomBytes(12).toString('hex'));
  return claimFile(file, what, warn);
}

function readClaim(file: string, what: string, warn: (line: string) => void): string | undefined {
  // a claim is published with link(2): for a moment it has two names, and that is lbrl's doing
  const opened = openOwnFile(file, 'read', what, warn, true);
  if (!opened) return undefined;
  try {
    return fs.readFileSync(opened.fd, 'utf8');
  } finally {
    fs.closeSync(opened.fd);
  }
}

/**
 * Moves a dead holder's claim aside, then checks that what was moved is what was judged dead:
 * if another run took it over in between, its claim is put back.
 */
function takeOver(file: string, dead: string, nonce: string): void {
  const aside = `${file}.${nonce}.gone`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (fs.readFileSync(aside, 'utf8') !== dead) {
      try {
        fs.linkSync(aside, file);
      } catch {
        // a third run claimed it meanwhile: it holds it
      }
    }
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

export class RowClaims {
  readonly dir: string;

  constructor(
    configDir: string,
    private readonly warn: (line: string) => void = () => {},
  ) {
    this.dir = path.join(configDir, 'claims');
  }

  fileFor(profile: string, service: string, rowKey: string): string {
    const name = createHash('sha256')
      .update(JSON.stringify([profile, service, rowKey]))
      .digest('hex');
    return path.join(this.dir, `${name}.claim`);
  }

  /**
   * Whether claims can be made here, before anything is sent: the directory is made (0700) or
   * is one of the user's, and can be written.
   */
  check(): void {
    try {
      this.ensureDir();
      fs.accessSync(this.dir, fs.constants.W_OK | fs.constants.X_OK);
    } catch (error) {
      if (error instanceof LbrlError) throw error;
      const fsError = error as NodeJS.ErrnoException;
      throw new LbrlError(
        `cannot keep row claims in ${this.dir} (${fsError.code ?? fsError.message}): --resume needs it to keep overlapping runs of a file apart; nothing was sent`,
        'config',
        'make the directory writable, or set LBRL_CONFIG_DIR to a directory of your own',
      );
    }
  }

  /** The row's claim, or who holds it now. Never waits. */
  tryClaim(profile: string, service: string, rowKey: string): RowClaim | ClaimHolder {
    this.ensureDir();
    return claimFile(this.fileFor(profile, service, rowKey), 'claims', this.warn);
  }

  /** Waits while another live run holds the row, then claims it. */
  async claim(profile: string, service: string, rowKey: string, wait: ClaimWaitOptions): Promise<RowClaim> {
    const now = wait.now ?? Date.now;
    const started = now();
    for (;;) {
      const got = this.tryClaim(profile, service, rowKey);
      if (got instanceof RowClaim) return got;
      if (wait.timeoutMs !== undefined && now() - started >= wait.timeoutMs) {
        throw new LbrlError(
          `a row is held by another lbrl run (pid ${got.pid} on ${got.host}, since ${got.since}) for longer than ${Math.round(wait.timeoutMs / 1000)} s; if no such run is going on, remove ${this.fileFor(profile, service, rowKey)}`,
          'config',
        );
      }
      if (wait.signal?.aborted) throw interrupted();
      try {
        await wait.sleep(wait.pollMs ?? 100, wait.signal);
      } catch {
        throw interrupted();
      }
    }
  }

  private ensureDir(): void {
    ensurePrivateDir(this.dir);
    const stats = fs.lstatSync(this.dir);
    const uid = currentUid();
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) {
      throw new LbrlError(
        `refusing ${this.dir}: it is not a directory of yours; remove it, or set LBRL_CONFIG_DIR to a directory of your own`,
        'config',
      );
    }
  }
}

/** What a run may do with a row: it was created (by any run), or it is this run's to send now. */
/** A row's claim as the batch holds it: a file's (RowClaim) or a database's lock (store/ledger-postgres.ts). */
export interface HeldRow {
  release(): void;
}

export type RowTurn<Claim extends HeldRow = HeldRow> =
  | { done: { id: string; status: string } }
  | { claim: Claim; idempotencyKey: string };

/**
 * `--resume` for runs that overlap: the rows of one file, for one profile and service. `begin`
 * waits for a row's claim, then reads only what the history gained since it was last read, so a
 * row another run created meanwhile is reported done, never sent again.
 */
export class ResumableRows {
  private readonly state: BatchState;
  private readonly keys: ReadonlySet<string>;

  constructor(
    private readonly history: History,
    private readonly claims: RowClaims,
    readonly profile: string,
    readonly service: string,
    keys: readonly string[],
  ) {
    claims.check();
    this.keys = new Set(keys);
    this.state = history.batchState(profile, service, this.keys);
  }

  /** Created before this run began (or since it last looked): report it, send nothing. */
  done(rowKey: string): { id: string; status: string } | undefined {
    return this.state.done.get(rowKey);
  }

  /**
   * The row's turn: done, or claimed with its Idempotency-Key (the one a run that sent it
   * without an answer recorded, else the key derived from the row). The caller records the
   * attempt, sends, records the outcome, and then releases the claim, even on failure.
   */
  async begin(rowKey: string, wait: ClaimWaitOptions): Promise<RowTurn<RowClaim>> {
    const known = this.done(rowKey);
    if (known) return { done: known };
    const claim = await this.claims.claim(this.profile, this.service, rowKey, wait);
    try {
      const since = this.history.batchState(this.profile, this.service, this.keys, this.state.end);
      for (const [k, v] of since.done) this.state.done.set(k, v);
      for (const [k, v] of since.attempted) this.state.attempted.set(k, v);
      this.state.end = since.end;
      const now = this.done(rowKey);
      if (now) {
        claim.release();
        return { done: now };
      }
      const idempotencyKey =
        this.state.attempted.get(rowKey) ?? rowIdempotencyKey(this.profile, this.service, rowKey);
      return { claim, idempotencyKey };
    } catch (error) {
      claim.release();
      throw error;
    }
  }
}
