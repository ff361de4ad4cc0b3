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
import { depositKey } from '../store/history-merge.js';
import type { HistoryEntry, StoredShare } from '../store/history-records.js';
import { shownStatus } from './ledger.js';
import type { ListedTx } from './receipts.js';
import { earlierShares } from './verify.js';

/**
 * What verifications recorded, by deposit (`depositKey` of its service and id; a record of an
 * older release, without its service, by its id): the transaction and the outputs each counted.
 */
export type RecordedShares = Map<string, { txid: string; shares: StoredShare[] }>;

/** What a deposit's verification recorded: its own service's (two services may hand out one id). */
export function recordedOf(
  recorded: RecordedShares | undefined,
  entry: HistoryEntry,
): { txid: string; shares: StoredShare[] } | undefined {
  return recorded?.get(depositKey(entry.baseUrl, entry.id)) ?? recorded?.get(entry.id);
}

/**
 * The settlement transaction lbrl knows of a deposit: its final answer's, else the one a
 * verification proved. As the history recorded it: a txid edited into another form names no
 * transaction listed, so its share is not found rather than found in the wrong place.
 */
export function settlementTxidOf(entry: HistoryEntry, recorded?: RecordedShares): string | undefined {
  const settlement = entry.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  if (typeof settlement?.liquidTxid === 'string') return settlement.liquidTxid;
  return recordedOf(recorded, entry)?.txid;
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
  // `judged` is by deposit (depositKey of its service and id)
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
  for (const [key, fact] of recorded)
    recordedByTxid.set(fact.txid, [...(recordedByTxid.get(fact.txid) ?? []), [key, fact]]);
  const judged = new Map<string, SettlementReport>();
  const onTransaction = (tx: ListedTx) => {
    const group = byTxid.get(tx.txid);
    if (!group) return;
    const recordedHere = recordedByTxid.get(tx.txid) ?? [];
    // the shares of every deposit but `except`, each named so that a deposit of another service
    // with the same id is never taken for one judged here
    const sharesRecorded = (except: HistoryEntry | undefined) => {
      const own = except ? [depositKey(except.baseUrl, except.id), except.id] : [];
      return recordedHere
        .filter(([key]) => !own.includes(key))
        .flatMap(([key, r]) =>
          earlierShares({ sharesOf: () => [{ id: judgedName(key, group), shares: r.shares }] }, tx.txid),
        );
    };
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
      for (const entry of entries) judged.set(depositKey(entry.baseUrl, entry.id), report);
    };
    const isRecorded = (entry: HistoryEntry) => recordedOf(recorded, entry)?.txid === tx.txid;
    for (const entry of group.filter(isRecorded)) judge([entry], sharesRecorded(entry));
    judge(
      group.filter((entry) => !isRecorded(entry)),
      sharesRecorded(undefined),
    );
  };
  return { onTransaction, judged };
}

/**
 * The name a recorded verification's deposit goes by before the judge: its id, unless a deposit
 * judged here has that id on another service (then `<id> on <service>`): the judge tells deposits
 * by name, and a claim of another deposit must never pass for one's own.
 */
function judgedName(key: string, group: HistoryEntry[]): string {
  const space = key.lastIndexOf(' ');
  if (space < 0) return key;
  const id = key.slice(space + 1);
  const service = key.slice(0, space);
  return group.some((entry) => entry.id === id && entry.baseUrl !== service) ? `${id} on ${service}` : id;
}
