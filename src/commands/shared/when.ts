/** --since and --until, read in the user's time zone (TZ): a bare date is its first local moment. */

import type { Context } from '../../context.js';
import { parseWhen } from '../../domain/expiry.js';
import { invalidValue, usageError } from '../../errors.js';
import { localDayStart, timeZoneOf } from '../../ui/zone-time.js';

export function parseSpan(
  flags: { since?: string | undefined; until?: string | undefined },
  /** the clock and the time zone (TZ), as a command's options (or its factory) hold them */
  world: { readonly ctx: Pick<Context, 'now' | 'env'> },
): { since?: number; until?: number } {
  const now = world.ctx.now();
  const zone = timeZoneOf(world.ctx.env);
  const read = (flag: string, text: string): number => {
    // a bare date is its first local moment: its midnight, or where the clocks jump over
    // midnight the moment they land on it, whatever the zone's changes of offset
    const utc = parseWhen(text, now, 0);
    if (!utc.ok) throw invalidValue(flag, text, utc.expected);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return utc.value;
    return localDayStart(utc.value, zone);
  };
  const out: { since?: number; until?: number } = {};
  if (flags.since !== undefined) out.since = read('--since', flags.since);
  if (flags.until !== undefined) out.until = read('--until', flags.until);
  if (out.since !== undefined && out.until !== undefined && out.since >= out.until)
    throw usageError(
      `--since ${flags.since} is not before --until ${flags.until}: nothing lies between them`,
    );
  return out;
}
