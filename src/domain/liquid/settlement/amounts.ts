/**
 * What each address received against what was due: each script's due is the sum of the shares paid
 * to it (this run's deposits and those counted earlier from the same outputs), less the split's
 * rounding per rounded share; together the scripts must have received the nets, to the unit. An
 * amount that cannot be judged (closed outputs, unknown asset or precision) is said, never assumed.
 */
import { mayGoUnpaid } from './addresses.js';
import type {
  AddressFinding,
  Check,
  EarlierShare,
  Fraction,
  OutputFinding,
  ReaisShare,
  SettlementAnalysis,
  ShareUse,
} from './model.js';
import { amountReceived, NO_KEY, PARTLY_BLINDED } from './outputs.js';
import {
  addFractions,
  beyond,
  formatFraction,
  formatUnits,
  notShort,
  shareUsesOf,
  splitRounding,
  toUnits,
} from './shares.js';
import { pairCheck, splitPairs } from './split-pair.js';

/** What each script of the transaction is due: the shares summed into it, this run's and earlier ones. */
interface ScriptDue {
  role: 'destination' | 'split';
  due: Fraction;
  /** shares carrying a split's rounding */
  rounded: number;
  /** of those, earlier deposits' shares whose partner share may lie on a script outside this run */
  earlierRounded: number;
  /** earlier deposits whose shares were counted from the same outputs */
  earlier: string[];
}

function duesByScript(uses: ShareUse[], earlier: EarlierShare[], precision: number): Map<string, ScriptDue> {
  const due = new Map<string, ScriptDue>();
  const add = (script: string, role: ScriptDue['role'], share: ReaisShare, rounded: boolean, by?: string) => {
    const prev = due.get(script);
    const units = toUnits(share, precision);
    const extra = rounded && by ? 1 : 0;
    const next: ScriptDue = prev
      ? {
          ...prev,
          due: addFractions(prev.due, units),
          rounded: prev.rounded + (rounded ? 1 : 0),
          earlierRounded: prev.earlierRounded + extra,
        }
      : { role, due: units, rounded: rounded ? 1 : 0, earlierRounded: extra, earlier: [] };
    if (by && !next.earlier.includes(by)) next.earlier = [...next.earlier, by];
    due.set(script, next);
  };
  for (const use of uses) add(use.script, use.role, use.share, use.rounded);
  for (const earlierShare of earlier)
    if (due.has(earlierShare.script))
      add(
        earlierShare.script,
        earlierShare.role,
        earlierShare.share,
        earlierShare.rounded,
        earlierShare.depositId,
      );
  return due;
}

/** Closed outputs said by why each stayed closed (the same reason once, for all its outputs). */
function closedAmountCheck(finding: AddressFinding, closed: OutputFinding[]): Check {
  const byReason = new Map<string, number[]>();
  for (const output of closed) {
    const reason = output.note ?? NO_KEY;
    byReason.set(reason, [...(byReason.get(reason) ?? []), output.index]);
  }
  const parts = [...byReason].map(([reason, indexes]) => {
    const many = indexes.length > 1;
    const verb =
      reason === PARTLY_BLINDED ? (many ? 'are' : 'is') : `${many ? 'are' : 'is'} confidential and`;
    return `output${many ? 's' : ''} ${indexes.join(', ')} to the ${finding.role} address ${verb} ${reason}`;
  });
  return {
    what: `${finding.role}-amount`,
    outcome: 'not-proven',
    detail: `${parts.join('; ')}: the amount was not verified`,
  };
}

function withEarlier(earlier: string[]): string {
  return earlier.length > 0
    ? ` (with the share of deposit ${earlier.join(', ')}, counted earlier from the same outputs)`
    : '';
}

/**
 * Each script received at least what its shares sum to, less than the split's rounding per
 * rounded share. More is not a contradiction (one output may pay several deposits); what an
 * output paid to one deposit is counted for it, and only the rest is left for another.
 */
function amountCheck(finding: AddressFinding, assetId: string, precision: number, due: ScriptDue): Check {
  const got = amountReceived(finding, assetId);
  const tolerance = BigInt(due.rounded) * splitRounding(precision);
  const ok = notShort(got, due.due, tolerance);
  const expected = formatFraction(due.due, precision);
  const shown = formatUnits(got, precision);
  return {
    what: `${finding.role}-amount`,
    outcome: ok ? 'proven' : 'mismatch',
    detail: !ok
      ? `the ${finding.role} address received ${shown}, but ${expected} was due${withEarlier(due.earlier)}`
      : beyond(got, due.due, tolerance)
        ? `the ${finding.role} address received ${shown}, more than the ${expected} due${withEarlier(due.earlier)}`
        : `the ${finding.role} address received ${shown}, as due${withEarlier(due.earlier)}`,
    expected,
    actual: formatUnits(got, precision),
  };
}

