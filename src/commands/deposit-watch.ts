import { pendingIds } from '../deposits/history.js';
import type { WatchPlan } from '../deposits/watch.js';
import { parseDepositId, parseDuration, parseIntervalSeconds } from '../domain/values.js';
import { invalidValue, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { followOnScreen } from './shared/follow.js';
import { withVerify } from './shared/verify-setup.js';

export interface WatchFlags {
  interval?: string;
  timeout?: string;
  pending?: boolean;
  verify?: boolean;
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

export async function run(idTexts: string[], flags: WatchFlags, session: Session): Promise<void> {
  const ids: string[] = [];
  for (const text of idTexts) {
    const r = parseDepositId(text);
    if (!r.ok) throw invalidValue('deposit id', text, r.expected);
    if (!ids.includes(r.value)) ids.push(r.value);
  }
  const plan = parseWatchFlags(flags);
  if (flags.pending) {
    ids.splice(0, ids.length, ...pendingIds(session.history(), session.scope(), ids));
    if (ids.length === 0) {
      session.printer.info('no pending deposits in the local history');
      return;
    }
  }
  if (ids.length === 0) throw usageError('watch needs at least one deposit id, or --pending');
  await followOnScreen(ids, await withVerify(plan, flags.verify, session), session);
}
