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
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FixedFields } from '../domain/deposit.js';
import { canonicalId, isHexBytes, isTerminal, readHex32 } from '../domain/values.js';
import { ensurePrivateDir, openOwnFile } from './files.js';

export interface CreatedRecord {
  v: 1;
  type: 'created';
  id: string;
  profile: string;
  baseUrl: string;
  at: string;
  amountInCents: number;
  destinationAddress: string;
  splitAddress: string | null;
  splitFee: string | null;
  status: string;
  /** set for rows of a batch: what --resume recognises */
  batchKey?: string;
  /**
   * What the create answer said of the fields fixed at creation that the request did not set:
   * later answers, in any process, must say the same (deposits/answers.ts). Which fields: the
   * deposit model's FIXED_FIELD_NAMES (domain/deposit.ts).
   */
  answer?: FixedFields;
}

export interface StatusRecord {
  v: 1;
  type: 'status';
  id: string;
  status: string;
  at: string;
  /** with a final status: what that answer said, which never changes after it */
  final?: FinalFields;
}

/** What a FINALIZED or FAILED answer said besides its status. */
export interface FinalFields {
  settlement: unknown;
  confirmedAt: unknown;
}

/** A final answer's settlement is a transaction id and a status: more than this is not kept. */
const MAX_FINAL = 1024;

export function statusRecord(
  id: string,
  status: string,
  now: number,
  answer?: { settlement?: unknown; confirmedAt?: unknown },
): StatusRecord {
  const record: StatusRecord = {
    v: 1,
    type: 'status',
    id: canonicalId(id),
    status,
    at: new Date(now).toISOString(),
  };
  if (answer && isTerminal(status)) {
    const final = { settlement: answer.settlement ?? null, confirmedAt: answer.confirmedAt ?? null };
    if (JSON.stringify(final).length <= MAX_FINAL) record.final = final;
  }
  return record;
}

/** The deposit's settlement was checked on chain and every check proven (`deposit verify`, `watch --verify`). */
export interface VerifiedRecord {
  v: 1;
  type: 'verified';
  id: string;
  txid: string;
  at: string;
  /**
   * The deposit's shares and the outputs of txid that paid them: a later verification of another
   * deposit naming the same transaction counts them as taken (one output settles one share).
   */
  shares?: StoredShare[];
}

/** A share as the history keeps it: the script, the outputs, and the exact share in reais as "num/den". */
export interface StoredShare {
  role: 'destination' | 'split';
  script: string;
  outputs: number[];
  share: string;
  rounded: boolean;
}

export function verifiedRecord(
  id: string,
  txid: string,
  now: number,
  shares?: StoredShare[],
): VerifiedRecord {
  const record: VerifiedRecord = {
    v: 1,
    type: 'verified',
    id: canonicalId(id),
    txid,
    at: new Date(now).toISOString(),
  };
  if (shares && shares.length > 0) record.shares = shares;
  return record;
}

/**
 * A later verification of a deposit recorded as verified found otherwise (the transaction gone
 * from the explorer, back in the mempool, below the required depth after a reorg, or now
 * contradicting the deposit): `list` shows this instead of `verified` until it is verified again.
 */
export interface UnverifiedRecord {
  v: 1;
  type: 'unverified';
  id: string;
  txid: string;
  at: string;
  /** what the verification found: pending, not-found, not-settled, unproven or mismatch */
  outcome: string;
}

export function unverifiedRecord(id: string, txid: string, outcome: string, now: number): UnverifiedRecord {
  return { v: 1, type: 'unverified', id: canonicalId(id), txid, outcome, at: new Date(now).toISOString() };
}

/** What the history last said of a deposit's settlement on chain. */
type ChainFact = VerifiedRecord | UnverifiedRecord;

/**
 * lbrl gave up on a deposit that still waited for payment past the profile's `expire-after`
 * (after one last look): `watch --pending` leaves it alone from then on. Local only: the service
 * knows nothing of it, and a later status (a late payment) moves the deposit on again.
 */
export interface ExpiredRecord {
  v: 1;
  type: 'expired';
  id: string;
  at: string;
}

export function expiredRecord(id: string, now: number): ExpiredRecord {
  return { v: 1, type: 'expired', id: canonicalId(id), at: new Date(now).toISOString() };
}

