import type { ChalkInstance } from 'chalk';
import type { Context, OutStream, SecretFilter } from '../context.js';
import { ledgerUrlSecrets } from '../domain/ledger-url.js';
import { blindingKeySecrets, Redactor, webhookSecretSecrets } from '../domain/text/redact.js';
import { jsonLine } from '../domain/text/safe-text.js';
import type { LbrlError } from '../errors.js';
import { terminalColumns, wordWrapped } from './fit.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
  verbose: boolean;
}

/**
 * Whether what goes to `stream` is coloured: not with --no-color (`wanted` false), FORCE_COLOR
 * wins over the rest, then NO_COLOR (set and not empty), TERM=dumb, and a stream that is no terminal.
 * The one rule for every writer: the printer, and the prompts (ui/prompts.ts).
 */
export function colorLevel(stream: OutStream, env: Context['env'], wanted: boolean): 0 | 1 {
  if (!wanted) return 0;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return 1;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (env.TERM === 'dumb') return 0;
  return stream.isTTY ? 1 : 0;
}

/**
 * A chalk of this level. chalk is loaded here, on the first colour asked for, not with this module:
 * loading it detects the terminal's colours for its default instance (node:os, node:tty), which
 * lbrl never uses (it sets the level by its own rule, colorLevel), and which a run that colours
 * nothing (--json) would pay for at every start. The bundle (and vitest) resolve this require.
 */
function chalkOf(level: 0 | 1): ChalkInstance {
  const { Chalk } = require('chalk') as typeof import('chalk');
  return new Chalk({ level });
}

/** All output goes through here: stdout for results, stderr for the rest, secrets redacted. */
export class Printer {
  private readonly secrets: SecretFilter;
  private colors: { out?: ChalkInstance; err?: ChalkInstance } = {};

  constructor(
    private readonly ctx: Context,
    readonly opts: OutputOptions,
  ) {
    this.secrets = ctx.redactor ?? new Redactor();
  }

  /** colours for what goes to stdout (off when stdout is not a terminal, NO_COLOR, --no-color) */
  get outColor(): ChalkInstance {
    this.colors.out ??= chalkOf(colorLevel(this.ctx.stdout, this.ctx.env, this.opts.color));
    return this.colors.out;
  }

  /** colours for what goes to stderr, judged on stderr alone */
  get errColor(): ChalkInstance {
    this.colors.err ??= chalkOf(colorLevel(this.ctx.stderr, this.ctx.env, this.opts.color));
    return this.colors.err;
  }

  /**
   * Never print this value, whatever path it takes to the output: as it is, escaped, encoded
   * or cut short (domain/text/redact.ts).
   */
  addSecret(secret: string | undefined): void {
    this.secrets.add(secret);
  }

  redact(text: string): string {
    return this.secrets.redact(text);
  }

  /**
   * The context with its stdout and stderr passing every write through the redactor, so that
   * whatever writes to them (a spinner, a progress line, a prompt) cannot print a secret. A
   * context that is redacting already (cli.ts made it so) shares this printer's redactor.
   */
  guard(ctx: Context): Context {
    if (ctx.redactor === this.secrets) return ctx;
    return withParts(ctx, {
      stdout: redactingStream(ctx.stdout, this.secrets),
      stderr: redactingStream(ctx.stderr, this.secrets),
    });
  }

  out(text: string): void {
    this.ctx.stdout.write(this.redact(text.endsWith('\n') ? text : `${text}\n`));
  }

