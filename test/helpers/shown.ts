/**
 * What a user sees of a command run in process, once the one error handler has spoken: stdout,
 * stderr with the error as the printer writes it (its error line and hint, or the JSON error
 * with --json; the CLI's handler hands it to the same printer), and the exit code.
 */
import type { PlainTerminal, SeenRun } from './plain-terminal.js';

export interface Shown extends SeenRun {
  /** the process's exit code: the error's, else 0 */
  code: number;
}

export function shown(term: PlainTerminal, seen: SeenRun): Shown {
  if (seen.error) term.printer.error(seen.error);
  return { ...seen, stdout: term.stdout, stderr: term.stderr, code: seen.error?.exitCode ?? 0 };
}