/** A batch row about to be sent: its Idempotency-Key is reused if the outcome never came back. */
export interface AttemptRecord {
  v: 1;
  type: 'attempt';
  profile: string;
  baseUrl: string;
  batchKey: string;
  idempotencyKey: string;
  at: string;
}

export type HistoryRecord = CreatedRecord | StatusRecord | AttemptRecord;
/** What the file holds: the records above, and facts about deposits that only some readers want. */
export type StoredRecord = HistoryRecord | VerifiedRecord | UnverifiedRecord | ExpiredRecord;

export interface HistoryEntry extends CreatedRecord {
  statusAt: string;
  /** what the final answer said, when the status is final and the history kept it */
  final?: FinalFields;
  /** when its settlement was last verified on chain, if ever */
  verifiedAt?: string;
  /** what the last check on chain found, when it undid an earlier verification */
  onChain?: string;
  /** when lbrl recorded it expired (an `expired` record), unless a later status moved it on */
  expiredAt?: string;
}

/** What `--resume` needs to know about the rows of one file, and where the reading stopped. */
export interface BatchState {
  done: Map<string, { id: string; status: string }>;
  attempted: Map<string, string>;
  /** the offset after the last whole line read: pass it as `from` to read only what came since */
  end: number;
}

const RECORD_START = '{"v":1,';
const NEWLINE = 0x0a;
/** Read this much at a time. */
const CHUNK = 1 << 20;
/** A record is a few hundred bytes; a longer line is damage, skipped without being kept. */
export const MAX_LINE = 64 * 1024;
/** The most entries a fold returns (`list --limit` allows as many). */
export const MAX_ENTRIES = 10_000;
/** How far back from the end a status is looked for before appending it (about 30,000 records). */
const LOOKUP_WINDOW = 8 << 20;
/** How many statuses of deposits not yet met a read from the end holds before it reads from the start. */
const STATUS_ROOM = 100_000;

/** A created record as a fold holds it: the record as read, its latest status, its file order. */
interface Ranked {
  created: CreatedRecord;
  seq: number;
  status: string;
  statusAt: string;
  final?: FinalFields | undefined;
  verifiedAt?: string;
  onChain?: string;
  expiredAt?: string | undefined;
}

function entryOfRanked(ranked: Ranked): HistoryEntry {
  const entry: HistoryEntry = { ...ranked.created, status: ranked.status, statusAt: ranked.statusAt };
  if (ranked.final) entry.final = ranked.final;
  if (ranked.verifiedAt) entry.verifiedAt = ranked.verifiedAt;
  if (ranked.onChain) entry.onChain = ranked.onChain;
  if (ranked.expiredAt) entry.expiredAt = ranked.expiredAt;
  return entry;
}

/** The latest chain fact wins: a verification, or what undid it. */
function setChain(target: { verifiedAt?: string; onChain?: string }, fact: ChainFact): void {
  if (fact.type === 'verified') {
    target.verifiedAt = fact.at;
    delete target.onChain;
  } else {
    delete target.verifiedAt;
    target.onChain = fact.outcome;
  }
}

/** Newest first by creation time; a stable sort keeps the file's order (newest first) where times tie. */
function newerEntryFirst(a: HistoryEntry, b: HistoryEntry): number {
  return a.at < b.at ? 1 : a.at > b.at ? -1 : 0;
}

/** Newest first: by creation time, and by file order where times tie. */
function newerFirst(a: Ranked, b: Ranked): number {
  return a.created.at < b.created.at ? 1 : a.created.at > b.created.at ? -1 : b.seq - a.seq;
}

/**
 * The newest `limit` entries of a stream: kept in a map of at most the limit and some slack,
 * cut back to the limit when full. An entry cut is older than `limit` kept ones, so it cannot
 * come back.
 */
class Newest {
  readonly map = new Map<string, Ranked>();
  private floor: Ranked | undefined;
  private readonly room: number;
  truncated = false;

  constructor(private readonly limit: number) {
    this.room = limit + Math.max(limit, 4096);
  }

  offer(created: CreatedRecord, seq: number): void {
    const floor = this.floor;
    // older than the oldest kept: by time, or by file order where times tie (seq only grows)
    if (floor && created.at <= floor.created.at && (created.at < floor.created.at || seq < floor.seq)) {
      this.truncated = true;
      return;
    }
    this.map.set(created.id, { created, seq, status: created.status, statusAt: created.at });
    if (this.map.size >= this.room) this.cut();
  }