  /** Only for `auth status --show-token`. */
  outUnredacted(text: string): void {
    // after what the redacting stdout still holds back
    this.ctx.stdout.flush?.();
    (this.ctx.unredactedStdout ?? this.ctx.stdout).write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Always to stderr. */
  err(text: string): void {
    this.ctx.stderr.write(this.redact(text.endsWith('\n') ? text : `${text}\n`));
  }

  /** Progress and notes for a person: not with --json or --quiet. */
  info(text: string): void {
    if (!this.opts.json && !this.opts.quiet) this.err(text);
  }

  /**
   * A note for a person (info), broken between words to stderr's width on a terminal (ui/fit.ts):
   * a view's first line never cut mid-word at the edge of a narrow pane, an id or an amount never
   * split. A pipe gets the line as it is.
   */
  infoFitted(text: string): void {
    this.info(wordWrapped(text, terminalColumns(this.ctx.stderr)).join('\n'));
  }

  /** A warning (warn), broken between words to stderr's width on a terminal, as infoFitted. */
  warnFitted(text: string): void {
    this.warn(wordWrapped(text, terminalColumns(this.ctx.stderr)).join('\n'));
  }

  warn(text: string): void {
    // magenta, not yellow: readable on a light terminal too
    if (!this.opts.quiet) this.err(this.errColor.magenta(text));
  }

  /** A warning no option hides (not -q, not --json): what the user must not miss. */
  alarm(text: string): void {
    this.err(this.errColor.magenta(text));
  }

  trace(line: string): void {
    if (this.opts.verbose) this.err(this.errColor.dim(line));
  }

  json(value: unknown): void {
    // the same value, with what a terminal would act on written as \u escapes
    this.out(jsonLine(value));
  }

  get stdoutIsTTY(): boolean {
    return Boolean(this.ctx.stdout.isTTY);
  }

  get stderrIsTTY(): boolean {
    return Boolean(this.ctx.stderr.isTTY);
  }

  error(error: LbrlError): void {
    if (this.opts.json) {
      this.err(
        JSON.stringify({
          error: {
            type: error.type,
            message: this.redact(error.message),
            exitCode: error.exitCode,
            ...error.details,
          },
        }),
      );
      return;
    }
    this.err(`${this.errColor.red('error:')} ${this.redact(error.message)}`);
    if (error.suggestion && error.type !== 'usage')
      this.err(`${this.errColor.dim('hint:')} ${error.suggestion}`);
  }
}

/** How much of what a stream wrote is kept, to read the next write after it. */
const CARRY = 512;

/** Encodings in which a written string is text as it stands, written as UTF-8. */
const TEXT_ENCODINGS = new Set([undefined, 'utf8', 'utf-8', 'UTF8', 'UTF-8']);
/** Encodings in which a written string is text as it stands, written in another way. */
const OTHER_TEXT_ENCODINGS = new Set(['utf16le', 'utf-16le', 'ucs2', 'ucs-2', 'latin1', 'binary', 'ascii']);

/**
 * What a write carries, as the redaction reads it: text (a string in UTF-8), bytes (a buffer, or a
 * string in hex or base64, read one character a byte), text to be written in another encoding,
 * or something else (an object stream's value), which is not read.
 */
type WrittenText =
  | { kind: 'read'; text: string; bytes: boolean }
  | { kind: 'encoded'; text: string; encoding: string }
  | { kind: 'other' };

function writtenText(chunk: unknown, encoding: string | undefined): WrittenText {
  if (typeof chunk === 'string' && TEXT_ENCODINGS.has(encoding))
    return { kind: 'read', text: chunk, bytes: false };
  if (typeof chunk === 'string' && encoding !== undefined && OTHER_TEXT_ENCODINGS.has(encoding.toLowerCase()))
    return { kind: 'encoded', text: chunk, encoding };
  if (typeof chunk === 'string' || ArrayBuffer.isView(chunk)) {
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, encoding as BufferEncoding)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    return { kind: 'read', text: buffer.toString('latin1'), bytes: true };
  }
  return { kind: 'other' };
}

/**
 * The stream with every write passed through the redactor, whatever it writes: a string in any
 * encoding, a Buffer or another Uint8Array (read byte for byte, and written back byte-exact
 * where nothing was redacted). A secret written in pieces is caught too: each write is read after
 * the end of what the stream wrote before it, and the end of a write that may be the start of a
 * secret (a piece of one, an escape cut short) is held back until the next write says what it is,
 * the end of the current turn of the event loop, `flush()`, or any other call on the stream (a
 * cursor move). A write installed on it (ora hooks write while it spins) sits in front of the
 * redacting one, never in place of the stream's own.
 */
