/**
 * The first group of the answer rules, what the interface says of any deposit answer, known to lbrl
 * or not: every field of the type the model gives it, the fields required even when null, the sums
 * (amount, fee, net) as exact decimals, the split's fields paired, the BR Code's amount, timestamps
 * and a settlement txid of the right shape.
 */

import { brCodeAmountCents, readBrCode } from '../brcode.js';
import { decimalEquals, decimalSub, decimalToString } from '../decimal.js';
import { createdDepositShape, depositShape, OBJECT_FIELDS, REQUIRED_NULLABLE } from '../deposit.js';
import { centsToDecimalText } from '../money.js';
import { isIsoTimestamp } from '../settlement-facts.js';
import { safeText, showValue, terminalSafe } from '../text/safe-text.js';
import { isHex32 } from '../values.js';
import {
  ADDRESS_CHARS,
  type AnswerRule,
  CLOCK_SKEW_MS,
  expectedOf,
  isCents,
  isObject,
  jsonDecimal,
  type Violation,
  violation,
} from './rule.js';

/**
 * Every field is of the type its schema gives (domain/deposit.ts, the one model): the schema's
 * own check, read out as a violation that names the field and says in words what it holds. An
 * object field is checked field by field. A field missing that the interface requires even when
 * null is said missing once, by the rule before this one.
 */
const ofItsType: AnswerRule = (answer, ctx) => {
  const shape = ctx.kind === 'create' ? createdDepositShape.shape : depositShape.shape;
  const required: readonly string[] = REQUIRED_NULLABLE[ctx.kind];
  const out: Violation[] = [];
  for (const [field, schema] of Object.entries(shape)) {
    const value = answer[field];
    if (!(field in answer) && required.includes(field)) continue;
    const inner = field in OBJECT_FIELDS ? OBJECT_FIELDS[field as keyof typeof OBJECT_FIELDS] : undefined;
    if (inner && isObject(value)) {
      for (const [name, innerSchema] of Object.entries(inner.shape))
        if (!innerSchema.safeParse(value[name]).success)
          out.push(violation(`${field}.${name}`, expectedOf(`${field}.${name}`), value[name]));
    } else if (!schema.safeParse(value).success) out.push(violation(field, expectedOf(field), value));
  }
  return out;
};

