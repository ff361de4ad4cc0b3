/** --interval and --timeout, as `deposit watch` and `create --watch` both take them. */
import type { WatchPlan } from '../../deposits/watch.js';
import { parseDuration, parseIntervalSeconds } from '../../domain/values.js';
import { invalidValue } from '../../errors.js';

export interface WatchFlags {
  interval?: string;
  timeout?: string;
}

export function parseWatchFlags(flags: WatchFlags): WatchPlan {
  let intervalMs = 3000;
  if (flags.interval !== undefined) {
    const r = parseIntervalSeconds(flags.interval);
    if (!r.ok) throw invalidValue('--interval', flags.interval, r.expected);
    intervalMs = r.value;
  }
  let timeoutMs: number | undefined;
  if (flags.timeout !== undefined) {
    const r = parseDuration(flags.timeout);
    if (!r.ok) throw invalidValue('--timeout', flags.timeout, r.expected);
    timeoutMs = r.value;
  }
  return { intervalMs, timeoutMs };
}