export function redactingStream<S extends OutStream>(stream: S, secrets: SecretFilter): S {
  type Write = (chunk: unknown, ...rest: unknown[]) => unknown;
  type Done = ((error?: Error | null) => void) | undefined;
  const original = (stream.write as Write).bind(stream);
  /** what was written last, as written (bytes as latin1: one character a byte), to read the next write after */
  let carry = '';
  /** held back: the end of a write that may be a secret's start */
  let held = '';
  let heldBytes = false;
  let timer: ReturnType<typeof setImmediate> | undefined;

  const emit = (raw: string, bytes: boolean, done: Done): unknown => {
    const out = secrets.redactAfter(carry, raw);
    carry = (carry + raw).slice(-CARRY);
    if (out.length === 0 && !done) return true;
    const chunk = bytes ? Buffer.from(out, 'latin1') : out;
    return done ? original(chunk, done) : original(chunk);
  };
  const flush = (): void => {
    if (timer) clearImmediate(timer);
    timer = undefined;
    if (held.length === 0) return;
    const raw = held;
    held = '';
    emit(raw, heldBytes, undefined);
  };
  const write: Write = (chunk, ...rest) => {
    const encoding = typeof rest[0] === 'string' ? rest[0] : undefined;
    const done = (typeof rest[0] === 'function' ? rest[0] : rest[1]) as Done;
    const written = writtenText(chunk, encoding);
    if (written.kind === 'encoded') {
      // text to be written in another encoding (UTF-16, latin1): the string is the text; redacted
      // as it stands, and written in its encoding
      flush();
      const out = secrets.redactAfter(carry, written.text);
      carry = (carry + written.text).slice(-CARRY);
      return done ? original(out, written.encoding, done) : original(out, written.encoding);
    }
    if (written.kind === 'other') {
      // not text or bytes (an object stream): nothing of it is read here
      flush();
      return original(chunk, ...rest);
    }
    const { text, bytes } = written;
    // what is held is the same in text and in bytes when it is ASCII (a secret's piece always is)
    if (held.length > 0 && heldBytes !== bytes && !/^[\x00-\x7f]*$/.test(held)) flush();
    const whole = held + text;
    const cut = secrets.holdFrom(carry, whole);
    held = whole.slice(cut);
    heldBytes = bytes;
    const result = emit(whole.slice(0, cut), bytes, done);
    if (held.length > 0 && !timer) timer = setImmediate(flush);
    return result;
  };
  let installed: Write | undefined;
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return installed ?? write;
      if (prop === 'flush') return flush;
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      // any other call (a cursor move, end) comes after what was written before it
      return (...args: unknown[]) => {
        flush();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
    set(target, prop, value) {
      if (prop !== 'write') return Reflect.set(target, prop, value, target);
      installed = value === write ? undefined : (value as Write);
      return true;
    },
  });
}

/**
 * The context with its output redacted from the first byte: the secrets of the config file (every
 * profile's token, blinding keys and webhook secret) and LBRL_TOKEN, before any argument is parsed, so that a
 * secret typed in the wrong place (`deposit get <token>`) never comes back in an error.
 */
export function redactingContext(
  ctx: Context,
  secrets: { tokens: string[]; keys: string[]; webhooks?: string[] },
): Context {
  if (ctx.redactor) return ctx;
  const redactor = new Redactor();
  redactor.add(ctx.env.LBRL_TOKEN);
  // the ledger's database password, wherever it is given
  for (const secret of ledgerUrlSecrets(ctx.env.LBRL_LEDGER_URL)) redactor.add(secret);
  redactor.add(ctx.env.PGPASSWORD);
  for (const token of secrets.tokens) redactor.add(token);
  for (const key of secrets.keys) for (const secret of blindingKeySecrets(key)) redactor.add(secret);
  for (const w of secrets.webhooks ?? []) for (const secret of webhookSecretSecrets(w)) redactor.add(secret);
  return withParts(ctx, {
    redactor,
    unredactedStdout: ctx.stdout,
    stdout: redactingStream(ctx.stdout, redactor),
    stderr: redactingStream(ctx.stderr, redactor),
  });
}

/**
 * The context with some parts replaced. Not a spread, which reads every part: the process's
 * context makes its stdin only when a command reads it (context.ts).
 */
function withParts(ctx: Context, parts: Partial<Context>): Context {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx));
  return Object.defineProperties(copy, Object.getOwnPropertyDescriptors(parts)) as Context;
}