export const internalRules: AnswerRule[] = [
  (answer, ctx) =>
    REQUIRED_NULLABLE[ctx.kind]
      .filter((field) => !(field in answer))
      .map((field) =>
        violation(
          field,
          `present (null when it does not apply), as every ${ctx.kind} answer carries it`,
          undefined,
        ),
      ),
  ofItsType,
  (answer, ctx) =>
    ctx.kind === 'create' && answer.status !== 'WAITING_PAYMENT'
      ? violation('status', 'WAITING_PAYMENT (a new deposit)', answer.status)
      : undefined,
  (answer) => {
    const amount = jsonDecimal(answer.amount);
    if (!amount || !isCents(answer.amountInCents)) return undefined;
    const want = { units: BigInt(answer.amountInCents), scale: 2 };
    return decimalEquals(amount, want)
      ? undefined
      : violation('amount', `amountInCents / 100 = ${decimalToString(want)}`, answer.amount);
  },
  (answer) => {
    const amount = jsonDecimal(answer.amount);
    const fee = jsonDecimal(answer.feeAmount);
    if (!fee) return undefined;
    if (fee.units < 0n) return violation('feeAmount', 'at least 0', answer.feeAmount);
    if (amount && decimalSub(amount, fee).units < 0n)
      return violation('feeAmount', `at most the amount, ${decimalToString(amount)}`, answer.feeAmount);
    return undefined;
  },
  (answer) => {
    const amount = jsonDecimal(answer.amount);
    const fee = jsonDecimal(answer.feeAmount);
    const net = jsonDecimal(answer.netAmount);
    if (!net || !amount || !fee) return undefined;
    const want = decimalSub(amount, fee);
    return decimalEquals(net, want)
      ? undefined
      : violation('netAmount', `amount - feeAmount = ${decimalToString(want)}`, answer.netAmount);
  },
  (answer) =>
    typeof answer.destinationAddress === 'string' && ADDRESS_CHARS.test(answer.destinationAddress)
      ? undefined
      : violation(
          'destinationAddress',
          'a Liquid address (letters and digits only)',
          answer.destinationAddress,
        ),
  (answer) => {
    const address = answer.splitAddress ?? null;
    const percent = answer.splitPercent ?? null;
    if (address !== null && (typeof address !== 'string' || !ADDRESS_CHARS.test(address)))
      return violation('splitAddress', 'a Liquid address (letters and digits only) or null', address);
    if ((address === null) !== (percent === null))
      return violation(
        'splitPercent',
        `null exactly when splitAddress is null (splitAddress is ${showValue(address)})`,
        percent,
      );
    return undefined;
  },
  (answer) => {
    const percent = answer.splitPercent ?? null;
    if (percent === null) return undefined;
    const decimal = jsonDecimal(percent);
    const expected = 'a fraction above 0 and at most 1 with at most 4 decimals (0.0299 is 2.99%)';
    if (
      !decimal ||
      decimal.units <= 0n ||
      decimal.scale > 4 ||
      decimalSub({ units: 1n, scale: 0 }, decimal).units < 0n
    )
      return violation('splitPercent', expected, percent);
    return undefined;
  },
  (answer) => {
    if (typeof answer.qrCodeText !== 'string') return undefined;
    // it is shown as it is (the copy-paste string): nothing in it may act on a terminal or
    // reorder what is shown
    if (terminalSafe(answer.qrCodeText) !== answer.qrCodeText)
      return violation(
        'qrCodeText',
        'a PIX BR Code without control, bidirectional or invisible characters',
        answer.qrCodeText,
      );
    const code = readBrCode(answer.qrCodeText);
    // the reason says more than the long string itself
    if (!code.ok)
      return {
        field: 'qrCodeText',
        expected: 'a valid PIX BR Code',
        received: `one where ${safeText(code.reason)}`,
      };
    if (!code.value.amount || !isCents(answer.amountInCents)) return undefined;
    return brCodeAmountCents(code.value) === BigInt(answer.amountInCents)
      ? undefined
      : violation('qrCodeText amount (54)', centsToDecimalText(answer.amountInCents), code.value.amountText);
  },
  // a deposit cannot have been created, or confirmed, after now
  (answer, { now }) =>
    now === undefined
      ? undefined
      : (['createdAt', 'confirmedAt'] as const)
          .filter(
            (field) =>
              isIsoTimestamp(answer[field]) && Date.parse(answer[field] as string) > now + CLOCK_SKEW_MS,
          )
          .map((field) =>
            violation(
              field,
              `not after now, ${new Date(now).toISOString()} (a time still to come)`,
              answer[field],
            ),
          ),
  (answer) => {
    const confirmedAt = answer.confirmedAt ?? null;
    if (!isIsoTimestamp(confirmedAt)) return undefined;
    if (isIsoTimestamp(answer.createdAt) && Date.parse(confirmedAt) < Date.parse(answer.createdAt))
      return violation('confirmedAt', `not before createdAt ${answer.createdAt}`, confirmedAt);
    return undefined;
  },
  (answer) => {
    const settlement = answer.settlement ?? null;
    if (!isObject(settlement)) return undefined;
    const txid = settlement.liquidTxid ?? null;
    if (txid !== null && !isHex32(txid))
      return violation('settlement.liquidTxid', expectedOf('settlement.liquidTxid'), txid);
    // 64 zeros is the null hash (a coinbase's missing input): no transaction has it as its id
    return txid !== null && /^0{64}$/.test(txid)
      ? violation('settlement.liquidTxid', 'the id of a transaction, not the null hash', txid)
      : undefined;
  },
];
