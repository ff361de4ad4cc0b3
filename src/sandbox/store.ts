/**
 * The sandbox's data on disk, safe for many processes at once: a deposit is one file
 * written once; a payment or a failure is one more file, published exclusively; an
 * idempotency key is a file naming its deposit. Nothing is ever rewritten in place.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDir, publishExclusive, readJson } from './files.js';
import type { Events, StoredDeposit } from './lifecycle.js';

interface IdempotencyRecord {
  id: string;
  bodyHash: string;
}

export type CreateOutcome =
  | { kind: 'created'; deposit: StoredDeposit }
  | { kind: 'replayed'; deposit: StoredDeposit }
  | { kind: 'conflict' };

export class SandboxStore {
  private readonly deposits: string;
  private readonly events: string;
  private readonly keys: string;
  private readonly cache = new Map<string, StoredDeposit>();

  constructor(readonly dir: string) {
    this.deposits = path.join(dir, 'deposits');
    this.events = path.join(dir, 'events');
    this.keys = path.join(dir, 'idempotency');
    for (const d of [dir, this.deposits, this.events, this.keys]) ensureDir(d);
  }

  /** The standing server's token: made once per data directory, private to the user. */
  token(): string {
    const file = path.join(this.dir, 'token');
    const fresh = `sbx_${randomBytes(16).toString('hex')}`;
    publishExclusive(file, `${fresh}\n`);
    return fs.readFileSync(file, 'utf8').trim();
  }

  create(deposit: StoredDeposit, idempotency?: { key: string; body: string }): CreateOutcome {
    const keyFile = idempotency
      ? path.join(this.keys, `${createHash('sha256').update(idempotency.key).digest('hex')}.json`)
      : undefined;
    const bodyHash = idempotency ? createHash('sha256').update(idempotency.body).digest('hex') : '';
    if (keyFile) {
      const prior = this.replay(keyFile, bodyHash);
      if (prior) return prior;
    }
    publishExclusive(this.depositFile(deposit.id), JSON.stringify(deposit));
    if (keyFile) {
      const record: IdempotencyRecord = { id: deposit.id, bodyHash };
      if (!publishExclusive(keyFile, JSON.stringify(record))) {
        // another process won the race for this key: its deposit is the one
        fs.rmSync(this.depositFile(deposit.id), { force: true });
        const prior = this.replay(keyFile, bodyHash);
        if (prior) return prior;
      }
    }
    this.cache.set(deposit.id, deposit);
    return { kind: 'created', deposit };
  }

  private replay(keyFile: string, bodyHash: string): CreateOutcome | undefined {
    const record = readJson<IdempotencyRecord>(keyFile);
    if (!record) return undefined;
    if (record.bodyHash !== bodyHash) return { kind: 'conflict' };
    const deposit = this.load(record.id);
    return deposit ? { kind: 'replayed', deposit } : undefined;
  }

  private depositFile(id: string): string {
    return path.join(this.deposits, `${id}.json`);
  }

  load(id: string): StoredDeposit | undefined {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const deposit = readJson<StoredDeposit>(this.depositFile(id));
    if (deposit) this.cache.set(id, deposit);
    return deposit;
  }

  eventsOf(id: string): Events {
    const paid = readJson<{ at: number }>(path.join(this.events, `${id}.paid`));
    const failed = readJson<{ at: number }>(path.join(this.events, `${id}.failed`));
    const e: Events = {};
    if (paid) e.paidAt = paid.at;
    if (failed) e.failedAt = failed.at;
    return e;
  }

  /** Record a payment or a failure once; false when it was already recorded. */
  record(id: string, kind: 'paid' | 'failed', at: number): boolean {
    return publishExclusive(path.join(this.events, `${id}.${kind}`), JSON.stringify({ at }));
  }
}
