/**
 * Looking a settlement up on an explorer and judging it: the explorer client only carries the
 * answers (src/api/esplora.ts); what they prove is decided here and in src/domain. The asset's
 * precision is taken only from a source that proves it: the registry contract its id commits to,
 * the profile's `asset-precision`, or 8 for the network's own asset.
 */
import type { EsploraAsset, EsploraClient, EsploraTxStatus } from '../api/esplora.js';
import { provenPrecision } from '../domain/liquid/asset.js';
import { type Network, POLICY_ASSET } from '../domain/liquid/networks.js';
import { assetsToLookUp } from '../domain/liquid/settlement/asset-check.js';
import {
  type AssetInfo,
  type BlindingKeys,
  type EarlierShare,
  type SettlementDeposit,
  type SettlementReport,
  txStatusOf,
} from '../domain/liquid/settlement/model.js';
import { analyseSettlement } from '../domain/liquid/settlement/outputs.js';
import { judgeSettlement } from '../domain/liquid/settlement.js';
import { TxParseError } from '../domain/liquid/tx.js';
import { loadZkp } from '../domain/liquid/unblind.js';
import { LbrlError } from '../errors.js';

/** The explorer calls a settlement check makes (EsploraClient has them; a test hands its own). */
export type SettlementExplorer = Pick<
  EsploraClient,
  'getTxStatus' | 'getTipHeight' | 'getTxHex' | 'getAsset'
>;

export type SettlementLookup =
  | { found: false }
  | { found: true; hex: string; status: EsploraTxStatus; tipHeight: number };

/**
 * What verifying a settlement needs from the explorer: the status first, then the tip (so the
 * tip is never older than the block that confirmed it), then the raw transaction.
 */
export async function lookUpSettlement(client: SettlementExplorer, txid: string): Promise<SettlementLookup> {
  const status = await client.getTxStatus(txid);
  if (!status) return { found: false };
  const tipHeight = await client.getTipHeight();
  const hex = await client.getTxHex(txid);
  if (hex === null) return { found: false };
  return { found: true, hex, status, tipHeight };
}

export interface CheckSettlementInput {
  /** settlement.liquidTxid */
  txid: string;
  network: Network;
  /** the deposits this transaction settles (usually one) */
  deposits: SettlementDeposit[];
  keys?: BlindingKeys | undefined;
  /** the profile's `asset-id`, in its one form (lower case: read as the setting is read) */
  expectedAssetId?: string | undefined;
  /** the profile's `asset-precision`, for the asset-id when no registry contract proves it */
  assetPrecision?: number | undefined;
  requiredConfirmations?: number | undefined;
  /** shares of other deposits the history counted from this transaction */
  earlier?: EarlierShare[] | undefined;
}

export type CheckedSettlement = { found: false } | { found: true; report: SettlementReport };

/**
 * What an asset's registry answer proves: its precision only when the id recomputes from the
 * contract and issuance prevout; else 8 for the network's own asset (a profile's asset-precision
 * that says otherwise is shown, never used); else the profile's precision for the pinned asset; else nothing (a bare `precision` is kept only to be shown).
 */
export function assetInfo(
  id: string,
  answer: EsploraAsset | null,
  context: { network: Network; expectedAssetId?: string | undefined; assetPrecision?: number | undefined },
): AssetInfo {
  const info: AssetInfo = {
    ticker: answer?.ticker ?? undefined,
    name: answer?.name ?? undefined,
    domain: answer?.entity?.domain ?? undefined,
  };
  const proven = answer ? provenPrecision(id, answer) : undefined;
  const policy = POLICY_ASSET[context.network];
  if (proven !== undefined) {
    info.precision = proven;
    info.precisionFrom = 'contract';
    if (context.assetPrecision !== undefined && context.assetPrecision !== proven)
      info.profilePrecision = context.assetPrecision;
  } else if (id === policy.id) {
    // the network's own asset counts in satoshis whatever the profile says
    info.precision = 8;
    info.precisionFrom = 'network';
    info.ticker ??= policy.ticker;
    if (
      context.assetPrecision !== undefined &&
      context.assetPrecision !== 8 &&
      id === context.expectedAssetId
    )
      info.profilePrecision = context.assetPrecision;
  } else if (context.assetPrecision !== undefined && id === context.expectedAssetId) {
    info.precision = context.assetPrecision;
    info.precisionFrom = 'profile';
  } else if (answer?.precision !== undefined) {
    info.claimedPrecision = answer.precision;
  }
  return info;
}

/**
 * Look a settlement up and judge it: the raw transaction, its status and the tip; the blinding
 * library only when a key was given; the registry data of the assets involved. A transaction the
 * explorer does not know is `found: false` (not yet broadcast, or never): never a pass.
 * A raw transaction that cannot be read is the explorer's fault: a contract error (exit 1).
 */
export async function checkSettlement(
  client: SettlementExplorer,
  input: CheckSettlementInput,
): Promise<CheckedSettlement> {
  const found = await lookUpSettlement(client, input.txid);
  if (!found.found) return { found: false };
  const hasKeys = (input.keys?.outputKeys?.length ?? 0) + (input.keys?.masterBlindingKeys?.length ?? 0) > 0;
  const zkp = hasKeys ? await loadZkp() : null;
  let analysis: ReturnType<typeof analyseSettlement>;
  try {
    analysis = analyseSettlement({
      txid: input.txid,
      txHex: found.hex,
      network: input.network,
      deposits: input.deposits,
      ...(input.keys ? { keys: input.keys } : {}),
      zkp,
    });
  } catch (error) {
    if (error instanceof TxParseError) {
      throw new LbrlError(
        `the explorer's raw transaction ${input.txid} cannot be read: ${error.message}`,
        'contract',
      );
    }
    throw error;
  }
  const assets: Record<string, AssetInfo | undefined> = {};
  for (const id of assetsToLookUp(analysis, input.expectedAssetId)) {
    assets[id] = assetInfo(id, await client.getAsset(id), input);
  }
  const report = judgeSettlement(analysis, {
    status: txStatusOf(found.status),
    tipHeight: found.tipHeight,
    expectedAssetId: input.expectedAssetId,
    requiredConfirmations: input.requiredConfirmations,
    assets,
    earlier: input.earlier,
  });
  return { found: true, report };
}
