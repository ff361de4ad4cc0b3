/**
 * The second group of the answer rules: what each status says about `settlement` and
 * `confirmedAt` (the interface states the first and the last row; the rows between follow from the
 * meaning of each status, kept as loose as that meaning allows).
 */
import { type AnswerRule, isObject, type Violation, violation } from './rule.js';

interface StatusRule {
  settlement: 'null' | 'object' | 'any';
  /** a liquidTxid: required, absent (null or missing), or either */
  txid: 'required' | 'absent' | 'any';
  settlementStatus?: string;
  confirmedAt: 'null' | 'set' | 'any';
  why: string;
}

/**
 * The interface states the first and the last row; the rows between follow from the meaning of
 * each status and are kept as loose as that meaning allows (see docs/money-safety.md).
 */
export const STATUS_RULES: Record<string, StatusRule> = {
  WAITING_PAYMENT: {
    settlement: 'null',
    txid: 'absent',
    confirmedAt: 'null',
    why: 'the interface: while the deposit waits for payment, settlement and confirmedAt are null',
  },
  PIX_CONFIRMED: {
    settlement: 'any',
    txid: 'absent',
    confirmedAt: 'any',
    why: 'nothing has been sent on Liquid before TX_SENT',
  },
  SETTLEMENT_CREATED: {
    settlement: 'object',
    txid: 'any',
    confirmedAt: 'any',
    why: 'the settlement has been created',
  },
  TX_SENT: {
    settlement: 'object',
    txid: 'required',
    confirmedAt: 'any',
    why: 'the asset has been sent, so there is a transaction',
  },
  FINALIZED: {
    settlement: 'object',
    txid: 'required',
    settlementStatus: 'FINALIZED',
    confirmedAt: 'set',
    why: 'the interface: a finalized deposit has a settlement with liquidTxid and status, and confirmedAt',
  },
  FAILED: { settlement: 'any', txid: 'any', confirmedAt: 'any', why: 'its meaning is given nowhere' },
};

export const byStatus: AnswerRule = (answer) => {
  // a create answer too: it is WAITING_PAYMENT, so a settlement or confirmedAt must be null
  if (typeof answer.status !== 'string') return undefined;
  const rule = STATUS_RULES[answer.status];
  if (!rule) return undefined;
  const out: Violation[] = [];
  const settlement = answer.settlement ?? null;
  const txid = isObject(settlement) ? (settlement.liquidTxid ?? null) : null;
  const at = `at ${answer.status}`;
  if (rule.settlement === 'null' && settlement !== null)
    out.push(violation('settlement', `null ${at}`, settlement));
  if (rule.settlement === 'object' && !isObject(settlement))
    out.push(violation('settlement', `a settlement object ${at} (${rule.why})`, settlement));
  if (isObject(settlement) && rule.settlement !== 'null') {
    if (rule.txid === 'required' && txid === null)
      out.push(
        violation('settlement.liquidTxid', `a Liquid transaction id ${at} (${rule.why})`, txid ?? undefined),
      );
    if (rule.txid === 'absent' && txid !== null)
      out.push(violation('settlement.liquidTxid', `none ${at} (${rule.why})`, txid));
  }
  if (rule.settlementStatus && isObject(settlement) && settlement.status !== rule.settlementStatus)
    out.push(violation('settlement.status', `${rule.settlementStatus} ${at}`, settlement.status));
  const confirmedAt = answer.confirmedAt ?? null;
  if (rule.confirmedAt === 'null' && confirmedAt !== null)
    out.push(violation('confirmedAt', `null ${at}`, confirmedAt));
  if (rule.confirmedAt === 'set' && confirmedAt === null)
    out.push(violation('confirmedAt', `a timestamp ${at} (${rule.why})`, answer.confirmedAt));
  return out;
};
