import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import {
  type Decimal,
  decimalEquals,
  decimalFromNumber,
  decimalSub,
  decimalToCents,
} from '../domain/decimal.js';
import { safeText, showValue } from '../domain/safe-text.js';
import { STATUSES } from '../domain/values.js';

// zod/mini loads no messages of its own: English ones, for errors that name the field
z.config({ ...en(), jitless: true });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const isoTimestamp = z.string().check(
  z.refine((s) => ISO.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'expected an ISO 8601 timestamp',
  }),
);
const money = z.number().check(z.refine(Number.isFinite, { message: 'expected a finite number' }));
const text = z.string().check(z.minLength(1));

const common = {
  id: z
    .string()
    .check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a UUID')),
  status: z.enum(STATUSES),
  amount: money,
  amountInCents: z.int().check(z.minimum(1), z.maximum(600_000)),
  feeAmount: money,
  netAmount: money,
  qrCodeText: text,
  destinationAddress: text,
  createdAt: isoTimestamp,
};

export const settlementSchema = z.looseObject({
  liquidTxid: z.optional(
    z.nullable(z.string().check(z.regex(/^[0-9a-fA-F]+$/, 'expected a hex transaction id'))),
  ),
  status: z.optional(z.nullable(z.string())),
});

const createShape = z.looseObject({
  ...common,
  qrCode: text,
  splitAddress: z.nullable(text),
  splitPercent: z.nullable(money),
});

const getShape = z.looseObject({
  ...common,
  splitAddress: z.optional(z.nullable(text)),
  splitPercent: z.optional(z.nullable(money)),
  settlement: z.nullable(settlementSchema),
  confirmedAt: z.nullable(isoTimestamp),
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

/**
 * What the client reads an answer as: the types of its fields. Every rule about their values is
 * checked where every deposit answer passes (deposits/answers.ts, with domain/deposit-rules.ts),
 * which names the field and both values and says not to pay.
 */
export const createAnswerShape = createShape;
export const getAnswerShape = getShape;

/** With the sums checked too: for the sandbox's own tests of what it answers. */
export const createResponseSchema = createShape.check(z.superRefine(checkRules));
export const getResponseSchema = getShape.check(z.superRefine(checkRules));

export type CreateResponse = z.infer<typeof createShape>;
export type GetResponse = z.infer<typeof getShape>;
export type Deposit = CreateResponse | GetResponse;

export interface CreateRequest {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string;
  splitFee?: string;
}

/** `field a.b: message, service answered x; field c: message` from a failed parse. */
export function describeIssues(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => {
      const field = i.path.length ? safeText(i.path.join('.')) : '(body)';
      // an object or array is not worth repeating whole: its field is named
      const shown =
        'input' in i && (typeof i.input !== 'object' || i.input === null)
          ? `, service answered ${showValue(i.input, 60)}`
          : '';
      return `field ${field}: ${i.message}${shown}`;
    })
    .join('; ');
}
