/**
 * The times in a deposit answer, judged against lbrl's clock. The rule set (deposit-rules) already
 * refuses a time still to come (more than CLOCK_SKEW_MS ahead) and a confirmation before the
 * creation; these are the rules of the past:
 *
 * - no deposit was created, nor confirmed, before PIX existed (PIX_LAUNCH), whatever asked;
 * - a create sent with a new Idempotency-Key answers a deposit made now: its `createdAt` is no
 *   earlier than TIME_TOLERANCE_MS before the moment lbrl sent it. (A key that may have been sent
 *   before, a row sent again with `--resume` or a library caller's own, may answer a deposit made
 *   then: only the PIX bound holds.)
 *
 * A get is held to the create answer the history kept (deposit-rules' first-answer rules), which
 * this judged when it came. Pure: the caller hands the clock's reading.
 */
import type { Violation } from './deposit-rules/rule.js';
import { showValue } from './text/safe-text.js';

/** How far a service's clock may stand behind lbrl's: one hour, as CLOCK_SKEW_MS ahead. */
export const TIME_TOLERANCE_MS = 60 * 60 * 1000;
/** PIX went live for everyone on 2020-11-16: no charge was created or paid before it. */
export const PIX_LAUNCH = Date.parse('2020-11-16T00:00:00.000Z');

/** What lbrl knows of when the deposit answered was made. */
export interface AnswerTimes {
  kind: 'create' | 'get';
  /** a create: when lbrl sent it, when its Idempotency-Key was never sent before */
  sentAt?: number | undefined;
}

/** Every time of the answer that cannot be the deposit's, one violation per field. */
export function answerTimeProblems(
  answer: Readonly<Record<string, unknown>>,
  times: AnswerTimes,
): Violation[] {
  const out: Violation[] = [];
  const created = timeOf(answer.createdAt);
  if (created !== undefined) {
    if (created < PIX_LAUNCH)
      out.push(problem('createdAt', `not before ${iso(PIX_LAUNCH)} (PIX did not exist)`, answer.createdAt));
    else if (
      times.kind === 'create' &&
      times.sentAt !== undefined &&
      created < times.sentAt - TIME_TOLERANCE_MS
    )
      out.push(
        problem(
          'createdAt',
          `not before ${iso(times.sentAt - TIME_TOLERANCE_MS)} (a deposit made by this create, sent at ${iso(times.sentAt)}; an hour allowed for the service's clock)`,
          answer.createdAt,
        ),
      );
  }
  const confirmed = timeOf(answer.confirmedAt);
  if (confirmed !== undefined && confirmed < PIX_LAUNCH)
    out.push(problem('confirmedAt', `not before ${iso(PIX_LAUNCH)} (PIX did not exist)`, answer.confirmedAt));
  return out;
}

/** A time an answer states, in ms; undefined when it states none the rules could read. */
function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function problem(field: string, expected: string, received: unknown): Violation {
  return { field, expected, received: showValue(received) };
}
