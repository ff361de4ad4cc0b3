import { z } from 'zod';
import {
  type Decimal,
  decimalEquals,
  decimalFromNumber,
  decimalSub,
  decimalToCents,
} from '../domain/decimal.js';
import { STATUSES } from '../domain/values.js';

const isoTimestamp = z
  .string()
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
    {
      message: 'expected an ISO 8601 timestamp',
    },
  );
const money = z.number().refine(Number.isFinite, { message: 'expected a finite number' });
const status = z.enum(STATUSES);

const common = {
  id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a UUID'),
  status,
  amount: money,
  amountInCents: z.number().int().min(1).max(600_000),
  feeAmount: money,
  netAmount: money,
  qrCodeText: z.string().min(1),
  destinationAddress: z.string().min(1),
  createdAt: isoTimestamp,
};

export const settlementSchema = z.looseObject({
  liquidTxid: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'expected a 64-character hex transaction id')
    .nullable()
    .optional(),
  status: z.string().nullable().optional(),
});

const createShape = z.looseObject({
  ...common,
  qrCode: z.string().min(1),
  splitAddress: z.string().min(1).nullable(),
  splitPercent: money.nullable(),
});

const getShape = z.looseObject({
  ...common,
  splitAddress: z.string().min(1).nullable().optional(),
  splitPercent: money.nullable().optional(),
  settlement: settlementSchema.nullable(),
  confirmedAt: isoTimestamp.nullable(),
});

interface Sums {
  amount: number;
  amountInCents: number;
  feeAmount: number;
  netAmount: number;
  splitAddress?: string | null | undefined;
  splitPercent?: number | null | undefined;
}

/** Rules 1 to 3 of section 2.1, checked with exact decimals. */
function checkRules(d: Sums, ctx: z.core.$RefinementCtx): void {
  const amount = decimalFromNumber(d.amount) as Decimal;
  const fee = decimalFromNumber(d.feeAmount) as Decimal;
  const net = decimalFromNumber(d.netAmount) as Decimal;
  if (decimalToCents(amount) !== BigInt(d.amountInCents)) {
    ctx.addIssue({
      code: 'custom',
      path: ['amount'],
      message: `amount ${d.amount} is not amountInCents ${d.amountInCents} / 100`,
    });
  }
  if (!decimalEquals(decimalSub(amount, fee), net)) {
    ctx.addIssue({
      code: 'custom',
      path: ['netAmount'],
      message: `netAmount ${d.netAmount} is not amount ${d.amount} - feeAmount ${d.feeAmount}`,
    });
  }
  if (fee.units < 0n) ctx.addIssue({ code: 'custom', path: ['feeAmount'], message: 'feeAmount is negative' });
  const hasAddress = d.splitAddress !== null && d.splitAddress !== undefined;
  const hasPercent = d.splitPercent !== null && d.splitPercent !== undefined;
  if (hasAddress !== hasPercent) {
    ctx.addIssue({
      code: 'custom',
      path: ['splitPercent'],
      message: 'splitPercent must be null exactly when splitAddress is null',
    });
  }
  if (hasPercent && !(d.splitPercent! > 0 && d.splitPercent! <= 1)) {
    ctx.addIssue({
      code: 'custom',
      path: ['splitPercent'],
      message: 'splitPercent must be a fraction above 0 and at most 1',
    });
  }
}

export const createResponseSchema = createShape.superRefine(checkRules);
export const getResponseSchema = getShape.superRefine(checkRules);

export type CreateResponse = z.infer<typeof createShape>;
export type GetResponse = z.infer<typeof getShape>;
export type Deposit = CreateResponse | GetResponse;

export interface CreateRequest {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string;
  splitFee?: string;
}

/** `field a.b: message; field c: message` from a failed parse. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `field ${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`)
    .join('; ');
}
