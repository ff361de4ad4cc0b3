/**
 * What the payer (or the bank) does to a sandbox deposit: pay it, or make it fail. One rule
 * for the `sandbox pay`/`fail` commands and the sandbox's own HTTP API.
 */
import { isTerminal } from '../domain/values.js';
import { type StoredDeposit, stateAt } from './lifecycle.js';
import type { SandboxStore } from './store.js';

export type SandboxAction = 'pay' | 'fail';

export type ActOutcome =
  | { ok: true; deposit: StoredDeposit; was: string }
  | { ok: false; reason: 'not_found' }
  /** the status does not allow it (now, or because another process got there first) */
  | { ok: false; reason: 'invalid_state'; deposit: StoredDeposit; status: string; rule: string };

const ACTION_RULES: Record<
  SandboxAction,
  { event: 'paid' | 'failed'; allowed: (s: string) => boolean; rule: string }
> = {
  pay: {
    event: 'paid',
    allowed: (s) => s === 'WAITING_PAYMENT',
    rule: 'only a WAITING_PAYMENT deposit can be paid',
  },
  fail: {
    event: 'failed',
    allowed: (s) => !isTerminal(s),
    rule: 'only a deposit that is not yet terminal can fail',
  },
};

/**
 * Record the action on a stored deposit (an id already checked), if its status allows it now.
 * `extra.settle` makes a payment settle wrongly (src/sandbox/chain.ts), to show verify failing.
 */
export function actOn(
  store: SandboxStore,
  id: string,
  action: SandboxAction,
  now: number,
  extra: { settle?: string; slowMs?: number } = {},
): ActOutcome {
  const deposit = store.load(id);
  if (!deposit) return { ok: false, reason: 'not_found' };
  const { event, allowed, rule } = ACTION_RULES[action];
  const was = stateAt(deposit, store.eventsOf(deposit.id), now).status;
  // record() refuses when another process got there first: report the status that won
  if (!allowed(was) || !store.record(deposit.id, event, now, extra)) {
    const status = stateAt(deposit, store.eventsOf(deposit.id), now).status;
    return { ok: false, reason: 'invalid_state', deposit, status, rule };
  }
  return { ok: true, deposit, was };
}
