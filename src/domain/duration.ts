/**
 * The one grammar of a duration, whichever flag or setting takes it (`--timeout`, the spans of
 * `--since`/`--until`, `expire-after`): as Go's and gh's, whole numbers each followed by a unit,
 * joined with nothing between them (`90s`, `10m`, `1h30m`, `2m30s`, `1d12h`). The units are `w`
 * (week), `d`, `h`, `m` and `s`, largest first, each at most once. No sign, no fraction, no space,
 * no exponent: `-5m`, `1.5h`, `1h 30m` and `30m1h` are refused, not guessed at.
 */
import type { Parsed } from './money.js';

const SECOND = 1000;
export const DURATION_UNIT_MS = {
  w: 7 * 24 * 3600 * SECOND,
  d: 24 * 3600 * SECOND,
  h: 3600 * SECOND,
  m: 60 * SECOND,
  s: SECOND,
} as const;
const UNITS = Object.keys(DURATION_UNIT_MS) as (keyof typeof DURATION_UNIT_MS)[];

/** Each unit at most once, largest first; every part optional here, at least one is checked below. */
const COMPOUND = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
/** More digits than this in one part is beyond any bound (and beyond exact arithmetic). */
const MAX_PART_DIGITS = 12;

/** What a flag or setting accepts: its bounds and how its refusal reads. */
export interface DurationRule {
  /** the least it takes, in ms (inclusive) */
  minMs: number;
  /** the most it takes, in ms (inclusive) */
  maxMs: number;
  /** whether a bare whole number is seconds (`--timeout 90`, as the contract has it) */
  bareSeconds?: boolean;
  /** the forms it takes, for the one line that refuses anything else */
  expected: string;
}

/** A duration in the one grammar to milliseconds, within the rule's bounds. */
export function readDuration(input: string, rule: DurationRule): Parsed<number> {
  const refused = { ok: false, expected: rule.expected } as const;
  const ms = rule.bareSeconds && /^\d+$/.test(input) ? partMs(input, 's') : compoundMs(input);
  if (ms === undefined || ms < rule.minMs || ms > rule.maxMs) return refused;
  return { ok: true, value: ms };
}

/** The sum of a compound's parts; undefined when it is not one (or a part is absurdly long). */
function compoundMs(input: string): number | undefined {
  const match = COMPOUND.exec(input);
  if (!match || input === '') return undefined;
  let total = 0;
  for (const [index, unit] of UNITS.entries()) {
    const digits = match[index + 1];
    if (digits === undefined) continue;
    const ms = partMs(digits, unit);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

function partMs(digits: string, unit: keyof typeof DURATION_UNIT_MS): number | undefined {
  if (digits.length > MAX_PART_DIGITS) return undefined;
  return Number(digits) * DURATION_UNIT_MS[unit];
}
