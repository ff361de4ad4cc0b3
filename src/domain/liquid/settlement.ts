/**
 * Checking a deposit's settlement against the Liquid transaction that carries it. Pure: the
 * caller fetches the raw transaction, its status, the tip height and the asset's registry data
 * (src/deposits/chain-check.ts) and loads the secp256k1-zkp library; this decides what is proven,
 * what is not, and what contradicts the deposit. Nothing is reported as proven that was not checked.
 *
 * Each rule is one small check below (docs/verify.md says the same with numbers):
 * - confirmationCheck: the explorer's word; a block above its own tip is a contradiction.
 * - blockTimeChecks: a block older than the deposit's creation (less a clock margin) cannot hold
 *   its settlement.
 * - originChecks: the addresses are lbrl's own request, or the service's claim matched against the
 *   profile's addresses (unproven when none matches, unless trusted).
 * - scriptChecks: an address is paid when an output's script is the address's script.
 * - forgedOutputChecks: an opening that does not match its commitments is a contradiction.
 * - settlementAsset: the pinned asset-id paid to every address, else the destination's (unpinned).
 * - precisionCheck: only a proven precision (registry contract, the profile, the network's asset).
 * - amountChecks: each script received at least its shares (the split may be rounded by less than
 *   a cent, the destination takes the rest; shares counted earlier from the same outputs by other
 *   deposits are added), and totalCheck: together the scripts received at least the nets.
 */
import { type Decimal, decimalFromNumber } from '../decimal.js';
import type { Network } from './networks.js';
import { addressScript } from './script.js';
import { hexOf, isFeeOutput, type LiquidTransaction, parseTransaction, type TxOutput } from './tx.js';
import { slip77BlindingKey, type UnblindedOutput, unblindOutput, type Zkp } from './unblind.js';

export const DEFAULT_CONFIRMATIONS = 2;

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

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Open one output: explicit as it is, confidential with the keys that fit its script. */
function openOutput(
  zkp: Zkp | null,
  out: TxOutput,
  blindingPubkey: Uint8Array | null,
  keys: BlindingKeys,
): OutputFinding {
  if (out.asset.kind === 'explicit' && out.value.kind === 'explicit') {
    return {
      index: out.index,
      confidential: false,
      opened: 'explicit',
      assetId: out.asset.id,
      value: out.value.amount,
    };
  }
  const base = { index: out.index, confidential: true, assetId: null, value: null } as const;
  if (out.asset.kind !== 'confidential' || out.value.kind !== 'confidential') {
    // half blinded (an explicit asset with a committed value, or the reverse): not a normal payment
    return { ...base, opened: 'no-key', note: 'partly blinded output; its amount cannot be read' };
  }
  const candidates: Uint8Array[] = [];
  for (const m of keys.masterBlindingKeys ?? []) candidates.push(slip77BlindingKey(m, out.script));
  for (const bytes of keys.outputKeys ?? []) candidates.push(bytes);
  if (candidates.length === 0 || !zkp) {
    return { ...base, opened: 'no-key', note: 'confidential, and no blinding key was given' };
  }
  // a key whose public key is the address's blinding key first
  if (blindingPubkey) {
    candidates.sort((a, b) => {
      const rankA = sameBytes(zkp.ecc.pointFromScalar(a, true) ?? new Uint8Array(), blindingPubkey) ? 0 : 1;
      const rankB = sameBytes(zkp.ecc.pointFromScalar(b, true) ?? new Uint8Array(), blindingPubkey) ? 0 : 1;
      return rankA - rankB;
    });
  }
  let forged: string | undefined;
  for (const key of candidates) {
    const unblinded = unblindOutput(zkp, out, key);
    if (unblinded.ok) {
      return {
        index: out.index,
        confidential: true,
        opened: 'unblinded',
        assetId: unblinded.value.assetId,
        value: unblinded.value.value,
        opening: unblinded.value,
      };
    }
    if (unblinded.code === 'forged') forged = unblinded.reason;
  }
  if (forged) return { ...base, opened: 'forged', note: forged };
  return { ...base, opened: 'wrong-key', note: 'none of the blinding keys given opens it' };
}

