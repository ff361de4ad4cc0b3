/**
 * The sandbox's own chain: a real Elements transaction for each settlement, so that checking a
 * settlement works end to end with no network. Valid serialization (read back by the same parser
 * verify uses); outputs to confidential addresses blinded to the address's blinding key with real
 * asset and value commitments, range proofs and surjection proofs (secp256k1-zkp); explicit
 * outputs to unconfidential addresses; an explicit fee output. Its one input is made up, so the
 * transaction balances against nothing and could never be broadcast: it is evidence for verify,
 * not money.
 *
 * Everything is derived from the deposit (its id seeds the blinding factors and ephemeral keys),
 * so every process that asks builds the same transaction with the same txid, and nothing is stored.
 * Confirmations follow the sandbox clock: a block every `blockMs`, the transaction in the first
 * block after it was sent.
 */
import { createHash } from 'node:crypto';
import { bech32, bech32m } from 'bech32';
import bs58check from 'bs58check';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { issuedAssetId } from '../domain/liquid/asset.js';
import { type Network, POLICY_ASSET } from '../domain/liquid/networks.js';
import { addressScript } from '../domain/liquid/script.js';
import { fromDisplayHex, parseTransaction } from '../domain/liquid/tx.js';
import type { Zkp } from '../domain/liquid/unblind.js';
import type { StoredDeposit } from './lifecycle.js';

/**
 * The sandbox's BRL-pegged asset, precision 8, 1 unit = 1 real: issued (on paper) under a registry
 * contract, so its id commits to its precision as a real registered asset's does, and the
 * sandbox's /asset answer proves it the same way (contract + issuance prevout).
 */
export const SANDBOX_ASSET_CONTRACT = {
  entity: { domain: 'sandbox.invalid' },
  issuer_pubkey: '02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5',
  name: 'lbrl sandbox real',
  precision: 8,
  ticker: 'SBRL',
  version: 0,
} as const;
const SANDBOX_ISSUANCE_PREVOUT = {
  txid: createHash('sha256').update('lbrl sandbox: the issuance of SBRL').digest('hex'),
  vout: 0,
};
export const SANDBOX_ASSET_ID = issuedAssetId(SANDBOX_ISSUANCE_PREVOUT, SANDBOX_ASSET_CONTRACT)!;
/** As Esplora's /asset/:id answers for a registered asset. */
export const SANDBOX_ASSET = {
  asset_id: SANDBOX_ASSET_ID,
  contract: SANDBOX_ASSET_CONTRACT,
  issuance_prevout: SANDBOX_ISSUANCE_PREVOUT,
  precision: 8,
  ticker: 'SBRL',
  name: 'lbrl sandbox real',
  entity: { domain: 'sandbox.invalid' },
} as const;

export const DEFAULT_BLOCK_MS = 5000;
const TX_FEE = 40n;
const UNITS_PER_CENT = 1_000_000n; // precision 8: a real is 10^8 units

/** How the sandbox settles: rightly, or wrongly in one way, so that each failure of verify shows. */
export type SettleMode = 'ok' | 'amount' | 'asset' | 'address' | 'none';
export const SETTLE_MODES: readonly SettleMode[] = ['ok', 'amount', 'asset', 'address', 'none'];

/** What the chain needs of a stored deposit to pay it. */
export type ChainDeposit = Pick<
  StoredDeposit,
  'id' | 'amountInCents' | 'feeCents' | 'destinationAddress' | 'splitAddress' | 'splitBasisPoints'
>;

export interface Payment {
  address: string;
  /** base units of the asset */
  amount: bigint;
  /** display order */
  assetId: string;
}

export interface BuiltTx {
  txid: string;
  hex: string;
  payments: Payment[];
}

/** What the sandbox pays for a deposit: the net in SBRL, the split share rounded down. */
export function settlementPayments(deposit: ChainDeposit, mode: SettleMode, network: Network): Payment[] {
  const net = BigInt(deposit.amountInCents - deposit.feeCents) * UNITS_PER_CENT;
  const split =
    deposit.splitAddress && deposit.splitBasisPoints
      ? (net * BigInt(deposit.splitBasisPoints)) / 10_000n
      : 0n;
  const asset = mode === 'asset' ? POLICY_ASSET[network].id : SANDBOX_ASSET_ID;
  const destination = mode === 'address' ? strangerAddress(deposit.id, network) : deposit.destinationAddress;
  const payments: Payment[] = [
    { address: destination, amount: net - split - (mode === 'amount' ? UNITS_PER_CENT : 0n), assetId: asset },
  ];
  if (deposit.splitAddress && split > 0n)
    payments.push({ address: deposit.splitAddress, amount: split, assetId: asset });
  return payments;
}

