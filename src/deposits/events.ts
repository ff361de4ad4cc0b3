/**
 * Events out (`lbrl listen`): what is observed of the profile's deposits becomes events, each
 * written to the outbox (store/outbox.ts) before it is sent, then POSTed, signed as the Standard
 * Webhooks specification says, until the receiver answers 2xx or the retention period ends.
 *
 * - Each deposit has its own queue, sent in order; a receiver stuck on one deposit's event holds
 *   back only that deposit's later events, never another deposit's.
 * - Failed attempts (an answer other than 2xx, a time-out, a refused connection) are retried
 *   with capped, jittered, exponential back-off, each with a fresh timestamp and signature and the
 *   same webhook-id and body.
 * - The outbox is the truth: after a crash, what it holds undelivered is sent again, with the
 *   same ids; what was seen but not yet written is seen again and gets the same deterministic ids.
 */

import type { GetResponse } from '../api/models.js';
import type { PostOutcome, WebhookPoster } from '../api/webhook-post.js';
import { type LocalFields, localFieldsOf } from '../domain/text/reference.js';
import { canonicalId, isTerminal } from '../domain/values.js';
import {
  type DepositEventType,
  depositAt,
  eventBody,
  eventForStatus,
  eventId,
  statusesPassed,
  webhookHeaders,
} from '../domain/webhook.js';
import type { HistoryEntry } from '../store/history-records.js';
import {
  apply,
  type EventRecord,
  type FollowRecord,
  type OutboxRecord,
  type OutboxState,
  type OutboxStore,
  type RetryRecord,
  type SeenRecord,
} from '../store/outbox.js';
import { SendSlots } from './event-slots.js';
import { compactOutbox, listenDoneWith } from './outbox-compaction.js';
import type { FlowClock } from './ports.js';
import type { DepositOutcome } from './verify.js';

/** How long an event is retried before it is given up (as Stripe and Svix: about three days). */
export const RETENTION_MS = 3 * 24 * 3600 * 1000;
/** The longest wait between two attempts of one event. */
export const MAX_BACKOFF_MS = 10 * 60 * 1000;
const FIRST_BACKOFF_MS = 1000;
/** At most this many requests to the receiver at once, across deposits. */
export const MAX_IN_FLIGHT = 8;
/**
 * A charge the ledger expired that still waits for payment is asked about this often, not at
 * every round: a late payment is still seen (within this), and abandoned charges, which pile up
 * day after day, do not take the request budget of the live ones.
 */
export const EXPIRED_LOOK_MS = 10 * 60 * 1000;
/** At most one look at an expired charge this often, however many there are. */
export const EXPIRED_SPACING_MS = 5000;
/** A deposit the service says it does not know is asked about again at least this often, forever. */
export const MISSING_LOOK_MS = 10 * 60 * 1000;
export interface HubDeps {
  outbox: OutboxStore;
  poster: WebhookPoster;
  clock: FlowClock;
  /** the history's key of the service (a base URL, or "sandbox"): part of every event id */
  service: string;
  url: string;
  key: Uint8Array;
  /** the event types to send (the others are noted in the outbox, not sent) */
  wanted: ReadonlySet<DepositEventType>;
  /** a deposit is done only once its settlement was verified or contradicted */
  verify: boolean;
  /** one line per answer of the receiver, and per event given up */
  log(line: string): void;
  warn(line: string): void;
  /**
   * The outbox could not be written while sending (a full disk): nothing more can be sent
   * safely, so listen must end with this error.
   */
  fatal?(error: unknown): void;
  retentionMs?: number;
}

/** What the receiver's answer line shows: time, type, deposit, status, duration, event id. */
export function answerLine(
  now: number,
  event: { event: string; deposit: string; id: string },
  outcome: PostOutcome,
  then?: string,
): string {
  const time = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const result = outcome.kind === 'answer' ? String(outcome.status) : `ERR ${outcome.reason}`;
  return `${time}  ${event.event}  ${event.deposit}  --> ${result} (${Math.round(outcome.ms)} ms)${then ? `; ${then}` : ''}  [${event.id}]`;
}

/** The wait before attempt `attempt` + 1 (0 after the first): doubling from 1 s, capped, jittered down by up to half. */
export function backoffMs(attempt: number, random: number): number {
  const base = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.5 + random / 2));
}