  private cut(): void {
    const sorted = [...this.map.values()].sort(newerFirst);
    const cut = sorted.splice(this.limit);
    if (cut.length > 0) this.truncated = true;
    for (const e of cut) this.map.delete(e.created.id);
    this.floor = sorted[sorted.length - 1];
  }

  result(): HistoryEntry[] {
    if (this.map.size > this.limit) this.truncated = true;
    return [...this.map.values()].sort(newerFirst).slice(0, this.limit).map(entryOfRanked);
  }
}

export class History {
  readonly file: string;
  /** the last status this process knows for an id, from what it read or wrote */
  private readonly known = new Map<string, string>();
  /** ids looked for near the end of the file and not found */
  private readonly unknown = new Set<string>();
  /** the entries pending() read, by service and id: what recorded() looks up first */
  private readonly pendingRead = new Map<string, HistoryEntry>();
  /** the latest chain fact of a deposit, as this process wrote or found it (null: none) */
  private readonly chain = new Map<string, ChainFact | null>();

  constructor(
    readonly dir: string,
    private readonly warn: (line: string) => void = () => {},
  ) {
    this.file = path.join(dir, 'history.ndjson');
  }

  /**
   * Appends in one write. A status record is left out when it is what the history already says
   * of that deposit, so polling the same status again and again does not grow the file.
   */
  append(records: StoredRecord[]): void {
    const fresh = this.notYetRecorded(records.map(canonical));
    if (fresh.length === 0) return;
    ensurePrivateDir(this.dir);
    const text = fresh.map((r) => `${JSON.stringify(r)}\n`).join('');
    const opened = openOwnFile(this.file, 'append', 'history', this.warn)!;
    try {
      // no fsync: what must survive is a killed process, and the page cache outlives it
      fs.writeSync(opened.fd, text);
    } finally {
      fs.closeSync(opened.fd);
    }
    for (const record of fresh)
      if (record.type === 'created' || record.type === 'status')
        this.rememberStatus(record.id, record.status);
    for (const r of fresh) if (r.type === 'verified' || r.type === 'unverified') this.chain.set(r.id, r);
  }

  private rememberStatus(id: string, status: string): void {
    // a cache, bounded like anyRecord read from the file: forgetting costs a look-up, no more
    if (this.known.size >= MAX_ENTRIES * 2) this.known.clear();
    this.known.set(id, status);
    this.unknown.delete(id);
  }

