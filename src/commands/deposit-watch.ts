import { pendingIds } from '../deposits/history.js';
import type { WatchPlan } from '../deposits/watch.js';
import { parseDepositId } from '../domain/values.js';
import { invalidValue, usageError } from '../errors.js';
import type { Session } from '../session.js';
import type { OptionsOf } from './define.js';
import type { WATCH_FLAGS } from './flags.js';
import { followOnScreen } from './shared/follow.js';
import { withVerify } from './shared/verify-setup.js';
import { parseWatchFlags } from './shared/watch-flags.js';

export type WatchFlags = OptionsOf<typeof WATCH_FLAGS>;

export async function run(idTexts: string[], flags: WatchFlags, session: Session): Promise<void> {
  const ids: string[] = [];
  for (const text of idTexts) {
    const r = parseDepositId(text);
    if (!r.ok) throw invalidValue('deposit id', text, r.expected);
    if (!ids.includes(r.value)) ids.push(r.value);
  }
  const plan: WatchPlan = parseWatchFlags(flags);
  if (flags.pending) {
    ids.splice(0, ids.length, ...pendingIds(session.history(), session.scope(), ids));
    if (ids.length === 0) {
      session.printer.info('no pending deposits in the local history');
      return;
    }
    // a deposit of the history may be gone from the service: say so and follow the others
    plan.leaveGone = true;
  }
  if (ids.length === 0) throw usageError('watch needs at least one deposit id, or --pending');
  if (flags.trustServiceAddress && !(flags.verify ?? session.setting('verify') === 'on'))
    throw usageError("--trust-service-address goes with --verify (or the profile's verify on)");
  await followOnScreen(
    ids,
    await withVerify(plan, flags.verify, session, { trustServiceAddress: flags.trustServiceAddress }),
    session,
  );
}
