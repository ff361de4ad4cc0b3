/**
 * The sandbox's data on disk, safe for many processes at once: a deposit is one file
 * written once; a payment or a failure is one more file, published exclusively; an
 * idempotency key is a file naming its deposit. Nothing is ever rewritten in place.
 *
 * What it holds in memory does not grow with what it stores: deposits are read from disk
 * when asked for, with a small cache of the last ones read (they never change once written).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDir, publishExclusive, readJson } from './files.js';
import type { Events, StoredDeposit } from './lifecycle.js';

/** How long an Idempotency-Key is kept, as the real services do (Stripe keeps them 24 hours). */
export const KEY_TTL_MS = 24 * 3600 * 1000;
/** Expired keys are swept at most this often (by the sandbox's clock). */
const PRUNE_EVERY_MS = 3600 * 1000;
const CACHE_SIZE = 256;

interface IdempotencyRecord {
  id: string;
  bodyHash: string;
  /** when the key was claimed, by the sandbox's clock */
  at: number;
}

/** A sandbox access token: random, and marked as the sandbox's. */
export function newSandboxToken(): string {
  return `sbx_${randomBytes(16).toString('hex')}`;
}

export type KeyClaim = { kind: 'claimed' } | { kind: 'existing'; id: string } | { kind: 'conflict' };

const KEY_FILE = /^([0-9a-f]{64})\.(\d+)\.json$/;

export class SandboxStore {
  private readonly deposits: string;
  private readonly events: string;
  private readonly keys: string;
  /** the last deposits read, oldest first (a Map keeps insertion order) */
  private readonly cache = new Map<string, StoredDeposit>();
  private prunedAt: number | undefined;

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
   *
   * A key lives 24 hours from its claim. Its file is named by the key's hash and the day
   * (of the sandbox's clock) it was claimed in: a claim made today is younger than 24 hours,
   * one made yesterday may still be, older ones never are. So a claim looks at today's and
   * yesterday's files and publishes today's exclusively: processes racing on one key still
   * agree on one deposit, and an expired file can be deleted by anyone at any time.
   */
  claimKey(key: string, body: string, id: string, now: number): KeyClaim {
    this.pruneKeys(now);
    const hash = createHash('sha256').update(key).digest('hex');
    const day = Math.floor(now / KEY_TTL_MS);
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const answer = (prior: IdempotencyRecord): KeyClaim =>
      prior.bodyHash === bodyHash ? { kind: 'existing', id: prior.id } : { kind: 'conflict' };
    const today = path.join(this.keys, `${hash}.${day}.json`);
    const current = this.readKey(today);
    if (current) return answer(current);
    const yesterday = this.readKey(path.join(this.keys, `${hash}.${day - 1}.json`));
    if (yesterday && now - yesterday.at < KEY_TTL_MS) return answer(yesterday);
    const record: IdempotencyRecord = { id, bodyHash, at: now };
    if (publishExclusive(today, JSON.stringify(record))) return { kind: 'claimed' };
    const winner = this.readKey(today);
    return winner ? answer(winner) : { kind: 'conflict' };
  }

  private readKey(file: string): IdempotencyRecord | undefined {
    try {
      return readJson<IdempotencyRecord>(file);
    } catch {
      return undefined;
    }
  }

  /** Delete the key files that can no longer answer (older than 24 hours), once an hour at most. */
  pruneKeys(now: number): number {
    if (this.prunedAt !== undefined && Math.abs(now - this.prunedAt) < PRUNE_EVERY_MS) return 0;
    this.prunedAt = now;
    const day = Math.floor(now / KEY_TTL_MS);
    let removed = 0;
    for (const name of fs.readdirSync(this.keys)) {
      const match = KEY_FILE.exec(name);
      const file = path.join(this.keys, name);
      if (match && Number(match[2]) >= day) continue;
      if (match && Number(match[2]) === day - 1) {
        const record = this.readKey(file);
        if (record && now - record.at < KEY_TTL_MS) continue;
      }
      // older days, a layout before expiry, or a temporary file left by a killed writer
      if (!match && name.startsWith('.') && !this.staleTemp(file)) continue;
      fs.rmSync(file, { force: true });
      removed++;
    }
    return removed;
  }

  /** A temporary file is a writer's until it is an hour old (by the file system's clock). */
  private staleTemp(file: string): boolean {
    try {
      return Date.now() - fs.statSync(file).mtimeMs > PRUNE_EVERY_MS;
    } catch {
      return false;
    }
  }

  /** Write a deposit once; if its id is already written (a claim finished twice), that one stands. */
  publish(deposit: StoredDeposit): StoredDeposit {
    if (!publishExclusive(this.depositFile(deposit.id), JSON.stringify(deposit))) {
      const existing = this.load(deposit.id);
      if (existing) return existing;
    }
    this.remember(deposit);
    return deposit;
  }

  private depositFile(id: string): string {
    return path.join(this.deposits, `${id}.json`);
  }

  private remember(deposit: StoredDeposit): void {
    this.cache.delete(deposit.id);
    this.cache.set(deposit.id, deposit);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }

  load(id: string): StoredDeposit | undefined {
    const cached = this.cache.get(id);
    if (cached) {
      this.remember(cached);
      return cached;
    }
    const deposit = readJson<StoredDeposit & { qrCode?: string }>(this.depositFile(id));
    if (!deposit) return undefined;
    // data written before the PNG was dropped from storage still carries it
    delete deposit.qrCode;
    this.remember(deposit);
    return deposit;
  }

  eventsOf(id: string): Events {
    const paid = readJson<{ at: number; settle?: string; slowMs?: number }>(
      path.join(this.events, `${id}.paid`),
    );
    const failed = readJson<{ at: number }>(path.join(this.events, `${id}.failed`));
    const events: Events = {};
    if (paid) events.paidAt = paid.at;
    if (paid?.settle) events.settle = paid.settle;
    if (typeof paid?.slowMs === 'number' && paid.slowMs > 0) events.slowMs = paid.slowMs;
    if (failed) events.failedAt = failed.at;
    return events;
  }

  /** Record a payment or a failure once; false when it was already recorded. */
  record(
    id: string,
    kind: 'paid' | 'failed',
    at: number,
    extra: { settle?: string; slowMs?: number } = {},
  ): boolean {
    return publishExclusive(path.join(this.events, `${id}.${kind}`), JSON.stringify({ at, ...extra }));
  }
}
