/**
 * Checking deposits' settlements on chain: each deposit is read through the one checked get,
 * its settlement.liquidTxid looked up on an Esplora server, and deposits settled by one
 * transaction judged together (their shares to one script are summed). Nothing here prints;
 * the outcome of each deposit says what was proven and what was not.
 */
import type { CheckedSettlement, CheckSettlementInput } from '../api/esplora.js';
import type { GetResponse } from '../api/models.js';
import type { BlindingKeys, SettlementDeposit, SettlementReport } from '../domain/liquid-settlement.js';
import type { Network } from '../domain/networks.js';
import { LbrlError } from '../errors.js';
import { getChecked } from './answers.js';
import type { DepositApi } from './ports.js';

/** Looks a settlement up on the explorer and judges it (checkSettlement with its client). */
export type SettlementChecker = (input: CheckSettlementInput) => Promise<CheckedSettlement>;

export interface VerifySettings {
  network: Network;
  /** the profile's asset-id: the asset is pinned when set */
  assetId?: string | undefined;
  confirmations: number;
  keys: BlindingKeys;
}

/**
 * verified, unproven, pending and mismatch are the settlement's verdicts; `not-settled` has no
 * txid yet and `not-found` is a txid the explorer does not know: both are pending for an exit code.
 */
export type VerifyOutcome = SettlementReport['verdict'] | 'not-settled' | 'not-found';

export interface DepositOutcome {
  id: string;
  deposit: GetResponse;
  outcome: VerifyOutcome;
  txid: string | null;
  report: SettlementReport | null;
  /** the other deposits settled by the same transaction */
  settledWith: string[];
}

function settlementDeposit(d: GetResponse): SettlementDeposit {
  return {
    id: d.id,
    destinationAddress: d.destinationAddress,
    splitAddress: d.splitAddress ?? null,
    splitPercent: d.splitPercent ?? null,
    netAmount: d.netAmount,
    amountInCents: d.amountInCents,
  };
}

/** Settlements of deposits already read, judged; transactions shared by several are judged once. */
export async function verifySettlements(
  check: SettlementChecker,
  deposits: GetResponse[],
  settings: VerifySettings,
): Promise<DepositOutcome[]> {
  const byTxid = new Map<string, GetResponse[]>();
  for (const d of deposits) {
    const txid = d.settlement?.liquidTxid?.toLowerCase();
    if (!txid) continue;
    const group = byTxid.get(txid) ?? [];
    if (!group.some((g) => g.id === d.id)) group.push(d);
    byTxid.set(txid, group);
  }
  const judged = new Map<string, SettlementReport | null>();
  for (const [txid, group] of byTxid) {
    const checked = await check({
      txid,
      network: settings.network,
      deposits: group.map(settlementDeposit),
      keys: settings.keys,
      expectedAssetId: settings.assetId,
      requiredConfirmations: settings.confirmations,
    });
    judged.set(txid, checked.found ? checked.report : null);
  }
  return deposits.map((deposit) => {
    const txid = deposit.settlement?.liquidTxid?.toLowerCase() ?? null;
    if (!txid)
      return { id: deposit.id, deposit, outcome: 'not-settled', txid, report: null, settledWith: [] };
    const report = judged.get(txid) ?? null;
    const settledWith = (byTxid.get(txid) ?? []).filter((g) => g.id !== deposit.id).map((g) => g.id);
    return {
      id: deposit.id,
      deposit,
      outcome: report ? report.verdict : 'not-found',
      txid,
      report,
      settledWith,
    };
  });
}

/** Read each deposit through the checked get (an unknown id is exit 4), then verify them. */
export async function verifyDeposits(
  api: DepositApi,
  check: SettlementChecker,
  ids: string[],
  settings: VerifySettings,
): Promise<DepositOutcome[]> {
  const deposits: GetResponse[] = [];
  for (const id of ids) deposits.push((await getChecked(api, id)).value);
  return verifySettlements(check, deposits, settings);
}

/**
 * The error that ends a run whose deposits were not all verified, or undefined when they were.
 * The worst outcome decides: mismatch (1), then unproven (7: something to add), then pending (8:
 * try again later).
 */
export function verifyError(outcomes: DepositOutcome[]): LbrlError | undefined {
  const ids = (pick: (o: DepositOutcome) => boolean) => outcomes.filter(pick).map((o) => o.id);
  const mismatch = ids((o) => o.outcome === 'mismatch');
  if (mismatch.length > 0) {
    return new LbrlError(
      `the settlement of deposit ${mismatch.join(', ')} contradicts the deposit: ${mismatch.length === 1 ? firstMismatch(outcomes.find((o) => o.id === mismatch[0])!) : 'see above'}`,
      'mismatch',
    );
  }
  const unproven = outcomes.filter((o) => o.outcome === 'unproven');
  if (unproven.length > 0) {
    return new LbrlError(
      `the settlement of deposit ${unproven.map((o) => o.id).join(', ')} could not be fully verified; nothing contradicts it`,
      'unproven',
      whatToAdd(unproven),
    );
  }
  const pending = outcomes.filter(
    (o) => o.outcome === 'pending' || o.outcome === 'not-found' || o.outcome === 'not-settled',
  );
  if (pending.length > 0) {
    const why = (o: DepositOutcome) =>
      o.outcome === 'not-settled'
        ? 'not settled yet'
        : o.outcome === 'not-found'
          ? 'its transaction is not known to the explorer'
          : 'not yet confirmed deeply enough';
    const reasons = [...new Set(pending.map(why))].join(', or ');
    return new LbrlError(
      `the settlement of deposit ${pending.map((o) => o.id).join(', ')} cannot be verified yet (${reasons}); try again later`,
      'settlement_pending',
    );
  }
  return undefined;
}

function firstMismatch(o: DepositOutcome): string {
  const c = o.report?.checks.find((x) => x.outcome === 'mismatch');
  if (!c) return 'see above';
  return c.expected !== undefined && c.actual !== undefined
    ? `${c.what}: expected ${c.expected}, found ${c.actual}`
    : c.detail;
}

/** What would let an unproven settlement be verified. */
export function whatToAdd(outcomes: DepositOutcome[]): string {
  const checks = outcomes.flatMap((o) => o.report?.checks ?? []).filter((c) => c.outcome === 'not-proven');
  const hints: string[] = [];
  if (checks.some((c) => /blinding key|confidential|did not open/.test(c.detail)))
    hints.push('add the blinding key: lbrl config set-blinding-key [--address <address>] < key.txt');
  if (checks.some((c) => c.what === 'asset' && /not pinned|asset-id/.test(c.detail)))
    hints.push('pin the asset: lbrl config set asset-id <64 hex>');
  if (checks.some((c) => /precision is unknown/.test(c.detail)))
    hints.push("the explorer's asset registry does not know the asset's precision");
  return hints.length > 0 ? hints.join('; ') : 'see the checks above';
}
