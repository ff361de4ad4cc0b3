/**
 * Following deposits until they end: one request per deposit per interval at most, a
 * ceiling on requests per minute across all of them, transient failures ridden out with
 * capped, jittered back-off, and a limit past which an unreachable service ends the watch.
 */
import type { GetResponse } from '../api/models.js';
import { isTerminal } from '../domain/values.js';
import { interrupted, LbrlError } from '../errors.js';
import { getChecked } from './answers.js';
import type { DepositApi, ExpiredRecordOf, FlowClock, Recorder, StatusRecordOf } from './ports.js';

/** At most this many GETs a minute across all watched deposits (the service's published status limit). */
export const MAX_REQUESTS_PER_MINUTE = 60;
/** A service failing for longer than this ends the watch (exit 6, or 1 for 5xx answers). */
export const UNREACHABLE_LIMIT_MS = 5 * 60 * 1000;
const BACKOFF_CAP_MS = 30_000;

export interface WatchEvents {
  /** a deposit's status was seen for the first time or changed */
  change(deposit: GetResponse, raw: unknown, previous: string | undefined): void;
  /** a transient failure; the watch goes on after delayMs */
  retry(reason: string, delayMs: number, failingForMs: number): void;
  /** every poll round, for a spinner */
  tick(states: ReadonlyMap<string, string | undefined>, elapsedMs: number): void;
  /** the service does not know this deposit (404), and the plan says to go on without it */
  gone?(id: string): void;
  /**
   * The service does not know this deposit (404), and the plan never leaves one: with it, the
   * watch asks about it again at a later turn (`listen`: a replica behind may not know yet a
   * deposit the service created), before leaveGone is considered.
   */
  missing?(id: string, error: LbrlError): void;
  /** a deposit due its last look still waits for payment: it is left from now on */
  expired?(id: string): void;
  /**
   * The deposits due a last look that this watch did not make, left for a later pass (never
   * unfinished deposits): told once, as the watch ends, however it ends (all done, its --timeout,
   * Ctrl-C, an error), so a caller never has to work out which were made.
   */
  deferred?(ids: string[]): void;
  /** the service asked to slow down: the ceiling is now this many requests a minute */
  slowed?(perMinute: number): void;
  /**
   * An answer about this deposit failed lbrl's checks (a contradiction, a broken contract). With
   * it, the watch reports it and goes on with the other deposits, asking about this one again at
   * its next turn (`listen`: one deposit's bad answers must not stop every other's events);
   * without it, such an answer ends the watch.
   */
  untrusted?(id: string, error: LbrlError): void;
}

/** How often and for how long. */
export interface WatchPlan {
  intervalMs: number;
  timeoutMs?: number | undefined;
  /** the time the run spent before the watch began (reading the history): it counts against timeoutMs */
  spentMs?: number | undefined;
  /**
   * --verify: a FINALIZED deposit is done only once this says its settlement is proven on chain
   * (true); false keeps it watched (not yet confirmed or found); a throw ends the watch.
   */
  settled?: ((deposit: GetResponse) => Promise<boolean>) | undefined;
  /**
   * A deposit the service does not know (404) is reported and left, and the others followed
   * (`watch --pending`: a deposit of the history may be gone from the service). Otherwise a 404
   * ends the watch at once (exit 4): an id typed by hand is most likely mistyped.
   */
  leaveGone?: boolean | undefined;
  /**
   * Deposits past the profile's expire-after that still waited for payment when last seen: each
   * gets one GET; still waiting, it is reported expired and left; otherwise it is followed.
   */
  lastLook?: ReadonlySet<string> | undefined;
  /**
   * Deposits waiting for payment not yet past expire-after, and when (a date, ms since the epoch)
   * each passes it: one still waiting then, as far as the watch knows, gets its next look as its
   * last (`lastLook`), so a charge that ages out while a pass runs never keeps the pass going.
   */
  dueAt?: ReadonlyMap<string, number> | undefined;
  /**
   * At most this many last looks in this watch (a cron pass of `watch --pending`): the rest are
   * left for a later pass, in `WatchResult.deferred`, and are never unfinished deposits: the watch
   * ends when the others end. Without it, every last look is made.
   */
  lastLookBudget?: number | undefined;
  /** the request ceiling a minute, across all deposits (default MAX_REQUESTS_PER_MINUTE) */
  perMinute?: number | undefined;
  /**
   * The ceiling shared with other hosts (a database ledger): each request takes its slot there
   * and waits the time it says, after this watch's own spacing.
   */
  budget?: { take(): Promise<number> } | undefined;
  /**
   * Asked of each open deposit before its turn: true skips it this round (`listen`: a charge the
   * ledger expired is looked at now and then, not at every round, so that the live ones keep
   * the request budget however many were abandoned).
   */
  resting?: ((id: string) => boolean) | undefined;
  /**
   * The deposits shared with other hosts (`watch --pending` on a database ledger): between
   * rounds, the deposits this watch saw end are handed in, and the answer says which to follow as
   * well (freed by another host, or a dead host's) and which to leave to another host from now.
   */
  share?: WorkShare | undefined;
}

