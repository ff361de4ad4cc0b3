import { parseDepositId, parseDuration, parseIntervalSeconds } from '../domain/values.js';
import { EXIT, invalidValue, LbrlError, usageError } from '../errors.js';
import { Session } from '../session.js';
import { statusRecord } from '../store/history.js';
import { WatchView } from '../ui/watch-view.js';
import { watchDeposits } from '../watch.js';

export interface WatchFlags {
  interval?: string;
  timeout?: string;
  pending?: boolean;
}

export interface WatchPlan {
  intervalMs: number;
  timeoutMs?: number | undefined;
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

/** Watch until every deposit is terminal; throws for every exit but 0. */
export async function follow(ids: string[], plan: WatchPlan, session: Session): Promise<void> {
  const client = await session.client(undefined, { maxRetries: 0 });
  const view = await WatchView.open(session);
  let states: Map<string, string>;
  try {
    ({ states } = await watchDeposits(
      client,
      {
        ids,
        ...plan,
        now: session.ctx.now,
        sleep: session.ctx.sleep,
        random: session.ctx.random,
        signal: session.ctx.signal,
      },
      {
        change: (deposit, raw, previous) => {
          session.record([statusRecord(deposit.id, deposit.status, session.ctx.now())]);
          view.change(deposit, raw, previous);
        },
        retry: (reason, delay, failingFor) => view.retry(reason, delay, failingFor),
        tick: (states, elapsed) => view.tick(states, elapsed),
      },
    ));
  } finally {
    view.stop();
  }
  const failed = [...states].filter(([, s]) => s === 'FAILED').map(([id]) => id);
  if (failed.length > 0) {
    throw new LbrlError(`deposit ${failed.join(', ')} ended FAILED`, 'failed', EXIT.failed);
  }
  session.printer.info(
    ids.length === 1 ? `deposit ${ids[0]} FINALIZED` : `all ${ids.length} deposits FINALIZED`,
  );
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
    const key = Session.targetKey(session.target());
    for (const e of session
      .history()
      .pending((r) => r.profile === session.profileName && r.baseUrl === key)) {
      if (!ids.includes(e.id)) ids.push(e.id);
    }
    if (ids.length === 0) {
      session.printer.info('no pending deposits in the local history');
      return;
    }
  }
  if (ids.length === 0) throw usageError('watch needs at least one deposit id, or --pending');
  await follow(ids, plan, session);
}
