import { parseDepositId, parseDuration, parseIntervalSeconds } from '../domain/values.js';
import { EXIT, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { WatchView } from '../ui/watch-view.js';
import { watchDeposits } from '../watch.js';

export interface WatchFlags {
  interval?: string;
  timeout?: string;
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
      view,
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
  if (ids.length === 0) throw usageError('watch needs at least one deposit id');
  const plan = parseWatchFlags(flags);
  await follow(ids, plan, session);
}