/** How a watch shares its deposits with other hosts' (store/coordination-db.ts). */
export interface WorkShare {
  rebalance(ended: string[]): Promise<{ add: string[]; drop: string[] }>;
}

export interface WatchLoopOptions extends WatchPlan, FlowClock {
  ids: string[];
  unreachableLimitMs?: number;
  /**
   * Deposits to follow as well, asked at the start of every round (`listen`: those the history
   * gains meanwhile). With it, the watch does not end when all are done: it waits for more
   * until interrupted.
   */
  discover?: (() => Iterable<string>) | undefined;
}

export interface WatchResult {
  states: Map<string, string>;
  /** the deposits the service did not know (with leaveGone) */
  gone: string[];
  /** the deposits given their last look and found still waiting (lastLook) */
  expired: string[];
  /** the deposits due a last look that this watch left for a later one (lastLookBudget) */
  deferred: string[];
}

/** How often at most a watch shared with other hosts hands deposits over within a round. */
const REBALANCE_EVERY_MS = 1000;

/** The slowest the ceiling shrinks to on 429s: one request a minute. */
const SLOWEST_SPACING_MS = 60_000;

/** An error that carries the deposits a watch left unfinished (its --json error lists them). */
export function watchTimeout(message: string, unfinished: string[]): LbrlError {
  const error = new LbrlError(message, 'watch_timeout');
  error.details = { unfinished };
  return error;
}

const TRANSIENT = new Set(['network', 'timeout', 'service', 'rate_limited']);
/** An answer about one deposit that lbrl's checks refused. */
const UNTRUSTED = new Set(['mismatch', 'contract']);

export async function watchDeposits(
  client: DepositApi,
  options: WatchLoopOptions,
  events: WatchEvents,
): Promise<WatchResult> {
  return new WatchLoop(client, options, events).run();
}

/** How a request ends for the round it is in: the round goes on, ends, or the watch ends. */
type Step = 'next' | 'end round' | 'end watch';

/**
 * One watch, in named phases: `run` (rounds until every deposit ends or the time is up), `round`
 * (each open deposit once, spaced), `ask` (one request: `answered` or `failed`), `betweenRounds`
 * (the tick, the end, the time-out, the wait for the next round).
 */
