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
import { type FixedFields, type SettlementFacts, settlementFactsOf } from '../domain/deposit.js';
import { canonicalId, isTerminal, STATUS_ORDER } from '../domain/values.js';
import { ensurePrivateDir, openOwnFile } from './files.js';
import { IdSet } from './id-set.js';
import { LINE_DAMAGES, type LineDamage, readRecordLine } from './record-read.js';

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
   * The merchant's reference (order, table, invoice) and note (domain/text/reference.ts): lbrl's
   * own, never sent to the service nor compared with its answers. Absent from older records.
   */
  ref?: string;
  note?: string;
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
  /** the settlement facts the answer stated (its liquidTxid, confirmedAt): kept once seen */
  facts?: SettlementFacts;
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
  const facts = settlementFactsOf(answer);
  if (Object.keys(facts).length > 0) record.facts = facts;
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
  /**
   * The settlement facts the history holds (seen in a checked answer, or proven on chain), the
   * first recorded of each: every later answer must state them the same.
   */
  facts?: SettlementFacts;
  /** the transaction the latest verification proved; `verifiedAt` holds only for it */
  verifiedTxid?: string;
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
  verifiedTxid?: string;
  onChain?: string;
  expiredAt?: string | undefined;
  facts?: SettlementFacts;
}

function entryOfRanked(ranked: Ranked): HistoryEntry {
  const entry: HistoryEntry = { ...ranked.created, status: ranked.status, statusAt: ranked.statusAt };
  if (ranked.final) entry.final = ranked.final;
  if (ranked.verifiedAt) entry.verifiedAt = ranked.verifiedAt;
  if (ranked.verifiedTxid) entry.verifiedTxid = ranked.verifiedTxid;
  if (ranked.onChain) entry.onChain = ranked.onChain;
  if (ranked.expiredAt) entry.expiredAt = ranked.expiredAt;
  if (ranked.facts) entry.facts = ranked.facts;
  return settled(entry);
}

/**
 * An entry as every reader gives it: a verification holds only for the transaction the deposit's
 * facts name (one the history recorded otherwise first is no verification of this deposit's
 * settlement), and an expiry only of a deposit still waiting for payment.
 */
function settled(entry: HistoryEntry): HistoryEntry {
  const txid = entry.facts?.['settlement.liquidTxid'];
  if (
    entry.verifiedAt &&
    entry.verifiedTxid !== undefined &&
    txid !== undefined &&
    txid !== entry.verifiedTxid
  ) {
    delete entry.verifiedAt;
    entry.onChain = 'mismatch';
  }
  if (entry.expiredAt && !expires(entry.status)) delete entry.expiredAt;
  return entry;
}

/** The latest chain fact wins: a verification (of its transaction), or what undid it. */
function setChain(
  target: { verifiedAt?: string; verifiedTxid?: string; onChain?: string },
  fact: ChainFact,
): void {
  if (fact.type === 'verified') {
    target.verifiedAt = fact.at;
    target.verifiedTxid = fact.txid;
    delete target.onChain;
  } else {
    delete target.verifiedAt;
    delete target.verifiedTxid;
    target.onChain = fact.outcome;
  }
}

/** The settlement facts a record states: a status's (its own, or its final answer's), a check's txid. */
function factsOfRecord(record: StoredRecord): SettlementFacts | undefined {
  if (record.type === 'status') {
    if (!record.final && !record.facts) return undefined;
    return { ...settlementFactsOf(record.final), ...record.facts };
  }
  if (record.type === 'verified' || record.type === 'unverified')
    return { 'settlement.liquidTxid': record.txid };
  return undefined;
}

/**
 * Adds facts to what a deposit holds. Read forward, the first recorded of each is kept (`earlier`
 * false: those held came first); read backward, each met is earlier than those held and replaces them.
 */
function addFacts(
  target: { facts?: SettlementFacts },
  facts: SettlementFacts | undefined,
  earlier: boolean,
): void {
  if (!facts) return;
  target.facts = earlier ? { ...target.facts, ...facts } : { ...facts, ...target.facts };
}

/**
 * Where a status stands in the order a deposit moves through them: merging records keeps the
 * furthest, so a line repeated (a backup appended, a created line copied after its statuses) or
 * two writers' lines out of order never move a deposit back. FINALIZED and FAILED are last.
 */
