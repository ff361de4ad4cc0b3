import { Chalk, type ChalkInstance } from 'chalk';
import type { Context, OutStream, SecretFilter } from '../context.js';
import { blindingKeySecrets, Redactor, webhookSecretSecrets } from '../domain/text/redact.js';
import { jsonLine } from '../domain/text/safe-text.js';
import type { LbrlError } from '../errors.js';

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

/** All output goes through here: stdout for results, stderr for the rest, secrets redacted. */
export class Printer {
  /** colours for what goes to stdout (off when stdout is not a terminal, NO_COLOR, --no-color) */
  readonly outColor: ChalkInstance;
  /** colours for what goes to stderr, judged on stderr alone */
  readonly errColor: ChalkInstance;
  private readonly secrets: SecretFilter;

  constructor(
    private readonly ctx: Context,
    readonly opts: OutputOptions,
  ) {
    this.secrets = ctx.redactor ?? new Redactor();
    this.outColor = new Chalk({ level: colorLevel(ctx.stdout, ctx.env, opts.color) });
    this.errColor = new Chalk({ level: colorLevel(ctx.stderr, ctx.env, opts.color) });
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
    const redact = (text: string) => this.redact(text);
    return {
      ...ctx,
      stdout: redactingStream(ctx.stdout, redact),
      stderr: redactingStream(ctx.stderr, redact),
    };
  }

  out(text: string): void {
    this.ctx.stdout.write(this.redact(text.endsWith('\n') ? text : `${text}\n`));
  }

  /** Only for `auth status --show-token`. */
  outUnredacted(text: string): void {
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

/**
 * The stream with every written string passed through `redact`. A write installed on it (ora
 * hooks write while it spins) sits in front of the redacting one, never in place of the stream's own.
 */
export function redactingStream<S extends OutStream>(stream: S, redact: (text: string) => string): S {
  type Write = (chunk: unknown, ...rest: unknown[]) => unknown;
  const original = (stream.write as Write).bind(stream);
  const write: Write = (chunk, ...rest) =>
    original(typeof chunk === 'string' ? redact(chunk) : chunk, ...rest);
  let installed: Write | undefined;
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return installed ?? write;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
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
  for (const token of secrets.tokens) redactor.add(token);
  for (const key of secrets.keys) for (const secret of blindingKeySecrets(key)) redactor.add(secret);
  for (const w of secrets.webhooks ?? []) for (const secret of webhookSecretSecrets(w)) redactor.add(secret);
  const redact = (text: string) => redactor.redact(text);
  return {
    ...ctx,
    redactor,
    unredactedStdout: ctx.stdout,
    stdout: redactingStream(ctx.stdout, redact),
    stderr: redactingStream(ctx.stderr, redact),
  };
}
