/**
 * Money safety: ONE rule set for every deposit answer, whichever command asked.
 *
 * `checkDeposit(answer, context)` returns every rule the answer breaks, as violations that name
 * the field and both values (already safe to print). The rules come in four groups, each a table
 * of small checks in a file of deposit-rules/, so a new kind of lie is caught by a rule rather than
 * by a special case (what a rule reads and says is deposit-rules/rule.ts):
 *
 * 1. internal.ts: what the interface says of any deposit (sums, split pairing, status, BR Code);
 * 2. by-status.ts: what each status says about `settlement` and `confirmedAt`;
 * 3. asked.ts: when lbrl knows the deposit (the create it just sent, or its history), the fields
 *    that were asked (amount, destination, split, id) must be what was asked;
 * 4. seen.ts: every field fixed at creation is compared with the first answer lbrl saw, and the
 *    status may only move forward (terminal statuses never change);
 * 5. answer-times.ts: the times of the past (none before PIX; a create's deposit made now).
 *
 * Before them all, the body's numbers as written (`asWritten`, here). Pure, no I/O. Numbers are
 * compared as exact decimals, never as floats.
 */
import { answerTimeProblems } from './answer-times.js';
import { decimalEquals, decimalFromNumber, decimalFromText } from './decimal.js';
import { INTEGER_FIELDS } from './deposit.js';
import { askedRules } from './deposit-rules/asked.js';
import { byStatus } from './deposit-rules/by-status.js';
import { internalRules } from './deposit-rules/internal.js';
import {
  type AnswerRule,
  type CheckContext,
  isObject,
  type Violation,
  violation,
} from './deposit-rules/rule.js';
import { seenRules } from './deposit-rules/seen.js';
import { JsonNumber, type JsonValue, parseJsonExact } from './text/json-exact.js';

/** The numbers of the body as written, each as exact as the float JSON.parse made of it. */
const asWritten: AnswerRule = (_answer, { text }) => {
  if (text === undefined) return undefined;
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return violation('(body)', 'JSON', parsed.reason);
  const out: Violation[] = [];
  const walk = (value: JsonValue, path: string): void => {
    if (value instanceof JsonNumber) {
      const written = decimalFromText(value.text);
      const read = decimalFromNumber(Number(value.text));
      if (!written || !read || !decimalEquals(written, read))
        out.push(
          violation(path, `a number JSON reads exactly (it reads as ${Number(value.text)})`, value.text),
        );
      else if (INTEGER_FIELDS.has(path) && !/^-?\d+$/.test(value.text))
        out.push(
          violation(path, 'an integer written as one (digits only, as the interface types it)', value.text),
        );
    } else if (Array.isArray(value)) {
      for (const [i, e] of value.entries()) walk(e, `${path}[${i}]`);
    } else if (value !== null && typeof value === 'object')
      for (const [k, e] of Object.entries(value)) walk(e, path ? `${path}.${k}` : k);
  };
  walk(parsed.value, '');
  return out;
};

/** The times of the past (answer-times.ts), after the others: a field named already is not named twice. */
const pastTimes: AnswerRule = (answer, { kind, sentAt }) => answerTimeProblems(answer, { kind, sentAt });

const RULES: AnswerRule[] = [asWritten, ...internalRules, byStatus, ...askedRules, ...seenRules, pastTimes];

/**
 * Every rule the answer breaks, one violation per field (the first rule a field breaks names it:
 * a field of the wrong type is said to be that, not also each value rule it then fails); an empty
 * list when it keeps them all.
 */
export function checkDeposit(answer: unknown, ctx: CheckContext): Violation[] {
  if (!isObject(answer)) return [violation('(body)', 'a deposit object', answer)];
  const out: Violation[] = [];
  const named = new Set<string>();
  for (const rule of RULES) {
    const found = rule(answer, ctx);
    for (const problem of Array.isArray(found) ? found : found ? [found] : []) {
      if (named.has(problem.field)) continue;
      named.add(problem.field);
      out.push(problem);
    }
  }
  return out;
}

/** One line per violation: `amount: expected 15.00, received 0.01`. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations
    .map((problem) => `${problem.field}: expected ${problem.expected}, received ${problem.received}`)
    .join('; ');
}
