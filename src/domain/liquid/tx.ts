/**
 * Elements (Liquid) transaction serialization, read. No library on npm reads it without heavy
 * baggage (see docs/verify.md, "Verify on chain: libraries"), and reading is plain byte layout, not
 * cryptography: the layout of Elements' `primitives/transaction.h` (CTransaction with its
 * CTxWitness), the same one rust-elements' `Transaction` decodes. What is read is checked twice:
 * the txid is recomputed from the bytes (double SHA-256 of the serialization without witness,
 * node:crypto) and must equal the one asked for, and range proofs are checked by the
 * secp256k1-zkp library when an output is unblinded.
 */
import { createHash } from 'node:crypto';
import { isHexBytes } from '../values.js';

export type ConfidentialAsset =
  | { kind: 'null' }
  /** the asset id in display order (as explorers show it) */
  | { kind: 'explicit'; id: string }
  /** a 33-byte blinded generator (prefix 0x0a or 0x0b) */
  | { kind: 'confidential'; commitment: Uint8Array };

export type ConfidentialValue =
  | { kind: 'null' }
  | { kind: 'explicit'; amount: bigint }
  /** a 33-byte Pedersen commitment (prefix 0x08 or 0x09) */
  | { kind: 'confidential'; commitment: Uint8Array };

export interface TxOutput {
  index: number;
  asset: ConfidentialAsset;
  value: ConfidentialValue;
  /** the ephemeral public key of a blinded output (33 bytes), or null */
  nonce: Uint8Array | null;
  script: Uint8Array;
  rangeproof: Uint8Array;
  surjectionproof: Uint8Array;
}

export interface LiquidTransaction {
  /** display order, as explorers show it */
  txid: string;
  version: number;
  inputCount: number;
  outputs: TxOutput[];
  locktime: number;
}

export class TxParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TxParseError';
  }
}

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  take(byteCount: number, what: string): Uint8Array {
    if (byteCount < 0 || this.offset + byteCount > this.bytes.length) {
      throw new TxParseError(
        `the transaction ends inside ${what} (byte ${this.offset} of ${this.bytes.length})`,
      );
    }
    const out = this.bytes.subarray(this.offset, this.offset + byteCount);
    this.offset += byteCount;
    return out;
  }

  u8(what: string): number {
    return this.take(1, what)[0]!;
  }

  u32(what: string): number {
    const bytes = this.take(4, what);
    return (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
  }

  /** Bitcoin's CompactSize, minimally encoded, within what the rest of the bytes can hold. */
  varint(what: string): number {
    const first = this.u8(what);
    let decoded: number;
    let min: number;
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      const bytes = this.take(2, what);
      decoded = bytes[0]! | (bytes[1]! << 8);
      min = 0xfd;
    } else if (first === 0xfe) {
      decoded = this.u32(what);
      min = 0x10000;
    } else {
      const lo = this.u32(what);
      const hi = this.u32(what);
      if (hi !== 0) throw new TxParseError(`${what}: a length above 2^32`);
      decoded = lo;
      min = 0x100000000;
    }
    if (decoded < min) throw new TxParseError(`${what}: a length that is not minimally encoded`);
    return decoded;
  }

  varBytes(what: string): Uint8Array {
    const byteLength = this.varint(what);
    if (byteLength > this.bytes.length - this.offset) {
      throw new TxParseError(`${what}: a length of ${byteLength} bytes, more than the transaction holds`);
    }
    return this.take(byteLength, what);
  }

  count(what: string, minItemBytes: number): number {
    const itemCount = this.varint(what);
    if (itemCount * minItemBytes > this.bytes.length - this.offset) {
      throw new TxParseError(`${what}: ${itemCount} items, more than the transaction can hold`);
    }
    return itemCount;
  }
}

/** Bytes as lower-case hex, in their own order. */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Internal byte order to display order (explorers show ids and hashes reversed). */
export function toDisplayHex(bytes: Uint8Array): string {
  return hexOf(Uint8Array.from(bytes).reverse());
}

export function fromDisplayHex(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'hex')).reverse();
}

function readAsset(reader: Reader, what: string): ConfidentialAsset {
  const prefix = reader.u8(what);
  if (prefix === 0) return { kind: 'null' };
  const body = reader.take(32, what);
  if (prefix === 1) return { kind: 'explicit', id: toDisplayHex(body) };
  if (prefix === 0x0a || prefix === 0x0b) {
    return { kind: 'confidential', commitment: Uint8Array.of(prefix, ...body) };
  }
  throw new TxParseError(`${what}: prefix 0x${prefix.toString(16)} is not an asset`);
}

function readValue(reader: Reader, what: string): ConfidentialValue {
  const prefix = reader.u8(what);
  if (prefix === 0) return { kind: 'null' };
  if (prefix === 1) {
    const bytes = reader.take(8, what);
    // explicit values are big-endian
    return { kind: 'explicit', amount: BigInt(`0x${hexOf(bytes)}`) };
  }
  if (prefix === 0x08 || prefix === 0x09) {
    return { kind: 'confidential', commitment: Uint8Array.of(prefix, ...reader.take(32, what)) };
  }
  throw new TxParseError(`${what}: prefix 0x${prefix.toString(16)} is not a value`);
}

