/**
 * The local history on plain records, in memory: what `deposit list`, `verify` and `reconcile`
 * read of it (entries, fold, the shares verifications counted) and a list of what they append.
 * Entries are derived from the records as the file's reader does: a created record, its latest
 * status, the latest check on chain, an expiry that a later status undoes.
 */
import type {
  CreatedRecord,
  HistoryEntry,
  StoredRecord,
  StoredShare,
} from '../../src/store/history-records.js';

export interface RecordsHistory {
  file: string;
  /** every record, those given first, then those appended */
  records: StoredRecord[];
  /** only the records the command appended */
  appended: StoredRecord[];
  append(records: StoredRecord[]): void;
  entries(
    filter?: (r: CreatedRecord) => boolean,
    opts?: { limit?: number; where?: (e: HistoryEntry) => boolean },
  ): HistoryEntry[];
  fold<T>(filter: (r: CreatedRecord) => boolean, start: () => T, visit: (acc: T, e: HistoryEntry) => void): T;
  recorded(id: string, target: string): HistoryEntry | undefined;
  sharesOf(txid: string): Array<{ id: string; shares: StoredShare[] }>;
  sharesBefore(txid: string, id: string): Array<{ id: string; shares: StoredShare[] }>;
  verifiedShares(ids: Set<string>): Map<string, { txid: string; shares: StoredShare[] }>;
}

/** A history holding these records; `failAppend` makes every append throw (a full disk). */
export function recordsHistory(
  given: StoredRecord[],
  o: { file?: string; failAppend?: string } = {},
): RecordsHistory {
  const records = [...given];
  const appended: StoredRecord[] = [];
  const all = (): HistoryEntry[] => {
    const byId = new Map<string, HistoryEntry>();
    for (const r of records) {
      if (r.type === 'created') {
        byId.set(r.id, { ...r, statusAt: r.at });
        continue;
      }
      if (r.type === 'attempt') continue;
      const e = byId.get(r.id);
      if (!e) continue;
      if (r.type === 'status') {
        e.status = r.status;
        e.statusAt = r.at;
        if (r.final) e.final = r.final;
        delete e.expiredAt;
      } else if (r.type === 'verified') {
        e.verifiedAt = r.at;
        delete e.onChain;
      } else if (r.type === 'unverified') {
        delete e.verifiedAt;
        e.onChain = r.outcome;
      } else if (r.type === 'expired') e.expiredAt = r.at;
    }
    // newest first; the file's order (the later first) where times tie
    return [...byId.values()].reverse().sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  };
  const verified = () => records.filter((r) => r.type === 'verified');
  return {
    file: o.file ?? '/history/history.ndjson',
    records,
    appended,
    append(more) {
      if (o.failAppend) throw new Error(o.failAppend);
      records.push(...more);
      appended.push(...more);
    },
    entries(filter = () => true, opts = {}) {
      return all()
        .filter((e) => filter(e) && (!opts.where || opts.where(e)))
        .slice(0, opts.limit ?? 10_000);
    },
    fold(filter, start, visit) {
      const acc = start();
      for (const e of all()) if (filter(e)) visit(acc, e);
      return acc;
    },
    recorded(id, target) {
      return all().find((e) => e.id === id.toLowerCase() && e.baseUrl === target);
    },
    sharesOf(txid) {
      const byId = new Map<string, StoredShare[]>();
      for (const r of verified()) if (r.txid === txid && r.shares) byId.set(r.id, r.shares);
      return [...byId].map(([id, shares]) => ({ id, shares }));
    },
    sharesBefore(txid, id) {
      const own = id.toLowerCase();
      const byId = new Map<string, StoredShare[]>();
      let before = new Map<string, StoredShare[]>();
      for (const r of verified()) {
        if (r.txid !== txid) continue;
        if (r.id === own) before = new Map(byId);
        else if (r.shares) byId.set(r.id, r.shares);
      }
      return [...before].map(([other, shares]) => ({ id: other, shares }));
    },
    verifiedShares(ids) {
      const out = new Map<string, { txid: string; shares: StoredShare[] }>();
      for (const r of verified())
        if (ids.has(r.id) && r.shares) out.set(r.id, { txid: r.txid.toLowerCase(), shares: r.shares });
      return out;
    },
  };
}

/** A created record as `deposit create` writes it. */
export function createdRecord(
  id: string,
  over: Partial<CreatedRecord> & Pick<CreatedRecord, 'at' | 'amountInCents' | 'destinationAddress'>,
): CreatedRecord {
  return {
    v: 1,
    type: 'created',
    id,
    profile: 'default',
    baseUrl: 'https://pay.example.com',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    ...over,
  };
}
