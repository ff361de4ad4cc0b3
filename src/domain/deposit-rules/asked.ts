/**
 * The third group of the answer rules: when lbrl knows the deposit (the create it just sent, or its
 * history), the fields it asked for (the id, the amount, the destination, the split and its fee) are
 * what it asked for.
 */

import { decimalEquals, decimalToString } from '../decimal.js';
import { canonicalId } from '../values.js';
import { type AnswerRule, jsonDecimal, sameAddressText, splitFeeFraction, violation } from './rule.js';

export const askedRules: AnswerRule[] = [
  (answer, { askedId }) =>
    askedId !== undefined &&
    (typeof answer.id !== 'string' || canonicalId(answer.id) !== canonicalId(askedId))
      ? violation('id', `${canonicalId(askedId)}, the deposit asked for`, answer.id)
      : undefined,
  (answer, { known }) =>
    known?.id !== undefined &&
    (typeof answer.id !== 'string' || canonicalId(answer.id) !== canonicalId(known.id))
      ? violation('id', canonicalId(known.id), answer.id)
      : undefined,
  (answer, { known }) =>
    known && answer.amountInCents !== known.amountInCents
      ? violation('amountInCents', String(known.amountInCents), answer.amountInCents)
      : undefined,
  (answer, { known }) =>
    known &&
    (typeof answer.destinationAddress !== 'string' ||
      !sameAddressText(known.destinationAddress, answer.destinationAddress))
      ? violation('destinationAddress', known.destinationAddress, answer.destinationAddress)
      : undefined,
  (answer, { known }) => {
    if (!known || known.splitAddress === undefined) return undefined;
    const want = known.splitAddress;
    const got = answer.splitAddress;
    if (want === null)
      return got === null || got === undefined ? undefined : violation('splitAddress', 'null', got);
    return typeof got === 'string' && sameAddressText(want, got)
      ? undefined
      : violation('splitAddress', want, got);
  },
  (answer, { known }) => {
    if (!known || known.splitFee === undefined) return undefined;
    const fee = known.splitFee;
    const got = answer.splitPercent;
    if (fee === null)
      return got === null || got === undefined ? undefined : violation('splitPercent', 'null', got);
    const want = splitFeeFraction(fee);
    const decimal = jsonDecimal(got);
    if (want && decimal && decimalEquals(want, decimal)) return undefined;
    return violation('splitPercent', want ? `${decimalToString(want)} (${fee})` : fee, got);
  },
];
