/**
 * Checking deposits' settlements on chain: each deposit is read through the one checked get,
 * its settlement.liquidTxid looked up on an Esplora server, and deposits settled by one
 * transaction judged together (their shares to one script are summed). Nothing here prints;
 * the outcome of each deposit says what was proven and what was not.
 */
import type { GetResponse } from '../api/models.js';
import type { Network } from '../domain/liquid/networks.js';
import { addressScript } from '../domain/liquid/script.js';
import type {
  AddressOrigin,
  BlindingKeys,
  EarlierShare,
  SettlementDeposit,
  SettlementReport,
} from '../domain/liquid/settlement/model.js';
import { LbrlError } from '../errors.js';
import type { HistoryEntry, StoredShare } from '../store/history-records.js';
import { getChecked } from './answers.js';
import type { CheckedSettlement, CheckSettlementInput } from './chain-check.js';
import type { DepositApi } from './ports.js';

/** Looks a settlement up on the explorer and judges it (checkSettlement with its client). */
export type SettlementChecker = (input: CheckSettlementInput) => Promise<CheckedSettlement>;

export interface VerifySettings {
  network: Network;
  /** the profile's asset-id: the asset is pinned when set */
  assetId?: string | undefined;
  confirmations: number;
  keys: BlindingKeys;
  /** the profile's asset-precision: used for the asset-id when no registry contract proves one */
  assetPrecision?: number | undefined;
  /** the profile's own addresses (default-address, split-address, those with a blinding key), by setting */
  knownAddresses?: Array<{ address: string; setting: string }> | undefined;
  /** --trust-service-address: a deposit lbrl has no record of may pay an address the profile does not know */
  trustServiceAddress?: boolean | undefined;
}

/**
 * What the local history knows that the service's answer cannot prove: whether lbrl created the
 * deposit (and when), and which outputs earlier verifications counted for other deposits.
 */