class WatchLoop {
  /**
   * Every duration on the clock that does not jump: a wall clock stepped by days neither ends a
   * watch early nor holds its next request back for days.
   */
  private readonly elapsed: () => number;
  private readonly started: number;
  /** when the --timeout began: the run's start, before the watch's own */
  private readonly timeoutFrom: number;
  /** the wall clock when the watch began (dueAt is in dates) */
  private readonly wallStarted: number;
  private readonly states: Map<string, string | undefined>;
  /** the request ceiling: the profile's, halved on each 429, and won back slowly as answers come */
  private readonly baseSpacing: number;
  private spacing: number;
  private readonly limit: number;
  private lastRequestAt = Number.NEGATIVE_INFINITY;
  private failingSince: number | undefined;
  private failures = 0;
  private readonly proven = new Set<string>();
  private readonly gone: string[] = [];
  private readonly expired: string[] = [];
  private readonly lastLook: Set<string>;
  /** the last looks this watch may still make: once none, those not made are left for later */
  private looksLeft: number;
  private readonly dueAt: Map<string, number>;
  /** the deposits seen to end that were handed in to the share already */
  private readonly handedIn = new Set<string>();
  private rebalancedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly client: DepositApi,
    private readonly options: WatchLoopOptions,
    private readonly events: WatchEvents,
  ) {
    const clock = options.monotonic ?? options.now;
    this.elapsed = () => clock();
    this.started = this.elapsed();
    this.timeoutFrom = this.started - Math.max(0, options.spentMs ?? 0);
    this.wallStarted = options.now();
    this.states = new Map<string, string | undefined>(options.ids.map((id) => [id, undefined]));
    this.baseSpacing = Math.ceil(60_000 / (options.perMinute ?? MAX_REQUESTS_PER_MINUTE));
    this.spacing = this.baseSpacing;
    this.limit = options.unreachableLimitMs ?? UNREACHABLE_LIMIT_MS;
    this.lastLook = new Set(options.lastLook ?? []);
    this.looksLeft = options.lastLookBudget ?? Number.POSITIVE_INFINITY;
    this.dueAt = new Map(options.dueAt ?? []);
  }

  /** Rounds until every deposit has ended (or, with discover, until interrupted), or the time is up. */
  async run(): Promise<WatchResult> {
    try {
      while (this.options.discover !== undefined || this.pending().length > 0) {
        const roundStart = this.elapsed();
        this.more();
        this.dueNow();
        if ((await this.round()) === 'end watch') break;
        if ((await this.betweenRounds(roundStart)) === 'end watch') break;
      }
    } finally {
      this.events.deferred?.(this.deferred());
    }
    const { states, gone, expired } = this;
    return { states: states as Map<string, string>, gone, expired, deferred: this.deferred() };
  }

  /** Each open deposit asked once, the requests spaced evenly across all of them. */
  private async round(): Promise<Step> {
    for (const id of this.roundIds()) {
      if (this.timedOut()) break;
      // a charge that aged out since the round was planned is a last look now, within the looks'
      // budget (asked as live, a round of them held a paid charge back for minutes)
      this.dueNow();
      // shared with other hosts: handed over now and then between requests, even in a long round
      if (this.elapsed() - this.rebalancedAt >= REBALANCE_EVERY_MS) await this.rebalance();
      if (!this.states.has(id)) continue;
      if (this.options.resting?.(id)) continue;
      if (this.lastLook.has(id) && this.looksLeft <= 0) continue;
      // the shared budget: requests across all deposits are spaced evenly
      await this.pause(Math.min(this.lastRequestAt + this.spacing - this.elapsed(), this.left()));
      if (this.options.budget) await this.pause(Math.min(await this.options.budget.take(), this.left()));
      if (this.timedOut()) break;
      // it may have aged out during the wait
      this.dueNow();
      const look = this.lastLook.has(id);
      if (look && this.looksLeft <= 0) continue;
      // a last look is spent when it is asked, not when it is only planned
      if (look) this.looksLeft -= 1;
      this.lastRequestAt = this.elapsed();
      const step = await this.ask(id);
      if (step === 'end watch') return step;
      if (step === 'end round') break;
    }
    return 'next';
  }

  /**
   * The deposits a round asks about: the live ones, then last looks, at most a minute's worth of
   * requests of them: many charges past expire-after at once (a first run, a busy day) never hold
   * the deposits still live back from their next look for longer than that; the rest get theirs
   * in the rounds after.
   */
  private roundIds(): string[] {
    const todo = this.pending();
    const looks = todo.filter((id) => this.lastLook.has(id));
    return [
      ...todo.filter((id) => !this.lastLook.has(id)),
      ...looks.slice(0, Math.min(this.looksLeft, Math.max(1, Math.floor(60_000 / this.spacing)))),
    ];
  }

  /** One request about one deposit, and what its answer or its failure means. */
  private async ask(id: string): Promise<Step> {
    try {
      const { value, raw } = await this.beforeDeadline(getChecked(this.client, id));
      await this.answered(id, value, raw);
      return 'next';
    } catch (error) {
      return this.failed(id, error);
    }
  }

  private async answered(id: string, value: GetResponse, raw: unknown): Promise<void> {
    this.failingSince = undefined;
    this.failures = 0;
    if (this.spacing > this.baseSpacing)
      this.spacing = Math.max(this.baseSpacing, Math.floor(this.spacing * 0.9));
    const previous = this.states.get(id);
    if (this.lastLook.delete(id) && value.status === 'WAITING_PAYMENT') {
      // its last look: still waiting, so it is given up on (the service is not told)
      this.states.set(id, value.status);
      this.expired.push(id);
      this.events.expired?.(id);
      return;
    }
    if (previous !== value.status) {
      this.states.set(id, value.status);
      this.events.change(value, raw, previous);
    }
    const { settled } = this.options;
    if (value.status === 'FINALIZED' && settled && (await this.beforeDeadline(settled(value))))
      this.proven.add(id);
  }

  /** A request that failed (or whose answer did): go on, end the round after a wait, or end the watch. */
  private async failed(id: string, error: unknown): Promise<Step> {
    const { events } = this;
    if (error instanceof LbrlError && error.type === 'watch_timeout') {
      if (this.onlyLooksLeft()) return 'end watch';
      throw error;
    }
    // a 404 that is the service's (not found) or a page in its place (a proxy or a deploy, which
    // says `endpoint`): for a follower that never gives up, both are asked about again later
    if (
      events.missing &&
      error instanceof LbrlError &&
      (error.type === 'not_found' || error.type === 'endpoint')
    ) {
      events.missing(id, error);
      return 'next';
    }
    if (this.options.leaveGone && error instanceof LbrlError && error.type === 'not_found') {
      if (this.lastLook.delete(id)) {
        // its last look past expire-after, unknown: given up on as a charge still waiting is
        this.expired.push(id);
        this.events.expired?.(id);
        return 'next';
      }
      this.gone.push(id);
      events.gone?.(id);
      return 'next';
    }
    if (events.untrusted && error instanceof LbrlError && UNTRUSTED.has(error.type)) {
      events.untrusted(id, error);
      return 'next';
    }
    if (!(error instanceof LbrlError) || !TRANSIENT.has(error.type)) throw error;
    await this.rideOut(error);
    return 'end round';
  }

  /** A transient failure: slow down when told to, give up past the limit, else wait with back-off. */
  private async rideOut(error: LbrlError): Promise<void> {
    if (error.type === 'rate_limited' || error.retryAfterMs !== undefined) {
      // the service says the ceiling is too high (a 429, or any answer with Retry-After):
      // halve it, at least to its Retry-After, which is honoured below as well
      this.spacing = Math.min(SLOWEST_SPACING_MS, Math.max(this.spacing * 2, error.retryAfterMs ?? 0));
      this.events.slowed?.(Math.max(1, Math.floor(60_000 / this.spacing)));
    }
    this.failingSince ??= this.elapsed();
    const failingFor = this.elapsed() - this.failingSince;
    if (failingFor >= this.limit) {
      const gaveUp = new LbrlError(
        `gave up after ${Math.round(failingFor / 1000)} s of failures: ${error.message}`,
        error.type,
      );
      // as a time-out does, the error names what is live (never a last look: those are left)
      gaveUp.details = { unfinished: this.live() };
      throw gaveUp;
    }
    const backoff = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** this.failures) * (0.5 + this.options.random() / 2);
    this.failures += 1;
    const delay = Math.round(Math.max(backoff, this.options.intervalMs, error.retryAfterMs ?? 0));
    this.events.retry(error.message, delay, failingFor);
    // never past the --timeout: the round after then ends the watch
    await this.pause(Math.min(delay, this.left()));
  }

  /** After a round: the tick, then the end of the watch, its time-out, or the wait for the next round. */
  private async betweenRounds(roundStart: number): Promise<Step> {
    const { options } = this;
    this.events.tick(this.states, this.elapsed() - this.started);
    if (!this.timedOut()) await this.rebalance();
    if (options.discover === undefined && this.pending().length === 0) return 'end watch';
    if (this.timedOut()) {
      // the last looks not made are left for a later pass: only what is live times out
      if (this.onlyLooksLeft()) return 'end watch';
      throw this.timeoutError();
    }
    let wait = roundStart + options.intervalMs - this.elapsed();
    if (options.timeoutMs !== undefined)
      wait = Math.min(wait, this.timeoutFrom + options.timeoutMs - this.elapsed());
    await this.pause(wait);
    return 'next';
  }

  private async pause(ms: number): Promise<void> {
    const { signal } = this.options;
    if (signal.aborted) throw interrupted();
    if (ms <= 0) return;
    try {
      await this.options.sleep(ms, signal);
    } catch {
      throw interrupted();
    }
    if (signal.aborted) throw interrupted();
  }

  private timedOut(): boolean {
    const { timeoutMs } = this.options;
    return timeoutMs !== undefined && this.elapsed() - this.timeoutFrom >= timeoutMs;
  }

  /** Time left before the --timeout, or Infinity without one. */
  private left(): number {
    const { timeoutMs } = this.options;
    return timeoutMs === undefined ? Number.POSITIVE_INFINITY : this.timeoutFrom + timeoutMs - this.elapsed();
  }

  private timeoutError(): LbrlError {
    const unfinished = this.live();
    // the ids are named once, by whoever closes the watch (the view's end lines, --json's list)
    return watchTimeout(
      `timed out after ${Math.round((this.elapsed() - this.timeoutFrom) / 1000)} s with ${unfinished.length} deposit(s) not yet FINALIZED or FAILED${this.options.settled ? ' (or FINALIZED and not yet verified on chain)' : ''}`,
      unfinished,
    );
  }

  /**
   * The work, or the watch's time-out when the time runs out first: a request that hangs (an
   * unreachable service, its retries) never holds the watch past its --timeout. The wait is a
   * timer of the time left by the watch's clock: an injected clock that moves at each sleep
   * moves nothing here, so only a request that really hangs meets it.
   */
  private async beforeDeadline<T>(work: Promise<T>): Promise<T> {
    if (this.options.timeoutMs === undefined) return work;
    work.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timeoutError()), Math.max(0, this.left()));
    });
    expired.catch(() => {});
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The last looks not made: whatever ends the watch, each due one was looked at or is one of these. */
  private deferred(): string[] {
    return [...this.lastLook].filter(
      (id) => this.states.has(id) && !this.gone.includes(id) && !this.expired.includes(id),
    );
  }

  /**
   * Those still waiting for payment that passed expire-after since the history was read are due
   * now: by the wall clock (expire-after is a span of the calendar), or by the clock that does
   * not jump once as long has passed as the wall clock gave them when the watch began, so that a
   * wall clock set back or stalled mid-pass never keeps a charge live for ever.
   */
  private dueNow(): void {
    if (this.dueAt.size === 0) return;
    const now = this.options.now();
    const ran = this.elapsed() - this.started;
    for (const [id, at] of this.dueAt) {
      if (now < at && ran < at - this.wallStarted) continue;
      this.dueAt.delete(id);
      if (this.states.has(id) && (this.states.get(id) ?? 'WAITING_PAYMENT') === 'WAITING_PAYMENT')
        this.lastLook.add(id);
    }
  }

  private open(id: string, statusText: string | undefined): boolean {
    return (
      !(this.looksLeft <= 0 && this.lastLook.has(id)) &&
      !this.gone.includes(id) &&
      !this.expired.includes(id) &&
      (statusText === undefined ||
        !isTerminal(statusText) ||
        (statusText === 'FINALIZED' && this.options.settled !== undefined && !this.proven.has(id)))
    );
  }

  private pending(): string[] {
    return [...this.states].filter(([id, s]) => this.open(id, s)).map(([id]) => id);
  }

  /** What is live: the open deposits but those waiting for their last look, which are never unfinished. */
  private live(): string[] {
    return this.pending().filter((id) => !this.lastLook.has(id));
  }

  /** Only last looks are left when the time is up: the watch ends well, leaving them for later. */
  private onlyLooksLeft(): boolean {
    return this.options.discover === undefined && this.live().length === 0;
  }

  /**
   * Several hosts: the deposits that ended handed in, those another host takes from now left
   * (between rounds, so no request about them is under way), and those handed over followed.
   */
  private async rebalance(): Promise<void> {
    const { share, lastLook, dueAt } = this.options;
    if (!share) return;
    this.rebalancedAt = this.elapsed();
    // a last look left for a later pass has not ended: it is given up when the watch closes
    const later = new Set(this.deferred());
    const ended = [...this.states]
      .filter(([id, s]) => !this.handedIn.has(id) && !this.open(id, s) && !later.has(id))
      .map(([id]) => id);
    const { add, drop } = await share.rebalance(ended);
    for (const id of ended) this.handedIn.add(id);
    for (const id of drop) {
      this.states.delete(id);
      this.lastLook.delete(id);
      this.dueAt.delete(id);
    }
    for (const id of add) {
      if (this.states.has(id)) continue;
      this.states.set(id, undefined);
      if (lastLook?.has(id)) this.lastLook.add(id);
      const at = dueAt?.get(id);
      if (at !== undefined) this.dueAt.set(id, at);
    }
  }

  /** The deposits discover() names that the watch does not follow yet. */
  private more(): void {
    for (const id of this.options.discover?.() ?? [])
      if (!this.states.has(id)) this.states.set(id, undefined);
  }
}

