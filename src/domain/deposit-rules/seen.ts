/**
 * The fourth group of the answer rules, what an earlier answer about the same deposit already said:
 * every field fixed at creation is the first answer's (numbers as exact decimals, ids and segwit
 * addresses without case), the settlement facts lbrl recorded are stated the same, and the status
 * only moves forward (a terminal status never changes).
 */
import { decimalEquals, decimalFromNumber } from '../decimal.js';
import { ALWAYS_FIELDS, CREATE_ONLY_FIELDS, MUTABLE_FIELDS, SPLIT_FIELDS } from '../deposit.js';
import { isIsoTimestamp, SETTLEMENT_FACT_FIELDS, valueAtPath } from '../settlement-facts.js';
import { showValue } from '../text/safe-text.js';
import { canonicalId, isTerminal, STATUS_ORDER } from '../values.js';
import { type AnswerRule, isObject, sameAddressText, type Violation, violation } from './rule.js';

/** Two JSON values alike: numbers as exact decimals, ids and segwit addresses without case. */
function sameValue(field: string, first: unknown, later: unknown): boolean {
  if (typeof first === 'number' && typeof later === 'number') {
    const firstDecimal = decimalFromNumber(first);
    const laterDecimal = decimalFromNumber(later);
    return firstDecimal !== null && laterDecimal !== null && decimalEquals(firstDecimal, laterDecimal);
  }
  if (typeof first === 'string' && typeof later === 'string') {
    if (first === later) return true;
    if (field === 'id') return canonicalId(first) === canonicalId(later);
    if (field === 'destinationAddress' || field === 'splitAddress') return sameAddressText(first, later);
    if (field === 'createdAt' || field === 'confirmedAt')
      return isIsoTimestamp(first) && isIsoTimestamp(later) && Date.parse(first) === Date.parse(later);
    return false;
  }
  if (Array.isArray(first) && Array.isArray(later))
    return first.length === later.length && first.every((item, i) => sameValue(field, item, later[i]));
  if (isObject(first) && isObject(later)) {
    const keys = new Set([...Object.keys(first), ...Object.keys(later)]);
    return [...keys].every((key) => sameValue(`${field}.${key}`, first[key], later[key]));
  }
  return first === later;
}

/** A field the model (deposit.ts) says every answer carries. */
const ALWAYS = new Set(ALWAYS_FIELDS);

/** The split's fields: left out means null. */
const NULL_WHEN_ABSENT = new Set(SPLIT_FIELDS);

/**
 * Each settlement fact lbrl recorded (seen in a checked answer, or proven on chain) is stated the
 * same by every later answer: another value, or none, is a contradiction, whatever the status.
 */
const keptFacts: AnswerRule = (answer, { facts }) => {
  if (!facts) return undefined;
  const out: Violation[] = [];
  for (const field of SETTLEMENT_FACT_FIELDS) {
    const kept = facts.values[field];
    if (kept === undefined) continue;
    const now = valueAtPath(answer, field);
    const same =
      field === 'confirmedAt'
        ? isIsoTimestamp(now) && Date.parse(now) === Date.parse(kept)
        : typeof now === 'string' && now === kept;
    if (same) continue;
    const proof =
      field === 'settlement.liquidTxid' && facts.verifiedTxid === kept
        ? 'the settlement lbrl verified on chain'
        : 'as lbrl recorded it';
    out.push(violation(field, `${kept}, ${proof} (a settlement fact never changes)`, now));
  }
  return out;
};

export const seenRules: AnswerRule[] = [
  keptFacts,
  // every field fixed at creation: the same as in the first answer (extra fields too, when both
  // answers carry them); only status, settlement and confirmedAt may change
  (answer, { first, firstIsKept }) => {
    if (!first) return undefined;
    const out: Violation[] = [];
    const keys = new Set([...Object.keys(first), ...Object.keys(answer), ...ALWAYS, ...NULL_WHEN_ABSENT]);
    for (const key of keys) {
      if (MUTABLE_FIELDS.has(key) || CREATE_ONLY_FIELDS.has(key)) continue;
      // a field the kept answer never held (written before the field existed) is unknown
      if (firstIsKept && !Object.hasOwn(first, key)) continue;
      let was = first[key];
      let now = answer[key];
      if (NULL_WHEN_ABSENT.has(key)) {
        was = was ?? null;
        now = now ?? null;
      } else if (!ALWAYS.has(key) && (was === undefined || now === undefined)) continue;
      if (!sameValue(key, was, now))
        out.push(violation(key, `${showValue(was)}, as first answered (it never changes)`, now));
    }
    return out;
  },
  // status only moves forward; FINALIZED and FAILED are final, with all they said
  (answer, { previous }) => {
    if (!previous || typeof previous.status !== 'string' || typeof answer.status !== 'string')
      return undefined;
    const was = previous.status;
    const now = answer.status;
    if (isTerminal(was)) {
      if (now !== was)
        return violation('status', `${was}, as already answered (a final status never changes)`, now);
      const out: Violation[] = [];
      // what the previous answer said (the history keeps only the status)
      for (const key of MUTABLE_FIELDS) {
        if (
          key !== 'status' &&
          key in previous &&
          !sameValue(key, previous[key] ?? null, answer[key] ?? null)
        )
          out.push(
            violation(key, `${showValue(previous[key] ?? null)}, as already answered at ${was}`, answer[key]),
          );
      }
      return out;
    }
    const from = STATUS_ORDER.indexOf(was);
    const to = STATUS_ORDER.indexOf(now);
    if (from >= 0 && to >= 0 && to < from)
      return violation('status', `${was} or a later status (a status never goes back)`, now);
    return undefined;
  },
];
