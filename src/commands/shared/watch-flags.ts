/** --interval and --timeout, as `deposit watch` and `create --watch` both take them. */
import type { WatchPlan } from '../../deposits/watch.js';
import { parseDuration, parseIntervalSeconds } from '../../domain/values.js';
import { invalidValue } from '../../errors.js';
import type { OptionsOf } from '../define.js';
import type { CREATE_FLAGS, WATCH_FLAGS } from '../flags.js';

type Timing = 'interval' | 'timeout';
/** The flags both commands take, in both their definitions. */
export type WatchTimingFlags = Pick<OptionsOf<typeof WATCH_FLAGS>, Timing> &
  Pick<OptionsOf<typeof CREATE_FLAGS>, Timing>;

export function parseWatchFlags(flags: WatchTimingFlags): WatchPlan {
  let intervalMs = 3000;
  if (flags.interval !== undefined) {
    const parsed = parseIntervalSeconds(flags.interval);
    if (!parsed.ok) throw invalidValue('--interval', flags.interval, parsed.expected);
    intervalMs = parsed.value;
  }
  let timeoutMs: number | undefined;
  if (flags.timeout !== undefined) {
    const parsed = parseDuration(flags.timeout);
    if (!parsed.ok) throw invalidValue('--timeout', flags.timeout, parsed.expected);
    timeoutMs = parsed.value;
  }
  return { intervalMs, timeoutMs };
}
