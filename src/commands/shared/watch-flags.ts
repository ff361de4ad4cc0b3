/** --interval and --timeout, as `deposit watch` and `create --watch` both take them. */
import type { WatchPlan } from '../../deposits/watch.js';
import { parseDuration, parseIntervalSeconds } from '../../domain/values.js';
import { invalidValue } from '../../errors.js';

/** The flags both commands take (`deposit watch` and `deposit create --watch`), as commander hands them. */
export interface WatchTimingFlags {
  interval?: string | undefined;
  timeout?: string | undefined;
}

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
