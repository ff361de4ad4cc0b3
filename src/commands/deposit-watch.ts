import { pendingWork } from '../deposits/history.js';
import type { HistoryReader, Scope } from '../deposits/ports.js';
import { scopeOnTarget } from '../deposits/ports.js';
import type { WatchPlan } from '../deposits/watch.js';
import { parseDepositId } from '../domain/values.js';
import { EXIT, invalidValue, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { settingOf } from '../factory/settings.js';
import type { WatchCoordination } from '../store/coordination-port.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { watchCoordinationOf, workShareOf } from './shared/coordination.js';
import { expireAfterMs, requestsPerMinute, type SettingsReader } from './shared/expiry.js';
import { TRUST_SERVICE_ADDRESS } from './shared/flag-parts.js';
import { type FollowDeps, followDepsOf, followOnScreen } from './shared/follow.js';
import { exitCodesComment } from './shared/help-text.js';
import { coverage } from './shared/history-output.js';
import { type VerifySetupFlags, verifyingPlanOf } from './shared/verify-setup.js';
import { parseWatchFlags } from './shared/watch-flags.js';

const WATCH_FLAGS = [
  {
    flags: '--pending',
    help: 'watch the deposits in the local history not yet FINALIZED, FAILED or expired (expire-after)',
  },
  { flags: '--include-expired', help: 'with --pending: follow the deposits recorded EXPIRED too' },
  { flags: '--interval <seconds>', help: 'seconds between polls of a deposit (at least 1)' },
  {
    flags: '--timeout <duration>',
    help: `give up (exit ${EXIT.watchTimeout}) after 90, 90s, 10m, 1h or 1h30m`,
  },
  {
    flags: '--verify',
    help: `done only once the settlement is verified on chain (${EXIT.failure} mismatch, ${EXIT.unproven} unproven)`,
  },
  { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  TRUST_SERVICE_ADDRESS,
] as const satisfies readonly FlagDef[];

export type WatchFlags = OptionsOf<typeof WATCH_FLAGS>;

/**
 * All `deposit watch` needs, and nothing more (gh's Options struct): the factory's getters fill it in
 * (`watchOptionsOf`); a test hands plain objects, a fake client and clock included, and needs no
 * server. What the follow on screen needs (the terminal, printer, client, clock, recorder) is
 * `FollowDeps`.
 */
export interface WatchCommandOptions extends FollowDeps {
  /** the deposit ids as typed */
  idTexts: string[];
  flags: WatchFlags;
  /** the profile's settings it reads: requests-per-minute, expire-after, verify */
  config: SettingsReader;
  /** the history (a database ledger's reached first), for --pending and what it recorded of each deposit */
  history(): HistoryReader | Promise<HistoryReader>;
  /** this profile's deposits on the target, as the history records them */
  scope(): Scope;
  /** when lbrl recorded this deposit (of the scope's target) expired, if it did */
  expiredAt(id: string): string | undefined | Promise<string | undefined>;
  /** the plan with --verify's `settled` hook when verify is on (the flag, else the profile's verify) */
  verifying(plan: WatchPlan, verify: boolean | undefined, flags: VerifySetupFlags): Promise<WatchPlan>;
  /** the hosts sharing the ledger (store/coordination.ts); without it, this watch alone */
  coordination?(perMinute: number): Promise<WatchCoordination>;
}

/** The factory's getters, narrowed to what `deposit watch` uses. */
export function watchOptionsOf(idTexts: string[], flags: WatchFlags, factory: Factory): WatchCommandOptions {
  let targetKey: string | undefined;
  return {
    idTexts,
    flags,
    ...followDepsOf(factory),
    config: { setting: (key) => settingOf(factory.profile(), key) },
    history: () => factory.ledger().reachedHistory(),
    scope: () => scopeOnTarget(factory.profileName, factory.target()),
    expiredAt: async (id) => {
      targetKey ??= scopeOnTarget(factory.profileName, factory.target()).target;
      await factory.ledger().reach();
      return factory.ledger().recorded(targetKey, id)?.expiredAt;
    },
    verifying: (plan, verify, verifyFlags) => verifyingPlanOf(plan, verify, factory, verifyFlags),
    coordination: (perMinute) => watchCoordinationOf(factory, perMinute),
  };
}

/** Parse, find the work (--pending), follow on screen until every deposit ends. */
export async function runWatch(options: WatchCommandOptions): Promise<void> {
  const { flags } = options;
  const elapsed = options.clock.monotonic ?? options.clock.now;
  const began = elapsed();
  const ids: string[] = [];
  for (const text of options.idTexts) {
    const parsed = parseDepositId(text);
    if (!parsed.ok) throw invalidValue('deposit id', text, parsed.expected);
    if (!ids.includes(parsed.value)) ids.push(parsed.value);
  }
  if (flags.includeExpired && !flags.pending)
    throw usageError('--include-expired goes with --pending (a deposit named is followed, expired or not)');
  const plan: WatchPlan = parseWatchFlags(flags);
  const perMinute = requestsPerMinute(options.config);
  plan.perMinute = perMinute;
  if (flags.trustServiceAddress && !(flags.verify ?? options.config.setting('verify') === 'on'))
    throw usageError("--trust-service-address goes with --verify (or the profile's verify on)");
  // the other hosts on the ledger, asked only once the flags are checked
  let coordination: WatchCoordination | undefined;
  const coordinated = async () => (coordination ??= await options.coordination?.(perMinute));
  const expiredAt = new Map<string, string>();
  if (flags.pending) {
    const scope = options.scope();
    // the ledger reached first: a database that cannot be is the one line said
    const history = await options.history();
    // which service's deposits it follows, as list and report say theirs (not with -q or --json)
    options.printer.infoFitted(`deposits of ${coverage(scope.profile, scope.target, false)}`);
    const work = pendingWork(history, scope, ids, {
      includeExpired: flags.includeExpired === true,
      now: () => options.clock.now(),
      expireAfterMs: expireAfterMs(options.config),
    });
    const claimed = work.ids.length > 0 ? await (await coordinated())?.claim(work.ids) : undefined;
    const { mine, elsewhere } = claimed ?? { mine: work.ids, elsewhere: 0 };
    ids.splice(0, ids.length, ...mine);
    for (const [id, at] of work.expiredAt) expiredAt.set(id, at);
    if (ids.length === 0) {
      options.printer.info(
        elsewhere > 0
          ? `no pending deposits for this watch: another host follows the ${elsewhere} pending`
          : 'no pending deposits in the local history',
      );
      return;
    }
    if (elsewhere > 0) options.printer.infoFitted(`${elsewhere} pending deposit(s) followed by another host`);
    // a deposit of the history may be gone from the service: say so and follow the others
    plan.leaveGone = true;
    plan.lastLook = work.lastLook;
    plan.dueAt = work.dueAt;
    // a pass spends at most a minute's worth of requests on last looks, and leaves the rest for
    // the next: it ends when what is live ends (a cron pass over a thousand aged-out charges)
    plan.lastLookBudget = plan.perMinute;
    // several hosts: each follows its fair share, handed over between rounds
    plan.share = workShareOf(coordination, ids);
  }
  if (ids.length === 0) throw usageError('watch needs at least one deposit id, or --pending');
  plan.budget = (await coordinated())?.budget;
  // a deposit named that was recorded expired is followed all the same; a late payment is said loudly
  for (const id of ids) {
    if (expiredAt.has(id)) continue;
    const at = await options.expiredAt(id);
    if (at) expiredAt.set(id, at);
  }
  // --timeout is the run's: reading the history (a large file, a loaded machine) counts
  plan.spentMs = elapsed() - began;
  await followOnScreen(
    ids,
    await options.verifying(plan, flags.verify, { trustServiceAddress: flags.trustServiceAddress }),
    options,
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
  description: `follow deposits until FINALIZED (exit ${EXIT.ok}) or FAILED (exit ${EXIT.failed})`,
  long: `Each deposit is asked about at most once per \`--interval\`, and all of them together at most 60 times a minute (the profile's \`requests-per-minute\`), spread evenly. 5xx, 429, dropped connections and time-outs are ridden out with back-off for up to 5 minutes. \`--pending\` follows what the local history holds that can still change, the deposits in flight first; a charge still waiting past the profile's \`expire-after\` gets one last look and is recorded EXPIRED.

On a terminal a spinner shows each deposit's status; in a pipe, one line per status change; with --json, one deposit object per change (NDJSON). Every watch ends with one line per deposit on stderr saying how it ended.`,
  args: [{ name: '[id...]', help: 'deposit ids', complete: 'ids' }],
  flags: WATCH_FLAGS,
  examples: [
    'lbrl deposit watch <id> --timeout 30m && echo settled',
    'lbrl deposit watch <id> --json | jq -r .status      # one line per status change',
    '# cron, every 10 minutes: follow whatever is pending, for at most 9',
    '*/10 * * * * lbrl deposit watch --pending --timeout 9m -q || echo "exit $?" >> ~/lbrl-watch.log',
    exitCodesComment([
      [EXIT.ok, 'FINALIZED'],
      [EXIT.failed, 'FAILED'],
      [EXIT.watchTimeout, 'timed out'],
      [EXIT.auth, 'auth'],
      [EXIT.notFound, 'unknown id'],
      [EXIT.unreachable, 'unreachable'],
      [EXIT.interrupted, 'Ctrl-C'],
    ]),
  ],
  async run({ opts, args: [ids], factory }) {
    return runWatch(watchOptionsOf(ids, opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_WATCH);
