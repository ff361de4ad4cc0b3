/**
 * Money a verified settlement paid beyond what was due. verify matches an overpaid share (the due
 * is a minimum), and every output it counted is the deposit's: without this, a transaction paying
 * the address twice would be "everything matches" and the second payment would appear nowhere.
 * For each transaction and address, what the outputs the judgement counted hold is compared with
 * the sum of the shares they paid (the judge's own dues); a cent or more beyond is a surplus
 * (below a cent is the rounding of a split the rules allow).
 */
import type { ShareUse } from '../domain/liquid/settlement/model.js';
import type { Receipt } from './receipts.js';

export interface SurplusEntry {
  /** the deposits whose shares these outputs paid */
  depositIds: string[];
  address: string;
  txid: string;
  /** what was due at this address in this transaction, in cents (rounded up) */
  dueCents: number;
  /** the surplus in whole cents (below a cent dropped: `amount` is exact) */
  cents: number;
  /** the surplus in reais, exact (decimal text, at least two decimals) */
  amount: string;
}

interface Paid {
  depositIds: string[];
  receipts: Set<Receipt>;
  /** the dues, summed as a fraction of reais */
  due: { num: bigint; den: bigint };
  shown: boolean;
}

/** Collects the shares a verified judgement counted, by transaction and address script. */
export class SurplusCounter {
  private readonly paid = new Map<string, Paid>();

  /** one verified share: its due, and the receipts of the outputs that paid it */
  add(txid: string, use: ShareUse, receipts: Receipt[], shown: boolean): void {
    if (receipts.length === 0) return;
    const key = `${txid}:${use.script}`;
    let paid = this.paid.get(key);
    if (!paid) {
      paid = { depositIds: [], receipts: new Set(), due: { num: 0n, den: 1n }, shown: false };
      this.paid.set(key, paid);
    }
    if (!paid.depositIds.includes(use.depositId)) paid.depositIds.push(use.depositId);
    for (const receipt of receipts) paid.receipts.add(receipt);
    paid.due = {
      num: paid.due.num * use.share.den + use.share.num * paid.due.den,
      den: paid.due.den * use.share.den,
    };
    paid.shown ||= shown;
  }

  /** The surpluses of a cent or more, of the transactions a shown deposit names. */
  surpluses(precision: number, exactReais: (units: bigint, precision: number) => string): SurplusEntry[] {
    const scale = 10n ** BigInt(precision);
    const found: SurplusEntry[] = [];
    for (const [key, paid] of this.paid) {
      if (!paid.shown) continue;
      const receipts = [...paid.receipts];
      if (receipts.some((r) => r.units === null)) continue;
      const received = receipts.reduce((sum, r) => sum + (r.units ?? 0n), 0n);
      // the due in units, rounded up: a due between two units is met by the one above
      const dueUnits = (paid.due.num * scale + paid.due.den - 1n) / paid.due.den;
      const beyond = received - dueUnits;
      if (beyond * 100n < scale) continue;
      found.push({
        depositIds: paid.depositIds,
        address: receipts[0]!.address,
        txid: key.slice(0, key.indexOf(':')),
        dueCents: Number((paid.due.num * 100n + paid.due.den - 1n) / paid.due.den),
        cents: Number((beyond * 100n) / scale),
        amount: exactReais(beyond, precision),
      });
    }
    return found;
  }
}
