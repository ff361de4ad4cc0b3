/**
 * The deposit, defined once: every field the service's answer carries (section 2 of the
 * interface) and its JSON type. The rules between fields (section 2.1: amount is amountInCents /
 * 100, netAmount is amount - feeAmount, the split pairing) are deposit-rules.ts's, the one rule
 * set every answer passes. From this schema come:
 *
 * - the wire parsing of answers (api/models.ts re-uses these shapes);
 * - the library's public types (lib/types.ts, checked equal to them at compile time by
 *   test/lib/model-types.test.ts: the published declarations stay free of zod);
 * - the history's kept fields (`FixedFields`, a Pick of the create answer);
 * - the sandbox's stored deposit (a Pick of the fields it stores as the service writes them);
 * - the field lists the rules read: the fields every answer carries (`ALWAYS_FIELDS`), those
 *   required even when null (`REQUIRED_NULLABLE`), those only a create answer has
 *   (`CREATE_ONLY_FIELDS`), the whole numbers (`INTEGER_FIELDS`), and the few that may change
 *   (`MUTABLE_FIELDS`).
 *
 * Adding a field: its line here, the code that uses it, and a test.
 */
import * as z from 'zod/mini';
import { MAX_CENTS, MIN_CENTS } from './money.js';
import { isIsoTimestamp } from './settlement-facts.js';
import { DEPOSIT_ID, STATUSES } from './values.js';

const isoTimestamp = z
  .string()
  .check(
    z.refine(isIsoTimestamp, { message: 'expected an ISO 8601 timestamp with its offset (Z or ±hh:mm)' }),
  );
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

/** Every field an answer may carry: a create's and a get's. */
type AnswerField = keyof typeof createdDepositShape.shape | keyof typeof depositShape.shape;

/**
 * What each field holds, in words: what an answer whose field is not of its schema's type is
 * told is expected. Every field of the shapes has its line (the compiler demands it), and so has
 * every field of an object field, by its path.
 */
export const FIELD_EXPECTED = {
  id: 'a UUID',
  status: `one of ${STATUSES.join(', ')}`,
  amount: 'a number of reais',
  amountInCents: `a whole number of cents from ${MIN_CENTS} to ${MAX_CENTS}`,
  feeAmount: 'a number of reais',
  netAmount: 'a number of reais',
  qrCodeText: 'a PIX BR Code',
  destinationAddress: 'a Liquid address (letters and digits only)',
  createdAt: 'an ISO 8601 timestamp with its offset (Z or ±hh:mm)',
  qrCode: 'a base64 PNG',
  splitAddress: 'a Liquid address (letters and digits only) or null',
  splitPercent: 'a fraction above 0 and at most 1 with at most 4 decimals (0.0299 is 2.99%)',
  settlement: 'an object or null',
  'settlement.liquidTxid': '64 lower-case hex characters',
  'settlement.status': 'a string',
  confirmedAt: 'an ISO 8601 timestamp with its offset (Z or ±hh:mm), or null',
} as const satisfies Record<AnswerField | `settlement.${keyof typeof settlementShape.shape}`, string>;

/** The fields that hold an object, and its shape: their own fields are checked one by one. */
export const OBJECT_FIELDS = { settlement: settlementShape } as const;

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
  return pickFields(answer, FIXED_FIELD_NAMES);
}

/** The named fields of a deposit, and nothing else. */
function pickFields<T extends object, K extends keyof T>(value: T, names: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const name of names) out[name] = value[name];
  return out;
}

/**
 * The only fields that may change between two answers about one deposit: its status and what
 * the status brings. Every other field is fixed once the deposit is created.
 */
export const MUTABLE_FIELDS: ReadonlySet<string> = new Set([
  'status',
  'settlement',
  'confirmedAt',
] as const satisfies readonly (keyof DepositModel)[]);

/** Fields only a create answer carries (a get answer leaves them out): the create's shape less the get's. */
export const CREATE_ONLY_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(createdDepositShape.shape).filter((field) => !(field in depositShape.shape)),
);

/**
 * Fields an answer must carry even when null, by kind of answer: those of the shapes above whose
 * schema takes null but not a missing value (section 2 requires them, null or not). Written out,
 * not read from the schemas by parsing at load: that cost every start of the program (a `get`
 * included) a few million instructions; test/unit/deposit-model.test.ts reads them from the
 * shapes and fails when the two disagree.
 */
export const REQUIRED_NULLABLE = {
  create: ['splitAddress', 'splitPercent'],
  get: ['settlement', 'confirmedAt'],
} as const satisfies {
  readonly create: readonly (keyof typeof createdDepositShape.shape)[];
  readonly get: readonly (keyof typeof depositShape.shape)[];
};

/**
 * Fields the schema types as whole numbers: written as digits only, never `1500.0` or `1.5e3`.
 * Written out as REQUIRED_NULLABLE is, and checked against the shapes by the same test.
 */
export const INTEGER_FIELDS: ReadonlySet<string> = new Set([
  'amountInCents',
] as const satisfies readonly (keyof DepositModel)[]);

/**
 * The settlement's facts: fields that go from null to a value once and never change after (the
 * transaction that paid the deposit out, and when the payment was confirmed). Once lbrl has seen
 * one in a checked answer, or proven it on chain, it is part of the deposit's record: a later
 * answer that says otherwise (another value, or none) contradicts it.
 */