  private notYetRecorded(records: StoredRecord[]): StoredRecord[] {
    // what this process knows may be stale (another may have appended since): a status that looks
    // new is checked against the end of the file before it is appended
    const ask = records.filter(
      (r) => r.type === 'status' && this.known.get(r.id) !== r.status && !this.unknown.has(r.id),
    ) as StatusRecord[];
    if (ask.length > 0) this.lookUp(new Set(ask.map((r) => r.id)));
    const out: StoredRecord[] = [];
    const latest = new Map<string, string>();
    for (const record of records) {
      if (record.type === 'verified' || record.type === 'unverified') {
        if (!this.isNewChainFact(record)) continue;
        this.chain.set(record.id, record);
        out.push(record);
        continue;
      }
      if (record.type === 'status') {
        const was = latest.get(record.id) ?? this.known.get(record.id);
        if (was === record.status) continue;
      }
      if (record.type === 'created' || record.type === 'status') latest.set(record.id, record.status);
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
    const last = this.lastChainFact(fact.id);
    if (fact.type === 'verified') return !(last?.type === 'verified' && last.txid === fact.txid);
    if (!last) return fact.outcome === 'unproven' || fact.outcome === 'mismatch';
    return last.type === 'verified' || last.outcome !== fact.outcome || last.txid !== fact.txid;
  }

  /** The latest chain fact of a deposit, looked for back from the end of the file. */
  private lastChainFact(id: string): ChainFact | undefined {
    if (this.chain.has(id)) return this.chain.get(id) ?? undefined;
    let found: ChainFact | undefined;
    this.scanBackward(
      (record) => {
        if ((record.type === 'verified' || record.type === 'unverified') && record.id === id) found = record;
        return found !== undefined;
      },
      (type, rid) => (type === 'verified' || type === 'unverified') && (rid === undefined || rid === id),
      LOOKUP_WINDOW,
    );
    if (this.chain.size >= MAX_ENTRIES) this.chain.clear();
    this.chain.set(id, found ?? null);
    return found;
  }

  /**
   * The shares other deposits' verifications counted from transaction `txid`, the latest
   * verification of each deposit: the whole file is read (a settlement reused months later is
   * still caught), keeping only that transaction's.
   */
  sharesOf(txid: string): Array<{ id: string; shares: StoredShare[] }> {
    const byId = new Map<string, StoredShare[]>();
    this.scan(
      (record) => {
        if (record.type === 'verified' && record.txid === txid && Array.isArray(record.shares))
          byId.set(record.id, record.shares);
      },
      0,
      (type) => type === 'verified',
    );
    return [...byId].map(([id, shares]) => ({ id, shares }));
  }

  /**
   * The shares other deposits' verifications counted from `txid`, recorded before the latest
   * verification of deposit `id` (the file's order decides which of two runs at once came first).
   */
  sharesBefore(txid: string, id: string): Array<{ id: string; shares: StoredShare[] }> {
    const own = canonicalId(id);
    const byId = new Map<string, StoredShare[]>();
    let before = new Map<string, StoredShare[]>();
    this.scan(
      (record) => {
        if (record.type !== 'verified' || record.txid !== txid) return;
        if (record.id === own) before = new Map(byId);
        else if (Array.isArray(record.shares)) byId.set(record.id, record.shares);
      },
      0,
      (type) => type === 'verified',
    );
    return [...before].map(([other, shares]) => ({ id: other, shares }));
  }

  /**
   * The outputs the latest verification of each of `ids` counted (its txid and shares), for the
   * deposits among them verified with their shares recorded: one read of the file, the verified
   * records alone, kept only for the ids asked about.
   */
  verifiedShares(ids: Set<string>): Map<string, { txid: string; shares: StoredShare[] }> {
    const out = new Map<string, { txid: string; shares: StoredShare[] }>();
    this.scan(
      (record) => {
        if (record.type === 'verified' && Array.isArray(record.shares))
          out.set(record.id, { txid: record.txid, shares: record.shares });
      },
      0,
      (type, id) => type === 'verified' && (id === undefined || ids.has(id)),
    );
    for (const id of out.keys()) if (!ids.has(id)) out.delete(id);
    return out;
  }

  /** The latest status of some ids, from the end of the file back, within LOOKUP_WINDOW. */
  private lookUp(ids: Set<string>): void {
    const wanted = new Set(ids);
    this.scanBackward(
      (record) => {
        if ((record.type !== 'created' && record.type !== 'status') || !wanted.has(record.id)) return false;
        wanted.delete(record.id);
        this.rememberStatus(record.id, record.status);
        return wanted.size === 0;
      },
      (type, id) => (type === 'created' || type === 'status') && (id === undefined || wanted.has(id)),
      LOOKUP_WINDOW,
    );
    if (this.unknown.size + wanted.size > MAX_ENTRIES) this.unknown.clear();
    for (const id of wanted) this.unknown.add(id);
  }

  /**
   * What the history recorded of deposit `id` on the service `baseUrl`, with its latest status;
   * undefined when this machine did not create it there. Read from the end of the file.
   */
  recorded(id: string, baseUrl: string): HistoryEntry | undefined {
    const key = canonicalId(id);
    // watch --pending looks up every deposit pending() just read: one pass, not one per deposit
    const read = this.pendingRead.get(`${baseUrl} ${key}`);
    if (read && this.known.get(key) === read.status) return read;
    return this.entries((r) => r.id === key && r.baseUrl === baseUrl, { limit: 1 })[0];
  }

  /** Every record of every kind, first to last, read as a stream (what `ledger export` copies). */
  *stored(from = 0): Generator<StoredRecord> {
    yield* this.records(from);
  }

  /** Every record, first to last, read as a stream. */
  *read(from = 0): Generator<HistoryRecord> {
    for (const record of this.records(from))
      if (record.type !== 'verified' && record.type !== 'unverified' && record.type !== 'expired')
        yield record;
  }

  /**
   * The deposits created, each with its last known status, newest first: at most `limit`
   * (MAX_ENTRIES when not given), in memory bounded by the limit whatever the file's size.
   * `where` chooses by what only the whole entry knows (its status, verified, expired).
   */
  entries(
    filter: (r: CreatedRecord) => boolean = () => true,
    opts: { limit?: number; where?: (e: HistoryEntry) => boolean } = {},
  ): HistoryEntry[] {
    const limit = opts.limit ?? MAX_ENTRIES;
    const where = opts.where;
    let out: HistoryEntry[] | undefined;
    const found: HistoryEntry[] = [];
    const complete = this.eachBackward(filter, (entry) => {
      if (where && !where(entry)) return false;
      found.push(entry);
      return found.length >= limit;
    });
    if (complete) out = found.sort(newerEntryFirst);
    else if (!where) out = this.newestCreated(filter, limit);
    else out = this.allEntries(filter).filter(where).sort(newerEntryFirst).slice(0, limit);
    for (const e of out) this.rememberStatus(e.id, e.status);
    return out;
  }

  /**
   * Every deposit the filter takes, each once with all the history says of it, folded into a
   * value started by `start`: what the report and the reconciliation read. Memory holds the
   * value, not the deposits (unless the file is so disordered that the backward read cannot
   * finish; then it reads the file once more from the start, holding it).
   */
  fold<T>(
    filter: (r: CreatedRecord) => boolean,
    start: () => T,
    visit: (acc: T, e: HistoryEntry) => void,
  ): T {
    let acc = start();
    const complete = this.eachBackward(filter, (entry) => {
      visit(acc, entry);
      return false;
    });
    if (complete) return acc;
    acc = start();
    for (const e of this.allEntries(filter)) visit(acc, e);
    return acc;
  }

  /**
   * The deposits from the end of the file back, each given to `visit` once all that was
   * written of it since its creation was met, until `visit` returns true. The facts met before
   * their deposit are held until it is met; past STATUS_ROOM of those it stops and returns false
   * (the caller then reads the whole file instead); true when it ran to its end.
   */
  private eachBackward(filter: (r: CreatedRecord) => boolean, visit: (e: HistoryEntry) => boolean): boolean {
    const latest = new Map<string, StatusRecord>();
    const verified = new Map<string, ChainFact>();
    const expired = new Map<string, string>();
    const met = new Set<string>();
    let overflow = false;
    const hold = <V>(map: Map<string, V>, id: string, value: V): boolean => {
      if (!map.has(id) && !met.has(id)) map.set(id, value);
      overflow = map.size > STATUS_ROOM;
      return overflow;
    };
    this.scanBackward(
      (record) => {
        if (record.type === 'verified' || record.type === 'unverified')
          return hold(verified, record.id, record as ChainFact);
        // an expiry counts only when no later status moved the deposit on
        if (record.type === 'expired')
          return latest.has(record.id) ? false : hold(expired, record.id, record.at);
        if (record.type === 'status') return hold(latest, record.id, record);
        if (record.type !== 'created' || met.has(record.id)) return false;
        const latestStatus = latest.get(record.id);
        const fact = verified.get(record.id);
        const expiredAt = expired.get(record.id);
        latest.delete(record.id);
        verified.delete(record.id);
        expired.delete(record.id);
        // the ids met lately (a fact written before its deposit's creation is damage, or a copy):
        // a window, not every id, so memory stays flat in the number of deposits
        met.add(record.id);
        if (met.size > 4096) met.delete(met.values().next().value!);
        if (!filter(record)) return false;
        // the record was parsed for this read alone: it becomes the entry, without a copy
        const entry = record as HistoryEntry;
        entry.statusAt = latestStatus?.at ?? record.at;
        if (latestStatus) entry.status = latestStatus.status;
        if (latestStatus?.final) entry.final = latestStatus.final;
        if (fact) setChain(entry, fact);
        if (expiredAt && expires(entry.status)) entry.expiredAt = expiredAt;
        return visit(entry);
      },
      (type) => type !== 'attempt',
    );
    return !overflow;
  }

  /** Every deposit the filter takes, in one pass from the start, held in memory: the fallback. */
  private allEntries(filter: (r: CreatedRecord) => boolean): HistoryEntry[] {
    const all = new Map<string, Ranked>();
    let seq = 0;
    this.scan((record) => {
      if (record.type === 'attempt') return;
      const ranked = all.get(record.id);
      if (record.type === 'created') {
        if (ranked) setStatus(ranked, record.status, record.at);
        else if (filter(record))
          all.set(record.id, { created: record, seq: seq++, status: record.status, statusAt: record.at });
      } else if (!ranked) return;
      else if (record.type === 'status') setStatus(ranked, record.status, record.at, record.final);
      else if (record.type === 'verified' || record.type === 'unverified') setChain(ranked, record);
      else if (record.type === 'expired' && expires(ranked.status)) ranked.expiredAt = record.at;
    }, 0);
    return [...all.values()].sort(newerFirst).map(entryOfRanked);
  }

  /** The newest `limit` deposits by creation time, in one pass from the start. */
  private newestCreated(filter: (r: CreatedRecord) => boolean, limit: number): HistoryEntry[] {
    const newest = new Newest(limit);
    let seq = 0;
    this.scan(
      (record) => {
        if (record.type === 'created') {
          const ranked = newest.map.get(record.id);
          if (ranked) return setStatus(ranked, record.status, record.at); // the same deposit recorded again: later news
          if (filter(record)) newest.offer(record, seq++);
        } else if (record.type === 'status') {
          const ranked = newest.map.get(record.id);
          // appends are ordered: a later line is later news, whatever the clocks of the writers said
          if (ranked) setStatus(ranked, record.status, record.at, record.final);
        } else if (record.type === 'verified' || record.type === 'unverified') {
          const ranked = newest.map.get(record.id);
          if (ranked) setChain(ranked, record);
        } else if (record.type === 'expired') {
          const ranked = newest.map.get(record.id);
          if (ranked && expires(ranked.status)) ranked.expiredAt = record.at;
        }
      },
      0,
      (type, id) =>
        type === 'created' ||
        ((type === 'status' || type === 'verified' || type === 'unverified' || type === 'expired') &&
          (id === undefined || newest.map.has(id))),
    );
    return newest.result();
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
    const cap = opts.cap ?? MAX_ENTRIES;
    const open = new Newest(cap);
    // expired and still waiting: kept aside (not counted against the cap) until a status revives one
    const dormant = new Map<string, Ranked>();
    let seq = 0;
    this.scan(
      (record) => {
        if (record.type === 'attempt' || record.type === 'verified' || record.type === 'unverified') return;
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
        if (sleeping && record.type === 'status') {
          dormant.delete(record.id);
          setStatus(sleeping, record.status, record.at, record.final);
          if (!isTerminal(sleeping.status)) open.offer(sleeping.created, sleeping.seq);
          const back = open.map.get(record.id);
          if (back) setStatus(back, record.status, record.at, record.final);
          return;
        }
        const openEntry = open.map.get(record.id);
        if (openEntry) {
          setStatus(openEntry, record.status, record.at, record.type === 'status' ? record.final : undefined);
          if (isTerminal(openEntry.status)) open.map.delete(openEntry.created.id);
        } else if (record.type === 'created' && filter(record) && !isTerminal(record.status)) {
          open.offer(record, seq++);
        }
      },
      0,
      (type, id) =>
        type === 'created' ||
        ((type === 'status' || type === 'expired') &&
          (id === undefined || open.map.has(id) || dormant.has(id))),
    );
    const out = open.result();
    if (open.truncated) {
      this.warn(
        `warning: ${this.file} holds more than ${cap} deposits not yet ended; only the newest ${cap} are taken`,
      );
    }
    this.pendingRead.clear();
    for (const entry of out) {
      this.rememberStatus(entry.id, entry.status);
      this.pendingRead.set(`${entry.baseUrl} ${entry.id}`, entry);
    }
    return out;
  }

  /** The ids of the last `n` deposits created, newest first, read from the end of the file. */
  recentIds(filter: (r: CreatedRecord) => boolean, count: number): string[] {
    const ids: string[] = [];
    const seen = new Set<string>();
    this.scanBackward(
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
    const end = this.scan(
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

  /** Every record from `from` on, to `visit`; returns the offset after the last whole line. */
  private scan(visit: (r: StoredRecord) => void, from = 0, want: RecordFilter = anyRecord): number {
    const iterator = this.records(from, want);
    for (;;) {
      const step = iterator.next();
      if (step.done) return step.value;
      visit(step.value);
    }
  }

  /**
   * The file from `from` on, read a buffer at a time: yields each record, returns the offset
   * after the last whole line. Lines longer than MAX_LINE are skipped as damage without
   * being held; a last line without its newline (a write cut short) is read as it is.
   */
  private *records(from: number, want: RecordFilter = anyRecord): Generator<StoredRecord, number> {
    const opened = openOwnFile(this.file, 'read', 'history', this.warn);
    if (!opened) return from;
    const { fd } = opened;
    const buf = Buffer.allocUnsafe(CHUNK + MAX_LINE);
    let base = from; // the file offset of buf[0]
    let have = 0;
    let skipping = false;
    let damaged = 0;
    let end = from;
    const out: StoredRecord[] = [];
    try {
      for (;;) {
        const bytesRead = fs.readSync(fd, buf, have, buf.length - have, base + have);
        const limit = have + bytesRead;
        let start = 0;
        if (bytesRead === 0) {
          if (limit > 0 && !skipping) damaged += readLine(buf, 0, limit, out, want);
          yield* out.splice(0);
          break;
        }
        for (;;) {
          const newline = buf.indexOf(NEWLINE, start);
          if (newline === -1 || newline >= limit) break;
          if (skipping) skipping = false;
          else {
            // each record is seen before the next line is read: what a reader wants may change
            damaged += readLine(buf, start, newline, out, want);
            yield* out.splice(0);
          }
          start = newline + 1;
          end = base + start;
        }
        if (skipping || limit - start >= MAX_LINE) {
          if (!skipping) damaged += 1;
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
      fs.closeSync(fd);
    }
    if (damaged > 0) this.warn(`warning: skipped ${damaged} damaged line(s) in ${this.file}`);
    return end;
  }

  /**
   * Records from the end of the file back, until `visit` returns true or `maxBytes` were read;
   * the damaged lines met on the way are skipped and counted, as a forward read does.
   */
  private scanBackward(
    visit: (r: StoredRecord) => boolean,
    want: RecordFilter = anyRecord,
    maxBytes = Number.POSITIVE_INFINITY,
  ): void {
    const opened = openOwnFile(this.file, 'read', 'history', this.warn);
    if (!opened) return;
    const { fd, stat } = opened;
    let pos = stat.size; // what is left to read is before pos
    let carry = Buffer.alloc(0); // the start of a line cut by the previous read
    let skipTail = false; // the last piece of the next read belongs to an over-long line
    const out: StoredRecord[] = [];
    let damaged = 0;
    const take = (data: Buffer, start: number, stop: number): boolean => {
      damaged += readLine(data, start, stop, out, want);
      for (const r of out.splice(0)) if (visit(r)) return true;
      return false;
    };
    try {
      while (pos > 0 && stat.size - pos < maxBytes) {
        const chunkSize = Math.min(CHUNK, pos);
        pos -= chunkSize;
        const chunk = Buffer.allocUnsafe(chunkSize);
        fs.readSync(fd, chunk, 0, chunkSize, pos);
        const data = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
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
          damaged += 1;
          skipTail = true;
        }
        carry = skipTail ? Buffer.alloc(0) : Buffer.from(data.subarray(0, stop));
      }
    } finally {
      fs.closeSync(fd);
      if (damaged > 0) this.warn(`warning: skipped ${damaged} damaged line(s) in ${this.file}`);
    }
  }
}

/**
 * Whether an `expired` record counts, given the status the history held for the deposit when it
 * was appended: only a deposit still WAITING_PAYMENT is given up on. An expiry appended after
 * another process recorded a payment (its last look was older than that news), or after an end
 * (FINALIZED, FAILED, GONE), is void: money in motion is never expired, whatever the order of
 * the writers.
 */
function expires(status: string): boolean {
  return status === 'WAITING_PAYMENT';
}

function setStatus(ranked: Ranked, status: string, at: string, final?: FinalFields): void {
  ranked.status = status;
  ranked.statusAt = at;
  ranked.final = final;
  // a status recorded after the expiry is news from the service: the deposit moved on
  ranked.expiredAt = undefined;
}

function canonical(record: StoredRecord): StoredRecord {
  return record.type === 'attempt' ? record : { ...record, id: canonicalId(record.id) };
}

const MARK_BYTES = Buffer.from(RECORD_START);

/** Pushes the record of buf[start, end) to out; returns 1 when the line is damaged. */
function readLine(
  buf: Buffer,
  start: number,
  end: number,
  out: StoredRecord[],
  want: RecordFilter = anyRecord,
): number {
  while (start < end && (buf[start] === 0x20 || buf[start] === 0x0d || buf[start] === 0x09)) start += 1;
  if (start === end || (end - start === 1 && buf[start] === 0x0d)) return 0;
  const head = peek(buf, start, end);
  if (head !== undefined && !want(head.type, head.id)) return 0;
  const whole = parseLine(buf, start, end);
  if (whole) {
    out.push(whole);
    return 0;
  }
  // a torn write may have run into a whole record: keep that record
  const last = buf.subarray(start, end).lastIndexOf(MARK_BYTES);
  const tail = last > 0 ? parseLine(buf, start + last, end) : undefined;
  if (tail) out.push(tail);
  return 1;
}

/** Which records a reader needs, told from the start of a line (the id, when one could be read). */
export type RecordFilter = (type: StoredRecord['type'], id: string | undefined) => boolean;
const anyRecord: RecordFilter = () => true;

const PREFIXES: Array<[StoredRecord['type'], Buffer, boolean]> = [
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
  for (const [type, prefix, hasId] of PREFIXES) {
    if (
      end - start < prefix.length ||
      buf.compare(prefix, 0, prefix.length, start, start + prefix.length) !== 0
    )
      continue;
    if (!hasId) return { type, id: undefined };
    const from = start + prefix.length;
    const quote = buf.indexOf(0x22, from);
    if (quote === -1 || quote >= end || quote - from > 200) return undefined;
    const id = buf.toString('latin1', from, quote);
    if (id.includes('\\')) return undefined;
    return { type, id: canonicalId(id) };
  }
  return undefined;
}

const isText = (v: unknown): v is string => typeof v === 'string';

function parseLine(buf: Buffer, start: number, end: number): StoredRecord | undefined {
  if (
    end - start < MARK_BYTES.length ||
    buf.compare(MARK_BYTES, 0, MARK_BYTES.length, start, start + MARK_BYTES.length) !== 0
  )
    return undefined;
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(buf.toString('utf8', start, end)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!fields || typeof fields !== 'object') return undefined;
  if (fields.type === 'created' || fields.type === 'status') {
    if (!isText(fields.id) || !isText(fields.status) || !isText(fields.at)) return undefined;
    if (fields.type === 'created' && (!isText(fields.profile) || !isText(fields.baseUrl))) return undefined;
    fields.id = canonicalId(fields.id);
    return fields as unknown as HistoryRecord;
  }
  if (fields.type === 'expired') {
    if (!isText(fields.id) || !isText(fields.at)) return undefined;
    fields.id = canonicalId(fields.id);
    return fields as unknown as StoredRecord;
  }
  if (fields.type === 'verified') {
    if (!isText(fields.id) || !isText(fields.txid) || !isText(fields.at)) return undefined;
    // a verification is believed only of a transaction id in its one form: a record edited into
    // another is no verification
    const txid = readHex32(fields.txid);
    if (txid === null) return undefined;
    fields.txid = txid;
    fields.id = canonicalId(fields.id);
    if (fields.shares !== undefined && !isStoredShares(fields.shares)) delete fields.shares;
    return fields as unknown as StoredRecord;
  }
  if (fields.type === 'unverified') {
    if (!isText(fields.id) || !isText(fields.txid) || !isText(fields.at) || !isText(fields.outcome))
      return undefined;
    fields.id = canonicalId(fields.id);
    return fields as unknown as StoredRecord;
  }
  if (fields.type === 'attempt') {
    if (
      !isText(fields.profile) ||
      !isText(fields.baseUrl) ||
      !isText(fields.batchKey) ||
      !isText(fields.idempotencyKey)
    )
      return undefined;
    return fields as unknown as HistoryRecord;
  }
  return undefined;
}

/** Shares as lbrl writes them; anything else in the field is ignored, never trusted. */
function isStoredShares(value: unknown): value is StoredShare[] {
  return (
    Array.isArray(value) &&
    value.every(
      (share) =>
        share &&
        typeof share === 'object' &&
        (share.role === 'destination' || share.role === 'split') &&
        isText(share.script) &&
        isHexBytes(share.script) &&
        Array.isArray(share.outputs) &&
        share.outputs.every((output: unknown) => Number.isInteger(output)) &&
        isText(share.share) &&
        /^\d{1,40}\/[1-9]\d{0,40}$/.test(share.share) &&
        typeof share.rounded === 'boolean',
    )
  );
}
