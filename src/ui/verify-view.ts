/** How a settlement check reads to a person: a headline per deposit, then one line per check. */
import type { ChalkInstance } from 'chalk';
import type { Check, SettlementReport } from '../domain/liquid/settlement/model.js';
import { safeText } from '../domain/text/safe-text.js';

/** One deposit's outcome, as deposits/verify.ts makes it. */
export interface ShownOutcome {
  id: string;
  deposit: { status: string };
  outcome: SettlementReport['verdict'] | 'not-settled' | 'not-found';
  txid: string | null;
  report: SettlementReport | null;
  settledWith: string[];
}

const OUTCOME_MARK: Record<Check['outcome'], string> = {
  proven: 'proven     ',
  'not-proven': 'not proven ',
  mismatch: 'MISMATCH   ',
};

function headline(colors: ChalkInstance, outcome: ShownOutcome): string {
  switch (outcome.outcome) {
    case 'verified':
      return colors.green('verified: every check below was proven');
    case 'unproven':
      return colors.magenta('unproven: nothing contradicts the deposit, but not everything could be checked');
    case 'pending':
      return colors.bold('pending: not yet confirmed deeply enough');
    case 'mismatch':
      return colors.red('MISMATCH: the transaction contradicts the deposit');
    case 'not-settled':
      return colors.bold('pending: not settled yet (the service gave no liquidTxid)');
    case 'not-found':
      return colors.bold('pending: the explorer does not know the transaction (not yet broadcast, or never)');
  }
}

function color(colors: ChalkInstance, outcome: Check['outcome'], text: string): string {
  return outcome === 'proven'
    ? colors.green(text)
    : outcome === 'mismatch'
      ? colors.red(text)
      : colors.magenta(text);
}

/** The lines for one deposit; `explorer` names where the transaction was looked up. */
export function renderOutcome(colors: ChalkInstance, outcome: ShownOutcome, explorer: string): string {
  const lines = [
    `deposit ${colors.bold(safeText(outcome.id))} (${safeText(outcome.deposit.status)}): ${headline(colors, outcome)}`,
  ];
  if (outcome.txid) lines.push(`  transaction ${outcome.txid}, looked up at ${explorer}`);
  if (outcome.settledWith.length > 0)
    lines.push(
      `  settled in one transaction with deposit ${outcome.settledWith.join(', ')}: shares are checked together`,
    );
  for (const check of outcome.report?.checks ?? []) {
    lines.push(`  ${color(colors, check.outcome, OUTCOME_MARK[check.outcome])}${safeText(check.detail)}`);
    if (
      check.outcome === 'mismatch' &&
      check.expected !== undefined &&
      check.actual !== undefined &&
      !check.detail.includes(check.actual)
    ) {
      lines.push(`  ${' '.repeat(11)}expected ${safeText(check.expected)}, found ${safeText(check.actual)}`);
    }
  }
  return lines.join('\n');
}
