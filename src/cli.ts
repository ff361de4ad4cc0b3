/**
 * The program's entry: the output redacted from the start, then a plain `deposit get` run directly
 * (cli/direct.ts) and every other run through the commander program (cli/program.ts), each loaded
 * only when it runs. One handler at the end of each turns every error into its message and exit code.
 */

import { plainGetOf, runPlainGet } from './cli/direct.js';
import { redactedFromTheStart } from './commands/shared/redaction.js';
import type { Context } from './context.js';
import { EXIT } from './errors.js';

/**
 * Run lbrl on argv. `direct: false` has the commander program read a plain `deposit get` too
 * (the tests compare both paths on the same words).
 */
export async function main(
  rawArgv: string[],
  given: Context,
  options: { direct?: boolean } = {},
): Promise<number> {
  // before any argument is read: a secret typed in the wrong place never comes back
  const ctx = redactedFromTheStart(given);
  const plain = options.direct === false ? undefined : plainGetOf(rawArgv);
  if (plain) return runPlainGet(plain, rawArgv, ctx);
  return (await import('./cli/program.js')).runProgram(rawArgv, ctx);
}

/**
 * A failure no command caught (thrown in a callback, a promise nobody awaited): said as every
 * error is, one line on stderr (JSON with --json), the config file's secrets and LBRL_TOKEN kept
 * out, no stack trace; exit 1. Node's own report would print the message and the stack unredacted.
 */
export function reportCrash(error: unknown, rawArgv: string[], given: Context): number {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  const message = `unexpected failure: ${first}`;
  try {
    const ctx = redactedFromTheStart(given);
    ctx.stderr.write(
      rawArgv.includes('--json')
        ? `${JSON.stringify({ error: { type: 'service', message, exitCode: EXIT.failure } })}\n`
        : `error: ${message}\n`,
    );
    ctx.stderr.flush?.();
  } catch {
    // nothing more can be said safely
  }
  return EXIT.failure;
}
