/**
 * The deposit's addresses: where they came from (lbrl's own request, or the service's claim matched
 * against the profile's addresses), whether an output pays each one's script (an address owed less
 * than a cent, or nothing, may go unpaid), and outputs that open with a key but whose commitments
 * disagree (a forgery).
 */
import { addressScript } from '../script.js';
import { hexOf } from '../tx.js';
import type { AddressFinding, Check, SettlementAnalysis, SettlementDeposit } from './model.js';
import { depositShares } from './shares.js';

/** Where each deposit's addresses came from: lbrl's own request, or the service's word. */
export function originChecks(deposits: SettlementDeposit[]): Check[] {
  const checks: Check[] = [];
  for (const deposit of deposits) {
    const origin = deposit.origin;
    if (!origin) continue;
    const whose = deposits.length > 1 ? ` of deposit ${deposit.id}` : '';
    if (origin.kind === 'requested') {
      checks.push({
        what: 'origin',
        outcome: 'proven',
        detail: `the addresses${whose} are the ones lbrl asked for (local history)`,
      });
      continue;
    }
    const unknown = origin.addresses.filter((address) => address.knownAs === null);
    const claim = `lbrl has no record of deposit ${deposit.id}: its addresses are the service's claim`;
    if (unknown.length === 0) {
      const names = origin.addresses.map(
        (address) => `the ${address.role} address is the profile's ${address.knownAs}`,
      );
      checks.push({ what: 'origin', outcome: 'proven', detail: `${claim}; ${names.join(', ')}` });
    } else if (origin.trusted) {
      checks.push({
        what: 'origin',
        outcome: 'proven',
        detail: `${claim}, trusted with --trust-service-address (the ${unknown.map((address) => address.role).join(' and ')} address is none of the profile's)`,
      });
    } else {
      checks.push({
        what: 'origin',
        outcome: 'not-proven',
        detail: `${claim}, and the ${unknown.map((address) => `${address.role} address ${address.address}`).join(' and ')} is none of the profile's addresses: the money may have gone to a stranger`,
      });
    }
  }
  return checks;
}

/**
 * Whether an address may go without an output: every share due to its script is a split of
 * less than a cent (a split of 0.01% of R$ 14.85 is 0.1485 cents: rounded to the cent, none), or
 * a destination owed exactly nothing (a split of 100%). Said, not assumed: the amount checks still
 * judge what the other address received.
 */
export function mayGoUnpaid(analysis: SettlementAnalysis, finding: AddressFinding): boolean {
  const owed = analysis.deposits.flatMap((deposit) => {
    const address = finding.role === 'split' ? deposit.splitAddress : deposit.destinationAddress;
    const script = address ? addressScript(address) : null;
    if (!script?.ok || hexOf(script.value.script) !== finding.script) return [];
    const shares = depositShares(deposit);
    return [finding.role === 'split' ? shares.split : shares.destination];
  });
  // a split rounds to the cent, down to nothing when less than one; a destination is owed its
  // exact rest, so only a destination owed exactly nothing may go unpaid
  return (
    owed.length > 0 &&
    owed.every(
      (share) =>
        share === null || (finding.role === 'split' ? share.num * 100n < share.den : share.num === 0n),
    )
  );
}

/** Each address is paid by at least one output of its script, unless it may go unpaid. */
export function scriptCheck(finding: AddressFinding, analysis: SettlementAnalysis): Check {
  const { role, outputs } = finding;
  if (outputs.length > 0) {
    const many = outputs.length > 1;
    return {
      what: role,
      outcome: 'proven',
      detail: `output${many ? 's' : ''} ${outputs.map((output) => output.index).join(', ')} pay${many ? '' : 's'} the ${role} address's script`,
    };
  }
  if (mayGoUnpaid(analysis, finding)) {
    return {
      what: role,
      outcome: 'proven',
      detail:
        role === 'split'
          ? 'no output pays the split address: its share is less than a cent, so nothing may be due'
          : 'no output pays the destination address: the split takes the whole net',
    };
  }
  return {
    what: role,
    outcome: 'mismatch',
    detail: `no output pays the ${role} address ${finding.address}`,
    expected: `an output to script ${finding.script}`,
    actual: 'none',
  };
}

/** An output that opens with the key but whose commitments disagree is a forgery. */
export function forgedOutputChecks(addresses: AddressFinding[]): Check[] {
  return addresses.flatMap((finding) =>
    finding.outputs
      .filter((output) => output.opened === 'forged')
      .map(
        (output): Check => ({
          what: `${finding.role}-amount`,
          outcome: 'mismatch',
          detail: `output ${output.index} opens with the key, but ${output.note ?? 'its commitments do not match'}`,
        }),
      ),
  );
}
