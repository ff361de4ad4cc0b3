/**
 * What a command is handed: streams with their TTY flags, the environment, the clock
 * and the pieces tests replace (gh's Factory and IOStreams).
 */
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { ClientOptions } from './api/client.js';
import type { Prompter } from './ui/prompts.js';

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export interface InStream extends NodeJS.ReadableStream {
  isTTY?: boolean | undefined;
}

export interface Context {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: Record<string, string | undefined>;
  homedir: string;
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
  /** aborted on Ctrl-C */
  signal: AbortSignal;
  /** tests: answers in place of a person */
  prompter?: Prompter;
  /** tests: a dispatcher, time-outs and retry limits for the HTTP client */
  client?: Partial<
    Pick<ClientOptions, 'dispatcher' | 'timeoutMs' | 'connectTimeoutMs' | 'maxRetries' | 'maxRetryAfterMs'>
  > & {
    dispatcher?: Dispatcher;
  };
}

export function processContext(signal: AbortSignal): Context {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    homedir: os.homedir(),
    now: () => Date.now(),
    sleep: (ms, s) => delay(ms, undefined, s ? { signal: s } : undefined),
    random: Math.random,
    signal,
  };
}
