/**
 * Exact amounts: each deposit's shares in reais as fractions (the split's, net x split, and the
 * destination's rest), turned into the asset's base units, compared with what was received with or
 * without a tolerance, and printed in the asset's precision. No floating point: the service's
 * figures are read as decimals, and every sum is a fraction of big integers. Also what a split may
 * be rounded to (the unit or the cent, either way).
 */
import { type Decimal, decimalFromNumber } from '../../decimal.js';
import type { Fraction, ReaisShare, SettlementAnalysis, SettlementDeposit, ShareUse } from './model.js';

function decimalOf(figure: number): Decimal {
  const decimal = decimalFromNumber(figure);
  if (!decimal) throw new Error(`not a finite number: ${figure}`);
  return decimal;
}

export function toUnits(share: ReaisShare, precision: number): Fraction {
  return { num: share.num * 10n ** BigInt(precision), den: share.den };
}

export function addFractions(a: Fraction, b: Fraction): Fraction {
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

/** Units as a decimal in the asset's precision: 1450000000 at 8 is 14.50000000. */
export function formatUnits(units: bigint, precision: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(precision + 1, '0');
  const whole = digits.slice(0, digits.length - precision);
  const frac = precision > 0 ? `.${digits.slice(digits.length - precision)}` : '';
  return `${negative ? '-' : ''}${whole}${frac}`;
}

export function formatFraction(fraction: Fraction, precision: number): string {
  if (fraction.num % fraction.den === 0n) return formatUnits(fraction.num / fraction.den, precision);
  const floor = fraction.num / fraction.den;
  return `${formatUnits(floor, precision)}…${formatUnits(floor + 1n, precision)}`;
}

/** received - due, scaled by due.den (exact). */
function excess(received: bigint, due: Fraction): bigint {
  return received * due.den - due.num;
}

/** Short by less than the tolerance (none: not short at all). More than due is not short. */
export function notShort(received: bigint, due: Fraction, tolerance: bigint): boolean {
  const diff = excess(received, due);
  return tolerance === 0n ? diff >= 0n : diff > -tolerance * due.den;
}

/** More than due by at least the tolerance (or at all, with none): the rest is left for other shares. */
export function beyond(received: bigint, due: Fraction, tolerance: bigint): boolean {
  const diff = excess(received, due);
  return tolerance === 0n ? diff > 0n : diff >= tolerance * due.den;
}

/**
 * How far a split share may be from its exact value: less than one cent (the service counts in
 * cents, so it may round the split to the cent, or to the unit, either way), or less than one
 * base unit for an asset of fewer than 2 decimals. The destination takes the rest, exactly.
 */
export function splitRounding(precision: number): bigint {
  return precision >= 2 ? 10n ** BigInt(precision - 2) : 1n;
}

/** The two shares of one deposit, in reais: the split's and the destination's, which add up to the net. */
export function depositShares(deposit: SettlementDeposit): {
  destination: ReaisShare;
  split: ReaisShare | null;
} {
  const net = decimalOf(deposit.netAmount);
  const netShare = { num: net.units, den: 10n ** BigInt(net.scale) };
  if (!deposit.splitAddress || deposit.splitPercent === null || deposit.splitPercent === undefined) {
    return { destination: netShare, split: null };
  }
  const pct = decimalOf(deposit.splitPercent);
  const den = 10n ** BigInt(net.scale + pct.scale);
  const split = { num: net.units * pct.units, den };
  return { destination: { num: net.units * 10n ** BigInt(pct.scale) - split.num, den }, split };
}

export function shareUsesOf(analysis: SettlementAnalysis): ShareUse[] {
  const uses: ShareUse[] = [];
  for (const deposit of analysis.deposits) {
    const { destination, split } = depositShares(deposit);
    const parts: Array<['destination' | 'split', string, ReaisShare]> = [
      ['destination', deposit.destinationAddress, destination],
    ];
    if (split && deposit.splitAddress) parts.push(['split', deposit.splitAddress, split]);
    for (const [role, address, share] of parts) {
      const finding = analysis.addresses.find(
        (candidate) => candidate.role === role && candidate.address === address,
      );
      if (!finding) continue;
      uses.push({
        depositId: deposit.id,
        role,
        script: finding.script,
        outputs: finding.outputs.map((output) => output.index),
        share,
        rounded: split !== null,
      });
    }
  }
  return uses;
}

/** The split's exact share rounded down and up to the unit, and, with cents, to the cent. */
export function roundingsOf(exact: Fraction, precision: number): bigint[] {
  const floor = exact.num / exact.den;
  const whole = exact.num % exact.den === 0n;
  const out = new Set([floor, whole ? floor : floor + 1n]);
  if (precision >= 2) {
    const cent = 10n ** BigInt(precision - 2);
    const floorCent = exact.num / (exact.den * cent);
    out.add(floorCent * cent);
    out.add(exact.num % (exact.den * cent) === 0n ? floorCent * cent : (floorCent + 1n) * cent);
  }
  return [...out].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}
