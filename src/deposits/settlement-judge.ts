/**
 * Reconcile's judge of settlements: every settlement transaction met while reading the addresses
 * is judged for the deposits of the history naming it (whatever their profile or service) by
 * verify's own rules, with the shares verifications recorded, so reconcile and verify never say two
 * things of one transaction. Also which transaction lbrl knows settled a deposit (`settlementTxidOf`).
 */

import type { Network } from '../domain/liquid/networks.js';
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
import type { Zkp } from '../domain/liquid/unblind.js';
import type { HistoryEntry, StoredShare } from '../store/history-records.js';
import { shownStatus } from './ledger.js';
import type { ListedTx } from './receipts.js';
import { earlierShares } from './verify.js';

/** What verifications recorded, by deposit: the transaction and the outputs each counted. */
export type RecordedShares = Map<string, { txid: string; shares: StoredShare[] }>;

/**
 * The settlement transaction lbrl knows of a deposit: its final answer's, else the one a
 * verification proved. As the history recorded it: a txid edited into another form names no
 * transaction listed, so its share is not found rather than found in the wrong place.
 */
export function settlementTxidOf(entry: HistoryEntry, recorded?: RecordedShares): string | undefined {
  const settlement = entry.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  if (typeof settlement?.liquidTxid === 'string') return settlement.liquidTxid;
  return recorded?.get(entry.id)?.txid;
}

/** The deposit as the settlement judge reads it: lbrl's own request and creation time. */
function settlementDepositOf(entry: HistoryEntry): SettlementDeposit | undefined {
  const net = entry.answer?.netAmount;
  if (typeof net !== 'number' || !Number.isFinite(net)) return undefined;
  const percent = entry.answer?.splitPercent;
  return {
    id: entry.id,
    destinationAddress: entry.destinationAddress,
    splitAddress: entry.splitAddress,
    splitPercent: typeof percent === 'number' ? percent : null,
    netAmount: net,
    amountInCents: entry.amountInCents,
    createdAt: entry.at,
    origin: { kind: 'requested' },
  };
}

/** What judging settlements needs besides the transactions: the profile's chain settings. */
export interface JudgeSettings {
  network: Network;
  assetId: string;
  /** the pinned asset's registry data, its precision proven */
  asset: AssetInfo;
  keys: BlindingKeys;
  zkp: Zkp | null;
  /** the profile's confirmations setting: verify's */
  requiredConfirmations: number;
}

/**
 * The judge of every settlement transaction met while reading the addresses: the deposits naming
 * it (whatever their profile or service: one output pays one deposit across them all) are judged
 * by verify's own rules (`analyseSettlement`, `judgeSettlement`). A deposit a verification
 * recorded is judged with the others' recorded shares, as a verification again would be (its
 * outputs stay its own); the others together, as `deposit verify` of them all in one run would
 * judge them, counting every recorded share as taken.
 */
export function settlementJudge(
  deposits: HistoryEntry[],
  recorded: RecordedShares,
  settings: JudgeSettings,
): { onTransaction(tx: ListedTx): void; judged: Map<string, SettlementReport> } {
  const byTxid = new Map<string, HistoryEntry[]>();
  for (const entry of deposits) {
    if (shownStatus(entry) !== 'FINALIZED') continue;
    const txid = settlementTxidOf(entry, recorded);
    if (!txid) continue;
    const group = byTxid.get(txid);
    if (group) group.push(entry);
    else byTxid.set(txid, [entry]);
  }
  // what verifications recorded, by transaction: one pass, not one per transaction met
  const recordedByTxid = new Map<string, Array<[string, { txid: string; shares: StoredShare[] }]>>();
  for (const [id, fact] of recorded)
    recordedByTxid.set(fact.txid, [...(recordedByTxid.get(fact.txid) ?? []), [id, fact]]);
  const judged = new Map<string, SettlementReport>();
  const onTransaction = (tx: ListedTx) => {
    const group = byTxid.get(tx.txid);
    if (!group) return;
    const recordedHere = recordedByTxid.get(tx.txid) ?? [];
    const sharesRecorded = (except: string) =>
      earlierShares(
        {
          sharesOf: () =>
            recordedHere.filter(([id]) => id !== except).map(([id, r]) => ({ id, shares: r.shares })),
        },
        tx.txid,
      );
    const judge = (entries: HistoryEntry[], earlier: EarlierShare[]) => {
      const group = entries.flatMap((entry) => settlementDepositOf(entry) ?? []);
      if (group.length === 0) return;
      const analysis = analyseSettlement({
        txid: tx.txid,
        txHex: tx.hex,
        network: settings.network,
        deposits: group,
        keys: settings.keys,
        zkp: settings.zkp,
      });
      const report = judgeSettlement(analysis, {
        status: txStatusOf(tx.status),
        tipHeight: tx.tipHeight,
        expectedAssetId: settings.assetId,
        requiredConfirmations: settings.requiredConfirmations,
        assets: { [settings.assetId]: settings.asset },
        earlier,
      });
      for (const deposit of group) judged.set(deposit.id, report);
    };
    const isRecorded = (entry: HistoryEntry) => recorded.get(entry.id)?.txid === tx.txid;
    for (const entry of group.filter(isRecorded)) judge([entry], sharesRecorded(entry.id));
    judge(
      group.filter((entry) => !isRecorded(entry)),
      sharesRecorded(''),
    );
  };
  return { onTransaction, judged };
}
