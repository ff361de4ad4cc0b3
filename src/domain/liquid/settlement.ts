/**
 * Checking a deposit's settlement against the Liquid transaction that carries it. Pure: the
 * caller fetches the raw transaction, its status, the tip height and the asset's registry data
 * (src/deposits/chain-check.ts) and loads the secp256k1-zkp library; this decides what is proven,
 * what is not, and what contradicts the deposit. Nothing is reported as proven that was not checked.
 *
 * `analyseSettlement` (settlement/outputs.ts) reads the transaction; `judgeSettlement` here applies
 * each rule, one small check in the file named for its job (docs/verify.md says the same with numbers):
 * - confirmationCheck (settlement/timing.ts): the explorer's word; a block above its own tip is a
 *   contradiction.
 * - blockTimeChecks (timing.ts): a block older than the deposit's creation (less a clock margin)
 *   cannot hold its settlement.
 * - originChecks (settlement/addresses.ts): the addresses are lbrl's own request, or the service's
 *   claim matched against the profile's addresses (unproven when none matches, unless trusted).
 * - scriptCheck (addresses.ts): an address is paid when an output's script is the address's script.
 * - forgedOutputChecks (addresses.ts): an opening that does not match its commitments is a
 *   contradiction.
 * - settlementAsset (settlement/asset-check.ts): the pinned asset-id paid to every address, else the
 *   destination's (unpinned).
 * - precisionCheck (asset-check.ts): only a proven precision (registry contract, the profile, the
 *   network's asset).
 * - amountChecks (settlement/amounts.ts, split-pair.ts; exact shares in shares.ts): each script
 *   received at least its shares (the split may be rounded by less than a cent, the destination takes
 *   the rest; shares counted earlier from the same outputs by other deposits are added), and
 *   totalCheck: together the scripts received at least the nets.
 * The types they share are settlement/model.ts.
 */

import { forgedOutputChecks, originChecks, scriptCheck } from './settlement/addresses.js';
import { amountChecks } from './settlement/amounts.js';
import { precisionCheck, settlementAsset } from './settlement/asset-check.js';
import type {
  AddressFinding,
  Check,
  JudgeInput,
  SettlementAnalysis,
  SettlementReport,
  Verdict,
} from './settlement/model.js';
import { shareUsesOf } from './settlement/shares.js';
import { blockTimeChecks, confirmationCheck, confirmationsOf } from './settlement/timing.js';

export const DEFAULT_CONFIRMATIONS = 2;

function verdictOf(checks: Check[]): Verdict {
  if (checks.some((check) => check.outcome === 'mismatch')) return 'mismatch';
  if (checks.some((check) => check.what === 'confirmations' && check.outcome !== 'proven')) return 'pending';
  return checks.every((check) => check.outcome === 'proven') ? 'verified' : 'unproven';
}

function blindedFragmentOf(addresses: AddressFinding[]): string | null {
  const opened = addresses.flatMap((finding) => finding.outputs).filter((output) => output.opening);
  if (opened.length === 0) return null;
  return `#blinded=${opened.map((output) => `${output.opening!.value},${output.opening!.assetId},${output.opening!.valueBlindingFactor},${output.opening!.assetBlindingFactor}`).join(',')}`;
}

/**
 * The judgement: each rule is one check above, and the verdict the worst of them. The shares of
 * this run's deposits (with the outputs that paid them) are in the report, for the history.
 */
export function judgeSettlement(analysis: SettlementAnalysis, input: JudgeInput): SettlementReport {
  const required = input.requiredConfirmations ?? DEFAULT_CONFIRMATIONS;
  const earlier = (input.earlier ?? []).filter(
    (earlierShare) => !analysis.deposits.some((deposit) => deposit.id === earlierShare.depositId),
  );
  const asset = settlementAsset(analysis, input);
  const info = asset.id ? input.assets[asset.id] : undefined;
  const precision = info?.precisionFrom ? info.precision : undefined;
  const checks: Check[] = [
    ...analysis.problems,
    confirmationCheck(input, required),
    ...blockTimeChecks(analysis.deposits, input),
    ...originChecks(analysis.deposits),
    ...analysis.addresses.map((finding) => scriptCheck(finding, analysis)),
    ...forgedOutputChecks(analysis.addresses),
    asset.check,
    ...(asset.id ? [precisionCheck(asset.id, info)] : []),
    ...amountChecks(analysis, asset.id, precision, earlier),
  ];
  return {
    txid: analysis.txid,
    verdict: verdictOf(checks),
    confirmations: Math.max(0, confirmationsOf(input.status, input.tipHeight)),
    requiredConfirmations: required,
    asset: asset.id
      ? {
          id: asset.id,
          ticker: info?.ticker ?? null,
          precision: precision ?? null,
          pinned: !!input.expectedAssetId,
        }
      : null,
    checks,
    addresses: analysis.addresses,
    blindedFragment: blindedFragmentOf(analysis.addresses),
    shares: shareUsesOf(analysis),
  };
}

/**
 * The report as plain JSON (for `--json`): amounts as decimal strings of base units, and no
 * blinding factors (they reveal amounts; the explorer link carries them only when asked for).
 */
export function settlementReportJson(report: SettlementReport): Record<string, unknown> {
  return {
    txid: report.txid,
    verdict: report.verdict,
    confirmations: report.confirmations,
    requiredConfirmations: report.requiredConfirmations,
    asset: report.asset,
    checks: report.checks,
    outputs: report.addresses.flatMap((finding) =>
      finding.outputs.map((output) => ({
        role: finding.role,
        address: finding.address,
        index: output.index,
        confidential: output.confidential,
        opened: output.opened,
        assetId: output.assetId,
        value: output.value === null ? null : output.value.toString(),
      })),
    ),
  };
}
