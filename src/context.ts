/**
 * What a command is handed: streams with their TTY flags, the environment, the clock
 * and the pieces tests replace (gh's Factory and IOStreams).
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Dispatcher } from 'undici';
import type { ClientOptions } from './api/client.js';
import { usageError } from './errors.js';

export interface OutStream {
  /** text (UTF-8), or bytes written as they are (an OFX statement in its own character set) */
  write(chunk: string | Uint8Array): unknown;
  /** a redacting stream (ui/output.ts): write out what it holds back (the end of a secret may follow) */
  flush?(): void;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export interface InStream extends NodeJS.ReadableStream {
  isTTY?: boolean | undefined;
}

/** Questions for a person; ui/prompts.ts makes one from @inquirer/prompts, tests hand their own. */
export interface Prompter {
  input(question: {
    message: string;
    default?: string | undefined;
    validate: (value: string) => true | string;
  }): Promise<string>;
  confirm(question: { message: string; default: boolean }): Promise<boolean>;
  /** hidden input, for a secret */
  password(question: { message: string }): Promise<string>;
}

/** What keeps secrets out of text (domain/text/redact.ts's Redactor, as the context needs it). */
export interface SecretFilter {
  add(secret: string | undefined): void;
  redact(text: string): string;
  /** `text` redacted as it reads after `before`, already written */
  redactAfter(before: string, text: string): string;
  /** where to cut `text`, written after `before`: what follows may be a secret's start, and waits for the next write */
  holdFrom(before: string, text: string): number;
}

export interface Context {
  /**
   * Set by the program's entry (cli.ts) before anything is parsed: stdout and stderr then pass
   * every write through it, seeded with the secrets of the config file and LBRL_TOKEN.
   */
  redactor?: SecretFilter;
  /** the stdout under the redacting one: only for `auth status --show-token` */
  unredactedStdout?: OutStream;
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: Record<string, string | undefined>;
  homedir: string;
  now(): number;
  /** a clock that never jumps, for durations (the wall clock may be stepped while lbrl runs) */
  monotonic?(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
  /** aborted on Ctrl-C */
  signal: AbortSignal;
  /** tests: answers in place of a person */
  prompter?: Prompter;
  /** the real process: called once the HTTP client is loaded, before its first request */
  clientLoaded?: (baseUrl: string) => Promise<void>;
  /**
   * How the run ends should its stdout close under it (the reader went away: `| head`, a pager
   * quit): `end` says why on stderr and gives the exit code. Unset, a closed stdout ends the run as
   * success, as `| head` ends a list it had enough of. A command whose exit code promises that its
   * work is done (a watch: 0 is every deposit FINALIZED) sets it while that work goes on, and
   * unsets it (undefined) once done, so that no script reads an unfinished run as a success.
   */
  whenStdoutGone?(end: (() => number) | undefined, how?: { watchReader?: boolean }): void;
  /** tests: a dispatcher, time-outs and retry limits for the HTTP client */
  client?: Partial<
    Pick<ClientOptions, 'dispatcher' | 'timeoutMs' | 'connectTimeoutMs' | 'maxRetries' | 'maxRetryAfterMs'>
  > & {
    dispatcher?: Dispatcher;
  };
}

/** Running under CI: CI is set to anything but empty, false or 0 (no prompts, no animation). */
export function inCI(env: Context['env']): boolean {
  const ciValue = env.CI;
  return ciValue !== undefined && ciValue !== '' && ciValue !== 'false' && ciValue !== '0';
}

/** A timer that an abort cuts short (rejecting), without loading timers/promises. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The errors of a stdout whose reader went away (as src/main.ts ends the run on them). */
const GONE_STDOUT_CODES = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET', 'EBADF']);

/**
 * The real stdout's `whenStdoutGone`: its listener runs before the entry's (which ends the run
 * with the exit code set by then, else 0), says why and sets the code; a Ctrl-C's code stands.
 */
function stdoutGoneHook(stdout: NodeJS.WriteStream): NonNullable<Context['whenStdoutGone']> {
  let ending: (() => number) | undefined;
  let listening = false;
  let watcher: { stop(): void } | undefined;
  return (end, how = {}) => {
    ending = end;
    if (end && how.watchReader !== false) watcher ??= watchPipeReader(stdout);
    else if (!end) {
      watcher?.stop();
      watcher = undefined;
    }
    if (listening) return;
    listening = true;
    stdout.prependListener('error', (error: NodeJS.ErrnoException) => {
      const endNow = ending;
      if (!endNow || !GONE_STDOUT_CODES.has(error.code ?? '')) return;
      ending = undefined;
      const code = endNow();
      if (!process.exitCode) process.exitCode = code;
    });
  };
}

/**
 * A pipe's writer learns that its reader went away only when it next writes (EPIPE), and a watch
 * may wait hours between two lines. So while a run that promises its work is going on, with stdout
 * a pipe, GNU tail watches that pipe for it: `tail -f /dev/null` writes nothing, and exits by
 * SIGPIPE once its stdout (this pipe) has no reader left, checked every second (coreutils 8.28 and
 * later); `--pid` ends it with this process. Its SIGPIPE is made this stdout's EPIPE, which ends
 * the run as a write would have. Where there is no such tail, nothing changes: the next line tells.
 */
function watchPipeReader(stdout: NodeJS.WriteStream): { stop(): void } | undefined {
  const fd = (stdout as { fd?: number }).fd ?? 1;
  try {
    if (!fs.fstatSync(fd).isFIFO()) return undefined;
  } catch {
    return undefined;
  }
  let child: import('node:child_process').ChildProcess | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
  };
  process.once('exit', stop);
  // loaded here: only a run that waits on a pipe needs it
  void import('node:child_process').then((childProcess) => {
    if (stopped) return;
    try {
      child = childProcess.spawn('tail', ['-f', '-s', '1', `--pid=${process.pid}`, '/dev/null'], {
        stdio: ['ignore', fd, 'ignore'],
      });
    } catch {
      return;
    }
    child.on('error', () => {});
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGPIPE' || stopped || stdout.destroyed) return;
      stdout.destroy(Object.assign(new Error('stdout: its reader went away (EPIPE)'), { code: 'EPIPE' }));
    });
    child.unref();
  });
  return {
    stop: () => {
      process.removeListener('exit', stop);
      stop();
    },
  };
}

export function processContext(signal: AbortSignal): Context {
  return {
    whenStdoutGone: stdoutGoneHook(process.stdout),
    stdout: process.stdout,
    stderr: process.stderr,
    // made when a command reads it: Node builds process.stdin (a tty, socket or file stream) on
    // first use, which costs a get about a twentieth of what `node -e 0` costs
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    homedir: os.homedir(),
    now: () => Date.now(),
    monotonic: () => performance.now(),
    sleep: (ms, s) => sleep(ms, s),
    random: Math.random,
    signal,
  };
}

/** All of stdin as text, refused (exit 2) past `limit` bytes; `what` names it in the message. */
export async function readInput(stream: InStream, limit: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > limit) throw usageError(`${what} on stdin is longer than ${limit} bytes`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