function seconds(ms: number): string {
  return ms < 1000
    ? `${ms} ms`
    : ms < 120_000
      ? `${Math.round(ms / 1000)} s`
      : `${Math.round(ms / 60_000)} min`;
}

/** The verification result an event carries: what was proven, never the unblinding data. */
function verificationOf(outcome: DepositOutcome): Record<string, unknown> {
  const report = outcome.report;
  return {
    outcome: outcome.outcome,
    txid: outcome.txid,
    confirmations: report?.confirmations ?? null,
    requiredConfirmations: report?.requiredConfirmations ?? null,
    checks: report?.checks ?? [],
  };
}

export class EventHub {
  readonly state: OutboxState;
  private readonly queues = new Map<string, EventRecord[]>();
  private readonly workers = new Map<string, Promise<void>>();
  /** at most MAX_IN_FLIGHT requests at once, across deposits */
  private readonly slots = new SendSlots(MAX_IN_FLIGHT);
  private readonly stopping = new AbortController();
  /** the newest creation date the history held when covered() last read it */
  private lastLook: string | undefined;

  private readonly startedAt: number;

  constructor(private readonly deps: HubDeps) {
    this.startedAt = this.elapsed();
    this.state = deps.outbox.load();
    this.compact(false);
  }

  /** The clock durations are measured on: one that never jumps, where the clock has it. */
  private elapsed(): number {
    const monotonic = this.deps.clock.monotonic;
    return monotonic ? monotonic() : this.deps.clock.now();
  }

