/** How a settlement check reads to a person: a headline per deposit, then one line per check. */
import type { ChalkInstance } from 'chalk';
import type { Check, SettlementReport } from '../domain/liquid/settlement.js';
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

const MARK: Record<Check['outcome'], string> = {
  proven: 'proven     ',
  'not-proven': 'not proven ',
  mismatch: 'MISMATCH   ',
};

function headline(c: ChalkInstance, o: ShownOutcome): string {
  switch (o.outcome) {
    case 'verified':
      return c.green('verified: every check below was proven');
    case 'unproven':
      return c.magenta('unproven: nothing contradicts the deposit, but not everything could be checked');
    case 'pending':
      return c.bold('pending: not yet confirmed deeply enough');
    case 'mismatch':
      return c.red('MISMATCH: the transaction contradicts the deposit');
    case 'not-settled':
      return c.bold('pending: not settled yet (the service gave no liquidTxid)');
    case 'not-found':
      return c.bold('pending: the explorer does not know the transaction (not yet broadcast, or never)');
  }
}

function color(c: ChalkInstance, outcome: Check['outcome'], text: string): string {
  return outcome === 'proven' ? c.green(text) : outcome === 'mismatch' ? c.red(text) : c.magenta(text);
}

/** The lines for one deposit; `explorer` names where the transaction was looked up. */
export function renderOutcome(c: ChalkInstance, o: ShownOutcome, explorer: string): string {
  const lines = [`deposit ${c.bold(safeText(o.id))} (${safeText(o.deposit.status)}): ${headline(c, o)}`];
  if (o.txid) lines.push(`  transaction ${o.txid}, looked up at ${explorer}`);
  if (o.settledWith.length > 0)
    lines.push(
      `  settled in one transaction with deposit ${o.settledWith.join(', ')}: shares are checked together`,
    );
  for (const check of o.report?.checks ?? []) {
    lines.push(`  ${color(c, check.outcome, MARK[check.outcome])}${safeText(check.detail)}`);
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
