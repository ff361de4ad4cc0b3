/**
 * A deposit paid the plain way, its split and its destination each on a script of their own that no
 * other share uses: the exact rule. The split received its share rounded to the unit or the cent,
 * either way, and the destination the rest of the net, less what the split received.
 */
import type { AddressFinding, Check, EarlierShare, Fraction, SettlementAnalysis, ShareUse } from './model.js';
import { amountReceived } from './outputs.js';
import { beyond, formatFraction, formatUnits, notShort, roundingsOf, toUnits } from './shares.js';

/** A deposit whose split share and destination share each have a script of their own. */
interface SplitPair {
  split: ShareUse;
  destination: ShareUse;
}

/**
 * The deposits paid the plain way: the split's script and the destination's script each carry
 * that one share (no other deposit's, none counted earlier). Their rule is exact: the split is
 * its share rounded to the unit or the cent, either way, and the destination gets the rest.
 */
export function splitPairs(uses: ShareUse[], earlier: EarlierShare[]): Map<string, SplitPair> {
  const count = new Map<string, number>();
  for (const use of [...uses, ...earlier]) count.set(use.script, (count.get(use.script) ?? 0) + 1);
  const pairs = new Map<string, SplitPair>();
  for (const split of uses.filter((use) => use.role === 'split')) {
    const destination = uses.find((use) => use.role === 'destination' && use.depositId === split.depositId);
    if (!destination || destination.script === split.script) continue;
    if (count.get(split.script) !== 1 || count.get(destination.script) !== 1) continue;
    const pair = { split, destination };
    pairs.set(split.script, pair);
    pairs.set(destination.script, pair);
  }
  return pairs;
}

/** A split paid alone: its exact share, or that share rounded to the unit or the cent, either way. */
function splitShareCheck(got: bigint, exact: Fraction, precision: number): Check {
  const allowed = roundingsOf(exact, precision);
  const shown = formatUnits(got, precision);
  const expected = allowed.map((x) => formatUnits(x, precision)).join(' or ');
  const ok = allowed.includes(got);
  return {
    what: 'split-amount',
    outcome: ok ? 'proven' : 'mismatch',
    detail: ok
      ? `the split address received ${shown}, as due${got * exact.den === exact.num ? '' : ` (${formatFraction(exact, precision)} rounded)`}`
      : `the split address received ${shown}, but ${expected} was due (${formatFraction(exact, precision)}, rounded to the unit or the cent)`,
    expected,
    actual: shown,
  };
}

/** The destination of a split deposit gets the rest: the net less what the split received. */
function restCheck(got: bigint, net: Fraction, splitPaid: bigint, precision: number): Check {
  const due = { num: net.num - splitPaid * net.den, den: net.den };
  const ok = notShort(got, due, due.num % due.den === 0n ? 0n : 1n);
  const shown = formatUnits(got, precision);
  const expected = formatFraction(due, precision);
  const rest = `the net ${formatFraction(net, precision)} less the split's ${formatUnits(splitPaid, precision)}`;
  return {
    what: 'destination-amount',
    outcome: ok ? 'proven' : 'mismatch',
    detail: !ok
      ? `the destination address received ${shown}, but ${expected} was due (${rest})`
      : beyond(got, due, 0n)
        ? `the destination address received ${shown}, more than the ${expected} due (${rest})`
        : `the destination address received ${shown}, as due (${rest})`,
    expected,
    actual: shown,
  };
}

export function pairCheck(
  finding: AddressFinding,
  pair: SplitPair,
  analysis: SettlementAnalysis,
  assetId: string,
  precision: number,
): Check | null {
  const got = amountReceived(finding, assetId);
  if (finding.role === 'split') return splitShareCheck(got, toUnits(pair.split.share, precision), precision);
  const split = analysis.addresses.find((candidate) => candidate.script === pair.split.script);
  if (!split || split.outputs.some((output) => output.assetId === null || output.value === null)) return null;
  const net = toUnits(
    {
      num:
        pair.destination.share.num * pair.split.share.den + pair.split.share.num * pair.destination.share.den,
      den: pair.destination.share.den * pair.split.share.den,
    },
    precision,
  );
  return restCheck(got, net, amountReceived(split, assetId), precision);
}