export interface VerifyLedger {
  recorded?(id: string): HistoryEntry | undefined;
  /** the shares other deposits' verifications counted from a transaction */
  sharesOf?(txid: string): Array<{ id: string; baseUrl?: string; shares: StoredShare[] }>;
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

function sameScript(a: string, b: string): boolean {
  const leftScript = addressScript(a);
  const rightScript = addressScript(b);
  return (
    leftScript.ok &&
    rightScript.ok &&
    Buffer.from(leftScript.value.script).equals(Buffer.from(rightScript.value.script))
  );
}

/** Where a deposit's addresses came from: lbrl's request (its history), or only the service's word. */
function originOf(
  deposit: GetResponse,
  recorded: HistoryEntry | undefined,
  settings: VerifySettings,
): AddressOrigin {
  if (recorded) return { kind: 'requested' };
  const roles: Array<['destination' | 'split', string | null | undefined]> = [
    ['destination', deposit.destinationAddress],
    ['split', deposit.splitAddress],
  ];
  const addresses = roles.flatMap(([role, address]) => {
    if (!address) return [];
    const known = (settings.knownAddresses ?? []).find(
      (k) => k.address === address || sameScript(k.address, address),
    );
    return [{ role, address, knownAs: known?.setting ?? null }];
  });
  return { kind: 'service', addresses, trusted: settings.trustServiceAddress === true };
}

function settlementDeposit(
  deposit: GetResponse,
  settings: VerifySettings,
  ledger: VerifyLedger,
): SettlementDeposit {
  const recorded = ledger.recorded?.(deposit.id);
  return {
    id: deposit.id,
    destinationAddress: deposit.destinationAddress,
    splitAddress: deposit.splitAddress ?? null,
    splitPercent: deposit.splitPercent ?? null,
    netAmount: deposit.netAmount,
    amountInCents: deposit.amountInCents,
    // lbrl's own clock when it created the deposit; else the service's word
    createdAt: recorded?.at ?? deposit.createdAt,
    origin: originOf(deposit, recorded, settings),
  };
}

/** The shares other deposits' verifications took from this transaction, as the judge reads them. */
export function earlierShares(ledger: VerifyLedger, txid: string, service?: string): EarlierShare[] {
  const out: EarlierShare[] = [];
  for (const { id, baseUrl, shares } of ledger.sharesOf?.(txid) ?? []) {
    // a deposit of another service is another deposit, whatever its id: its outputs stay its own
    const depositId =
      baseUrl !== undefined && service !== undefined && baseUrl !== service ? `${id} on ${baseUrl}` : id;
    for (const share of shares) {
      const [num, den] = share.share.split('/').map((x) => BigInt(x)) as [bigint, bigint];
      out.push({
        depositId,
        role: share.role,
        script: share.script,
        outputs: share.outputs,
        share: { num, den },
        rounded: share.rounded,
      });
    }
  }
  return out;
}

/** The service the deposits judged are on, as the history recorded them (undefined: none recorded). */
function serviceOf(group: GetResponse[], ledger: VerifyLedger): string | undefined {
  for (const deposit of group) {
    const service = ledger.recorded?.(deposit.id)?.baseUrl;
    if (service !== undefined) return service;
  }
  return undefined;
}

/** A deposit's shares of a verified settlement, as the history keeps them. */
export function storedShares(outcome: DepositOutcome): StoredShare[] {
  return (outcome.report?.shares ?? [])
    .filter((s) => s.depositId === outcome.id)
    .map((use) => ({
      role: use.role,
      script: use.script,
      outputs: use.outputs,
      share: `${use.share.num}/${use.share.den}`,
      rounded: use.rounded,
    }));
}

/** Settlements of deposits already read, judged; transactions shared by several are judged once. */
export async function verifySettlements(
  check: SettlementChecker,
  deposits: GetResponse[],
  settings: VerifySettings,
  ledger: VerifyLedger = {},
): Promise<DepositOutcome[]> {
  const byTxid = new Map<string, GetResponse[]>();
  // a checked answer's txid is in its one form already (domain/deposit-rules.ts, isHex32)
  for (const deposit of deposits) {
    const txid = deposit.settlement?.liquidTxid;
    if (!txid) continue;
    const group = byTxid.get(txid) ?? [];
    if (!group.some((g) => g.id === deposit.id)) group.push(deposit);
    byTxid.set(txid, group);
  }
  const judged = new Map<string, SettlementReport | null>();
  for (const [txid, group] of byTxid) {
    const checked = await check({
      txid,
      network: settings.network,
      deposits: group.map((d) => settlementDeposit(d, settings, ledger)),
      keys: settings.keys,
      expectedAssetId: settings.assetId,
      assetPrecision: settings.assetPrecision,
      requiredConfirmations: settings.confirmations,
      earlier: earlierShares(ledger, txid, serviceOf(group, ledger)),
    });
    judged.set(txid, checked.found ? checked.report : null);
  }
  return deposits.map((deposit) => {
    const txid = deposit.settlement?.liquidTxid ?? null;
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
  ledger: VerifyLedger = {},
): Promise<DepositOutcome[]> {
  const deposits: GetResponse[] = [];
  for (const id of ids) deposits.push((await getChecked(api, id)).value);
  return verifySettlements(check, deposits, settings, { recorded: (id) => api.recorded?.(id), ...ledger });
}

/**
 * The error that ends a run whose deposits were not all verified, or undefined when they were.
 * The worst outcome decides: mismatch (1), then unproven (7: something to add), then pending (8:
 * try again later).
 */
export function verifyError(outcomes: DepositOutcome[]): LbrlError | undefined {
  const ids = (pick: (outcome: DepositOutcome) => boolean) =>
    outcomes.filter(pick).map((outcome) => outcome.id);
  const mismatch = ids((outcome) => outcome.outcome === 'mismatch');
  if (mismatch.length > 0) {
    return new LbrlError(
      `the settlement of deposit ${mismatch.join(', ')} contradicts the deposit: ${mismatch.length === 1 ? firstMismatch(outcomes.find((outcome) => outcome.id === mismatch[0])!) : 'see above'}`,
      'mismatch',
    );
  }
  const unproven = outcomes.filter((outcome) => outcome.outcome === 'unproven');
  if (unproven.length > 0) {
    return new LbrlError(
      `the settlement of deposit ${unproven.map((outcome) => outcome.id).join(', ')} could not be fully verified; nothing contradicts it`,
      'unproven',
      whatToAdd(unproven),
    );
  }
  const pending = outcomes.filter(
    (outcome) =>
      outcome.outcome === 'pending' || outcome.outcome === 'not-found' || outcome.outcome === 'not-settled',
  );
  if (pending.length > 0) {
    const why = (outcome: DepositOutcome) =>
      outcome.outcome === 'not-settled'
        ? 'not settled yet'
        : outcome.outcome === 'not-found'
          ? 'its transaction is not known to the explorer'
          : 'not yet confirmed deeply enough';
    const reasons = [...new Set(pending.map(why))].join(', or ');
    return new LbrlError(
      `the settlement of deposit ${pending.map((outcome) => outcome.id).join(', ')} cannot be verified yet (${reasons}); try again later`,
      'settlement_pending',
    );
  }
  return undefined;
}

function firstMismatch(outcome: DepositOutcome): string {
  const check = outcome.report?.checks.find((x) => x.outcome === 'mismatch');
  if (!check) return 'see above';
  // a share refused because an earlier deposit took those outputs names that deposit
  const earlier = /\(with the share of deposit [^)]*\)/.exec(check.detail)?.[0] ?? '';
  return check.expected !== undefined && check.actual !== undefined
    ? `${check.what}: expected ${check.expected}, found ${check.actual}${earlier ? ` ${earlier}` : ''}`
    : check.detail;
}

/** What would let an unproven settlement be verified. */
export function whatToAdd(outcomes: DepositOutcome[]): string {
  const checks = outcomes
    .flatMap((outcome) => outcome.report?.checks ?? [])
    .filter((c) => c.outcome === 'not-proven');
  const hints: string[] = [];
  if (checks.some((c) => /own blinding key|no ephemeral key|partly blinded/.test(c.detail)))
    hints.push(
      "an output to the address cannot be opened, not even with the address's own key: only the payer can show its amount (or try another explorer, esplora-url, if its copy is damaged)",
    );
  else if (checks.some((c) => /did not open/.test(c.detail)))
    hints.push(
      "the blinding keys set do not open the outputs: none is the address's blinding key (check it with elements-cli dumpblindingkey <address>, then lbrl config set-blinding-key --address <address> < key.txt)",
    );
  else if (checks.some((c) => /no blinding key was given/.test(c.detail)))
    hints.push('add the blinding key: lbrl config set-blinding-key [--address <address>] < key.txt');
  if (checks.some((c) => c.what === 'asset' && /not pinned|asset-id/.test(c.detail)))
    hints.push('pin the asset: lbrl config set asset-id <64 hex>');
  if (checks.some((c) => c.what === 'precision' || /precision is unknown/.test(c.detail)))
    hints.push(
      "the asset's precision is not proven by a registry contract: if you know it, lbrl config set asset-precision <0-8> (with asset-id set)",
    );
  if (checks.some((c) => c.what === 'origin'))
    hints.push(
      "the addresses are only the service's word: set the one you expect (lbrl config set default-address <address>), or accept them with --trust-service-address",
    );
  if (checks.some((c) => c.what === 'timing'))
    hints.push('the explorer gave no block time: use an explorer that does');
  return hints.length > 0 ? hints.join('; ') : 'see the checks above';
}
