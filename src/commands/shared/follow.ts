/** The follow flow with its view on the terminal: create --watch and deposit watch. */
import type { Context } from '../../context.js';
import type { DepositApi, FlowClock, Recorder } from '../../deposits/ports.js';
import { targetKey } from '../../deposits/ports.js';
import { follow, type WatchEvents, type WatchPlan } from '../../deposits/watch.js';
import { localFieldsOf } from '../../domain/text/reference.js';
import { isPaid, isTerminal } from '../../domain/values.js';
import { LbrlError } from '../../errors.js';
import type { Factory } from '../../factory/factory.js';
import { renderModeOf } from '../../factory/target.js';
import { expiredRecord, statusRecord } from '../../store/history-records.js';
import type { CounterView } from '../../ui/counter.js';
import {
  endLines,
  paidLine,
  settlementLines,
  type ViewSettings,
  WatchLog,
  WatchView,
} from '../../ui/watch-view.js';
import { timeZoneOf } from '../../ui/zone-time.js';
import { reportPaidAfterExpiry } from './expiry.js';
import { readerGoneEnd } from './reader-gone.js';

/** The global flags as given that a follow reads: the output mode, and what names the profile and service again. */
export interface FollowGlobals {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
}

/**
 * All a follow on screen needs (create --watch and deposit watch): the view's terminal, printer
 * and render mode, the global flags, the watch's client, the clock and the history's recorder.
 */
export interface FollowDeps extends ViewSettings {
  /** the terminal, and what ends the run should stdout close under the follow (Context.whenStdoutGone) */
  ctx: ViewSettings['ctx'] & Pick<Context, 'whenStdoutGone'>;
  globals: FollowGlobals;
  /** the client the watch polls with: no retries of its own (the watch rides failures out) */
  watchClient(): Promise<DepositApi>;
  clock: FlowClock;
  recorder: Recorder;
}

/** The factory's getters, narrowed to what a follow on screen uses (create --watch and deposit watch). */
export function followDepsOf(factory: Factory): FollowDeps & { ctx: Factory['ctx'] } {
  return {
    printer: factory.printer,
    ctx: factory.ctx,
    globals: factory.globals,
    renderMode: () => renderModeOf(factory.target()),
    watchClient: () => factory.client(undefined, { maxRetries: 0 }),
    clock: factory.ctx,
    recorder: {
      record: (records) => factory.ledger().record(records),
      ready: () => factory.ledger().ready(),
    },
    localOf: (id) => localFieldsOf(factory.ledger().recorded(targetKey(factory.target()), id)),
  };
}

/** A word for a shell: as it is when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that follows these deposits again, with the --profile and --base-url given to this one. */
export function followCommand(ids: string[], globals: FollowGlobals): string {
  const words = ['lbrl', 'deposit', 'watch', ...ids];
  if (globals.profile !== undefined) words.push('--profile', shellWord(globals.profile));
  if (globals.baseUrl !== undefined) words.push('--base-url', shellWord(globals.baseUrl));
  return words.join(' ');
}

/** What `watch --pending` adds to a follow. */
export interface PendingOptions {
  /** the deposits followed that the history records expired, and when */
  expiredAt?: Map<string, string>;
  /** the ids came from --pending: the way to follow them again is --pending */
  pending?: boolean;
  includeExpired?: boolean;
}

/** `lbrl deposit watch --pending`, with the --profile and --base-url given to this one. */
function pendingCommand(globals: FollowGlobals, includeExpired?: boolean): string {
  const words = ['lbrl', 'deposit', 'watch', '--pending'];
  if (includeExpired) words.push('--include-expired');
  if (globals.profile !== undefined) words.push('--profile', shellWord(globals.profile));
  if (globals.baseUrl !== undefined) words.push('--base-url', shellWord(globals.baseUrl));
  return words.join(' ');
}

/** How many charges past expire-after this pass left for their last look, and the pass that makes them. */
function lastLooksLeftLine(count: number, again: string | undefined): string {
  return `${count} charge(s) past expire-after left for their last look in a later pass (${again ?? 'lbrl deposit watch --pending'}): each pass makes at most a minute's worth of requests of them`;
}

/**
 * Follow the deposits to their end on screen (the counter view when given, else the watch view),
 * then say how each ended; when the watch stopped before (Ctrl-C, --timeout), say that nothing
 * was cancelled and how to follow them again.
 */