/**
 * Watch until every deposit is terminal, recording each status seen; throws for every end
 * but all FINALIZED (FAILED: exit 5, the watch's own limits: their exit codes). Returns the
 * deposits due a last look that were left for a later pass (the plan's lastLookBudget).
 */
export async function follow(
  api: DepositApi,
  ids: string[],
  plan: WatchPlan,
  deps: {
    clock: FlowClock;
    recorder: Recorder;
    statusRecord: StatusRecordOf;
    expiredRecord: ExpiredRecordOf;
  },
  events: WatchEvents,
): Promise<{ deferred: string[] }> {
  const { clock, statusRecord, expiredRecord } = deps;
  // a database's appends go on in order while the watch does; all are done before it returns
  const writes: Promise<void>[] = [];
  const recorder = {
    record(records: Parameters<Recorder['record']>[0]) {
      const write = deps.recorder.record(records);
      if (write instanceof Promise) writes.push(write.catch(() => {}));
    },
  };
  const watched = watchDeposits(
    api,
    {
      ids,
      ...plan,
      now: clock.now,
      ...(clock.monotonic ? { monotonic: clock.monotonic } : {}),
      sleep: clock.sleep,
      random: clock.random,
      signal: clock.signal,
    },
    {
      change: (deposit, raw, previous) => {
        recorder.record([statusRecord(deposit.id, deposit.status, clock.now(), deposit)]);
        events.change(deposit, raw, previous);
      },
      retry: (reason, delay, failingFor) => events.retry(reason, delay, failingFor),
      tick: (states, elapsed) => events.tick(states, elapsed),
      gone: (id) => events.gone?.(id), // a 404 is no fact: nothing recorded, asked again later
      expired: (id) => {
        recorder.record([expiredRecord(id, clock.now())]);
        events.expired?.(id);
      },
      slowed: (perMinute) => events.slowed?.(perMinute),
      deferred: (ids) => events.deferred?.(ids),
    },
  ).finally(() => Promise.all(writes));
  const { states, gone, deferred } = await watched;
  const failed = [...states].filter(([, s]) => s === 'FAILED').map(([id]) => id);
  if (failed.length > 0) {
    throw new LbrlError(`deposit ${failed.join(', ')} ended FAILED`, 'failed');
  }
  if (gone.length > 0) {
    throw new LbrlError(
      `the service does not know deposit ${gone.join(', ')} (404); nothing is recorded, so a pending deposit stays pending and the next --pending asks again`,
      'not_found',
    );
  }
  return { deferred };
}

/** What earlier versions recorded after a 404; now read as no news (statusRank): followed again. */
export const GONE = 'GONE';