  private iso(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  private write(records: OutboxRecord[], sync = false): void {
    this.deps.outbox.append(records, sync);
    for (const r of records) apply(this.state, r);
    this.state.lines += records.length;
  }

  /** Sends again whatever the outbox holds undelivered, in order per deposit. */
  start(): void {
    for (const e of this.state.events.values()) if (e.state === 'pending') this.enqueue(e.record);
  }

  /** Undelivered events in the outbox. */
  get pendingCount(): number {
    let count = 0;
    for (const q of this.queues.values()) count += q.length;
    return count;
  }

  /**
   * The deposits to follow, from the history's entries of this profile and service: those not yet
   * final, those the outbox is not done with, and those created since listen first ran here (so a
   * deposit that ended while listen was stopped still gets its events). Emits deposit.expired
   * for an entry the ledger marked expired.
   */
  covered(entries: Iterable<HistoryEntry>): string[] {
    const all = [...entries];
    // the dates compared are the history's own (when each deposit was created), never this
    // process's clock: a listen first run with its clock a day fast does not hide what comes later
    let newest = '';
    for (const entry of all) if (entry.at > newest) newest = entry.at;
    if (this.state.since === undefined) this.write([{ v: 1, type: 'since', at: newest }]);
    this.lastLook = newest;
    const since = this.state.since ?? '';
    const ids: string[] = [];
    const listed = new Set<string>();
    const follow: FollowRecord[] = [];
    this.dormant.clear();
    this.createdAt.clear();
    this.local.clear();
    for (const entry of all) {
      const seen = this.state.seen.get(entry.id);
      this.createdAt.set(entry.id, entry.at);
      if (entry.ref !== undefined || entry.note !== undefined) this.local.set(entry.id, localFieldsOf(entry));
      if (listenDoneWith(seen)) continue;
      const following = this.state.following.has(entry.id);
      // created after the first run's newest deposit; or open when listen met it, whatever the dates
      const recent = entry.at > since;
      if (isTerminal(entry.status) && !seen && !following && !recent) continue;
      if (!following) follow.push({ v: 1, type: 'follow', deposit: entry.id, at: this.iso() });
      if (typeof entry.expiredAt === 'string') {
        if (!seen?.expired) this.expired(entry);
        this.dormant.add(entry.id);
      }
      ids.push(entry.id);
      listed.add(entry.id);
    }
    if (follow.length > 0) this.write(follow);
    for (const [id, seen] of this.state.seen) if (!listenDoneWith(seen) && !listed.has(id)) ids.push(id);
    return ids;
  }

  /** when each deposit the last look listed was created, as the history says */
  private readonly createdAt = new Map<string, string>();

  /** the merchant's reference and note of the deposits followed, as covered() last read them: in each event's data */
  private readonly local = new Map<string, LocalFields>();
  /** the deposits the history holds expired, as covered() last read it */
  private readonly dormant = new Set<string>();
  /** when each of them was last let through to be asked about */
  private readonly dormantLook = new Map<string, number>();

  /**
   * Whether the watch skips this deposit this round: expired by the ledger and, as far as listen
   * saw, still waiting for payment, and asked about less than EXPIRED_LOOK_MS ago.
   */
  resting(id: string): boolean {
    const missing = this.missingSince.get(id);
    if (missing !== undefined) return this.elapsed() < missing.next;
    const seen = this.state.seen.get(id);
    if (!this.dormant.has(id) || seen?.status !== 'WAITING_PAYMENT') {
      this.dormantLook.delete(id);
      return false;
    }
    const now = this.elapsed();
    // the ledger gave it its last look when it expired it: the first here is due a while after start
    const last = this.dormantLook.get(id) ?? this.startedAt;
    if (now - last < EXPIRED_LOOK_MS || now - this.lastDormantLook < EXPIRED_SPACING_MS) return true;
    this.dormantLook.set(id, now);
    this.lastDormantLook = now;
    return false;
  }
  private lastDormantLook = Number.NEGATIVE_INFINITY;

  /** deposits the service said it did not know (a 404): how many times in a row, and when to ask next */
  private readonly missingSince = new Map<string, { times: number; next: number }>();

  /**
   * The service said it does not know a deposit lbrl created (a replica behind, a deploy): it is
   * asked about again, less and less often (the interval doubled at each 404 in a row, up to
   * MISSING_LOOK_MS), and never given up on. Returns the wait before the next look, in ms.
   */
  missing(id: string, intervalMs: number): number {
    const key = canonicalId(id);
    const times = (this.missingSince.get(key)?.times ?? 0) + 1;
    const wait = Math.min(MISSING_LOOK_MS, intervalMs * 2 ** Math.min(times, 20));
    this.missingSince.set(key, { times, next: this.elapsed() + wait });
    return wait;
  }

  /** A deposit's status as the watch saw it (a change, or the first look since start). */
  observe(deposit: GetResponse): void {
    const id = canonicalId(deposit.id);
    this.missingSince.delete(id);
    const seen = this.state.seen.get(id);
    if (listenDoneWith(seen) || seen?.status === deposit.status) return;
    const now = this.deps.clock.now();
    const events: EventRecord[] = [];
    // every status it went through since the last event, those a poll missed inferred, each
    // event with the deposit as it was at its status
    let previous: string | null = seen?.status ?? null;
    for (const step of statusesPassed(previous, deposit)) {
      const type = eventForStatus(step.status);
      if (!type) continue;
      const at = depositAt(deposit, step.status);
      events.push(this.event(id, type, now, at, previous, { inferred: step.inferred }));
      previous = step.status;
    }
    const closed = deposit.status === 'FAILED' || (deposit.status === 'FINALIZED' && !this.deps.verify);
    this.emit(events, this.seen(id, deposit.status, now, closed, seen?.expired));
  }

  /** What the check on chain of a FINALIZED deposit found (with --verify): its event, and the deposit is done. */
  verification(deposit: GetResponse, outcome: DepositOutcome): void {
    const id = canonicalId(deposit.id);
    const seen = this.state.seen.get(id);
    if (listenDoneWith(seen)) return;
    const now = this.deps.clock.now();
    const type: DepositEventType | undefined =
      outcome.outcome === 'verified'
        ? 'deposit.verified'
        : outcome.outcome === 'mismatch'
          ? 'deposit.mismatch'
          : undefined;
    const events = type
      ? [this.event(id, type, now, deposit, deposit.status, { verification: verificationOf(outcome) })]
      : [];
    if (!type)
      this.deps.warn(
        `deposit ${id}: its settlement could not be proven on chain (${outcome.outcome}); no deposit.verified is sent for it`,
      );
    this.emit(events, this.seen(id, deposit.status, now, true, seen?.expired));
  }

  private expired(entry: HistoryEntry): void {
    const now = this.deps.clock.now();
    const seen = this.state.seen.get(entry.id);
    const deposit = {
      id: entry.id,
      status: seen?.status ?? entry.status,
      amountInCents: entry.amountInCents,
      destinationAddress: entry.destinationAddress,
      splitAddress: entry.splitAddress,
      createdAt: entry.answer?.createdAt ?? entry.at,
      expiredAt: entry.expiredAt,
    };
    const events: EventRecord[] = [];
    if (!seen) events.push(this.event(entry.id, 'deposit.created', now, deposit, null));
    events.push(this.event(entry.id, 'deposit.expired', now, deposit, seen?.status ?? 'WAITING_PAYMENT'));
    this.emit(events, {
      ...this.seen(entry.id, seen?.status ?? 'WAITING_PAYMENT', now, false),
      expired: true,
    });
  }

  private seen(deposit: string, status: string, now: number, closed: boolean, expired?: true): SeenRecord {
    const seen: SeenRecord = { v: 1, type: 'seen', deposit, status, at: new Date(now).toISOString() };
    if (closed) seen.closed = true;
    if (expired) seen.expired = true;
    return seen;
  }

  private event(
    deposit: string,
    type: DepositEventType,
    now: number,
    object: unknown,
    previousStatus: string | null,
    extra: { verification?: unknown; inferred?: boolean } = {},
  ): EventRecord {
    return {
      v: 1,
      type: 'event',
      id: eventId(this.deps.service, deposit, type),
      deposit,
      event: type,
      at: new Date(now).toISOString(),
      body: eventBody({
        type,
        at: now,
        deposit: object,
        previousStatus,
        ...extra,
        local: this.local.get(deposit),
      }),
    };
  }

  /**
   * Written (and synced to disk) first, then queued: an event is never sent that the outbox does
   * not hold. The events seen in one turn of the event loop share one sync.
   */
  private emit(events: EventRecord[], seen: SeenRecord): void {
    const sent = events.filter((e) => this.deps.wanted.has(e.event as DepositEventType));
    // an id already in the outbox (made again after a crash) is not queued twice
    const fresh = sent.filter((e) => !this.state.events.has(e.id));
    this.write([...fresh, seen]);
    if (fresh.length === 0) return;
    this.unsynced.push(...fresh);
    if (this.unsynced.length === fresh.length) setImmediate(() => this.guarded(() => this.flush()));
  }

  /** Work off the watch's path (a timer's, a worker's): a failure stops sending and ends listen. */
  private guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    if (this.deps.fatal) this.deps.fatal(error);
    else throw error;
  }