function readNonce(reader: Reader, what: string): Uint8Array | null {
  const prefix = reader.u8(what);
  if (prefix === 0) return null;
  if (prefix === 1 || prefix === 2 || prefix === 3) return Uint8Array.of(prefix, ...reader.take(32, what));
  throw new TxParseError(`${what}: prefix 0x${prefix.toString(16)} is not a nonce`);
}

const ISSUANCE_FLAG = 0x80000000;

/** Parse a raw Elements transaction given as hex; the txid is recomputed from its bytes. */
export function parseTransaction(rawHex: string): LiquidTransaction {
  const text = rawHex.trim();
  if (!isHexBytes(text, 1))
    throw new TxParseError('the raw transaction is not hex (two lower-case digits a byte)');
  const bytes = Uint8Array.from(Buffer.from(text, 'hex'));
  const reader = new Reader(bytes);
  const version = reader.u32('the version');
  const flagAt = reader.offset;
  const flags = reader.u8('the witness flag');
  if (flags > 1) throw new TxParseError(`witness flag ${flags} is neither 0 nor 1`);
  const inputCount = reader.count('the input count', 41);
  if (inputCount === 0) throw new TxParseError('the transaction has no inputs');
  for (let i = 0; i < inputCount; i++) {
    const what = `input ${i}`;
    reader.take(32, `${what}'s previous txid`);
    const vout = reader.u32(`${what}'s previous index`);
    reader.varBytes(`${what}'s scriptSig`);
    reader.u32(`${what}'s sequence`);
    // the issuance and peg-in flags live in the index's high bits, except in the null outpoint
    const hasIssuance = vout !== 0xffffffff && (vout & ISSUANCE_FLAG) !== 0;
    if (hasIssuance) {
      reader.take(32, `${what}'s asset blinding nonce`);
      reader.take(32, `${what}'s asset entropy`);
      readValue(reader, `${what}'s issued amount`);
      readValue(reader, `${what}'s inflation keys`);
    }
  }
  const outputCount = reader.count('the output count', 4);
  const outputs: TxOutput[] = [];
  for (let i = 0; i < outputCount; i++) {
    const what = `output ${i}`;
    const asset = readAsset(reader, `${what}'s asset`);
    const value = readValue(reader, `${what}'s value`);
    const nonce = readNonce(reader, `${what}'s nonce`);
    const script = reader.varBytes(`${what}'s script`);
    outputs.push({
      index: i,
      asset,
      value,
      nonce,
      script,
      rangeproof: new Uint8Array(0),
      surjectionproof: new Uint8Array(0),
    });
  }
  const locktime = reader.u32('the lock time');
  const baseEnd = reader.offset;
  if (flags === 1) {
    for (let i = 0; i < inputCount; i++) {
      const what = `input ${i}'s witness`;
      reader.varBytes(`${what} (issuance range proof)`);
      reader.varBytes(`${what} (inflation keys range proof)`);
      const items = reader.count(what, 1);
      for (let k = 0; k < items; k++) reader.varBytes(what);
      const pegin = reader.count(`${what} (peg-in)`, 1);
      for (let k = 0; k < pegin; k++) reader.varBytes(`${what} (peg-in)`);
    }
    for (const out of outputs) {
      out.surjectionproof = reader.varBytes(`output ${out.index}'s surjection proof`);
      out.rangeproof = reader.varBytes(`output ${out.index}'s range proof`);
    }
  }
  if (reader.offset !== bytes.length) {
    throw new TxParseError(`${bytes.length - reader.offset} bytes follow the end of the transaction`);
  }
  refuseUnprovenValues(outputs, flags === 1);
  // txid: the serialization without witness, i.e. with the flag byte 0 and no witness section
  const base = new Uint8Array(baseEnd);
  base.set(bytes.subarray(0, baseEnd));
  base[flagAt] = 0;
  const first = createHash('sha256').update(base).digest();
  const txid = toDisplayHex(createHash('sha256').update(first).digest());
  return { txid, version, inputCount, outputs, locktime };
}

/**
 * The chain refuses a committed value without its range proof (Elements' VerifyAmounts): such bytes
 * are a copy with its witness stripped or cut (the txid does not cover it), not what was mined.
 */
function refuseUnprovenValues(outputs: TxOutput[], hasWitness: boolean): void {
  const unproven = outputs.find((out) => out.value.kind === 'confidential' && out.rangeproof.length === 0);
  if (!unproven) return;
  throw new TxParseError(
    hasWitness
      ? `output ${unproven.index} has a committed value but no range proof, which the chain refuses`
      : `it is a copy without its witness (no range proofs), so output ${unproven.index}'s committed value cannot be opened`,
  );
}

/** A fee output: explicit, with an empty script. */
export function isFeeOutput(out: TxOutput): boolean {
  return out.script.length === 0 && out.value.kind === 'explicit' && out.asset.kind === 'explicit';
}
