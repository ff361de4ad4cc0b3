/**
 * A terminal in colour, in plain strings: stdout and stderr are terminals of no known size (so a
 * watch prints lines, it does not redraw), FORCE_COLOR is set, and the printer draws colours as
 * lbrl does on a real one. For the tests of what colours a user sees; plain-terminal.ts has none.
 */
import type { Context } from '../../src/context.js';
import { Printer } from '../../src/ui/output.js';
import type { PlainTerminal } from './plain-terminal.js';
import { plainTerminal } from './plain-terminal.js';

export function colourTerminal(
  o: { env?: Record<string, string | undefined>; now?: () => number } = {},
): PlainTerminal {
  const plain = plainTerminal({ now: o.now });
  const ctx = {
    ...plain.ctx,
    stdout: { ...plain.ctx.stdout, isTTY: true },
    stderr: { ...plain.ctx.stderr, isTTY: true },
    env: { TZ: 'UTC', FORCE_COLOR: '1', ...o.env },
  };
  const printer = new Printer(ctx as unknown as Context, {
    json: false,
    quiet: false,
    color: true,
    verbose: false,
  });
  return {
    get stdout() {
      return plain.stdout;
    },
    get stderr() {
      return plain.stderr;
    },
    printer,
    ctx,
  };
}
