/**
 * Reading the transaction: parse it, authenticate it by its txid, find the outputs that pay each
 * deposit address's script and open them (explicit as they are, confidential with the blinding keys
 * that fit: a SLIP-77 master key's key for the script, or a single address's key, the one whose
 * public key is the address's blinding key first). An opening whose commitments disagree is kept as
 * `forged`. `amountReceived` sums what an address's open outputs carry of one asset.
 */
import type { Network } from '../networks.js';
import { addressScript } from '../script.js';
import { hexOf, isFeeOutput, parseTransaction, type TxOutput } from '../tx.js';
import { slip77BlindingKey, unblindOutput, type Zkp } from '../unblind.js';
import type {
  AddressFinding,
  BlindingKeys,
  Check,
  OutputFinding,
  SettlementAnalysis,
  SettlementDeposit,
} from './model.js';

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
    return { ...base, opened: 'no-key', note: PARTLY_BLINDED };
  }
  const candidates: Uint8Array[] = [];
  for (const m of keys.masterBlindingKeys ?? []) candidates.push(slip77BlindingKey(m, out.script));
  for (const bytes of keys.outputKeys ?? []) candidates.push(bytes);
  if (candidates.length === 0 || !zkp) {
    return { ...base, opened: 'no-key', note: NO_KEY };
  }
  if (!out.nonce) {
    return { ...base, opened: 'wrong-key', note: NO_NONCE };
  }
  // a key whose public key is the address's blinding key first
  const isOwn = (key: Uint8Array) =>
    !!blindingPubkey && sameBytes(zkp.ecc.pointFromScalar(key, true) ?? new Uint8Array(), blindingPubkey);
  candidates.sort((a, b) => (isOwn(a) ? 0 : 1) - (isOwn(b) ? 0 : 1));
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
  // the address's own key given, and the output still closed: the payer blinded it to another key
  return { ...base, opened: 'wrong-key', note: candidates.some(isOwn) ? OWN_KEY_FAILS : NOT_THIS_ADDRESS };
}

/** Why a confidential output paying an address stayed closed (the amount check says it whole). */
export const NO_NONCE = 'carries no ephemeral key, so no blinding key can open it';
export const OWN_KEY_FAILS =
  "did not open with the address's own blinding key, the one its public key names (blinded to another key by the payer, or a range proof damaged in the explorer's copy)";
export const NOT_THIS_ADDRESS =
  "did not open with the blinding keys given (none of them is this address's key)";
export const NO_KEY = 'no blinding key was given';
export const PARTLY_BLINDED =
  'partly blinded (an explicit asset with a committed value, or the reverse), so its amount cannot be read';

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

export function amountReceived(finding: AddressFinding, assetId: string): bigint {
  return finding.outputs
    .filter((output) => output.assetId === assetId)
    .reduce((sum, output) => sum + (output.value ?? 0n), 0n);
}
