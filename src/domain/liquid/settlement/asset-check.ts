/**
 * Which asset settled the deposit and in what precision: the profile's pinned asset-id paid to every
 * address (another asset is a contradiction), else the asset the destination got, said unpinned; and
 * the precision only from a source that proves it (the registry contract the id commits to, the
 * profile, or the network's own asset). `assetsToLookUp` names the assets whose registry data the
 * judgement needs.
 */
import type { AssetInfo, Check, JudgeInput, SettlementAnalysis } from './model.js';

/** The asset ids whose registry data the judgement needs (look them up with /asset/:id). */
export function assetsToLookUp(analysis: SettlementAnalysis, expectedAssetId?: string): string[] {
  const ids = new Set<string>();
  if (expectedAssetId) ids.add(expectedAssetId);
  for (const finding of analysis.addresses)
    for (const output of finding.outputs) if (output.assetId) ids.add(output.assetId);
  return [...ids];
}

interface AssetFinding {
  id: string | null;
  check: Check;
}

/** The pinned asset paid to every address, or the asset the destination got (not pinned). */
export function settlementAsset(analysis: SettlementAnalysis, input: JudgeInput): AssetFinding {
  const expected = input.expectedAssetId;
  if (expected) return pinnedAsset(analysis, expected, input);
  const destination = analysis.addresses.find((finding) => finding.role === 'destination');
  const destAssets = new Set(
    (destination?.outputs ?? []).flatMap((output) => (output.assetId === null ? [] : [output.assetId])),
  );
  if (destAssets.size === 1) {
    const id = [...destAssets][0]!;
    return {
      id,
      check: {
        what: 'asset',
        outcome: 'not-proven',
        detail: `the asset is ${label(id, input.assets[id])}, not pinned: set asset-id to check it`,
      },
    };
  }
  return {
    id: null,
    check: {
      what: 'asset',
      outcome: 'not-proven',
      detail:
        destAssets.size > 1
          ? 'the destination received several assets and no asset-id is set: the asset was not verified'
          : 'the outputs are confidential and were not unblinded: the asset was not verified',
    },
  };
}

function pinnedAsset(analysis: SettlementAnalysis, expected: string, input: JudgeInput): AssetFinding {
  // each paid address must have received the asset; one whose outputs are all open and carry
  // only other assets contradicts the deposit
  const paid = analysis.addresses
    .filter((finding) => finding.outputs.length > 0)
    .map((finding) => {
      const known = finding.outputs.filter((output) => output.assetId !== null);
      if (known.some((output) => output.assetId === expected))
        return { finding, state: 'ok' as const, known };
      if (known.length === finding.outputs.length) return { finding, state: 'other' as const, known };
      return { finding, state: 'closed' as const, known };
    });
  const other = paid.filter((entry) => entry.state === 'other');
  if (other.length > 0) {
    return {
      id: expected,
      check: {
        what: 'asset',
        outcome: 'mismatch',
        detail: `the ${other.map((entry) => entry.finding.role).join(' and ')} address${other.length > 1 ? 'es' : ''} received another asset than the profile's`,
        expected,
        actual: [...new Set(other.flatMap((entry) => entry.known.map((output) => output.assetId!)))].join(
          ', ',
        ),
      },
    };
  }
  if (paid.length > 0 && paid.every((entry) => entry.state === 'ok')) {
    return {
      id: expected,
      check: {
        what: 'asset',
        outcome: 'proven',
        detail: `the asset is ${label(expected, input.assets[expected])}, the profile's asset-id`,
      },
    };
  }
  const closed = paid.filter((entry) => entry.state === 'closed').map((entry) => entry.finding.role);
  return {
    id: expected,
    check: {
      what: 'asset',
      outcome: 'not-proven',
      detail:
        closed.length > 0
          ? `the ${closed.join(' and ')} address${closed.length > 1 ? "es'" : "'s"} outputs are confidential and were not unblinded: the asset was not verified`
          : 'no output pays the deposit: the asset was not verified',
    },
  };
}

const PRECISION_FROM: Record<NonNullable<AssetInfo['precisionFrom']>, string> = {
  contract: 'its registry contract (the asset id recomputed from the contract and its issuance)',
  profile: "the profile's asset-precision",
  network: "the network's own asset (8 decimals)",
};

/** The asset's precision, only from a source that proves it; a bare registry field does not. */
export function precisionCheck(assetId: string, info: AssetInfo | undefined): Check {
  if (info?.precision !== undefined && info.precisionFrom) {
    return {
      what: 'precision',
      outcome: 'proven',
      detail: `precision ${info.precision}, from ${PRECISION_FROM[info.precisionFrom]}${
        info.profilePrecision !== undefined && info.profilePrecision !== info.precision
          ? `; the profile's asset-precision ${info.profilePrecision} disagrees and is not used (lbrl config unset asset-precision)`
          : ''
      }`,
    };
  }
  return {
    what: 'precision',
    outcome: 'not-proven',
    detail:
      info?.claimedPrecision !== undefined
        ? `the explorer says precision ${info.claimedPrecision}, but no registry contract proves it (its id does not recompute): the asset's precision is unknown`
        : `the asset's precision is unknown: the explorer's registry has no contract for ${assetId}`,
  };
}

function label(id: string, info: AssetInfo | undefined): string {
  return info?.ticker ? `${info.ticker} (${id})` : id;
}