/**
 * The scripts together received the deposits' net amounts, to the unit: a split and its
 * destination share add up to the net, so a cent lost between them, or across a group of
 * deposits, is a mismatch whatever each share's rounding allowed.
 */
function totalCheck(
  addresses: AddressFinding[],
  assetId: string,
  precision: number,
  dues: Map<string, ScriptDue>,
): Check | null {
  const scripts = [...new Set(addresses.map((finding) => finding.script))];
  if (scripts.length < 2 && [...dues.values()].every((scriptDue) => scriptDue.rounded === 0)) return null;
  let due: Fraction = { num: 0n, den: 1n };
  let got = 0n;
  let partnersOutside = 0;
  const earlier = new Set<string>();
  for (const script of scripts) {
    const scriptDue = dues.get(script);
    if (!scriptDue) continue;
    due = addFractions(due, scriptDue.due);
    partnersOutside += scriptDue.earlierRounded;
    for (const depositId of scriptDue.earlier) earlier.add(depositId);
    got += amountReceived(addresses.find((finding) => finding.script === script)!, assetId);
  }
  // not short at all when the nets are whole units (whole cents, precision >= 2); else by less than
  // a unit; an earlier deposit's share whose split partner is not here carries its rounding
  const rounding = BigInt(partnersOutside) * splitRounding(precision);
  const ok = notShort(got, due, rounding + (due.num % due.den === 0n ? 0n : 1n));
  const expected = formatFraction(due, precision);
  return {
    what: 'total',
    outcome: ok ? 'proven' : 'mismatch',
    detail: ok
      ? `together the addresses received ${formatUnits(got, precision)}, at least the net amount${withEarlier([...earlier])}`
      : `together the addresses received ${formatUnits(got, precision)}, but the net amount is ${expected}${withEarlier([...earlier])}`,
    expected,
    actual: formatUnits(got, precision),
  };
}

/** What each address received: judged when its outputs are open and the asset and precision known. */
export function amountChecks(
  analysis: SettlementAnalysis,
  assetId: string | null,
  precision: number | undefined,
  earlier: EarlierShare[],
): Check[] {
  const checks: Check[] = [];
  const uses = shareUsesOf(analysis);
  const dues =
    precision === undefined ? new Map<string, ScriptDue>() : duesByScript(uses, earlier, precision);
  const pairs = splitPairs(uses, earlier);
  const judged = new Set<string>();
  // the total is judged only when every address's amount could be
  let allOpen = true;
  for (const finding of analysis.addresses) {
    if (finding.outputs.length === 0 && mayGoUnpaid(analysis, finding)) continue;
    if (
      finding.outputs.length === 0 ||
      finding.outputs.some((output) => output.opened === 'forged') ||
      judged.has(finding.script)
    ) {
      allOpen = false;
      continue;
    }
    judged.add(finding.script);
    const unknown = unknownAmountCheck(finding, assetId, precision === undefined ? undefined : dues);
    if (unknown || !assetId || precision === undefined) {
      allOpen = false;
      if (unknown) checks.push(unknown);
      continue;
    }
    const pair = pairs.get(finding.script);
    const exact = pair ? pairCheck(finding, pair, analysis, assetId, precision) : null;
    checks.push(exact ?? amountCheck(finding, assetId, precision, dues.get(finding.script)!));
  }
  if (allOpen && assetId && precision !== undefined) {
    const total = totalCheck(analysis.addresses, assetId, precision, dues);
    if (total) checks.push(total);
  }
  return checks;
}

/**
 * Why an address's amount cannot be judged: outputs that stayed confidential, an unknown asset, or
 * a precision unknown (`dues` undefined) or no share due to its script; null when it can be.
 */
function unknownAmountCheck(
  finding: AddressFinding,
  assetId: string | null,
  dues: Map<string, ScriptDue> | undefined,
): Check | null {
  const what = `${finding.role}-amount` as const;
  const closed = finding.outputs.filter((output) => output.assetId === null || output.value === null);
  if (closed.length > 0) return closedAmountCheck(finding, closed);
  if (!assetId)
    return {
      what,
      outcome: 'not-proven',
      detail: 'the settlement asset is unknown: the amount was not verified',
    };
  if (dues === undefined || !dues.get(finding.script)) {
    const got = amountReceived(finding, assetId);
    return {
      what,
      outcome: 'not-proven',
      detail: `received ${got} base units; the asset's precision is unknown, so the amount was not verified`,
      actual: `${got} units`,
    };
  }
  return null;
}
