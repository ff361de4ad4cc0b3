import { pendingWork } from '../deposits/history.js';
import type { WatchPlan } from '../deposits/watch.js';
import { parseDepositId } from '../domain/values.js';
import { invalidValue, usageError } from '../errors.js';
import type { Session } from '../session.js';
import type { OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { WATCH_FLAGS } from './flags.js';
import { expireAfterMs, requestsPerMinute } from './shared/expiry.js';
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
  if (flags.includeExpired && !flags.pending)
    throw usageError('--include-expired goes with --pending (a deposit named is followed, expired or not)');
  const plan: WatchPlan = parseWatchFlags(flags);
  plan.perMinute = requestsPerMinute(session);
  const expiredAt = new Map<string, string>();
  if (flags.pending) {
    const work = pendingWork(session.history(), session.scope(), ids, {
      includeExpired: flags.includeExpired === true,
      now: session.ctx.now(),
      expireAfterMs: expireAfterMs(session),
    });
    ids.splice(0, ids.length, ...work.ids);
    for (const [id, at] of work.expiredAt) expiredAt.set(id, at);
    if (ids.length === 0) {
      session.printer.info('no pending deposits in the local history');
      return;
    }
    // a deposit of the history may be gone from the service: say so and follow the others
    plan.leaveGone = true;
    plan.lastLook = work.lastLook;
  }
  if (ids.length === 0) throw usageError('watch needs at least one deposit id, or --pending');
  if (flags.trustServiceAddress && !(flags.verify ?? session.setting('verify') === 'on'))
    throw usageError("--trust-service-address goes with --verify (or the profile's verify on)");
  // a deposit named that was recorded expired is followed all the same; a late payment is said loudly
  const target = session.scope().target;
  for (const id of ids) {
    if (expiredAt.has(id)) continue;
    const at = session.recorded(target, id)?.expiredAt;
    if (at) expiredAt.set(id, at);
  }
  await followOnScreen(
    ids,
    await withVerify(plan, flags.verify, session, { trustServiceAddress: flags.trustServiceAddress }),
    session,
    undefined,
    {
      expiredAt,
      pending: flags.pending === true,
      includeExpired: flags.includeExpired === true,
    },
  );
}

export const DEPOSIT_WATCH = command({
  rank: 40,
  path: 'deposit watch',
  description: 'follow deposits until FINALIZED (exit 0) or FAILED (exit 5)',
  args: [{ name: '[id...]', help: 'deposit ids', complete: 'ids' }],
  flags: WATCH_FLAGS,
  examples: [
    'lbrl deposit watch <id> --timeout 30m && echo settled',
    'lbrl deposit watch <id> --json | jq -r .status      # one line per status change',
    '# cron, every 10 minutes: follow whatever is pending, for at most 9',
    '*/10 * * * * lbrl deposit watch --pending --timeout 9m -q || echo "exit $?" >> ~/lbrl-watch.log',
    '# exit codes: 0 FINALIZED, 5 FAILED, 124 timed out, 3 auth, 4 unknown id, 6 unreachable, 130 Ctrl-C',
  ],
  async run({ opts, args: [ids], session }) {
    return run(ids, opts, await session());
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_WATCH);
