/**
 * What a command on narrow options writes to and waits on, in plain objects: stdout and stderr
 * as strings (a Printer on them, no colour), the terminal's width when stdout is one, the
 * environment (TZ) and a clock, and a clock that only sleeping moves (no test waits for real).
 * The one printer on plain strings for the in-process command tests (test/cmd/*-in-process.test.ts).
 */
import { Readable } from 'node:stream';
import type { Context, Prompter } from '../../src/context.js';
import type { FlowClock } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { Printer } from '../../src/ui/output.js';

export interface PlainTerminal {
  readonly stdout: string;
  /** stdout's bytes as written */
  readonly stdoutBytes?: Buffer;
  readonly stderr: string;
  printer: Printer;
  /** the streams, the environment and the clock's now, as the options' `ctx` */
  ctx: Pick<Context, 'stdout' | 'stderr' | 'stdin' | 'env' | 'now'>;
}

export function plainTerminal(
  o: {
    json?: boolean;
    quiet?: boolean;
    /** stdout is a terminal this wide (else it is not a terminal) */
    columns?: number;
    /** added to TZ=UTC and NO_COLOR=1 */
    env?: Record<string, string | undefined>;
    /** the clock's now (else 2026-11-22 12:00 UTC, always) */
    now?: () => number;
    stdin?: string;
  } = {},
): PlainTerminal {
  let stdout = '';
  let stderr = '';
  const stdoutChunks: Buffer[] = [];
  const ctx = {
    stdout: {
      // text kept as text; bytes as they are (stdoutBytes), and read as UTF-8 in stdout
      write: (s: string | Uint8Array) => {
        const bytes = typeof s === 'string' ? Buffer.from(s) : Buffer.from(s);
        stdoutChunks.push(bytes);
        stdout += typeof s === 'string' ? s : bytes.toString('utf8');
      },
      isTTY: o.columns !== undefined,
      columns: o.columns,
    },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    stdin: Object.assign(Readable.from(o.stdin !== undefined ? [Buffer.from(o.stdin)] : []), {
      isTTY: false,
    }),
    env: { TZ: 'UTC', NO_COLOR: '1', ...o.env },
    now: o.now ?? (() => Date.parse('2026-11-22T12:00:00Z')),
  };
  const printer = new Printer(ctx as unknown as Context, {
    json: o.json ?? false,
    quiet: o.quiet ?? false,
    color: false,
    verbose: false,
  });
  return {
    get stdout() {
      return stdout;
    },
    get stdoutBytes() {
      return Buffer.concat(stdoutChunks);
    },
    get stderr() {
      return stderr;
    },
    printer,
    ctx,
  };
}

export interface SteppingClock extends FlowClock {
  /** every sleep asked for, in ms */
  readonly sleeps: number[];
  /** the time now, in ms; moved only by sleep (or the test) */
  t: number;
  /**
   * With `monotonic: true`, the clock that never jumps: moved only by sleep, so a test that steps
   * `t` (an NTP step, a clock set by hand) moves the wall clock alone.
   */
  m: number;
  /**
   * Why the run was taken as endless (the guard's limit, or `giveUp(reason)`), else undefined:
   * the clock's signal is then aborted, so the run ends as on Ctrl-C and the test can say so.
   */
  endless?: string;
  /** Take the run as endless now (a test's own limit, such as a count of requests). */
  giveUp(reason: string): void;
}

/** Past these, a run on the clock is taken as one that would never end (`SteppingClock.endless`). */
export interface EndlessGuard {
  /** sleeps: a run that waits on and on */
  sleeps: number;
  /**
   * reads of the clock: a run that loops without waiting. Past twice this, a read throws, for a
   * run that loops on even once its signal is aborted (it would hang the suite, timers and all).
   */
  reads: number;
}

/** A clock that only sleeping moves; `onSleep` runs at each sleep, as if time passed for the world too. */
export function steppingClock(
  start = Date.parse('2026-11-22T10:00:00Z'),
  o: {
    signal?: AbortSignal;
    onSleep?: (ms: number, clock: SteppingClock) => void;
    monotonic?: boolean;
    /** a run that goes past these is stopped and named endless, instead of hanging the suite */
    guard?: EndlessGuard;
  } = {},
): SteppingClock {
  const guard = o.guard;
  const stop = new AbortController();
  // the test's own signal, and the guard's
  if (o.signal?.aborted) stop.abort();
  else o.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  let reads = 0;
  /** each read of the clock, counted against the guard */
  const read = (value: () => number) => () => {
    reads += 1;
    if (guard && reads > guard.reads) {
      clock.giveUp(
        `the clock was read ${guard.reads} times without the run ending (a loop that never waits)`,
      );
      if (reads > 2 * guard.reads) throw new Error(`endless run: ${clock.endless}`);
    }
    return value();
  };
  const clock: SteppingClock = {
    sleeps: [],
    t: start,
    m: 0,
    now: read(() => clock.t),
    giveUp(reason) {
      clock.endless ??= reason;
      stop.abort();
    },
    async sleep(ms, signal) {
      clock.sleeps.push(ms);
      if (guard && clock.sleeps.length > guard.sleeps)
        clock.giveUp(`${guard.sleeps} waits on the clock without the run ending`);
      // as a timer does: a wait of less than nothing is none (time never runs back)
      const waited = Math.max(0, ms);
      clock.t += waited;
      clock.m += waited;
      o.onSleep?.(ms, clock);
      if (signal?.aborted) throw new Error('aborted');
      await new Promise((r) => setImmediate(r));
    },
    random: () => 0.5,
    signal: stop.signal,
  };
  if (o.monotonic) clock.monotonic = read(() => clock.m);
  return clock;
}

/** What a user saw of a command run in process: stdout, stderr, and the error it ended with (its exit code). */
export interface SeenRun {
  stdout: string;
  stderr: string;
  error?: LbrlError;
}

/**
 * Run a command's work on this terminal: an LbrlError is how the command ends for a user (the
 * handler prints it and exits with its code), so it is returned; anything else fails the test.
 */
export async function seenRun(term: PlainTerminal, work: () => Promise<unknown> | unknown): Promise<SeenRun> {
  try {
    await work();
    return { stdout: term.stdout, stderr: term.stderr };
  } catch (error) {
    if (!(error instanceof LbrlError)) throw error;
    return { stdout: term.stdout, stderr: term.stderr, error };
  }
}

/** A terminal's prompts where only a password is asked for: it answers `answer`, and keeps each question. */
export function passwordPrompter(answer: string): { prompter: Prompter; asked: string[] } {
  const asked: string[] = [];
  const notAsked = () => Promise.reject(new Error('not asked'));
  return {
    asked,
    prompter: {
      input: notAsked,
      confirm: notAsked,
      password: async (question) => {
        asked.push(question.message);
        return answer;
      },
    },
  };
}