function statusRank(status: string): number {
  if (isTerminal(status)) return STATUS_ORDER.length + 1;
  if (status === 'GONE') return STATUS_ORDER.length;
  return STATUS_ORDER.indexOf(status);
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
  /** the ids ever created in the file, up to `end` (see holds) */
  private readonly createdIds = { ids: new IdSet(), end: 0 };

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
        this.rememberStatus(record.id, recordNews(record));
    for (const r of fresh) if (r.type === 'verified' || r.type === 'unverified') this.chain.set(r.id, r);
  }

  /** Remembers what the history last said of a deposit's status (its newsKey). */
  private rememberStatus(id: string, news: string): void {
    // a cache, bounded like anyRecord read from the file: forgetting costs a look-up, no more
    if (this.known.size >= MAX_ENTRIES * 2) this.known.clear();
    this.known.set(id, news);
    this.unknown.delete(id);
  }

  private notYetRecorded(records: StoredRecord[]): StoredRecord[] {
    // what this process knows may be stale (another may have appended since): a status that looks
    // new is checked against the end of the file before it is appended
    const ask = records.filter(
      (r) => r.type === 'status' && this.known.get(r.id) !== recordNews(r) && !this.unknown.has(r.id),
    ) as StatusRecord[];
    if (ask.length > 0) this.lookUp(new Set(ask.map((r) => r.id)));
    const out: StoredRecord[] = [];
    const latest = new Map<string, string>();
    for (const record of records) {
      // one record per deposit: a second creation of an id is never written
      if (record.type === 'created' && this.holds(record.id)) {
        this.warn(`warning: deposit ${record.id} is already in ${this.file}; it is not recorded again`);
        continue;
      }
      if (record.type === 'verified' || record.type === 'unverified') {
        if (!this.isNewChainFact(record)) continue;
        this.chain.set(record.id, record);
        out.push(record);
        continue;
      }
      if (record.type === 'status') {
        const was = latest.get(record.id) ?? this.known.get(record.id);
        if (was === recordNews(record)) continue;
      }
      if (record.type === 'created' || record.type === 'status') latest.set(record.id, recordNews(record));
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
        this.rememberStatus(record.id, recordNews(record));
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
   * undefined when this machine did not create it there. Read from the end of the file, parsing
   * only the lines of that deposit.
   */
  recorded(id: string, baseUrl: string): HistoryEntry | undefined {
    const key = canonicalId(id);
    // watch --pending looks up every deposit pending() just read: one pass, not one per deposit
    const read = this.pendingRead.get(`${baseUrl} ${key}`);
    if (read && this.known.get(key) === newsKey(read.status, read.facts)) return read;
    return this.entries((r) => r.id === key && r.baseUrl === baseUrl, { limit: 1, ids: new Set([key]) })[0];
  }

  /**
   * Whether the history holds a deposit of this id (on any service: its later records name the
   * id alone, so one file keeps one deposit per id). An index of the ids ever created, compact
   * and read on from where the last call stopped, so a batch of creates reads the file once.
   */
  holds(id: string): boolean {
    const key = canonicalId(id);
    const index = this.createdIds;
    index.end = this.scan(
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
    return index.ids.has(key);
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
    const kept = new Set<string>();
    const read = this.eachBackward(
      filter,
      (entry) => {
        if (where && !where(entry)) return false;
        found.push(entry);
        kept.add(entry.id);
        return found.length >= limit;
      },
      { ids: opts.ids, kept },
    );
    // a deposit whose lines repeat out of order is merged by a read from the start
    if (!read.overflow && read.disordered.size === 0) out = found.sort(newerEntryFirst);
    else if (!where) out = this.newestCreated(filter, limit);
    else out = this.allEntries(filter).filter(where).sort(newerEntryFirst).slice(0, limit);
    for (const e of out) this.rememberStatus(e.id, newsKey(e.status, e.facts));
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
    const first = this.eachBackward(filter, each);
    if (!first.overflow && first.disordered.size === 0) return acc;
    acc = start();
    if (!first.overflow && !this.eachBackward(filter, each, { merge: first.disordered }).overflow) return acc;
    acc = start();
    for (const e of this.allEntries(filter)) visit(acc, e);
    return acc;
  }

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
   * the read, the rest of the file is still searched for an earlier creation of the deposits
   * given (those in `kept`, when the caller names them), which makes them `disordered` too.
   */
  private eachBackward(
    filter: (r: CreatedRecord) => boolean,
    visit: (e: HistoryEntry) => boolean,
    opts: { merge?: ReadonlyMap<string, number>; ids?: ReadonlySet<string>; kept?: ReadonlySet<string> } = {},
  ): { overflow: boolean; disordered: Map<string, number> } {
    const held = new Map<string, Held>();
    const merge = opts.merge;
    const met = new IdSet();
    const disordered = new Map<string, number>();
    let overflow = false;
    let stopped = false;
    // once `visit` stops the read, the rest of the file is searched for earlier creations of the
    // deposits kept, by a scan that parses nothing (see createdBefore)
    const floor = { at: 0 };
    const hold = (record: StoredRecord & { id: string }): boolean => {
      let later = held.get(record.id);
      if (!later) held.set(record.id, (later = {}));
      holdEarlier(later, record);
      overflow = held.size > STATUS_ROOM + (merge?.size ?? 0);
      return overflow;
    };
    this.scanBackward(
      (record, offset) => {
        if (record.type === 'attempt') return false;
        if (met.has(record.id)) {
          if (!disordered.has(record.id) || record.type === 'created')
            disordered.set(record.id, record.type === 'created' ? offset : -1);
          return false;
        }
        if (stopped) return false;
        if (record.type !== 'created') return hold(record);
        if (merge?.has(record.id) && merge.get(record.id) !== offset) return hold(record);
        const later = held.get(record.id);
        held.delete(record.id);
        if (!merge) met.add(record.id);
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
    const kept = opts.kept ?? met;
    if (stopped && floor.at > 0) for (const id of this.createdBefore(floor.at, kept)) disordered.set(id, -2);
    return { overflow, disordered };
  }

  /**
   * The ids of `ids` created (as lbrl writes a created line) before offset `end`: a forward scan
   * that finds each created line by its start with a native search and parses nothing, so the
   * newest few deposits are known to be created once without reading the whole file as records.
   */
  private createdBefore(end: number, ids: { has(id: string): boolean }): string[] {
    const opened = openOwnFile(this.file, 'read', 'history', this.warn);
    if (!opened) return [];
    const found: string[] = [];
    const head = PREFIXES[0]![1];
    const span = head.length + 36;
    const buf = Buffer.allocUnsafe(CHUNK + span);
    try {
      for (let base = 0; base < end; base += CHUNK) {
        const length = fs.readSync(opened.fd, buf, 0, Math.min(CHUNK + span, end - base), base);
        for (let at = buf.indexOf(head, 0); at !== -1 && at + span <= length && at < CHUNK; ) {
          const id = canonicalId(buf.toString('latin1', at + head.length, at + span));
          if (ids.has(id)) found.push(id);
          at = buf.indexOf(head, at + head.length);
        }
      }
    } finally {
      fs.closeSync(opened.fd);
    }
    return found;
  }

  /** Every deposit the filter takes, in one pass from the start, held in memory: the fallback. */
  private allEntries(filter: (r: CreatedRecord) => boolean): HistoryEntry[] {
    const all = new Map<string, Ranked>();
    const created = new IdSet();
    let seq = 0;
    this.scan((record) => {
      if (record.type === 'attempt') return;
      if (record.type === 'created') {
        // a deposit is created once: a created line repeated says nothing new
        if (created.add(record.id) && filter(record))
          all.set(record.id, { created: record, seq: seq++, status: record.status, statusAt: record.at });
        return;
      }
      const ranked = all.get(record.id);
      if (ranked) applyLater(ranked, record);
    }, 0);
    return [...all.values()].sort(newerFirst).map(entryOfRanked);
  }

  /** The newest `limit` deposits by creation time, in one pass from the start. */
  private newestCreated(filter: (r: CreatedRecord) => boolean, limit: number): HistoryEntry[] {
    const newest = new Newest(limit);
    const created = new IdSet();
    let seq = 0;
    this.scan(
      (record) => {
        if (record.type === 'attempt') return;
        if (record.type === 'created') {
          // a deposit is created once: a created line repeated says nothing new
          if (created.add(record.id) && filter(record)) newest.offer(record, seq++);
          return;
        }
        const ranked = newest.map.get(record.id);
        // appends are ordered: a later line is later news, whatever the clocks of the writers said
        if (ranked) applyLater(ranked, record);
      },
      0,
      (type, id) => type === 'created' || (type !== 'attempt' && (id === undefined || newest.map.has(id))),
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
    const created = new IdSet();
    let seq = 0;
    this.scan(
      (record) => {
        if (record.type === 'attempt') return;
        if (record.type === 'created') {
          // a deposit is created once: a created line repeated (after its end, too) says nothing new
          if (created.add(record.id) && filter(record) && !isTerminal(record.status))
            open.offer(record, seq++);
          return;
        }
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
        if (sleeping) {
          const was = sleeping.status;
          applyLater(sleeping, record);
          if (sleeping.status === was) return;
          // a status that moves it on: news from the service, the deposit is followed again
          dormant.delete(record.id);
          if (!isTerminal(sleeping.status)) open.offer(sleeping.created, sleeping.seq);
          if (open.map.has(record.id)) open.map.set(record.id, sleeping);
          return;
        }
        const openEntry = open.map.get(record.id);
        if (!openEntry) return;
        applyLater(openEntry, record);
        if (isTerminal(openEntry.status)) open.map.delete(openEntry.created.id);
      },
      0,
      (type, id) =>
        type === 'created' ||
        (type !== 'attempt' && (id === undefined || open.map.has(id) || dormant.has(id))),
    );
    const out = open.result();
    if (open.truncated) {
      this.warn(
        `warning: ${this.file} holds more than ${cap} deposits not yet ended; only the newest ${cap} are taken`,
      );
    }
    this.pendingRead.clear();
    for (const entry of out) {
      this.rememberStatus(entry.id, newsKey(entry.status, entry.facts));
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
    const damage = new DamageCount();
    let end = from;
    const out: StoredRecord[] = [];
    try {
      for (;;) {
        const bytesRead = fs.readSync(fd, buf, have, buf.length - have, base + have);
        const limit = have + bytesRead;
        nulsToNewlines(buf, have, limit);
        let start = 0;
        if (bytesRead === 0) {
          if (limit > 0 && !skipping) readLine(buf, 0, limit, out, damage, want);
          yield* out.splice(0);
          break;
        }
        for (;;) {
          const newline = buf.indexOf(NEWLINE, start);
          if (newline === -1 || newline >= limit) break;
          if (skipping) skipping = false;
          else {
            // each record is seen before the next line is read: what a reader wants may change
            readLine(buf, start, newline, out, damage, want);
            yield* out.splice(0);
          }
          start = newline + 1;
          end = base + start;
        }
        if (skipping || limit - start >= MAX_LINE) {
          if (!skipping) damage.add('too long');
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
    damage.say(this.warn, this.file);
    return end;
  }

  /**
   * Records from the end of the file back, until `visit` returns true or `maxBytes` were read;
   * the damaged lines met on the way are skipped and counted, as a forward read does. `visit`
   * is told where each record's line starts in the file.
   */
  private scanBackward(
    visit: (r: StoredRecord, offset: number) => boolean,
    want: RecordFilter = anyRecord,
    maxBytes = Number.POSITIVE_INFINITY,
    floor: { at: number } = { at: 0 },
  ): void {
    const opened = openOwnFile(this.file, 'read', 'history', this.warn);
    if (!opened) return;
    const { fd, stat } = opened;
    let pos = stat.size; // what is left to read is before pos
    let carry = Buffer.alloc(0); // the start of a line cut by the previous read
    let skipTail = false; // the last piece of the next read belongs to an over-long line
    const out: StoredRecord[] = [];
    const damage = new DamageCount();
    const take = (data: Buffer, start: number, stop: number): boolean => {
      readLine(data, start, stop, out, damage, want);
      for (const r of out.splice(0)) if (visit(r, pos + start)) return true;
      return false;
    };
    try {
      while (pos > floor.at && stat.size - pos < maxBytes) {
        const chunkSize = Math.min(CHUNK, pos);
        pos -= chunkSize;
        const chunk = Buffer.allocUnsafe(chunkSize);
        fs.readSync(fd, chunk, 0, chunkSize, pos);
        nulsToNewlines(chunk, 0, chunkSize);
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
          damage.add('too long');
          skipTail = true;
        }
        carry = skipTail ? Buffer.alloc(0) : Buffer.from(data.subarray(0, stop));
      }
    } finally {
      fs.closeSync(fd);
      damage.say(this.warn, this.file);
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

/** What the records after a deposit's creation said, as a backward read holds it until the creation. */
interface Held {
  status?: StatusRecord;
  facts?: SettlementFacts;
  chain?: ChainFact;
  expiredAt?: string;
}

/** A record read backward: each met is earlier in the file than those held. */
function holdEarlier(later: Held, record: StoredRecord): void {
  if (record.type === 'status') {
    if (!later.status || statusRank(record.status) >= statusRank(later.status.status)) later.status = record;
  } else if (record.type === 'verified' || record.type === 'unverified') later.chain ??= record;
  else if (record.type === 'expired') later.expiredAt ??= record.at;
  addFacts(later, factsOfRecord(record), true);
}

/** A created record as an entry, with what its later records said. */
function entryOfCreated(created: CreatedRecord, later: Held | undefined): HistoryEntry {
  const entry = created as HistoryEntry;
  entry.statusAt = created.at;
  const status = later?.status;
  if (status && statusRank(status.status) > statusRank(created.status)) {
    entry.status = status.status;
    entry.statusAt = status.at;
    if (status.final) entry.final = status.final;
  }
  if (later?.chain) setChain(entry, later.chain);
  if (later?.facts) entry.facts = later.facts;
  if (later?.expiredAt) entry.expiredAt = later.expiredAt;
  return settled(entry);
}

/** A record read forward, after its deposit's creation. */
function applyLater(ranked: Ranked, record: StoredRecord): void {
  if (record.type === 'status') setStatus(ranked, record.status, record.at, record.final);
  else if (record.type === 'verified' || record.type === 'unverified') setChain(ranked, record);
  else if (record.type === 'expired' && expires(ranked.status)) ranked.expiredAt = record.at;
  addFacts(ranked, factsOfRecord(record), false);
}

/**
 * What makes a status record news for a deposit: its status and the settlement facts it states.
 * The same status with a fact first seen (a liquidTxid at SETTLEMENT_CREATED) is news.
 */
function newsKey(status: string, facts: SettlementFacts | undefined): string {
  if (!facts) return status;
  const keys = Object.keys(facts).sort() as Array<keyof SettlementFacts>;
  return keys.length === 0 ? status : `${status} ${keys.map((k) => `${k}=${facts[k]}`).join(' ')}`;
}

/** What a created or status record says is news (its newsKey). */
function recordNews(record: CreatedRecord | StatusRecord): string {
  return newsKey(record.status, factsOfRecord(record));
}

/** A status read forward: it counts when it moves the deposit on (see statusRank). */
function setStatus(ranked: Ranked, status: string, at: string, final?: FinalFields): void {
  if (statusRank(status) <= statusRank(ranked.status)) return;
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

/** The damaged lines a read met, by what is wrong with each: said in one warning at its end. */
class DamageCount {
  private readonly counts = new Map<LineDamage, number>();

  add(damage: LineDamage): void {
    this.counts.set(damage, (this.counts.get(damage) ?? 0) + 1);
  }

  say(warn: (line: string) => void, file: string): void {
    if (this.counts.size === 0) return;
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    const parts = LINE_DAMAGES.filter((damage) => this.counts.has(damage))
      .map((damage) => `${this.counts.get(damage)} ${damage}`)
      .join(', ');
    warn(`warning: skipped ${total} damaged line(s) in ${file} (${parts})`);
  }
}

/**
 * Pushes the record of buf[start, end) to out, or counts what is wrong with the line. A line
 * written as lbrl writes it is told by its start, and passed over unread when the reader does not
 * want it; any other line is read whole.
 */
function readLine(
  buf: Buffer,
  start: number,
  end: number,
  out: StoredRecord[],
  damage: DamageCount,
  want: RecordFilter = anyRecord,
): void {
  while (start < end && (buf[start] === 0x20 || buf[start] === 0x0d || buf[start] === 0x09)) start += 1;
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x0d || buf[end - 1] === 0x09)) end -= 1;
  if (start === end) return;
  const head = peek(buf, start, end);
  if (head !== undefined && !want(head.type, head.id)) return;
  const read = readRecordLine(buf.toString('utf8', start, end));
  if (read.ok) {
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
 */
function nulsToNewlines(buf: Buffer, from: number, to: number): void {
  for (let nul = buf.indexOf(0, from); nul !== -1 && nul < to; nul = buf.indexOf(0, nul)) {
    let stop = nul;
    while (stop < to && buf[stop] === 0) stop += 1;
    buf.fill(NEWLINE, nul, stop);
    if (stop >= to) break;
  }
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
