/**
 * A printer on plain strings, for commands run on narrow options: what a user would see on
 * stdout and stderr, with the terminal's flags and width, and the context pieces (clock, TZ)
 * a command reads.
 */
import type { Context } from '../../src/context.js';
import { Printer } from '../../src/ui/output.js';

export interface Captured {
  stdout: string;
  stderr: string;
}

export function capturedOutput(
  o: {
    json?: boolean;
    quiet?: boolean;
    /** stdout is a terminal this wide */
    columns?: number;
    env?: Record<string, string | undefined>;
    now?: () => number;
  } = {},
): { seen: Captured; printer: Printer; ctx: Context } {
  const seen: Captured = { stdout: '', stderr: '' };
  const ctx = {
    stdout: {
      write: (s: string) => (seen.stdout += s),
      isTTY: o.columns !== undefined,
      columns: o.columns,
    },
    stderr: { write: (s: string) => (seen.stderr += s), isTTY: false },
    env: { TZ: 'UTC', NO_COLOR: '1', ...o.env },
    now: o.now ?? (() => Date.parse('2026-11-22T12:00:00Z')),
  } as unknown as Context;
  const printer = new Printer(ctx, {
    json: o.json === true,
    quiet: o.quiet === true,
    color: false,
    verbose: false,
  });
  return { seen, printer, ctx };
}