/** An unconfidential P2WPKH address nobody holds a key for, derived from the deposit. */
function strangerAddress(id: string, network: Network): string {
  const hash = createHash('sha256').update(`lbrl-sandbox-stranger:${id}`).digest().subarray(0, 20);
  const hrp = { liquid: 'ex', liquidtestnet: 'tex', elementsregtest: 'ert' }[network];
  return bech32.encode(hrp, [0, ...bech32.toWords(hash)]);
}

/** Deterministic secrets of one deposit's transaction: valid secp256k1 scalars. */
function secret(zkp: Zkp, id: string, label: string): Uint8Array {
  for (let i = 0; ; i++) {
    const key = Uint8Array.from(
      createHash('sha256').update(`lbrl-sandbox-chain:${id}:${label}:${i}`).digest(),
    );
    if (zkp.ecc.isPrivate(key)) return key;
  }
}

class Writer {
  private parts: Uint8Array[] = [];
  bytes(bytes: Uint8Array): this {
    this.parts.push(bytes);
    return this;
  }
  u32(word: number): this {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, word, true);
    return this.bytes(bytes);
  }
  varint(varLength: number): this {
    if (varLength < 0xfd) return this.bytes(Uint8Array.of(varLength));
    if (varLength <= 0xffff) return this.bytes(Uint8Array.of(0xfd, varLength & 0xff, varLength >> 8));
    const bytes = new Uint8Array(5);
    bytes[0] = 0xfe;
    new DataView(bytes.buffer).setUint32(1, varLength, true);
    return this.bytes(bytes);
  }
  varBytes(bytes: Uint8Array): this {
    return this.varint(bytes.length).bytes(bytes);
  }
  done(): Uint8Array {
    return Uint8Array.from(Buffer.concat(this.parts));
  }
}

function explicitValue(satoshis: bigint): Uint8Array {
  const bytes = new Uint8Array(9);
  bytes[0] = 1;
  new DataView(bytes.buffer).setBigUint64(1, satoshis, false);
  return bytes;
}

interface BuiltOutput {
  asset: Uint8Array;
  value: Uint8Array;
  nonce: Uint8Array;
  script: Uint8Array;
  surjectionproof: Uint8Array;
  rangeproof: Uint8Array;
}

/** The settlement transaction of a deposit, or null when the mode is 'none'. */
export function buildSettlementTx(
  zkp: Zkp,
  deposit: ChainDeposit,
  mode: SettleMode,
  network: Network,
): BuiltTx | null {
  if (mode === 'none') return null;
  return buildPaymentsTx(zkp, deposit.id, settlementPayments(deposit, mode, network), network);
}

/**
 * A transaction making these payments (and an explicit fee), its blinding factors and keys
 * derived from `seed`: the same payments and seed give the same transaction.
 */
export function buildPaymentsTx(zkp: Zkp, seed: string, payments: Payment[], network: Network): BuiltTx {
  const inputAssets = [...new Set([...payments.map((p) => p.assetId), POLICY_ASSET[network].id])];
  const inputTags = inputAssets.map(fromDisplayHex);
  // the made-up inputs are explicit: their generators are the unblinded ones
  const inputGenerators = inputTags.map((t) => zkp.generator.generate(t));
  const inputs = { tags: inputTags, generators: inputGenerators };
  const outputs: BuiltOutput[] = payments.map((payment, index) => {
    const script = addressScript(payment.address);
    if (!script.ok) throw new Error(`the sandbox cannot pay ${payment.address}: ${script.reason}`);
    const asset = fromDisplayHex(payment.assetId);
    if (!script.value.blindingPubkey) {
      return {
        asset: Uint8Array.of(1, ...asset),
        value: explicitValue(payment.amount),
        nonce: Uint8Array.of(0),
        script: script.value.script,
        surjectionproof: new Uint8Array(0),
        rangeproof: new Uint8Array(0),
      };
    }
    const to = { script: script.value.script, blindingPubkey: script.value.blindingPubkey };
    return blindedOutput(zkp, { seed, index }, payment, asset, to, inputs);
  });
  outputs.push({
    asset: Uint8Array.of(1, ...fromDisplayHex(POLICY_ASSET[network].id)),
    value: explicitValue(TX_FEE),
    nonce: Uint8Array.of(0),
    script: new Uint8Array(0),
    surjectionproof: new Uint8Array(0),
    rangeproof: new Uint8Array(0),
  });
  const hex = serializedTx(seed, outputs);
  return { txid: parseTransaction(hex).txid, hex, payments };
}