  private readonly unsynced: EventRecord[] = [];

  /**
   * Syncs the outbox, then queues what it now holds for sure: at once for the file, once the
   * database committed it for a database's outbox.
   */
  flush(): void {
    if (this.unsynced.length === 0) return;
    const synced = this.deps.outbox.sync();
    const events = this.unsynced.splice(0);
    if (synced === undefined) {
      for (const e of events) this.enqueue(e);
      return;
    }
    synced.then(
      () => {
        if (!this.stopped()) for (const e of events) this.enqueue(e);
      },
      (error: unknown) => this.fail(error),
    );
  }

  private enqueue(record: EventRecord): void {
    const queue = this.queues.get(record.deposit);
    if (queue) {
      queue.push(record);
      return;
    }
    this.queues.set(record.deposit, [record]);
    const worker: Promise<void> = this.work(record.deposit)
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        if (this.workers.get(record.deposit) === worker) this.workers.delete(record.deposit);
      });
    this.workers.set(record.deposit, worker);
  }

  /** One deposit's queue, head first: the next event only once the one before is done with. */
  private async work(deposit: string): Promise<void> {
    const queue = this.queues.get(deposit)!;
    const { clock } = this.deps;
    const retention = this.deps.retentionMs ?? RETENTION_MS;
    try {
      while (queue.length > 0 && !this.stopped()) {
        const record = queue[0]!;
        // tried for how long: what earlier runs tried, and this run's time on the clock that does
        // not jump (a wall clock stepped by days gives nothing up)
        const before = this.state.tried.get(record.id) ?? { attempts: 0, triedMs: 0 };
        const began = this.elapsed();
        for (let attempt = before.attempts; ; attempt++) {
          if (this.stopped()) return;
          await this.slots.take();
          let outcome: PostOutcome;
          try {
            if (this.stopped()) return;
            outcome = await this.send(record);
          } finally {
            this.slots.release();
          }
          if (this.stopped() && outcome.kind === 'failure') return;
          const now = clock.now();
          if (outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300) {
            this.write([
              { v: 1, type: 'done', id: record.id, at: new Date(now).toISOString(), http: outcome.status },
            ]);
            this.deps.log(answerLine(now, record, outcome));
            break;
          }
          const age = before.triedMs + (this.elapsed() - began);
          if (!(age < retention)) {
            this.write([{ v: 1, type: 'dropped', id: record.id, at: new Date(now).toISOString() }]);
            this.deps.log(
              answerLine(
                now,
                record,
                outcome,
                `given up after ${attempt + 1} attempt(s) over ${seconds(age)}`,
              ),
            );
            break;
          }
          const delay = Math.min(backoffMs(attempt, clock.random()), Math.max(0, retention - age));
          const retry: RetryRecord = {
            v: 1,
            type: 'retry',
            id: record.id,
            at: new Date(now).toISOString(),
            attempts: attempt + 1,
            triedMs: Math.round(age),
          };
          this.write([retry]);
          this.deps.log(answerLine(now, record, outcome, `retrying in ${seconds(delay)}`));
          try {
            await clock.sleep(delay, this.stopping.signal);
          } catch {
            return;
          }
        }
        queue.shift();
      }
    } finally {
      if (queue.length === 0 || this.stopped()) this.queues.delete(deposit);
    }
  }

  private stopped(): boolean {
    return this.stopping.signal.aborted || this.deps.clock.signal.aborted;
  }

  /** One attempt: signed now, with the event's id and body. */
  send(record: EventRecord, signal?: AbortSignal): Promise<PostOutcome> {
    const headers = webhookHeaders(this.deps.key, record.id, this.deps.clock.now(), record.body);
    return this.deps.poster.post(this.deps.url, headers, record.body, signal ?? this.stopping.signal);
  }

  /** Waits until every queue is empty (tests, and the benchmarks). */
  async drained(): Promise<void> {
    this.flush();
    while (this.workers.size > 0) await Promise.race(this.workers.values());
  }

  /** Stops sending (what is undelivered stays in the outbox for the next start). */
  async stop(): Promise<void> {
    this.stopping.abort();
    // what was written is kept, synced, for the next start
    if (this.unsynced.length > 0) {
      this.unsynced.length = 0;
      try {
        await this.deps.outbox.sync();
      } catch {
        // the failure that ends listen is reported already, or the next start reads what is there
      }
    }
    await Promise.allSettled(this.workers.values());
    this.deps.outbox.close();
  }

  /**
   * Compacts the outbox when it holds much more than it needs (deposits/outbox-compaction.ts), as
   * the history's last look (covered()) knows the deposits.
   */
  compact(force: boolean): void {
    compactOutbox(
      this.state,
      this.deps.outbox,
      {
        lastLook: this.lastLook,
        createdAt: this.createdAt,
        now: () => this.deps.clock.now(),
        iso: () => this.iso(),
      },
      force,
    );
  }
}

