/**
 * When the transaction was confirmed: how deep it is below the explorer's tip (a block above its
 * own tip is a contradiction), and whether its block came after the deposits were created, with a
 * clock margin (an older block cannot hold the settlement: an old transaction reused).
 */
import type { Check, JudgeInput, SettlementDeposit, TxStatus } from './model.js';

/** A block this much before the deposit's creation cannot hold its settlement (clocks differ by less). */
export const CLOCK_MARGIN_MS = 60 * 60 * 1000;

/** How deep a transaction is below the tip (0 while unconfirmed): verify's count, and reconcile's. */
export function confirmationsOf(
  status: Pick<TxStatus, 'confirmed' | 'blockHeight'>,
  tipHeight: number,
): number {
  if (!status.confirmed || status.blockHeight === null) return 0;
  return tipHeight - status.blockHeight + 1;
}

/** Confirmations, the explorer's word: deep enough, not yet, or a block above its own tip. */
export function confirmationCheck(input: JudgeInput, required: number): Check {
  const { status, tipHeight } = input;
  if (status.confirmed && status.blockHeight !== null && status.blockHeight > tipHeight) {
    return {
      what: 'confirmations',
      outcome: 'mismatch',
      detail: `the explorer puts the transaction in block ${status.blockHeight}, above its own tip ${tipHeight}`,
      expected: `a block at or below ${tipHeight}`,
      actual: String(status.blockHeight),
    };
  }
  const confirmations = confirmationsOf(status, tipHeight);
  if (confirmations >= required) {
    return {
      what: 'confirmations',
      outcome: 'proven',
      detail: `confirmed in block ${status.blockHeight}, ${confirmations} confirmations (${required} required)`,
    };
  }
  return {
    what: 'confirmations',
    outcome: 'not-proven',
    detail: status.confirmed
      ? `${confirmations} of ${required} confirmations so far`
      : 'not yet confirmed (in the mempool)',
  };
}

/** A transaction confirmed before the deposit existed cannot be its settlement (an old one reused). */
export function blockTimeChecks(deposits: SettlementDeposit[], input: JudgeInput): Check[] {
  const { status } = input;
  if (!status.confirmed || status.blockHeight === null) return [];
  if (!deposits.some((deposit) => deposit.createdAt)) return [];
  if (status.blockTime === undefined || status.blockTime === null) {
    return [
      {
        what: 'timing',
        outcome: 'not-proven',
        detail:
          'the explorer gave no block time: that the transaction came after the deposit was not checked',
      },
    ];
  }
  const margin = input.clockMarginMs ?? CLOCK_MARGIN_MS;
  const blockMs = status.blockTime * 1000;
  const checks: Check[] = [];
  const latest = Math.max(
    ...deposits
      .map((deposit) => (deposit.createdAt ? Date.parse(deposit.createdAt) : Number.NaN))
      .filter(Number.isFinite),
  );
  for (const deposit of deposits) {
    const created = deposit.createdAt ? Date.parse(deposit.createdAt) : Number.NaN;
    if (!Number.isFinite(created)) continue;
    if (blockMs < created - margin) {
      checks.push({
        what: 'timing',
        outcome: 'mismatch',
        detail: `the transaction was confirmed at ${new Date(blockMs).toISOString()}, before deposit ${deposit.id} was created (${new Date(created).toISOString()}): it cannot be its settlement`,
        expected: `a block after ${new Date(created - margin).toISOString()}`,
        actual: new Date(blockMs).toISOString(),
      });
    }
  }
  if (checks.length === 0 && Number.isFinite(latest)) {
    checks.push({
      what: 'timing',
      outcome: 'proven',
      detail: `confirmed at ${new Date(blockMs).toISOString()}, after the deposit${deposits.length > 1 ? 's were' : ' was'} created (${new Date(latest).toISOString()}; ${Math.round(margin / 60000)} minutes of clock margin)`,
    });
  }
  return checks;
}
