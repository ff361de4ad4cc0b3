/**
 * The local record of deposits this machine created: an append-only NDJSON file under the
 * config directory. Each append is one write of one line on a file opened for appending,
 * so concurrent processes never interleave and a kill -9 loses at most the line being
 * written. A damaged line is skipped with a warning, never the whole file.
 *
 * It is read as a stream: a fixed buffer, lines of at most MAX_LINE bytes, and folds that keep
 * at most what their answer needs, so its size costs time, never memory. It is never rewritten
 * (a rewrite races with the appends of other processes); instead a status is appended only when
 * it is news, so watching and refreshing do not grow it: it grows by one line per deposit created
 * and one per change of status seen.
 *
 * Its parts: the records (history-records.ts), the file read line by line (history-lines.ts), how
 * a deposit's records merge (history-merge.ts), the readers of deposits (history-search.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { canonicalId } from '../domain/values.js';
import { ensurePrivateDir, type OpenedFile } from './files.js';
import { openHistory } from './history-encoding.js';
import { allEntries, newestCreated, pendingEntries } from './history-forward.js';
import { keyOfFd, noteAppend } from './history-index.js';
import { type HistoryFile, readRecords, scanBackward, scanForward } from './history-lines.js';
import {
  CreatedWhere,
  depositKey,
  newerEntryFirst,
  newsKey,
  recordNews,
  withCanonicalId,
} from './history-merge.js';
import {
  type BatchState,
  type ChainFact,
  type CreatedRecord,
  type HistoryEntry,
  type HistoryRecord,
  MAX_ENTRIES,
  type StatusRecord,
  type StoredRecord,
  type StoredShare,
  type VerifiedRecord,
} from './history-records.js';
import { eachBackward, settledBefore } from './history-search.js';
import { IdSet } from './id-set.js';

/** The service of a verification of an older release whose deposit cannot be told (see eachVerified). */
const UNTOLD_SERVICE = '(a service the record does not name)';
/** How far back from the end a status is looked for before appending it (about 30,000 records). */
const LOOKUP_WINDOW = 8 << 20;

export class History implements HistoryFile {
  readonly file: string;
  /** the last status this process knows for an id, from what it read or wrote */
  private readonly known = new Map<string, string>();
  /** ids looked for near the end of the file and not found */
  private readonly unknown = new Set<string>();
  /** the entries pending() read, by service and id: what recorded() looks up first */
  private readonly pendingRead = new Map<string, HistoryEntry>();
  /** the latest chain fact of a deposit, as this process wrote or found it (null: none) */
  private readonly chain = new Map<string, ChainFact | null>();
  /** the damage warnings said already (a command reads the file more than once: said once) */
  readonly damageSaid = new Set<string>();
  /** the ids ever created in the file, up to `end` (see holds) */
  private readonly createdIds = { ids: new IdSet(), end: 0 };

  constructor(
    readonly dir: string,
    readonly warn: (line: string) => void = () => {},
  ) {
    this.file = path.join(dir, 'history.ndjson');
  }

