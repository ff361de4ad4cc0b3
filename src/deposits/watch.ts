/**
 * Following deposits until they end: one request per deposit per interval at most, a
 * ceiling on requests per minute across all of them, transient failures ridden out with
 * capped, jittered back-off, and a limit past which an unreachable service ends the watch.
 */
import type { GetResponse } from '../api/models.js';
import { isTerminal } from '../domain/values.js';
import { interrupted, LbrlError } from '../errors.js';
import { statusRecord } from '../store/history.js';
import { getChecked } from './answers.js';
import type { Clock, DepositApi, Recorder } from './ports.js';

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
}

export interface WatchOptions extends WatchPlan, Clock {
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
}

const TRANSIENT = new Set(['network', 'timeout', 'service', 'rate_limited']);

export async function watchDeposits(
  client: DepositApi,
  o: WatchOptions,
  events: WatchEvents,
): Promise<WatchResult> {
  const started = o.now();
  const states = new Map<string, string | undefined>(o.ids.map((id) => [id, undefined]));
  const spacing = Math.ceil(60_000 / MAX_REQUESTS_PER_MINUTE);
  const limit = o.unreachableLimitMs ?? UNREACHABLE_LIMIT_MS;
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  let failingSince: number | undefined;
  let failures = 0;

  const pause = async (ms: number) => {
    if (o.signal.aborted) throw interrupted();
    if (ms <= 0) return;
    try {
      await o.sleep(ms, o.signal);
    } catch {
      throw interrupted();
    }
    if (o.signal.aborted) throw interrupted();
  };
  const timedOut = () => o.timeoutMs !== undefined && o.now() - started >= o.timeoutMs;
  const proven = new Set<string>();
  const gone: string[] = [];
  const open = (id: string, s: string | undefined) =>
    !gone.includes(id) &&
    (s === undefined || !isTerminal(s) || (s === 'FINALIZED' && o.settled !== undefined && !proven.has(id)));
  const pending = () => [...states].filter(([id, s]) => open(id, s)).map(([id]) => id);

  const more = () => {
    for (const id of o.discover?.() ?? []) if (!states.has(id)) states.set(id, undefined);
  };
  while (o.discover !== undefined || pending().length > 0) {
    const roundStart = o.now();
    more();
    for (const id of pending()) {
      if (timedOut()) break;
      // the shared budget: requests across all deposits are spaced evenly
      await pause(lastRequestAt + spacing - o.now());
      lastRequestAt = o.now();
      try {
        const { value, raw } = await getChecked(client, id);
        failingSince = undefined;
        failures = 0;
        const previous = states.get(id);
        if (previous !== value.status) {
          states.set(id, value.status);
          events.change(value, raw, previous);
        }
        if (value.status === 'FINALIZED' && o.settled && (await o.settled(value))) proven.add(id);
      } catch (error) {
        if (o.leaveGone && error instanceof LbrlError && error.type === 'not_found') {
          gone.push(id);
          events.gone?.(id);
          continue;
        }
        if (!(error instanceof LbrlError) || !TRANSIENT.has(error.type)) throw error;
        failingSince ??= o.now();
        const failingFor = o.now() - failingSince;
        if (failingFor >= limit) {
          throw new LbrlError(
            `gave up after ${Math.round(failingFor / 1000)} s of failures: ${error.message}`,
            error.type,
          );
        }
        const backoff = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** failures) * (0.5 + o.random() / 2);
        failures += 1;
        const delay = Math.round(Math.max(backoff, o.intervalMs, error.retryAfterMs ?? 0));
        events.retry(error.message, delay, failingFor);
        await pause(delay);
        break;
      }
    }
    events.tick(states, o.now() - started);
    if (o.discover === undefined && pending().length === 0) break;
    if (timedOut()) {
      const left = pending();
      throw new LbrlError(
        `timed out after ${Math.round((o.now() - started) / 1000)} s with ${left.length} deposit(s) not yet FINALIZED or FAILED${o.settled ? ' (or FINALIZED and not yet verified on chain)' : ''}: ${left.join(', ')}`,
        'watch_timeout',
      );
    }
    let wait = roundStart + o.intervalMs - o.now();
    if (o.timeoutMs !== undefined) wait = Math.min(wait, started + o.timeoutMs - o.now());
    await pause(wait);
  }
  return { states: states as Map<string, string>, gone };
}

/**
 * Watch until every deposit is terminal, recording each status seen; throws for every end
 * but all FINALIZED (FAILED: exit 5, the watch's own limits: their exit codes).
 */
export async function follow(
  api: DepositApi,
  ids: string[],
  plan: WatchPlan,
  deps: { clock: Clock; recorder: Recorder },
  events: WatchEvents,
): Promise<void> {
  const { clock, recorder } = deps;
  const { states, gone } = await watchDeposits(
    api,
    {
      ids,
      ...plan,
      now: clock.now,
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
    },
  );
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
}

/**
 * The status the local history records for a deposit the service no longer knows: not a status
 * of the service, and not pending, so `watch --pending` stops asking about it.
 */
export const GONE = 'GONE';
