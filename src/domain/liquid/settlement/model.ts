/**
 * What a settlement check reads and says: the deposits a transaction settles (their addresses,
 * net amounts, splits and where their addresses came from), the blinding keys, the explorer's status
 * and asset data, each check and the report. Types only, and `txStatusOf`, the explorer's words for a
 * status read into the judge's; the files beside it and ../settlement.ts use them.
 */
import type { Network } from '../networks.js';
import type { LiquidTransaction } from '../tx.js';
import type { UnblindedOutput } from '../unblind.js';

export interface SettlementDeposit {
  id: string;
  destinationAddress: string;
  splitAddress?: string | null | undefined;
  /** as the service sent it: a fraction, 0.0299 for 2.99% */
  splitPercent?: number | null | undefined;
  /** as the service sent it: reais */
  netAmount: number;
  amountInCents: number;
  /** when the deposit was created (ISO 8601): lbrl's own record of it, else the service's createdAt */
  createdAt?: string | undefined;
  /** where its addresses came from; unset: not judged */
  origin?: AddressOrigin | undefined;
}

/**
 * The deposit's addresses are the ones lbrl asked for (its history has the request), or the
 * service's claim, each named by the profile setting it matches (`knownAs`), or none.
 */
export type AddressOrigin =
  | { kind: 'requested' }
  | {
      kind: 'service';
      addresses: Array<{ role: 'destination' | 'split'; address: string; knownAs: string | null }>;
      /** --trust-service-address */
      trusted: boolean;
    };

export interface BlindingKeys {
  /** blinding private keys of single addresses (Elements Core's `dumpblindingkey`) */
  outputKeys?: Uint8Array[];
  /** SLIP-77 master blinding keys (`dumpmasterblindingkey`, Blockstream Green, `ct(slip77(...))`) */
  masterBlindingKeys?: Uint8Array[];
}

export interface TxStatus {
  confirmed: boolean;
  blockHeight: number | null;
  /** the block's time, Unix seconds (the explorer's word) */
  blockTime?: number | null | undefined;
}

/** A transaction's status as the explorer words it (`/tx/:txid/status`), read into the judge's. */
export function txStatusOf(status: {
  confirmed: boolean;
  block_height?: number | null | undefined;
  block_time?: number | null | undefined;
}): TxStatus {
  return {
    confirmed: status.confirmed,
    blockHeight: status.block_height ?? null,
    blockTime: status.block_time ?? null,
  };
}

export interface AssetInfo {
  /** the precision, 0 to 8, when a source proves it (precisionFrom) */
  precision?: number | undefined;
  /** what proves it: the registry contract the id commits to, the profile, or the network's own asset */
  precisionFrom?: 'contract' | 'profile' | 'network' | undefined;
  /** a precision the explorer stated that nothing proves (shown, never used) */
  claimedPrecision?: number | undefined;
  /** the profile's asset-precision, when a contract proves another (said, never used) */
  profilePrecision?: number | undefined;
  ticker?: string | undefined;
  name?: string | undefined;
  domain?: string | undefined;
}

export type Outcome = 'proven' | 'not-proven' | 'mismatch';

export interface Check {
  what:
    | 'transaction'
    | 'confirmations'
    | 'destination'
    | 'split'
    | 'asset'
    | 'destination-amount'
    | 'split-amount'
    | 'timing'
    | 'origin'
    | 'precision'
    | 'total';
  outcome: Outcome;
  /** one sentence a user reads */
  detail: string;
  expected?: string;
  actual?: string;
}

export interface OutputFinding {
  index: number;
  confidential: boolean;
  /** how its asset and value are known, or why they are not */
  opened: 'explicit' | 'unblinded' | 'no-key' | 'wrong-key' | 'forged';
  assetId: string | null;
  value: bigint | null;
  /** for the explorer's `#blinded=` link; present when unblinded */
  opening?: UnblindedOutput;
  note?: string;
}

export interface AddressFinding {
  role: 'destination' | 'split';
  address: string;
  script: string;
  outputs: OutputFinding[];
}

export interface SettlementAnalysis {
  txid: string;
  tx: LiquidTransaction;
  network: Network;
  deposits: SettlementDeposit[];
  addresses: AddressFinding[];
  /** problems found before judging: a txid that does not match, an address with no script */
  problems: Check[];
}

export type Verdict = 'verified' | 'unproven' | 'pending' | 'mismatch';

export interface SettlementReport {
  txid: string;
  /**
   * verified: every check proven. unproven: nothing contradicts the deposit, but something could
   * not be checked (no blinding key, asset not pinned, precision unknown). pending: not yet
   * confirmed deeply enough, nothing contradicts. mismatch: the transaction contradicts it.
   */
  verdict: Verdict;
  confirmations: number;
  requiredConfirmations: number;
  asset: { id: string; ticker: string | null; precision: number | null; pinned: boolean } | null;
  checks: Check[];
  addresses: AddressFinding[];
  /** the explorer's `#blinded=value,asset,vbf,abf,...` fragment, when outputs were unblinded */
  blindedFragment: string | null;
  /** each deposit's shares and the outputs that paid them (the history keeps them once verified) */
  shares: ShareUse[];
}

/** An exact fraction of base units. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

/** A share of a deposit in reais, as an exact fraction (net x (1 - split) or net x split). */
export interface ReaisShare {
  num: bigint;
  den: bigint;
}

/**
 * A share of an earlier deposit counted from this transaction by an earlier verification (the
 * history keeps them): the outputs that paid it cannot pay another deposit's share too.
 */
export interface EarlierShare {
  depositId: string;
  role: 'destination' | 'split';
  /** the output script, hex */
  script: string;
  /** the outputs that paid it */
  outputs: number[];
  share: ReaisShare;
  /** the deposit had a split: its shares carry the split's rounding */
  rounded: boolean;
}

/** One share of a deposit of this run, with the outputs that paid it (what the history keeps). */
export interface ShareUse {
  depositId: string;
  role: 'destination' | 'split';
  script: string;
  outputs: number[];
  share: ReaisShare;
  rounded: boolean;
}

export interface JudgeInput {
  status: TxStatus;
  tipHeight: number;
  requiredConfirmations?: number;
  /** the profile's `asset-id`, display order, in its one form (lower case: read as the setting is read) */
  expectedAssetId?: string | undefined;
  /** registry data by asset id, for the assets the caller looked up, with its precision's source */
  assets: Record<string, AssetInfo | undefined>;
  /** shares of other deposits counted earlier from this transaction */
  earlier?: EarlierShare[] | undefined;
  /** how much earlier than a deposit's creation its settlement's block may be (clocks differ) */
  clockMarginMs?: number | undefined;
}
