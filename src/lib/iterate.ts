/**
 * The library's watch as a program reads it: `for await (const deposit of client.watch(id))`.
 * The deposits' watch loop (deposits/watch.ts) runs beside the iteration and hands it each change;
 * leaving the loop early stops the polling, and the loop's failure ends the iteration. Every error
 * met while iterating passes the client's redaction (`scrubbedIterable`).
 */
import type { GetResponse } from '../api/models.js';
import type { DepositApi } from '../deposits/ports.js';
import { watchDeposits } from '../deposits/watch.js';
import type { LbrlError } from '../errors.js';
import type { Deposit } from './types.js';

/** The client's clock, every part of it given (the real one's where the program gave none). */
export interface WatchClock {
  now(): number;
  /** what durations are measured on: a clock that does not jump */
  monotonic(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

/** watchDeposits' events as an async iterator; leaving the loop stops the polling. */
export async function* watchOne(
  clock: WatchClock,
  id: string,
  intervalMs: number,
  timeoutMs: number | undefined,
  given: AbortSignal | undefined,
  apiFor: (signal: AbortSignal) => DepositApi,
): AsyncGenerator<Deposit> {
  const stop = new AbortController();
  const signal = given ? AbortSignal.any([given, stop.signal]) : stop.signal;
  const seen: GetResponse[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: unknown;
  const running = watchDeposits(
    apiFor(signal),
    {
      ids: [id],
      intervalMs,
      timeoutMs,
      now: clock.now,
      monotonic: clock.monotonic,
      sleep: clock.sleep,
      random: clock.random,
      signal,
    },
    {
      change: (deposit) => {
        seen.push(deposit);
        wake?.();
      },
      retry: () => {},
      tick: () => {},
    },
  ).then(
    () => {
      ended = true;
      wake?.();
    },
    (error: unknown) => {
      failure = error;
      ended = true;
      wake?.();
    },
  );
  try {
    for (;;) {
      const next = seen.shift();
      if (next) {
        yield next;
        continue;
      }
      if (ended) {
        if (failure !== undefined) throw failure;
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    stop.abort();
    await running;
  }
}

/** The iterable with every error of its iteration passed through `scrub`. */
export async function* scrubbedIterable<T>(
  inner: AsyncIterable<T>,
  scrub: (error: unknown) => LbrlError,
): AsyncGenerator<T> {
  try {
    yield* inner;
  } catch (error) {
    throw scrub(error);
  }
}