export async function followOnScreen(
  ids: string[],
  plan: WatchPlan,
  deps: FollowDeps,
  counter?: CounterView,
  pending: PendingOptions = {},
): Promise<void> {
  const api = await deps.watchClient();
  const log = new WatchLog(ids);
  const screen = counter ?? (await WatchView.open(deps, ids));
  const expiredAt = pending.expiredAt ?? new Map<string, string>();
  // the last looks the watch did not make, as the watch itself tells them when it ends
  let later: ReadonlySet<string> = new Set();
  const events: WatchEvents = {
    change: (deposit, raw, previous) => {
      log.last.set(deposit.id, deposit);
      screen.change(deposit, raw, previous);
      const expired = expiredAt.get(deposit.id);
      if (expired && isPaid(deposit.status)) {
        expiredAt.delete(deposit.id);
        reportPaidAfterExpiry(deps, deposit.id, deposit.status, expired);
      }
    },
    expired: (id) => {
      log.expired.add(id);
      if (!counter) (screen as WatchView).expired(id);
    },
    slowed: (perMinute) => {
      if (!counter) (screen as WatchView).slowed(perMinute);
    },
    retry: (reason, delay, failingFor) => screen.retry(reason, delay, failingFor),
    tick: (states, elapsed) => screen.tick(states, elapsed),
    gone: (id) => {
      log.gone.add(id);
      if (!counter) (screen as WatchView).gone(id);
    },
    deferred: (ids) => {
      later = new Set(ids);
    },
  };
  // a reader gone (| head) stops the run: it says how each deposit was left and ends unfinished, never 0
  deps.ctx.whenStdoutGone?.(() => {
    screen.stop();
    return readerGone(ids, later, deps, log, { counter, pending });
  });
  let ending: { type: string } | undefined;
  try {
    await follow(
      api,
      ids,
      plan,
      { clock: deps.clock, recorder: deps.recorder, statusRecord, expiredRecord },
      events,
    );
  } catch (error) {
    ending = error instanceof LbrlError ? error : { type: 'unexpected' };
    throw error;
  } finally {
    screen.stop();
    sayHowItEnded(ids, later, deps, log, { counter, pending, ending });
    deps.ctx.whenStdoutGone?.(undefined);
  }
}

/**
 * What a follow says when its stdout closed under it (its reader went away): how each deposit
 * was left, how to follow the open ones again, and the error; the exit code it ends with.
 */
function readerGone(
  ids: string[],
  later: ReadonlySet<string>,
  deps: FollowDeps,
  log: WatchLog,
  how: { counter: CounterView | undefined; pending: PendingOptions },
): number {
  const unfinished = openIds(ids, later, log);
  sayHowItEnded(ids, later, deps, log, { ...how, ending: { type: 'output_closed' } });
  return readerGoneEnd(deps, 'the watch ended: the deposits it left are not known to be done', {
    unfinished,
  });
}

/** The deposits a stopped follow leaves open: not ended, gone, expired, nor left for a later pass's last look. */
function openIds(ids: string[], later: ReadonlySet<string>, log: WatchLog): string[] {
  return ids.filter(
    (id) =>
      !later.has(id) &&
      !log.gone.has(id) &&
      !log.expired.has(id) &&
      !isTerminal(log.status(id) ?? 'WAITING_PAYMENT'),
  );
}

/** The ends of a follow that leave deposits open, to be followed again: Ctrl-C, --timeout, a reader gone. */
const STOPS = new Set(['interrupted', 'watch_timeout', 'output_closed']);

/**
 * What the follow leaves under the screen when it ends: the counter's settlement lines, the end
 * line of each deposit, the last looks left for the next pass, and how to follow again what a
 * stop (Ctrl-C, --timeout) left open.
 */
function sayHowItEnded(
  ids: string[],
  later: ReadonlySet<string>,
  deps: FollowDeps,
  log: WatchLog,
  how: { counter: CounterView | undefined; pending: PendingOptions; ending: { type: string } | undefined },
): void {
  const { counter, pending, ending } = how;
  const printer = deps.printer;
  if (counter) {
    // the view stays on screen; what it showed of the settlement, whole, under it
    for (const deposit of log.last.values()) {
      if (isPaid(deposit.status))
        printer.out(
          paidLine(deposit, deps.clock.now(), timeZoneOf(deps.ctx.env), {
            columns: (deps.ctx.stdout as { columns?: number }).columns,
          }),
        );
      if (deposit.status === 'FINALIZED')
        for (const line of settlementLines(deposit, deps.renderMode())) printer.out(line);
    }
  }
  // a last look this pass did not make is left for the next (the watch names them): never an
  // unfinished deposit
  const open = openIds(ids, later, log);
  const stopped = ending && STOPS.has(ending.type);
  // with --pending each deposit is named once, by its end line: the way to follow them again is --pending
  const again = pending.pending ? pendingCommand(deps.globals, pending.includeExpired) : undefined;
  // broken between words on a narrow terminal: an id never cut at the edge
  for (const line of endLines(log, ending, later)) printer.infoFitted(line);
  if (later.size > 0 && deps.globals.json && !deps.globals.quiet)
    printer.err(JSON.stringify({ notice: { type: 'last_looks_left', count: later.size, ids: [...later] } }));
  else if (later.size > 0) printer.info(lastLooksLeftLine(later.size, again));
  if (stopped && open.length > 0) {
    printer.info(
      `${open.length === 1 ? 'the charge is' : `${open.length} charges are`} still open: stopping the watch cancels nothing. Follow ${open.length === 1 ? 'it' : 'them'} again with:`,
    );
    printer.info(`  ${again ?? followCommand(open, deps.globals)}`);
  }
}
