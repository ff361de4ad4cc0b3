/**
 * The deposit, defined once: every field the service's answer carries (section 2 of the
 * interface), its JSON type, and the rules one answer shows alone (section 2.1: amount is
 * amountInCents / 100, netAmount is amount - feeAmount, the split pairing). From this schema come:
 *
 * - the wire parsing of answers (api/models.ts re-uses these shapes);
 * - the library's public types (lib/types.ts, checked equal to them at compile time by
 *   test/lib/types.test.ts: the published declarations stay free of zod);
 * - the history's kept fields (`FixedFields`, a Pick of the create answer);
 * - the sandbox's stored deposit (a Pick of the fields it stores as the service writes them);
 * - the fields every answer carries, which the rules compare with the first answer (`ALWAYS_FIELDS`).
 *
 * Adding a field: its line here, the code that uses it, and a test.
 */
import * as z from 'zod/mini';
import { type Decimal, decimalEquals, decimalFromNumber, decimalSub, decimalToCents } from './decimal.js';
import { MAX_CENTS, MIN_CENTS } from './money.js';
import { DEPOSIT_ID, STATUSES } from './values.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** An ISO 8601 timestamp that names a real time. */
export function isIsoTimestamp(value: unknown): value is string {
  return typeof value === 'string' && ISO.test(value) && !Number.isNaN(Date.parse(value));
}

const isoTimestamp = z
  .string()
  .check(z.refine(isIsoTimestamp, { message: 'expected an ISO 8601 timestamp' }));
const reais = z.number().check(z.refine(Number.isFinite, { message: 'expected a finite number' }));
const text = z.string().check(z.minLength(1));

/** The fields every deposit answer carries, create or get. */
export const DEPOSIT_FIELDS = {
  id: z.string().check(z.regex(DEPOSIT_ID, 'expected a UUID')),
  status: z.enum(STATUSES),
  /** reais, as the service wrote it (amountInCents / 100) */
  amount: reais,
  /** integer cents: the value to compute with */
  amountInCents: z.int().check(z.minimum(MIN_CENTS), z.maximum(MAX_CENTS)),
  feeAmount: reais,
  netAmount: reais,
  /** the PIX copy-paste string */
  qrCodeText: text,
  destinationAddress: text,
  createdAt: isoTimestamp,
};

/**
 * A get answer's settlement. The transaction id's JSON type only: its one shape (values.ts HEX32,
 * 64 lower-case hex characters) is checked once, by the rule set every answer passes
 * (deposit-rules.ts, from deposits/answers.ts), which says not to trust the answer.
 */
export const settlementShape = z.looseObject({
  liquidTxid: z.optional(z.nullable(z.string())),
  status: z.optional(z.nullable(z.string())),
});

/** The answer to a create: the charge, with its QR code image and the split it was asked. */
export const createdDepositShape = z.looseObject({
  ...DEPOSIT_FIELDS,
  /** the QR code as a base64 PNG */
  qrCode: text,
  splitAddress: z.nullable(text),
  /** a fraction: 0.0299 is 2.99% */
  splitPercent: z.nullable(reais),
});

/** A get answer may leave the split out; null when no split was asked. */
const SPLIT_FIELDS_OF_GET = {
  splitAddress: z.optional(z.nullable(text)),
  splitPercent: z.optional(z.nullable(reais)),
};

/** The fields every answer carries, with the split as a get answer gives it. */
export const depositFieldsShape = z.looseObject({ ...DEPOSIT_FIELDS, ...SPLIT_FIELDS_OF_GET });

/** The answer to a get (and each value a watch yields). */
export const depositShape = z.looseObject({
  ...DEPOSIT_FIELDS,
  ...SPLIT_FIELDS_OF_GET,
  settlement: z.nullable(settlementShape),
  confirmedAt: z.nullable(isoTimestamp),
});

export type SettlementModel = z.infer<typeof settlementShape>;
export type CreatedDepositModel = z.infer<typeof createdDepositShape>;
export type DepositModel = z.infer<typeof depositShape>;
/** The fields every answer carries, typed: what the library calls DepositFields. */
export type DepositFieldsModel = z.infer<typeof depositFieldsShape>;

/** The fields every answer carries, never left out. */
export const ALWAYS_FIELDS: readonly string[] = Object.keys(DEPOSIT_FIELDS);
/** The split's fields: a get answer may leave them out, which means null. */
export const SPLIT_FIELDS: readonly string[] = Object.keys(SPLIT_FIELDS_OF_GET);

/** The create answer's fields the history keeps besides the request's: small, so the history stays small. */
export const FIXED_FIELD_NAMES = [
  'amount',
  'feeAmount',
  'netAmount',
  'splitPercent',
  'qrCodeText',
  'createdAt',
] as const satisfies readonly (keyof CreatedDepositModel)[];
export type FixedFields = Pick<CreatedDepositModel, (typeof FIXED_FIELD_NAMES)[number]>;

export function fixedFieldsOf(answer: CreatedDepositModel): FixedFields {
  return {
    amount: answer.amount,
    feeAmount: answer.feeAmount,
    netAmount: answer.netAmount,
    splitPercent: answer.splitPercent,
    qrCodeText: answer.qrCodeText,
    createdAt: answer.createdAt,
  };
}

interface Sums {
  amount: number;
  amountInCents: number;
  feeAmount: number;
  netAmount: number;
  splitAddress?: string | null | undefined;
  splitPercent?: number | null | undefined;
}

/** Rules 1 to 3 of section 2.1, checked with exact decimals. */
function checkSums(sums: Sums, ctx: z.core.$RefinementCtx): void {
  const amount = decimalFromNumber(sums.amount) as Decimal;
  const fee = decimalFromNumber(sums.feeAmount) as Decimal;
  const net = decimalFromNumber(sums.netAmount) as Decimal;
  if (decimalToCents(amount) !== BigInt(sums.amountInCents)) {
    ctx.addIssue({
      code: 'custom',
      path: ['amount'],
      message: `amount ${sums.amount} is not amountInCents ${sums.amountInCents} / 100`,
    });
  }
  if (!decimalEquals(decimalSub(amount, fee), net)) {
    ctx.addIssue({
      code: 'custom',
      path: ['netAmount'],
      message: `netAmount ${sums.netAmount} is not amount ${sums.amount} - feeAmount ${sums.feeAmount}`,
    });
  }
  if (fee.units < 0n) ctx.addIssue({ code: 'custom', path: ['feeAmount'], message: 'feeAmount is negative' });
  const hasAddress = sums.splitAddress !== null && sums.splitAddress !== undefined;
  const hasPercent = sums.splitPercent !== null && sums.splitPercent !== undefined;
  if (hasAddress !== hasPercent) {
    ctx.addIssue({
      code: 'custom',
      path: ['splitPercent'],
      message: 'splitPercent must be null exactly when splitAddress is null',
    });
  }
  if (hasPercent && !(sums.splitPercent! > 0 && sums.splitPercent! <= 1)) {
    ctx.addIssue({
      code: 'custom',
      path: ['splitPercent'],
      message: 'splitPercent must be a fraction above 0 and at most 1',
    });
  }
}

/** With the sums checked too: for the sandbox's own tests of what it answers. */
export const createdDepositSchema = createdDepositShape.check(z.superRefine(checkSums));
export const depositSchema = depositShape.check(z.superRefine(checkSums));
