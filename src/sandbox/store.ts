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

/** A sandbox access token: random, and marked as the sandbox's. */
export function newSandboxToken(): string {
  return `sbx_${randomBytes(16).toString('hex')}`;
}

export type KeyClaim = { kind: 'claimed' } | { kind: 'existing'; id: string } | { kind: 'conflict' };

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
    publishExclusive(file, `${newSandboxToken()}\n`);
    return fs.readFileSync(file, 'utf8').trim();
  }

  /**
   * Claim an Idempotency-Key for a deposit id before the deposit exists, so that a process
   * killed between the two leaves a claim that the next request with the key can finish.
   */
  claimKey(key: string, body: string, id: string): KeyClaim {
    const file = path.join(this.keys, `${createHash('sha256').update(key).digest('hex')}.json`);
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const record: IdempotencyRecord = { id, bodyHash };
    if (publishExclusive(file, JSON.stringify(record))) return { kind: 'claimed' };
    const prior = readJson<IdempotencyRecord>(file);
    if (!prior || prior.bodyHash !== bodyHash) return { kind: 'conflict' };
    return { kind: 'existing', id: prior.id };
  }

  /** Write a deposit once; if its id is already written (a claim finished twice), that one stands. */
  publish(deposit: StoredDeposit): StoredDeposit {
    if (!publishExclusive(this.depositFile(deposit.id), JSON.stringify(deposit))) {
      const existing = this.load(deposit.id);
      if (existing) return existing;
    }
    this.cache.set(deposit.id, deposit);
    return deposit;
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