/**
 * The hubs of a listen to several receivers, one each (its own outbox, queues and retries, so a
 * slow or dead receiver holds up no other), fed alike by the one watch of the deposits. The
 * first decides when a deposit rests: they all read the same history.
 */
export class EventHubs {
  constructor(readonly hubs: EventHub[]) {}

  start(): void {
    for (const hub of this.hubs) hub.start();
  }

  /** undelivered events, per receiver */
  pendingCounts(): number[] {
    return this.hubs.map((hub) => hub.pendingCount);
  }

  covered(entries: Iterable<HistoryEntry>): string[] {
    const all = [...entries];
    const ids = new Set<string>();
    for (const hub of this.hubs) for (const id of hub.covered(all)) ids.add(id);
    return [...ids];
  }

  resting(id: string): boolean {
    return this.hubs[0]!.resting(id);
  }

  missing(id: string, intervalMs: number): number {
    const waits = this.hubs.map((hub) => hub.missing(id, intervalMs));
    return waits[0]!;
  }

  observe(deposit: GetResponse): void {
    for (const hub of this.hubs) hub.observe(deposit);
  }

  verification(deposit: GetResponse, outcome: DepositOutcome): void {
    for (const hub of this.hubs) hub.verification(deposit, outcome);
  }

  compact(force: boolean): void {
    for (const hub of this.hubs) hub.compact(force);
  }

  async stop(): Promise<void> {
    await Promise.all(this.hubs.map((hub) => hub.stop()));
  }
}