  /**
   * Appends in one write. A status record is left out when it is what the history already says
   * of that deposit, so polling the same status again and again does not grow the file.
   */
  append(records: StoredRecord[]): void {
    const fresh = this.notYetRecorded(records.map(withCanonicalId));
    if (fresh.length === 0) return;
    ensurePrivateDir(this.dir);
    const text = Buffer.from(fresh.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const opened = openHistory(this.file, 'append', this.warn)!;
    try {
      const before = keyOfFd(opened.fd);
      // no fsync: what must survive is a killed process, and the page cache outlives it
      const written = this.endsLine(opened) ? text : Buffer.concat([Buffer.from('\n'), text]);
      fs.writeSync(opened.fd, written);
      // the creation index follows the file only through this append, made alone (history-index.ts)
      noteAppend(this.file, before, keyOfFd(opened.fd), written);
    } finally {
      fs.closeSync(opened.fd);
    }
    for (const record of fresh)
      if (record.type === 'created' || record.type === 'status')
        this.rememberStatus(keysOf(record), recordNews(record));
    for (const r of fresh) if (r.type === 'verified' || r.type === 'unverified') this.chain.set(keyOf(r), r);
    for (const r of fresh) if (r.type !== 'attempt') this.forgetRead(r);
  }

  /**
   * Whether the file is empty or its last line ended: one saved by an editor (Notepad) may end
   * without a newline, and the first record appended would run into its last line.
   */
  private endsLine(appending: OpenedFile): boolean {
    const size = appending.stat.size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    // the append's descriptor reads too: one open of the history per append
    fs.readSync(appending.fd, last, 0, 1, size - 1);
    // a carriage return ends a line for every reader too (history-lines.ts)
    return last[0] === 0x0a || last[0] === 0x0d;
  }

  /**
   * What this process appends of a deposit (a status, an expiry, a verification) is what it reads
   * next: the entry pending() read of it is dropped, so recorded() reads it again from the file.
   */
  private forgetRead(record: Exclude<StoredRecord, { type: 'attempt' }>): void {
    if (this.pendingRead.size === 0) return;
    if (record.baseUrl !== undefined) {
      this.pendingRead.delete(depositKey(record.baseUrl, record.id));
      return;
    }
    // a record without its service (an older release's, or one the caller did not name) is
    // about its id's deposit, on whichever service
    for (const [key, entry] of this.pendingRead) if (entry.id === record.id) this.pendingRead.delete(key);
  }

  /** Remembers what the history last said of a deposit's status (its newsKey). */
  private rememberStatus(keys: string[], news: string): void {
    // a cache, bounded like anyRecord read from the file: forgetting costs a look-up, no more
    if (this.known.size >= MAX_ENTRIES * 2) this.known.clear();
    for (const key of keys) {
      this.known.set(key, news);
      this.unknown.delete(key);
    }
  }

  private notYetRecorded(records: StoredRecord[]): StoredRecord[] {
    // what this process knows may be stale (another may have appended since): a status that looks
    // new is checked against the end of the file before it is appended
    const ask = records.filter(
      (r) => r.type === 'status' && this.known.get(keyOf(r)) !== recordNews(r) && !this.unknown.has(keyOf(r)),
    ) as StatusRecord[];
    if (ask.length > 0) this.lookUp(new Set(ask.map(keyOf)));
    const out: StoredRecord[] = [];
    const latest = new Map<string, string>();
    for (const record of records) {
      // one record per deposit: a second creation of an id is never written
      if (record.type === 'created' && this.holds(record.id, record.baseUrl)) {
        this.warn(`warning: deposit ${record.id} is already in ${this.file}; it is not recorded again`);
        continue;
      }
      if (record.type === 'verified' || record.type === 'unverified') {
        if (!this.isNewChainFact(record)) continue;
        this.chain.set(keyOf(record), record);
        out.push(record);
        continue;
      }
      if (record.type === 'status') {
        const was = latest.get(keyOf(record)) ?? this.known.get(keyOf(record));
        if (was === recordNews(record)) continue;
      }
      if (record.type === 'created' || record.type === 'status')
        latest.set(keyOf(record), recordNews(record));
      out.push(record);
    }
    return out;
  }

  /**
   * Whether a chain fact is news: a verification unless the last fact already is this one (one
   * line however often it is verified again); a first verdict that is not a pass (unproven or
   * mismatch: the ledger counts them); an undoing only of a deposit last recorded verified, or
   * found otherwise (so a watch that polls a pending settlement does not grow the file).
   */
  private isNewChainFact(fact: ChainFact): boolean {
    const last = this.lastChainFact(keyOf(fact), fact.id);
    if (fact.type === 'verified') return !(last?.type === 'verified' && last.txid === fact.txid);
    if (!last) return fact.outcome === 'unproven' || fact.outcome === 'mismatch';
    return last.type === 'verified' || last.outcome !== fact.outcome || last.txid !== fact.txid;
  }

  /** The latest chain fact of a deposit, looked for back from the end of the file. */
  private lastChainFact(key: string, id: string): ChainFact | undefined {
    if (this.chain.has(key)) return this.chain.get(key) ?? undefined;
    let found: ChainFact | undefined;
    scanBackward(
      this,
      (record) => {
        if ((record.type === 'verified' || record.type === 'unverified') && keyOf(record) === key)
          found = record;
        return found !== undefined;
      },
      (type, rid) => (type === 'verified' || type === 'unverified') && (rid === undefined || rid === id),
      LOOKUP_WINDOW,
    );
    if (this.chain.size >= MAX_ENTRIES) this.chain.clear();
    this.chain.set(key, found ?? null);
    return found;
  }

  /**
   * The shares other deposits' verifications counted from transaction `txid`, the latest
   * verification of each deposit: the whole file is read (a settlement reused months later is
   * still caught), keeping only that transaction's.
   */
  sharesOf(txid: string): Array<{ id: string; baseUrl?: string; shares: StoredShare[] }> {
    // one claim per deposit (service and id): two services may hand out the same id
    const byDeposit = new Map<string, { id: string; baseUrl?: string; shares: StoredShare[] }>();
    this.eachVerified(undefined, (record) => {
      if (record.txid === txid && Array.isArray(record.shares)) byDeposit.set(keyOf(record), claimOf(record));
    });
    return [...byDeposit.values()];
  }

  /**
   * The shares other deposits' verifications counted from `txid`, recorded before the latest
   * verification of deposit `id` (the file's order decides which of two runs at once came first).
   */
  sharesBefore(
    txid: string,
    id: string,
    baseUrl?: string,
  ): Array<{ id: string; baseUrl?: string; shares: StoredShare[] }> {
    const own = canonicalId(id);
    // one claim per deposit (service and id); the deposit's own: of its id, on its service when given
    const isOwn = (record: VerifiedRecord) =>
      record.id === own &&
      (baseUrl === undefined || record.baseUrl === undefined || record.baseUrl === baseUrl);
    type Claim = { id: string; baseUrl?: string; shares: StoredShare[] };
    const byDeposit = new Map<string, Claim>();
    let before = new Map<string, Claim>();
    this.eachVerified(undefined, (record) => {
      if (record.txid !== txid) return;
      if (isOwn(record)) before = new Map(byDeposit);
      else if (Array.isArray(record.shares)) byDeposit.set(keyOf(record), claimOf(record));
    });
    return [...before.values()];
  }

  /**
   * The outputs the latest verification of each deposit of `ids` counted (its txid and shares),
   * keyed by deposit (`depositKey` of its service and id; a record of an older release, without
   * its service, by its id), for those verified with their shares recorded: one read of the file,
   * the verified records alone, kept only for the ids asked about.
   */
  verifiedShares(ids: Set<string>): Map<string, { txid: string; shares: StoredShare[] }> {
    // by deposit (its service and id; an older record without its service, by its id)
    const out = new Map<string, { txid: string; shares: StoredShare[] }>();
    this.eachVerified(ids, (record) => {
      // one of an older release whose deposit cannot be told (its id on two services) is none's
      if (Array.isArray(record.shares) && ids.has(record.id) && record.baseUrl !== UNTOLD_SERVICE)
        out.set(keyOf(record), { txid: record.txid, shares: record.shares });
    });
    return out;
  }

  /**
   * Every verification, first to last (of the `ids` only, when given), each naming its deposit's
   * service: one of an older release, without it, is about the deposit of its id created before
   * it when that id was on one service only (CreatedWhere), else about UNTOLD_SERVICE, no deposit
   * judged here: its outputs stay taken, never anyone's own.
   */
  private eachVerified(ids: ReadonlySet<string> | undefined, visit: (record: VerifiedRecord) => void): void {
    const where = new CreatedWhere();
    scanForward(
      this,
      (record) => {
        if (record.type === 'created') where.add(record);
        else if (record.type === 'verified') {
          if (record.baseUrl !== undefined) return visit(record);
          const key = where.keyOf(record);
          if (key !== undefined)
            visit({ ...record, baseUrl: key.slice(0, key.length - record.id.length - 1) });
          // an id on two services names neither; one created nowhere here is read as before, by its id
          else visit(where.onSeveralServices(record.id) ? { ...record, baseUrl: UNTOLD_SERVICE } : record);
        }
      },
      0,
      (type, id) => (type === 'verified' || type === 'created') && (!ids || id === undefined || ids.has(id)),
    );
  }

  /** The latest status of some ids, from the end of the file back, within LOOKUP_WINDOW. */
  private lookUp(keys: Set<string>): void {
    const wanted = new Set(keys);
    const ids = new Set([...keys].map((key) => key.slice(key.lastIndexOf(' ') + 1)));
    scanBackward(
      this,
      (record) => {
        if (record.type !== 'created' && record.type !== 'status') return false;
        // the newest record of each key asked about is what the history says of it
        const keys = keysOf(record).filter((key) => wanted.has(key));
        for (const key of keys) wanted.delete(key);
        if (keys.length > 0) this.rememberStatus(keys, recordNews(record));
        return wanted.size === 0;
      },
      (type, id) => (type === 'created' || type === 'status') && (id === undefined || ids.has(id)),
      LOOKUP_WINDOW,
    );
    if (this.unknown.size + wanted.size > MAX_ENTRIES) this.unknown.clear();
    for (const key of wanted) this.unknown.add(key);
  }

  /**
   * What the history recorded of deposit `id` on the service `baseUrl`, with its latest status;
   * undefined when this machine did not create it there. Read from the end of the file, parsing
   * only the lines of that deposit.
   */
  recorded(id: string, baseUrl: string): HistoryEntry | undefined {
    const key = canonicalId(id);
    // watch --pending looks up every deposit pending() just read: one pass, not one per deposit
    const read = this.pendingRead.get(`${baseUrl} ${key}`);
    const news = read && newsKey(read.status, read.facts);
    // what this process appended since of this deposit dropped it (forgetRead); a status of its
    // id that the history already said is not appended, and keeps it
    if (read && this.known.get(depositKey(baseUrl, key)) === news && this.known.get(key) === news)
      return read;
    return this.entries((r) => r.id === key && r.baseUrl === baseUrl, { limit: 1, ids: new Set([key]) })[0];
  }

  /**
   * Whether the history holds a deposit of this id: on the service `baseUrl` when given (one
   * record per deposit per service: the sandbox and a live service may hand out the same id), on
   * any otherwise. An index of the ids ever created, compact and read on from where the last call
   * stopped, so a batch of creates reads the file once; an id in it is looked up on its service.
   */
  holds(id: string, baseUrl?: string): boolean {
    const key = canonicalId(id);
    const index = this.createdIds;
    index.end = scanForward(
      this,
      (record) => {
        if (record.type === 'created') index.ids.add(record.id);
      },
      index.end,
      (type, lineId) => {
        if (type !== 'created') return false;
        if (lineId === undefined) return true;
        index.ids.add(lineId);
        return false;
      },
    );
    if (!index.ids.has(key)) return false;
    return baseUrl === undefined || this.recorded(key, baseUrl) !== undefined;
  }

  /** Every record of every kind, first to last, read as a stream (what `ledger export` copies). */
  *stored(from = 0): Generator<StoredRecord> {
    yield* readRecords(this, from);
  }

  /** Every record, first to last, read as a stream. */
  *read(from = 0): Generator<HistoryRecord> {
    for (const record of readRecords(this, from))
      if (record.type !== 'verified' && record.type !== 'unverified' && record.type !== 'expired')
        yield record;
  }

  /**
   * The deposits created, each once with all the history says of it, newest first: at most
   * `limit` (MAX_ENTRIES when not given), in memory bounded by the limit whatever the file's size.
   * `where` chooses by what only the whole entry knows (its status, verified, expired); `ids`, when
   * given, names every deposit the filter can take, so the other lines are passed over unread.
   */
  entries(
    filter: (r: CreatedRecord) => boolean = () => true,
    opts: { limit?: number; where?: (e: HistoryEntry) => boolean; ids?: ReadonlySet<string> } = {},
  ): HistoryEntry[] {
    const limit = opts.limit ?? MAX_ENTRIES;
    const where = opts.where;
    let out: HistoryEntry[];
    const found: HistoryEntry[] = [];
    const read = eachBackward(
      this,
      filter,
      (entry) => {
        if (where && !where(entry)) return false;
        found.push(entry);
        return found.length >= limit;
      },
      { ids: opts.ids },
    );
    // what the read found is the answer when nothing before where it stopped changes it;
    // else (a deposit whose lines repeat out of order, creation times out of file order), a read
    // from the start gives it
    const oldest = found.reduce((min, e) => (e.at < min ? e.at : min), found[0]?.at ?? '');
    if (
      !read.overflow &&
      !read.mixed &&
      read.disordered.size === 0 &&
      (read.stoppedAt === 0 || settledBefore(this, read.stoppedAt, read.met, oldest, opts.ids, read.damage))
    ) {
      // the damaged lines it read, those before where it stopped too: one of them may be this deposit's
      read.damage.say(this);
      out = found.sort(newerEntryFirst);
    } else if (!where) out = newestCreated(this, filter, limit);
    else out = allEntries(this, filter).filter(where).sort(newerEntryFirst).slice(0, limit);
    for (const e of out) this.rememberStatus(keysOf(e), newsKey(e.status, e.facts));
    return out;
  }

  /**
   * Every deposit the filter takes, each once with all the history says of it, folded into a
   * value started by `start`: what the report and the reconciliation read. Memory holds the
   * value and a compact set of the ids met, not the deposits. A deposit whose lines repeat out of
   * order (a backup appended to the history, a created line copied after its statuses) is found
   * on the way and merged by a second read, which holds what those deposits' later lines said.
   */
  fold<T>(
    filter: (r: CreatedRecord) => boolean,
    start: () => T,
    visit: (acc: T, e: HistoryEntry) => void,
  ): T {
    let acc = start();
    const each = (entry: HistoryEntry) => {
      visit(acc, entry);
      return false;
    };
    const first = eachBackward(this, filter, each);
    if (!first.overflow && !first.mixed && first.disordered.size === 0) {
      first.damage.say(this);
      return acc;
    }
    acc = start();
    if (!first.overflow && !first.mixed) {
      const second = eachBackward(this, filter, each, { merge: first.disordered });
      if (!second.overflow && !second.mixed) {
        second.damage.say(this);
        return acc;
      }
    }
    acc = start();
    for (const e of allEntries(this, filter)) visit(acc, e);
    return acc;
  }

  /**
   * The deposits not yet FINALIZED or FAILED, newest first, at most `cap`: one pass that forgets
   * a deposit as soon as it ends, so memory follows what is pending, not the file. A deposit
   * recorded expired is left out unless `includeExpired`; a later status brings it back.
   */
  pending(
    filter: (r: CreatedRecord) => boolean = () => true,
    opts: { includeExpired?: boolean; cap?: number } = {},
  ): HistoryEntry[] {
    const out = pendingEntries(this, filter, opts);
    this.pendingRead.clear();
    for (const entry of out) {
      this.rememberStatus(keysOf(entry), newsKey(entry.status, entry.facts));
      this.pendingRead.set(`${entry.baseUrl} ${entry.id}`, entry);
    }
    return out;
  }

  /** The ids of the last `n` deposits created, newest first, read from the end of the file. */
  recentIds(filter: (r: CreatedRecord) => boolean, count: number): string[] {
    const ids: string[] = [];
    const seen = new Set<string>();
    scanBackward(
      this,
      (record) => {
        if (record.type !== 'created' || seen.has(record.id) || !filter(record)) return false;
        seen.add(record.id);
        ids.push(record.id);
        return ids.length >= count;
      },
      (type) => type === 'created',
    );
    return ids;
  }

  /**
   * For `--resume`: the rows of one profile and service already created, and the Idempotency-Key
   * of those sent without a known outcome. Only the `keys` asked about are kept (all, when not
   * given); `from` reads only what was appended after an earlier call's `end`.
   */
  batchState(profile: string, service: string, keys?: ReadonlySet<string>, from = 0): BatchState {
    const done = new Map<string, { id: string; status: string }>();
    const attempted = new Map<string, string>();
    const end = scanForward(
      this,
      (record) => {
        if (record.type !== 'created' && record.type !== 'attempt') return;
        if (record.profile !== profile || record.baseUrl !== service) return;
        if (!record.batchKey || (keys && !keys.has(record.batchKey))) return;
        if (record.type === 'created') done.set(record.batchKey, { id: record.id, status: record.status });
        else attempted.set(record.batchKey, record.idempotencyKey);
      },
      from,
      (type) => type === 'created' || type === 'attempt',
    );
    return { done, attempted, end };
  }
}

/** A verification's claim on a transaction's outputs: its deposit, and the shares it took. */
function claimOf(record: VerifiedRecord): { id: string; baseUrl?: string; shares: StoredShare[] } {
  const shares = record.shares ?? [];
  return record.baseUrl === undefined
    ? { id: record.id, shares }
    : { id: record.id, baseUrl: record.baseUrl, shares };
}

/**
 * What the caches of a History know a deposit by: its service and id (a record of an older
 * release, without its service, by its id alone).
 */
function keyOf(record: StoredRecord & { id: string }): string {
  return record.baseUrl === undefined ? record.id : depositKey(record.baseUrl, record.id);
}

/** The keys a record of the file answers for: its deposit's, and its id's (what a record without a service asks). */
function keysOf(record: StoredRecord & { id: string }): string[] {
  return record.baseUrl === undefined ? [record.id] : [depositKey(record.baseUrl, record.id), record.id];
}
