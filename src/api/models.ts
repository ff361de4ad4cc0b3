import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import type { CreatedDepositModel, DepositModel } from '../domain/deposit.js';
import { safeText, showValue } from '../domain/text/safe-text.js';

// zod/mini loads no messages of its own: English ones, for errors that name the field
z.config({ ...en(), jitless: true });

/**
 * The answers as the client reads them (api/client.ts parses with the model's createdDepositShape
 * and depositShape, domain/deposit.ts): the types of their fields. Every rule about their values
 * is checked where every deposit answer passes (deposits/answers.ts, with
 * domain/deposit-rules.ts), which names the field and both values and says not to pay.
 */
export type CreateResponse = CreatedDepositModel;
export type GetResponse = DepositModel;
export type DepositResponse = CreateResponse | GetResponse;

export interface CreateRequest {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string;
  splitFee?: string;
}

/**
 * `field a.b: message, service answered x; field c: message` from a failed parse. With
 * `expected` (what each field holds, in words, by its path: the deposit model's FIELD_EXPECTED),
 * a field it names is said to expect that, in the words the answer rules use.
 */
export function describeIssues(
  error: z.core.$ZodError,
  expected: Readonly<Record<string, string>> = {},
  /** a number's literal text as the service wrote it, at a path (JSON.parse may have rounded it) */
  literalAt?: (path: readonly PropertyKey[]) => string | undefined,
): string {
  // one field may break several checks that the rules say in the same words: each said once
  const said = error.issues.map((issue) => {
    const field = issue.path.length ? safeText(issue.path.join('.')) : '(body)';
    // an object or array is not worth repeating whole: its field is named
    const literal = typeof issue.input === 'number' ? literalAt?.(issue.path) : undefined;
    const shown =
      'input' in issue && (typeof issue.input !== 'object' || issue.input === null)
        ? `, service answered ${showValue(literal ?? (typeof issue.input === 'string' && issue.input !== '' ? JSON.stringify(issue.input) : issue.input), 60)}`
        : '';
    const words = Object.hasOwn(expected, issue.path.join('.')) ? expected[issue.path.join('.')] : undefined;
    return `field ${field}: ${words === undefined ? issue.message : `expected ${words}`}${shown}`;
  });
  return [...new Set(said)].slice(0, 3).join('; ');
}
