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
   * At most this many last looks in this watch (a cron pass of `watch --pending`): the rest are
   * left for a later pass, in `WatchResult.deferred`, and are never unfinished deposits: the watch
   * ends when the others end. Without it, every last look is made.
   */
  lastLookBudget?: number | undefined;
  /** the request ceiling a minute, across all deposits (default MAX_REQUESTS_PER_MINUTE) */
  perMinute?: number | undefined;
  /**
   * Asked of each open deposit before its turn: true skips it this round (`listen`: a charge the
   * ledger expired is looked at now and then, not at every round, so that the live ones keep
   * the request budget however many were abandoned).
   */
  resting?: ((id: string) => boolean) | undefined;
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
  // every duration on the clock that does not jump: a wall clock stepped by days neither ends a
  // watch early nor holds its next request back for days
  const elapsed = options.monotonic ?? options.now;
  const started = elapsed();
  const states = new Map<string, string | undefined>(options.ids.map((id) => [id, undefined]));
  // the request ceiling: the profile's, halved on each 429, and won back slowly as answers come
  const baseSpacing = Math.ceil(60_000 / (options.perMinute ?? MAX_REQUESTS_PER_MINUTE));
  let spacing = baseSpacing;
  const limit = options.unreachableLimitMs ?? UNREACHABLE_LIMIT_MS;
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  let failingSince: number | undefined;
  let failures = 0;

  const pause = async (ms: number) => {
    if (options.signal.aborted) throw interrupted();
    if (ms <= 0) return;
    try {
      await options.sleep(ms, options.signal);
    } catch {
      throw interrupted();
    }
    if (options.signal.aborted) throw interrupted();
  };
  const timedOut = () => options.timeoutMs !== undefined && elapsed() - started >= options.timeoutMs;
  /** Time left before the --timeout, or Infinity without one. */
  const left = () =>
    options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : started + options.timeoutMs - elapsed();
  /** What is live: the open deposits but those waiting for their last look, which are never unfinished. */
  const live = () => pending().filter((id) => !lastLook.has(id));
  const timeoutError = () => {
    const unfinished = live();
    // the ids are named once, by whoever closes the watch (the view's end lines, --json's list)
    return watchTimeout(
      `timed out after ${Math.round((elapsed() - started) / 1000)} s with ${unfinished.length} deposit(s) not yet FINALIZED or FAILED${options.settled ? ' (or FINALIZED and not yet verified on chain)' : ''}`,
      unfinished,
    );
  };
  /**
   * The work, or the watch's time-out when the time runs out first: a request that hangs (an
   * unreachable service, its retries) never holds the watch past its --timeout. The wait is a
   * timer of the time left by the watch's clock: an injected clock that moves at each sleep
   * moves nothing here, so only a request that really hangs meets it.
   */
  const beforeDeadline = async <T>(work: Promise<T>): Promise<T> => {
    if (options.timeoutMs === undefined) return work;
    work.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeoutError()), Math.max(0, left()));
    });
    expired.catch(() => {});
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
  const proven = new Set<string>();
  const gone: string[] = [];
  const expired: string[] = [];
  const lastLook = new Set(options.lastLook ?? []);
  // the last looks this watch may still make: once none, those not made are left for later
  let looksLeft = options.lastLookBudget ?? Number.POSITIVE_INFINITY;
  const deferred = () =>
    looksLeft > 0 ? [] : [...lastLook].filter((id) => states.has(id) && !gone.includes(id));
  const open = (id: string, statusText: string | undefined) =>
    !(looksLeft <= 0 && lastLook.has(id)) &&
    !gone.includes(id) &&
    !expired.includes(id) &&
    (statusText === undefined ||
      !isTerminal(statusText) ||
      (statusText === 'FINALIZED' && options.settled !== undefined && !proven.has(id)));
  const pending = () => [...states].filter(([id, s]) => open(id, s)).map(([id]) => id);

  const more = () => {
    for (const id of options.discover?.() ?? []) if (!states.has(id)) states.set(id, undefined);
  };
  /** Only last looks are left when the time is up: the watch ends well, leaving them for later. */
  const onlyLooksLeft = () => options.discover === undefined && live().length === 0;
  rounds: while (options.discover !== undefined || pending().length > 0) {
    const roundStart = elapsed();
    more();
    // the last looks of a round are at most a minute's worth of requests: many charges past
    // expire-after at once (a first run, a busy day) never hold the deposits still live back
    // from their next look for longer than that; the rest get theirs in the rounds after
    const todo = pending();
    const looks = todo.filter((id) => lastLook.has(id));
    const round = [
      ...todo.filter((id) => !lastLook.has(id)),
      ...looks.slice(0, Math.min(looksLeft, Math.max(1, Math.floor(60_000 / spacing)))),
    ];
    for (const id of round) {
      if (timedOut()) break;
      if (options.resting?.(id)) continue;
      if (lastLook.has(id)) {
        if (looksLeft <= 0) continue;
        looksLeft -= 1;
      }
      // the shared budget: requests across all deposits are spaced evenly
      await pause(Math.min(lastRequestAt + spacing - elapsed(), left()));
      if (timedOut()) break;
      lastRequestAt = elapsed();
      try {
        const { value, raw } = await beforeDeadline(getChecked(client, id));
        failingSince = undefined;
        failures = 0;
        if (spacing > baseSpacing) spacing = Math.max(baseSpacing, Math.floor(spacing * 0.9));
        const previous = states.get(id);
        if (lastLook.delete(id) && value.status === 'WAITING_PAYMENT') {
          // its last look: still waiting, so it is given up on (the service is not told)
          states.set(id, value.status);
          expired.push(id);
          events.expired?.(id);
          continue;
        }
        if (previous !== value.status) {
          states.set(id, value.status);
          events.change(value, raw, previous);
        }
        if (value.status === 'FINALIZED' && options.settled && (await beforeDeadline(options.settled(value))))
          proven.add(id);
      } catch (error) {
        if (error instanceof LbrlError && error.type === 'watch_timeout') {
          if (onlyLooksLeft()) break rounds;
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
          continue;
        }
        if (options.leaveGone && error instanceof LbrlError && error.type === 'not_found') {
          gone.push(id);
          events.gone?.(id);
          continue;
        }
        if (events.untrusted && error instanceof LbrlError && UNTRUSTED.has(error.type)) {
          events.untrusted(id, error);
          continue;
        }
        if (!(error instanceof LbrlError) || !TRANSIENT.has(error.type)) throw error;
        if (error.type === 'rate_limited' || error.retryAfterMs !== undefined) {
          // the service says the ceiling is too high (a 429, or any answer with Retry-After):
          // halve it, at least to its Retry-After, which is honoured below as well
          spacing = Math.min(SLOWEST_SPACING_MS, Math.max(spacing * 2, error.retryAfterMs ?? 0));
          events.slowed?.(Math.max(1, Math.floor(60_000 / spacing)));
        }
        failingSince ??= elapsed();
        const failingFor = elapsed() - failingSince;
        if (failingFor >= limit) {
          throw new LbrlError(
            `gave up after ${Math.round(failingFor / 1000)} s of failures: ${error.message}`,
            error.type,
          );
        }
        const backoff = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** failures) * (0.5 + options.random() / 2);
        failures += 1;
        const delay = Math.round(Math.max(backoff, options.intervalMs, error.retryAfterMs ?? 0));
        events.retry(error.message, delay, failingFor);
        // never past the --timeout: the round below then ends the watch
        await pause(Math.min(delay, left()));
        break;
      }
    }
    events.tick(states, elapsed() - started);
    if (options.discover === undefined && pending().length === 0) break;
    if (timedOut()) {
      // the last looks not made are left for a later pass: only what is live times out
      if (onlyLooksLeft()) break;
      throw timeoutError();
    }
    let wait = roundStart + options.intervalMs - elapsed();
    if (options.timeoutMs !== undefined) wait = Math.min(wait, started + options.timeoutMs - elapsed());
    await pause(wait);
  }
  if (options.discover === undefined) looksLeft = 0;
  return { states: states as Map<string, string>, gone, expired, deferred: deferred() };
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
      gone: (id) => {
        recorder.record([statusRecord(id, GONE, clock.now())]);
        events.gone?.(id);
      },
      expired: (id) => {
        recorder.record([expiredRecord(id, clock.now())]);
        events.expired?.(id);
      },
      slowed: (perMinute) => events.slowed?.(perMinute),
    },
  ).finally(() => Promise.all(writes));
  const { states, gone, deferred } = await watched;
  const failed = [...states].filter(([, s]) => s === 'FAILED').map(([id]) => id);
  if (failed.length > 0) {
    throw new LbrlError(`deposit ${failed.join(', ')} ended FAILED`, 'failed');
  }
  if (gone.length > 0) {
    throw new LbrlError(
      `the service does not know deposit ${gone.join(', ')}; recorded as ${GONE}, so --pending no longer asks about it`,
      'not_found',
    );
  }
  return { deferred };
}

/**
 * The status the local history records for a deposit the service no longer knows: not a status
 * of the service, and not pending, so `watch --pending` stops asking about it.
 */
export const GONE = 'GONE';