export interface AnalyseInput {
  /** the settlement's transaction id, in its one form (64 lower-case hex characters: a checked answer's) */
  txid: string;
  /** the raw transaction, from the explorer's /tx/:txid/hex */
  txHex: string;
  network: Network;
  /** the deposits this transaction settles (usually one) */
  deposits: SettlementDeposit[];
  keys?: BlindingKeys;
  /** needed only to unblind; without it confidential outputs stay closed */
  zkp?: Zkp | null;
}

/** Parse, authenticate by txid, match the deposits' scripts and open their outputs. */
export function analyseSettlement(input: AnalyseInput): SettlementAnalysis {
  const problems: Check[] = [];
  const tx = parseTransaction(input.txHex);
  const { txid } = input;
  if (tx.txid !== txid) {
    problems.push({
      what: 'transaction',
      outcome: 'mismatch',
      detail: `the explorer's raw transaction hashes to ${tx.txid}, not to the settlement's txid`,
      expected: txid,
      actual: tx.txid,
    });
  }
  const addresses: AddressFinding[] = [];
  const seen = new Set<string>();
  for (const deposit of input.deposits) {
    const roles: Array<['destination' | 'split', string | null | undefined]> = [
      ['destination', deposit.destinationAddress],
      ['split', deposit.splitAddress],
    ];
    for (const [role, address] of roles) {
      if (!address) continue;
      const key = `${role} ${address}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const script = addressScript(address);
      if (!script.ok || script.value.network !== input.network) {
        problems.push({
          what: role,
          outcome: 'mismatch',
          detail: script.ok
            ? `the ${role} address ${address} is a ${script.value.network} address, not ${input.network}`
            : `the ${role} address ${address} is not a valid Liquid address: ${script.reason}`,
        });
        continue;
      }
      const outputs = tx.outputs
        .filter((output) => !isFeeOutput(output) && sameBytes(output.script, script.value.script))
        .map((output) =>
          openOutput(input.zkp ?? null, output, script.value.blindingPubkey, input.keys ?? {}),
        );
      addresses.push({ role, address, script: hexOf(script.value.script), outputs });
    }
  }
  return { txid, tx, network: input.network, deposits: input.deposits, addresses, problems };
}

/** An exact fraction of base units. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

function decimalOf(figure: number): Decimal {
  const decimal = decimalFromNumber(figure);
  if (!decimal) throw new Error(`not a finite number: ${figure}`);
  return decimal;
}

/** A share of a deposit in reais, as an exact fraction (net x (1 - split) or net x split). */
export interface ReaisShare {
  num: bigint;
  den: bigint;
}

function toUnits(share: ReaisShare, precision: number): Fraction {
  return { num: share.num * 10n ** BigInt(precision), den: share.den };
}

function addFractions(a: Fraction, b: Fraction): Fraction {
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

/** Units as a decimal in the asset's precision: 1450000000 at 8 is 14.50000000. */
export function formatUnits(units: bigint, precision: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(precision + 1, '0');
  const whole = digits.slice(0, digits.length - precision);
  const frac = precision > 0 ? `.${digits.slice(digits.length - precision)}` : '';
  return `${negative ? '-' : ''}${whole}${frac}`;
}

function formatFraction(fraction: Fraction, precision: number): string {
  if (fraction.num % fraction.den === 0n) return formatUnits(fraction.num / fraction.den, precision);
  const floor = fraction.num / fraction.den;
  return `${formatUnits(floor, precision)}…${formatUnits(floor + 1n, precision)}`;
}

/** received - due, scaled by due.den (exact). */
function excess(received: bigint, due: Fraction): bigint {
  return received * due.den - due.num;
}

/** Short by less than the tolerance (none: not short at all). More than due is not short. */
function notShort(received: bigint, due: Fraction, tolerance: bigint): boolean {
  const diff = excess(received, due);
  return tolerance === 0n ? diff >= 0n : diff > -tolerance * due.den;
}

/** More than due by at least the tolerance (or at all, with none): the rest is left for other shares. */
function beyond(received: bigint, due: Fraction, tolerance: bigint): boolean {
  const diff = excess(received, due);
  return tolerance === 0n ? diff > 0n : diff >= tolerance * due.den;
}

/**
 * How far a split share may be from its exact value: less than one cent (the service counts in
 * cents, so it may round the split to the cent, or to the unit, either way), or less than one
 * base unit for an asset of fewer than 2 decimals. The destination takes the rest, exactly.
 */
function splitRounding(precision: number): bigint {
  return precision >= 2 ? 10n ** BigInt(precision - 2) : 1n;
}

/** The two shares of one deposit, in reais: the split's and the destination's, which add up to the net. */
export function depositShares(deposit: SettlementDeposit): {
  destination: ReaisShare;
  split: ReaisShare | null;
} {
  const net = decimalOf(deposit.netAmount);
  const netShare = { num: net.units, den: 10n ** BigInt(net.scale) };
  if (!deposit.splitAddress || deposit.splitPercent === null || deposit.splitPercent === undefined) {
    return { destination: netShare, split: null };
  }
  const pct = decimalOf(deposit.splitPercent);
  const den = 10n ** BigInt(net.scale + pct.scale);
  const split = { num: net.units * pct.units, den };
  return { destination: { num: net.units * 10n ** BigInt(pct.scale) - split.num, den }, split };
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

/** A block this much before the deposit's creation cannot hold its settlement (clocks differ by less). */
export const CLOCK_MARGIN_MS = 60 * 60 * 1000;

/** The asset ids whose registry data the judgement needs (look them up with /asset/:id). */
export function assetsToLookUp(analysis: SettlementAnalysis, expectedAssetId?: string): string[] {
  const ids = new Set<string>();
  if (expectedAssetId) ids.add(expectedAssetId);
  for (const finding of analysis.addresses)
    for (const output of finding.outputs) if (output.assetId) ids.add(output.assetId);
  return [...ids];
}

/** How deep a transaction is below the tip (0 while unconfirmed): verify's count, and reconcile's. */
export function confirmationsOf(
  status: Pick<TxStatus, 'confirmed' | 'blockHeight'>,
  tipHeight: number,
): number {
  if (!status.confirmed || status.blockHeight === null) return 0;
  return tipHeight - status.blockHeight + 1;
}

/** Confirmations, the explorer's word: deep enough, not yet, or a block above its own tip. */
function confirmationCheck(input: JudgeInput, required: number): Check {
  const { status, tipHeight } = input;
  if (status.confirmed && status.blockHeight !== null && status.blockHeight > tipHeight) {
    return {
      what: 'confirmations',
      outcome: 'mismatch',
      detail: `the explorer puts the transaction in block ${status.blockHeight}, above its own tip ${tipHeight}`,
      expected: `a block at or below ${tipHeight}`,
      actual: String(status.blockHeight),
    };
  }
  const confirmations = confirmationsOf(status, tipHeight);
  if (confirmations >= required) {
    return {
      what: 'confirmations',
      outcome: 'proven',
      detail: `confirmed in block ${status.blockHeight}, ${confirmations} confirmations (${required} required)`,
    };
  }
  return {
    what: 'confirmations',
    outcome: 'not-proven',
    detail: status.confirmed
      ? `${confirmations} of ${required} confirmations so far`
      : 'not yet confirmed (in the mempool)',
  };
}

/** A transaction confirmed before the deposit existed cannot be its settlement (an old one reused). */
function blockTimeChecks(deposits: SettlementDeposit[], input: JudgeInput): Check[] {
  const { status } = input;
  if (!status.confirmed || status.blockHeight === null) return [];
  if (!deposits.some((deposit) => deposit.createdAt)) return [];
  if (status.blockTime === undefined || status.blockTime === null) {
    return [
      {
        what: 'timing',
        outcome: 'not-proven',
        detail:
          'the explorer gave no block time: that the transaction came after the deposit was not checked',
      },
    ];
  }
  const margin = input.clockMarginMs ?? CLOCK_MARGIN_MS;
  const blockMs = status.blockTime * 1000;
  const checks: Check[] = [];
  const latest = Math.max(
    ...deposits
      .map((deposit) => (deposit.createdAt ? Date.parse(deposit.createdAt) : Number.NaN))
      .filter(Number.isFinite),
  );
  for (const deposit of deposits) {
    const created = deposit.createdAt ? Date.parse(deposit.createdAt) : Number.NaN;
    if (!Number.isFinite(created)) continue;
    if (blockMs < created - margin) {
      checks.push({
        what: 'timing',
        outcome: 'mismatch',
        detail: `the transaction was confirmed at ${new Date(blockMs).toISOString()}, before deposit ${deposit.id} was created (${new Date(created).toISOString()}): it cannot be its settlement`,
        expected: `a block after ${new Date(created - margin).toISOString()}`,
        actual: new Date(blockMs).toISOString(),
      });
    }
  }
  if (checks.length === 0 && Number.isFinite(latest)) {
    checks.push({
      what: 'timing',
      outcome: 'proven',
      detail: `confirmed at ${new Date(blockMs).toISOString()}, after the deposit${deposits.length > 1 ? 's were' : ' was'} created (${new Date(latest).toISOString()}; ${Math.round(margin / 60000)} minutes of clock margin)`,
    });
  }
  return checks;
}

/** Where each deposit's addresses came from: lbrl's own request, or the service's word. */
function originChecks(deposits: SettlementDeposit[]): Check[] {
  const checks: Check[] = [];
  for (const deposit of deposits) {
    const origin = deposit.origin;
    if (!origin) continue;
    const whose = deposits.length > 1 ? ` of deposit ${deposit.id}` : '';
    if (origin.kind === 'requested') {
      checks.push({
        what: 'origin',
        outcome: 'proven',
        detail: `the addresses${whose} are the ones lbrl asked for (local history)`,
      });
      continue;
    }
    const unknown = origin.addresses.filter((address) => address.knownAs === null);
    const claim = `lbrl has no record of deposit ${deposit.id}: its addresses are the service's claim`;
    if (unknown.length === 0) {
      const names = origin.addresses.map(
        (address) => `the ${address.role} address is the profile's ${address.knownAs}`,
      );
      checks.push({ what: 'origin', outcome: 'proven', detail: `${claim}; ${names.join(', ')}` });
    } else if (origin.trusted) {
      checks.push({
        what: 'origin',
        outcome: 'proven',
        detail: `${claim}, trusted with --trust-service-address (the ${unknown.map((address) => address.role).join(' and ')} address is none of the profile's)`,
      });
    } else {
      checks.push({
        what: 'origin',
        outcome: 'not-proven',
        detail: `${claim}, and the ${unknown.map((address) => `${address.role} address ${address.address}`).join(' and ')} is none of the profile's addresses: the money may have gone to a stranger`,
      });
    }
  }
  return checks;
}

/**
 * Whether an address may go without an output: every share due to its script is a split of
 * less than a cent (a split of 0.01% of R$ 14.85 is 0.1485 cents: rounded to the cent, none), or
 * a destination owed exactly nothing (a split of 100%). Said, not assumed: the amount checks still
 * judge what the other address received.
 */
function mayGoUnpaid(analysis: SettlementAnalysis, finding: AddressFinding): boolean {
  const owed = analysis.deposits.flatMap((deposit) => {
    const address = finding.role === 'split' ? deposit.splitAddress : deposit.destinationAddress;
    const script = address ? addressScript(address) : null;
    if (!script?.ok || hexOf(script.value.script) !== finding.script) return [];
    const shares = depositShares(deposit);
    return [finding.role === 'split' ? shares.split : shares.destination];
  });
  // a split rounds to the cent, down to nothing when less than one; a destination is owed its
  // exact rest, so only a destination owed exactly nothing may go unpaid
  return (
    owed.length > 0 &&
    owed.every(
      (share) =>
        share === null || (finding.role === 'split' ? share.num * 100n < share.den : share.num === 0n),
    )
  );
}

/** Each address is paid by at least one output of its script, unless it may go unpaid. */
function scriptCheck(finding: AddressFinding, analysis: SettlementAnalysis): Check {
  const { role, outputs } = finding;
  if (outputs.length > 0) {
    const many = outputs.length > 1;
    return {
      what: role,
      outcome: 'proven',
      detail: `output${many ? 's' : ''} ${outputs.map((output) => output.index).join(', ')} pay${many ? '' : 's'} the ${role} address's script`,
    };
  }
  if (mayGoUnpaid(analysis, finding)) {
    return {
      what: role,
      outcome: 'proven',
      detail:
        role === 'split'
          ? 'no output pays the split address: its share is less than a cent, so nothing may be due'
          : 'no output pays the destination address: the split takes the whole net',
    };
  }
  return {
    what: role,
    outcome: 'mismatch',
    detail: `no output pays the ${role} address ${finding.address}`,
    expected: `an output to script ${finding.script}`,
    actual: 'none',
  };
}

/** An output that opens with the key but whose commitments disagree is a forgery. */
function forgedOutputChecks(addresses: AddressFinding[]): Check[] {
  return addresses.flatMap((finding) =>
    finding.outputs
      .filter((output) => output.opened === 'forged')
      .map(
        (output): Check => ({
          what: `${finding.role}-amount`,
          outcome: 'mismatch',
          detail: `output ${output.index} opens with the key, but ${output.note ?? 'its commitments do not match'}`,
        }),
      ),
  );
}

interface AssetFinding {
  id: string | null;
  check: Check;
}

/** The pinned asset paid to every address, or the asset the destination got (not pinned). */
function settlementAsset(analysis: SettlementAnalysis, input: JudgeInput): AssetFinding {
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
function precisionCheck(assetId: string, info: AssetInfo | undefined): Check {
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

function shareUsesOf(analysis: SettlementAnalysis): ShareUse[] {
  const uses: ShareUse[] = [];
  for (const deposit of analysis.deposits) {
    const { destination, split } = depositShares(deposit);
    const parts: Array<['destination' | 'split', string, ReaisShare]> = [
      ['destination', deposit.destinationAddress, destination],
    ];
    if (split && deposit.splitAddress) parts.push(['split', deposit.splitAddress, split]);
    for (const [role, address, share] of parts) {
      const finding = analysis.addresses.find(
        (candidate) => candidate.role === role && candidate.address === address,
      );
      if (!finding) continue;
      uses.push({
        depositId: deposit.id,
        role,
        script: finding.script,
        outputs: finding.outputs.map((output) => output.index),
        share,
        rounded: split !== null,
      });
    }
  }
  return uses;
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

function received(finding: AddressFinding, assetId: string): bigint {
  return finding.outputs
    .filter((output) => output.assetId === assetId)
    .reduce((sum, output) => sum + (output.value ?? 0n), 0n);
}

function closedAmountCheck(finding: AddressFinding, closed: OutputFinding[]): Check {
  return {
    what: `${finding.role}-amount`,
    outcome: 'not-proven',
    detail: `output${closed.length > 1 ? 's' : ''} ${closed.map((output) => output.index).join(', ')} to the ${finding.role} address ${closed.length > 1 ? 'are' : 'is'} confidential and ${closed.some((output) => output.opened === 'wrong-key') ? "did not open with the blinding keys given (none of them is this address's key)" : 'no blinding key was given'}: the amount was not verified`,
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
  const got = received(finding, assetId);
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
    got += received(addresses.find((finding) => finding.script === script)!, assetId);
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

/** A deposit whose split share and destination share each have a script of their own. */
interface SplitPair {
  split: ShareUse;
  destination: ShareUse;
}

/**
 * The deposits paid the plain way: the split's script and the destination's script each carry
 * that one share (no other deposit's, none counted earlier). Their rule is exact: the split is
 * its share rounded to the unit or the cent, either way, and the destination gets the rest.
 */
function splitPairs(uses: ShareUse[], earlier: EarlierShare[]): Map<string, SplitPair> {
  const count = new Map<string, number>();
  for (const use of [...uses, ...earlier]) count.set(use.script, (count.get(use.script) ?? 0) + 1);
  const pairs = new Map<string, SplitPair>();
  for (const split of uses.filter((use) => use.role === 'split')) {
    const destination = uses.find((use) => use.role === 'destination' && use.depositId === split.depositId);
    if (!destination || destination.script === split.script) continue;
    if (count.get(split.script) !== 1 || count.get(destination.script) !== 1) continue;
    const pair = { split, destination };
    pairs.set(split.script, pair);
    pairs.set(destination.script, pair);
  }
  return pairs;
}

/** The split's exact share rounded down and up to the unit, and, with cents, to the cent. */
export function roundingsOf(exact: Fraction, precision: number): bigint[] {
  const floor = exact.num / exact.den;
  const whole = exact.num % exact.den === 0n;
  const out = new Set([floor, whole ? floor : floor + 1n]);
  if (precision >= 2) {
    const cent = 10n ** BigInt(precision - 2);
    const floorCent = exact.num / (exact.den * cent);
    out.add(floorCent * cent);
    out.add(exact.num % (exact.den * cent) === 0n ? floorCent * cent : (floorCent + 1n) * cent);
  }
  return [...out].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/** A split paid alone: its exact share, or that share rounded to the unit or the cent, either way. */
function splitShareCheck(got: bigint, exact: Fraction, precision: number): Check {
  const allowed = roundingsOf(exact, precision);
  const shown = formatUnits(got, precision);
  const expected = allowed.map((x) => formatUnits(x, precision)).join(' or ');
  const ok = allowed.includes(got);
  return {
    what: 'split-amount',
    outcome: ok ? 'proven' : 'mismatch',
    detail: ok
      ? `the split address received ${shown}, as due${got * exact.den === exact.num ? '' : ` (${formatFraction(exact, precision)} rounded)`}`
      : `the split address received ${shown}, but ${expected} was due (${formatFraction(exact, precision)}, rounded to the unit or the cent)`,
    expected,
    actual: shown,
  };
}

/** The destination of a split deposit gets the rest: the net less what the split received. */
function restCheck(got: bigint, net: Fraction, splitPaid: bigint, precision: number): Check {
  const due = { num: net.num - splitPaid * net.den, den: net.den };
  const ok = notShort(got, due, due.num % due.den === 0n ? 0n : 1n);
  const shown = formatUnits(got, precision);
  const expected = formatFraction(due, precision);
  const rest = `the net ${formatFraction(net, precision)} less the split's ${formatUnits(splitPaid, precision)}`;
  return {
    what: 'destination-amount',
    outcome: ok ? 'proven' : 'mismatch',
    detail: !ok
      ? `the destination address received ${shown}, but ${expected} was due (${rest})`
      : beyond(got, due, 0n)
        ? `the destination address received ${shown}, more than the ${expected} due (${rest})`
        : `the destination address received ${shown}, as due (${rest})`,
    expected,
    actual: shown,
  };
}

function pairCheck(
  finding: AddressFinding,
  pair: SplitPair,
  analysis: SettlementAnalysis,
  assetId: string,
  precision: number,
): Check | null {
  const got = received(finding, assetId);
  if (finding.role === 'split') return splitShareCheck(got, toUnits(pair.split.share, precision), precision);
  const split = analysis.addresses.find((candidate) => candidate.script === pair.split.script);
  if (!split || split.outputs.some((output) => output.assetId === null || output.value === null)) return null;
  const net = toUnits(
    {
      num:
        pair.destination.share.num * pair.split.share.den + pair.split.share.num * pair.destination.share.den,
      den: pair.destination.share.den * pair.split.share.den,
    },
    precision,
  );
  return restCheck(got, net, received(split, assetId), precision);
}

/** What each address received: judged when its outputs are open and the asset and precision known. */
function amountChecks(
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
    const got = received(finding, assetId);
    return {
      what,
      outcome: 'not-proven',
      detail: `received ${got} base units; the asset's precision is unknown, so the amount was not verified`,
      actual: `${got} units`,
    };
  }
  return null;
}

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

function label(id: string, info: AssetInfo | undefined): string {
  return info?.ticker ? `${info.ticker} (${id})` : id;
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
