/** How a run ends when its stdout closes under it (its reader went away: `| head`) before its work is done. */
import type { Context } from '../../context.js';
import { LbrlError } from '../../errors.js';
import type { Printer } from '../../ui/output.js';

/**
 * Say on stderr what the run leaves undone (`output_closed`, with `details` for --json) and give
 * its exit code: a run whose exit code promises its work done never ends 0 unfinished.
 */
export function readerGoneEnd(
  out: { printer: Pick<Printer, 'error'>; ctx: Pick<Context, 'stderr'> },
  unfinished: string,
  details?: Record<string, unknown>,
): number {
  const error = new LbrlError(`stdout closed (its reader went away) before ${unfinished}`, 'output_closed');
  if (details) error.details = details;
  out.printer.error(error);
  // said before the run ends, with nothing held back
  out.ctx.stderr.flush?.();
  return error.exitCode;
}