/**
 * A confidential output to a blinded address: its asset and value committed with blinding factors
 * derived from the seed, the range proof readable with the address's blinding key, and the
 * surjection proof over the made-up inputs' assets.
 */
function blindedOutput(
  zkp: Zkp,
  at: { seed: string; index: number },
  payment: Payment,
  asset: Uint8Array,
  to: { script: Uint8Array; blindingPubkey: Uint8Array },
  inputs: { tags: Uint8Array[]; generators: Uint8Array[] },
): BuiltOutput {
  const { seed, index } = at;
  const abf = secret(zkp, seed, `abf${index}`);
  const vbf = secret(zkp, seed, `vbf${index}`);
  const ephemeral = secret(zkp, seed, `ephemeral${index}`);
  const generator = zkp.generator.generateBlinded(asset, abf);
  const commitment = zkp.pedersen.commitment(payment.amount.toString(), generator, vbf);
  const nonce = Uint8Array.from(createHash('sha256').update(zkp.ecdh(to.blindingPubkey, ephemeral)).digest());
  const rangeproof = zkp.rangeproof.sign(
    payment.amount.toString(),
    commitment,
    generator,
    vbf,
    nonce,
    // the proof's minimum value: 1 as Elements proves, but a share of zero (a 100% split's
    // destination) cannot be proven at least 1, and signing it failed every get of the deposit
    payment.amount > 0n ? '1' : '0',
    '0',
    '52',
    Uint8Array.of(...asset, ...abf),
    to.script,
  );
  const surjectionSeed = secret(zkp, seed, `surjection${index}`);
  const init = zkp.surjectionproof.initialize(inputs.tags, asset, 100, surjectionSeed);
  const surjectionproof = zkp.surjectionproof.generate(
    init.proof,
    inputs.generators,
    generator,
    init.inputIndex,
    new Uint8Array(32),
    abf,
  );
  return {
    asset: generator,
    value: commitment,
    nonce: zkp.ecc.pointFromScalar(ephemeral, true)!,
    script: to.script,
    surjectionproof,
    rangeproof,
  };
}

/** The transaction's bytes: one made-up input named by the seed, the outputs, and their proofs as witness. */
function serializedTx(seed: string, outputs: BuiltOutput[]): string {
  const writer = new Writer().u32(2).bytes(Uint8Array.of(1)).varint(1);
  writer
    .bytes(createHash('sha256').update(`lbrl-sandbox-input:${seed}`).digest())
    .u32(0)
    .varint(0)
    .u32(0xffffffff);
  writer.varint(outputs.length);
  for (const output of outputs)
    writer.bytes(output.asset).bytes(output.value).bytes(output.nonce).varBytes(output.script);
  writer.u32(0);
  // witness: the input's (no issuance, no script witness, no peg-in), then each output's proofs
  writer.varint(0).varint(0).varint(0).varint(0);
  for (const output of outputs) writer.varBytes(output.surjectionproof).varBytes(output.rangeproof);
  return Buffer.from(writer.done()).toString('hex');
}

/** Height of the tip at a moment of the sandbox clock. */
export function tipHeightAt(now: number, blockMs = DEFAULT_BLOCK_MS): number {
  return Math.floor(now / blockMs);
}

/** The block a transaction sent at `sentAt` is confirmed in: the first one after it. */
export function blockHeightFor(sentAt: number, blockMs = DEFAULT_BLOCK_MS): number {
  return Math.floor(sentAt / blockMs) + 1;
}

/** The unconfidential address of a script, as an explorer shows it. */
export function explorerAddress(address: string): string | undefined {
  const decoded = decodeLiquidAddress(address);
  if (!decoded.ok) return undefined;
  if (!decoded.value.confidential) return decoded.value.address;
  const outputScript = addressScript(address);
  if (!outputScript.ok) return undefined;
  const script = outputScript.value.script;
  if (decoded.value.encoding === 'base58') {
    const payload = bs58check.decode(address);
    return bs58check.encode(
      Uint8Array.of(
        payload[1]!,
        ...script.subarray(script[0] === 0x76 ? 3 : 2, -(script[0] === 0x76 ? 2 : 1)),
      ),
    );
  }
  const hrp = { liquid: 'ex', liquidtestnet: 'tex', elementsregtest: 'ert' }[decoded.value.network];
  const version = script[0] === 0 ? 0 : script[0]! - 0x50;
  const words = [version, ...bech32.toWords(script.subarray(2))];
  return version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
}

/** What the sandbox's Esplora handler needs to serve a built transaction. */
export function chainTxOf(
  built: BuiltTx,
  sentAt: number,
): { hex: string; sentAt: number; addresses: string[] } {
  return { hex: built.hex, sentAt, addresses: built.payments.map((p) => p.address) };
}
