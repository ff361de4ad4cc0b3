/** The file history (store/history.ts) behind the ledger's port. */
import { canonicalId } from '../domain/values.js';
import { History } from './history.js';
import type { CreatedRecord, HistoryEntry, StoredRecord } from './history-records.js';
import type { DepositSelection, Ledger } from './ledger-port.js';
import { reusedIdRefusal, sameCreation } from './ledger-rules.js';

function matches(filter: DepositSelection): (record: CreatedRecord) => boolean {
  const id = filter.id === undefined ? undefined : canonicalId(filter.id);
  return (record) =>
    (filter.profile === undefined || record.profile === filter.profile) &&
    (filter.baseUrl === undefined || record.baseUrl === filter.baseUrl) &&
    (id === undefined || record.id === id);
}

export class FileLedger implements Ledger {
  readonly kind = 'file';
  readonly history: History;

  constructor(dir: string, warn: (line: string) => void) {
    this.history = new History(dir, warn);
  }

  get where(): string {
    return this.history.file;
  }

  async append(records: StoredRecord[]): Promise<void> {
    for (const record of records) {
      if (record.type !== 'created') continue;
      const held = this.history.recorded(canonicalId(record.id), record.baseUrl);
      if (held && !sameCreation(held, record)) throw reusedIdRefusal(held);
    }
    this.history.append(records);
  }

  async entries(filter: DepositSelection = {}, options: { limit?: number } = {}): Promise<HistoryEntry[]> {
    return this.history.entries(matches(filter), options);
  }

  async recorded(id: string, baseUrl: string): Promise<HistoryEntry | undefined> {
    return this.history.recorded(id, baseUrl);
  }

  async batchState(profile: string, baseUrl: string) {
    const { done, attempted } = this.history.batchState(profile, baseUrl);
    return { done, attempted };
  }

  async *records(): AsyncIterable<StoredRecord> {
    yield* this.history.stored();
  }

  async count(): Promise<number> {
    return this.history.fold(
      () => true,
      () => ({ deposits: 0 }),
      (tally) => {
        tally.deposits += 1;
      },
    ).deposits;
  }

  async schemaVersion(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {}
}
