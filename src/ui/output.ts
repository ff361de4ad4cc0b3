import { Chalk, type ChalkInstance } from 'chalk';
import type { Context, OutStream } from '../context.js';
import { jsonLine } from '../domain/safe-text.js';
import type { LbrlError } from '../errors.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
  verbose: boolean;
}

function colorLevel(stream: OutStream, env: Context['env'], wanted: boolean): 0 | 1 {
  if (!wanted) return 0;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return 1;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (env.TERM === 'dumb') return 0;
  return stream.isTTY ? 1 : 0;
}

/** All output goes through here: stdout for results, stderr for the rest, secrets redacted. */
export class Printer {
  readonly c: ChalkInstance;
  readonly ce: ChalkInstance;
  private readonly secrets = new Set<string>();

  constructor(
    private readonly ctx: Context,
    readonly opts: OutputOptions,
  ) {
    this.c = new Chalk({ level: colorLevel(ctx.stdout, ctx.env, opts.color) });
    this.ce = new Chalk({ level: colorLevel(ctx.stderr, ctx.env, opts.color) });
  }

  /** Never print this value, whatever path it takes to the output. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('[redacted]');
    return out;
  }

  out(text: string): void {
    this.ctx.stdout.write(this.redact(text.endsWith('\n') ? text : `${text}\n`));
  }

  /** Only for `auth status --show-token`. */
  outUnredacted(text: string): void {
    this.ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
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
    if (!this.opts.quiet) this.err(this.ce.yellow(text));
  }

  trace(line: string): void {
    if (this.opts.verbose) this.err(this.ce.dim(line));
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
          error: { type: error.type, message: this.redact(error.message), exitCode: error.exitCode },
        }),
      );
      return;
    }
    this.err(`${this.ce.red('error:')} ${error.message}`);
    if (error.suggestion && error.type !== 'usage') this.err(`${this.ce.dim('hint:')} ${error.suggestion}`);
  }
}
