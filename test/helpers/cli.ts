import os from 'node:os';
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { Context } from '../../src/context.js';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** the terminal's size, for a stdout that is a TTY */
  columns?: number;
  rows?: number;
  now?: () => number;
  client?: Context['client'];
  signal?: AbortSignal;
  /** a clock that only sleeping moves: no test waits for real */
  clock?: { now: number };
  prompter?: Context['prompter'];
  /** runs at each sleep, as if time had passed for the world as well */
  onSleep?: (ms: number) => Promise<void>;
  /** every write to stdout and stderr, in the order a terminal would show them */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** false: the commander program reads a plain `deposit get` too (src/cli/direct.ts) */
  direct?: boolean;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  sleeps: number[];
}

export { removeTempDirs, tempDir, tempFile } from './temp.js';

/**
 * The clock of a run given none: real time, started where the fixtures' services date the
 * deposits they create (fixtures.ts createAnswer), as a service answers a create made now.
 */
const FIXTURE_START = Date.parse('2026-11-22T10:00:05.000Z');
const loadedAt = Date.now();
const fixtureClock = () => FIXTURE_START + (Date.now() - loadedAt);

/** Run the CLI in-process with fake streams, a fake sleep and a fixed random. */
export async function runCli(args: string[], o: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const sleeps: number[] = [];
  const stdin = Readable.from(o.stdin !== undefined ? [Buffer.from(o.stdin)] : []) as Readable & {
    isTTY?: boolean;
  };
  stdin.isTTY = o.stdinTTY ?? false;
  const ctx: Context = {
    stdout: Object.assign(
      {
        write: (s: string) => {
          o.onOutput?.('stdout', s);
          return (stdout += s);
        },
        isTTY: o.stdoutTTY ?? false,
      },
      o.columns !== undefined ? { columns: o.columns, rows: o.rows } : {},
    ),
    // a terminal's cursor calls (ora uses them), drawn as the escape codes a terminal gets
    stderr: {
      write: (s: string) => {
        o.onOutput?.('stderr', s);
        return (stderr += s);
      },
      isTTY: o.stderrTTY ?? false,
      cursorTo: (x: number) => (stderr += `\u001b[${x + 1}G`),
      moveCursor: (_dx: number, dy: number) => (stderr += dy < 0 ? `\u001b[${-dy}A` : ''),
      clearLine: () => (stderr += '\u001b[2K'),
      // one terminal: stderr has stdout's size
      ...(o.columns !== undefined ? { columns: o.columns, rows: o.rows } : {}),
    } as Context['stderr'],
    stdin,
    env: { ...o.env },
    homedir: o.env?.HOME ?? os.tmpdir(),
    now: o.now ?? (o.clock ? () => o.clock!.now : fixtureClock),
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (o.clock) o.clock.now += ms;
      await o.onSleep?.(ms);
      if (signal?.aborted) throw new Error('aborted');
      await new Promise((r) => setImmediate(r));
    },
    random: () => 0.5,
    signal: o.signal ?? new AbortController().signal,
    client: { timeoutMs: 2000, connectTimeoutMs: 2000, ...o.client },
  };
  if (o.prompter) ctx.prompter = o.prompter;
  const code = await main(args, ctx, o.direct === false ? { direct: false } : {});
  return { code, stdout, stderr, sleeps };
}
