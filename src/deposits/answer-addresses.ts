/**
 * The addresses an answer names that lbrl did not send itself. An address lbrl sent (the request
 * just made, or the history's record of it) is compared exactly by the rule set; any other (a
 * deposit lbrl did not create, or one its history does not hold) is decoded here: a checksum that
 * fails, an address of another network, is a lie about where the money goes. The address codecs
 * are loaded only then, so a get of a recorded deposit loads nothing more.
 */
import type { Violation } from '../domain/deposit-rules/rule.js';
import type { Network } from '../domain/liquid/networks.js';

/** The fields of an answer that name an address, and what lbrl sent for each when it knows. */
export const ANSWER_ADDRESS_FIELDS = ['destinationAddress', 'splitAddress'] as const;
type AddressField = (typeof ANSWER_ADDRESS_FIELDS)[number];

/**
 * What lbrl sent for the deposit (or the first answer it checked), when it knows: an address or
 * null (no split) per field; a field left out is not known.
 */
export type SentAddresses = { readonly [field in AddressField]?: unknown };

/** The answer's addresses lbrl has nothing to compare with: [field, text]. */
function unsentAddresses(answer: unknown, sent: SentAddresses | undefined): [AddressField, string][] {
  if (typeof answer !== 'object' || answer === null) return [];
  const fields = answer as Record<string, unknown>;
  const unsent: [AddressField, string][] = [];
  for (const field of ANSWER_ADDRESS_FIELDS) {
    const value = fields[field];
    if (typeof value === 'string' && sent?.[field] === undefined) unsent.push([field, value]);
  }
  return unsent;
}

/**
 * Every address of the answer lbrl did not send that is no address of the profile's network
 * (of any Liquid network when the caller names none), as the rule set's violations.
 */
export async function addressProblems(
  answer: unknown,
  sent: SentAddresses | undefined,
  network: Network | undefined,
): Promise<Violation[]> {
  const unsent = unsentAddresses(answer, sent);
  if (unsent.length === 0) return [];
  const [{ checkLiquidAddress, decodeLiquidAddress }, { showValue }] = await Promise.all([
    import('../domain/liquid/address.js'),
    import('../domain/text/safe-text.js'),
  ]);
  const problems: Violation[] = [];
  for (const [field, text] of unsent) {
    const checked = network ? checkLiquidAddress(text, network) : decodeLiquidAddress(text);
    if (checked.ok) continue;
    const where = network ? `a Liquid address on ${network}` : 'a Liquid address';
    problems.push({ field, expected: `${where} (${checked.reason})`, received: showValue(text) });
  }
  return problems;
}
