/**
 * The commitments a claimed opening makes, recomputed apart from unblindOutput (which checks an
 * opening against the output's commitments itself): what an explorer does with the #blinded= values.
 */
import { fromDisplayHex } from '../../src/domain/liquid/tx.js';
import type { UnblindedOutput, Zkp } from '../../src/domain/liquid/unblind.js';

export function commitmentsOf(
  zkp: Zkp,
  opening: UnblindedOutput,
): { assetCommitment: Uint8Array; valueCommitment: Uint8Array } {
  const generator = zkp.generator.generateBlinded(
    fromDisplayHex(opening.assetId),
    fromDisplayHex(opening.assetBlindingFactor),
  );
  const valueCommitment = zkp.pedersen.commitment(
    opening.value.toString(),
    generator,
    fromDisplayHex(opening.valueBlindingFactor),
  );
  return { assetCommitment: generator, valueCommitment };
}
