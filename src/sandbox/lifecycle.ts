/**
 * The sandbox deposit: what is stored, and the state that follows from it and the time.
 * Nothing here changes over time on disk; the status is computed on every read, so every
 * process that asks gets the same answer.
 */
import { createHash } from 'node:crypto';
import type { CreatedDepositModel, DepositModel, SettlementModel } from '../domain/deposit.js';

export const STEP_MS = 1000;

/**
 * What the sandbox stores of a deposit: the model's fields it keeps as the service writes them,
 * and its own exact forms of the rest (the fee in cents, the split in basis points, the time in ms).
 */
export interface StoredDeposit
  extends Pick<
    CreatedDepositModel,
    'id' | 'amountInCents' | 'destinationAddress' | 'splitAddress' | 'qrCodeText'
  > {
  feeCents: number;
  /** hundredths of a percent */
  splitBasisPoints: number | null;
  /** ms since the epoch */
  createdAt: number;
  /** autopay: paid this long after creation; null when off */
  autopayAfterMs: number | null;
}

export interface Events {
  paidAt?: number;
  failedAt?: number;
  /** how the sandbox settles it (`sandbox pay --settle`); rightly when not given */
  settle?: string;
  /** `sandbox trigger paid-slowly`: TX_SENT lasts this much longer before FINALIZED */
  slowMs?: number;
}

const FLOW = ['PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'] as const;

/** The fee rule: 1% of the amount, rounded down to the cent; so netAmount is never negative. */
export function feeFor(amountInCents: number): number {
  return Math.floor(amountInCents / 100);
}

export function effectivePaidAt(deposit: StoredDeposit, events: Events): number | undefined {
  const auto = deposit.autopayAfterMs === null ? undefined : deposit.createdAt + deposit.autopayAfterMs;
  if (events.paidAt === undefined) return auto;
  return auto === undefined ? events.paidAt : Math.min(auto, events.paidAt);
}

export interface State {
  status: 'WAITING_PAYMENT' | (typeof FLOW)[number] | 'FAILED';
  paidAt?: number;
  /** the last status before FAILED, when it failed */
  reached?: string;
}

export function stateAt(deposit: StoredDeposit, events: Events, now: number): State {
  const paidAt = effectivePaidAt(deposit, events);
  const flowStatus = (ms: number): State['status'] => {
    if (paidAt === undefined || ms < paidAt) return 'WAITING_PAYMENT';
    const step = Math.min(FLOW.length - 1, Math.floor((ms - paidAt) / STEP_MS));
    // held in TX_SENT (the step before FINALIZED) for slowMs more
    if (events.slowMs && step === FLOW.length - 1 && ms - paidAt < step * STEP_MS + events.slowMs)
      return FLOW[step - 1]!;
    return FLOW[step]!;
  };
  if (events.failedAt !== undefined && events.failedAt <= now) {
    const before = flowStatus(events.failedAt);
    // a failure recorded after the deposit was already final does not count
    if (before !== 'FINALIZED') {
      const state: State = { status: 'FAILED', reached: before };
      if (paidAt !== undefined && paidAt <= events.failedAt) state.paidAt = paidAt;
      return state;
    }
  }
  const current: State = { status: flowStatus(now) };
  if (paidAt !== undefined && paidAt <= now) current.paidAt = paidAt;
  return current;
}

export function txidFor(id: string): string {
  return createHash('sha256').update(`lbrl-sandbox-settlement:${id}`).digest('hex');
}

function centsInReais(cents: number): number {
  return cents / 100;
}

function base(deposit: StoredDeposit) {
  return {
    id: deposit.id,
    amount: centsInReais(deposit.amountInCents),
    amountInCents: deposit.amountInCents,
    feeAmount: centsInReais(deposit.feeCents),
    netAmount: centsInReais(deposit.amountInCents - deposit.feeCents),
  };
}

function split(deposit: StoredDeposit) {
  return {
    splitAddress: deposit.splitAddress,
    splitPercent: deposit.splitBasisPoints === null ? null : deposit.splitBasisPoints / 10_000,
  };
}

/**
 * An answer as the sandbox writes it: every field of the deposit model (a field added to the model
 * and not written here does not compile), and `sandbox: true`, which tells lbrl whose answer it is.
 */
export type SandboxAnswer<M> = { [K in keyof M]-?: M[K] } & { sandbox: true };

/**
 * The create answer: section 2.1's create fields, plus `sandbox: true`. The PNG is not
 * stored (it is most of a deposit's size): it is drawn again from qrCodeText.
 */
export function createView(deposit: StoredDeposit, qrCode: string): SandboxAnswer<CreatedDepositModel> {
  return {
    ...base(deposit),
    status: 'WAITING_PAYMENT',
    qrCode,
    qrCodeText: deposit.qrCodeText,
    destinationAddress: deposit.destinationAddress,
    ...split(deposit),
    createdAt: new Date(deposit.createdAt).toISOString(),
    sandbox: true,
  };
}

/** When the settlement was sent (TX_SENT), if by `now` it was. */
export function sentAt(deposit: StoredDeposit, events: Events, now: number): number | undefined {
  const state = stateAt(deposit, events, now);
  const reached = state.status === 'FAILED' ? state.reached : state.status;
  if (reached !== 'TX_SENT' && reached !== 'FINALIZED') return undefined;
  const paidAt = effectivePaidAt(deposit, events);
  return paidAt === undefined ? undefined : paidAt + 2 * STEP_MS;
}

/**
 * The get answer at a moment: section 2.1's get fields, plus `sandbox: true`. `txid` is the
 * settlement transaction's (src/sandbox/chain-store.ts), once it was sent.
 */
export function getView(
  deposit: StoredDeposit,
  events: Events,
  now: number,
  txid?: string,
): SandboxAnswer<DepositModel> {
  const state = stateAt(deposit, events, now);
  const reached = state.status === 'FAILED' ? state.reached : state.status;
  const settled = reached === 'SETTLEMENT_CREATED' || reached === 'TX_SENT' || reached === 'FINALIZED';
  let settlement: SettlementModel | null = null;
  if (settled) {
    settlement = { status: state.status === 'FAILED' ? 'FAILED' : reached };
    if (reached === 'TX_SENT' || reached === 'FINALIZED') settlement.liquidTxid = txid ?? txidFor(deposit.id);
  }
  return {
    ...base(deposit),
    status: state.status,
    qrCodeText: deposit.qrCodeText,
    destinationAddress: deposit.destinationAddress,
    ...split(deposit),
    settlement,
    confirmedAt: state.paidAt === undefined ? null : new Date(state.paidAt).toISOString(),
    createdAt: new Date(deposit.createdAt).toISOString(),
    sandbox: true,
  };
}
