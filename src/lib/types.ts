/**
 * The library's own types of what the service answers: plain interfaces, so the published
 * declarations need none of the packages the program bundles. They are the deposit model's
 * (domain/deposit.ts, from which api/models.ts parses answers), field for field:
 * test/lib/model-types.test.ts fails to compile when the two differ.
 */
import type { DepositStatus } from '../domain/values.js';

export type { DepositStatus };

/** Settlement data of a get answer; null until settlement starts. */
export interface Settlement {
  /** the Liquid transaction id (hex), once there is one */
  liquidTxid?: string | null;
  status?: string | null;
  [field: string]: unknown;
}

/** The fields every deposit answer carries. Amounts in reais are the service's numbers; compare cents. */
export interface DepositFields {
  /** a UUID */
  id: string;
  status: DepositStatus;
  /** reais, as the service wrote it (amountInCents / 100) */
  amount: number;
  /** the amount in integer cents: the value to compute with */
  amountInCents: number;
  feeAmount: number;
  netAmount: number;
  /** the PIX copy-paste string */
  qrCodeText: string;
  destinationAddress: string;
  splitAddress?: string | null;
  /** a fraction: 0.0299 is 2.99% */
  splitPercent?: number | null;
  /** ISO 8601 */
  createdAt: string;
  /** fields the service adds (the sandbox's `"sandbox": true`) are kept */
  [field: string]: unknown;
}

/** The answer to a create: the charge, with its QR code image. */
export interface CreatedDeposit extends DepositFields {
  /** the QR code as a base64 PNG */
  qrCode: string;
  splitAddress: string | null;
  splitPercent: number | null;
}

/** The answer to a get (and each value a watch yields). */
export interface Deposit extends DepositFields {
  settlement: Settlement | null;
  /** ISO 8601; null until confirmed */
  confirmedAt: string | null;
}

/** The body lbrl sends to create a deposit, every value checked. */
export interface DepositRequest {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string;
  /** `"2.99%"` */
  splitFee?: string;
}

/**
 * lbrl's own fields of a charge, not the service's: the reference and note given to `create`,
 * never sent, returned on the created deposit (present only when given). The library keeps no
 * ledger: keep them with the deposit's id yourself.
 */
export interface ChargeNotes {
  ref?: string;
  note?: string;
}
