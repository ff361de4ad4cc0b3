/**
 * How the records of one deposit merge into the entry every reader gives: the furthest status
 * (a line repeated or out of order never moves a deposit back), the latest chain fact, the first
 * recorded of each settlement fact, an expiry only of a deposit still waiting. Pure: the readers
 * (history-search.ts, history.ts) bring the records.
 */
import { type SettlementFacts, settlementFactsOf } from '../domain/settlement-facts.js';
import { canonicalId, isTerminal, STATUS_ORDER } from '../domain/values.js';
import type {
  ChainFact,
  CreatedRecord,
  FinalFields,
  HistoryEntry,
  StatusRecord,
  StoredRecord,
} from './history-records.js';
import { IdSet } from './id-set.js';

/** A created record as a fold holds it: the record as read, its latest status, its file order. */
export interface Ranked {
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

export function entryOfRanked(ranked: Ranked): HistoryEntry {
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
export function settled(entry: HistoryEntry): HistoryEntry {
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
export function setChain(
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
export function factsOfRecord(record: StoredRecord): SettlementFacts | undefined {
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
export function addFacts(
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
 * two writers' lines out of order never move a deposit back. FINALIZED and FAILED are last. GONE,
 * which earlier versions recorded after one 404, is first, below the creation's own status: a
 * 404 for a deposit lbrl created says nothing of the deposit (a replica behind, a deploy), so such
 * a deposit reads as what it was before, and is followed again.
 */
export function statusRank(status: string): number {
  if (isTerminal(status)) return STATUS_ORDER.length + 1;
  if (status === 'GONE') return -1;
  return STATUS_ORDER.indexOf(status);
}

/** Newest first by creation time; a stable sort keeps the file's order (newest first) where times tie. */
export function newerEntryFirst(a: HistoryEntry, b: HistoryEntry): number {
  return a.at < b.at ? 1 : a.at > b.at ? -1 : 0;
}

/** Newest first: by creation time, and by file order where times tie. */
export function newerFirst(a: Ranked, b: Ranked): number {
  return a.created.at < b.created.at ? 1 : a.created.at > b.created.at ? -1 : b.seq - a.seq;
}

/**
 * The newest `limit` entries of a stream: kept in a map of at most the limit and some slack,
 * cut back to the limit when full. An entry cut is older than `limit` kept ones, so it cannot
 * come back.
 */
export class Newest {
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
    this.map.set(depositKey(created.baseUrl, created.id), {
      created,
      seq,
      status: created.status,
      statusAt: created.at,
    });
    if (this.map.size >= this.room) this.cut();
  }

  private cut(): void {
    const sorted = [...this.map.values()].sort(newerFirst);
    const cut = sorted.splice(this.limit);
    if (cut.length > 0) this.truncated = true;
    for (const e of cut) this.map.delete(depositKey(e.created.baseUrl, e.created.id));
    this.floor = sorted[sorted.length - 1];
  }

  result(): HistoryEntry[] {
    if (this.map.size > this.limit) this.truncated = true;
    return [...this.map.values()].sort(newerFirst).slice(0, this.limit).map(entryOfRanked);
  }
}

/**
 * Whether an `expired` record counts, given the status the history held for the deposit when it
 * was appended: only a deposit still WAITING_PAYMENT is given up on. An expiry appended after
 * another process recorded a payment (its last look was older than that news), or after an end
 * (FINALIZED, FAILED, GONE), is void: money in motion is never expired, whatever the order of
 * the writers.
 */
export function expires(status: string): boolean {
  return status === 'WAITING_PAYMENT';
}

/** What the records after a deposit's creation said, as a backward read holds it until the creation. */
export interface Held {
  status?: StatusRecord;
  facts?: SettlementFacts;
  chain?: ChainFact;
  expiredAt?: string;
}

/** A record read backward: each met is earlier in the file than those held. */
export function holdEarlier(later: Held, record: StoredRecord): void {
  if (record.type === 'status') {
    if (!later.status || statusRank(record.status) >= statusRank(later.status.status)) later.status = record;
  } else if (record.type === 'verified' || record.type === 'unverified') later.chain ??= record;
  else if (record.type === 'expired') later.expiredAt ??= record.at;
  addFacts(later, factsOfRecord(record), true);
}

/** A created record as an entry, with what its later records said. */
export function entryOfCreated(created: CreatedRecord, later: Held | undefined): HistoryEntry {
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
export function applyLater(ranked: Ranked, record: StoredRecord): void {
  if (record.type === 'status') setStatus(ranked, record.status, record.at, record.final);
  else if (record.type === 'verified' || record.type === 'unverified') setChain(ranked, record);
  else if (record.type === 'expired' && expires(ranked.status)) ranked.expiredAt = record.at;
  addFacts(ranked, factsOfRecord(record), false);
}

/**
 * What makes a status record news for a deposit: its status and the settlement facts it states.
 * The same status with a fact first seen (a liquidTxid at SETTLEMENT_CREATED) is news.
 */
export function newsKey(status: string, facts: SettlementFacts | undefined): string {
  if (!facts) return status;
  const keys = Object.keys(facts).sort() as Array<keyof SettlementFacts>;
  return keys.length === 0 ? status : `${status} ${keys.map((k) => `${k}=${facts[k]}`).join(' ')}`;
}

/** What a created or status record says is news (its newsKey). */
export function recordNews(record: CreatedRecord | StatusRecord): string {
  return newsKey(record.status, factsOfRecord(record));
}

/** A status read forward: it counts when it moves the deposit on (see statusRank). */
export function setStatus(ranked: Ranked, status: string, at: string, final?: FinalFields): void {
  if (statusRank(status) <= statusRank(ranked.status)) return;
  ranked.status = status;
  ranked.statusAt = at;
  ranked.final = final;
  // a status recorded after the expiry is news from the service: the deposit moved on
  ranked.expiredAt = undefined;
}

export function withCanonicalId(record: StoredRecord): StoredRecord {
  return record.type === 'attempt' ? record : { ...record, id: canonicalId(record.id) };
}

/** A deposit's key in a reader's maps: one record per deposit per service. */
export function depositKey(baseUrl: string, id: string): string {
  return `${baseUrl} ${id}`;
}

/**
 * Where each id was created, read forward: what tells which deposit a later record is about. A
 * record naming its service is about that service's deposit; one without (written by an older
 * release, which kept one deposit per id) is about the deposit of its id created before it, when
 * that id was created on one service only; on several, it is about none of them.
 */
export class CreatedWhere {
  private readonly byService = new Map<string, IdSet>();
  private readonly onSeveral = new Set<string>();

  /** Notes a creation; false when this deposit (service and id) was created before. */
  add(created: CreatedRecord): boolean {
    let ids = this.byService.get(created.baseUrl);
    if (!ids) this.byService.set(created.baseUrl, (ids = new IdSet()));
    if (!ids.add(created.id)) return false;
    for (const [service, others] of this.byService)
      if (service !== created.baseUrl && others.has(created.id)) this.onSeveral.add(created.id);
    return true;
  }

  /** Whether this id was created on more than one service: a record naming none is about neither. */
  onSeveralServices(id: string): boolean {
    return this.onSeveral.has(id);
  }

  /** Whether `has` holds the key of a deposit of this id on any service. */
  anyKey(id: string, has: (key: string) => boolean): boolean {
    for (const service of this.byService.keys()) if (has(depositKey(service, id))) return true;
    return false;
  }

  /** The key of the deposit a later record is about; undefined when none can be told. */
  keyOf(record: StoredRecord & { id: string }): string | undefined {
    if (record.baseUrl !== undefined) return depositKey(record.baseUrl, record.id);
    if (this.onSeveral.has(record.id)) return undefined;
    for (const [service, ids] of this.byService)
      if (ids.has(record.id)) return depositKey(service, record.id);
    return undefined;
  }
}
