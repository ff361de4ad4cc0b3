/**
 * Money safety: the checks of a create answer against the request that asked for it.
 * A drop-in over the one rule set of deposit-rules.ts, in the shape the create command reads.
 */
import { checkDeposit } from './deposit-rules.js';

export interface RequestFacts {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string | undefined;
  splitFee?: string | undefined;
}

export interface Mismatch {
  field: string;
  sent: string;
  received: string;
}

/** Every rule a create answer breaks, the request being what lbrl knows of the deposit. */
export function checkCreateAnswer(request: RequestFacts, answer: object): Mismatch[] {
  const violations = checkDeposit(answer, {
    kind: 'create',
    known: {
      amountInCents: request.amountInCents,
      destinationAddress: request.lbrlAddress,
      splitAddress: request.lbrlSplitAddress ?? null,
      splitFee: request.splitFee ?? null,
    },
  });
  return violations.map((x) => ({ field: x.field, sent: x.expected, received: x.received }));
}
