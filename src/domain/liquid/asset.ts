/**
 * An issued asset's id commits to its registry contract (Elements' issuance rules, as
 * `GenerateAssetEntropy` and `CalculateAsset` in elements `src/issuance.cpp` compute them):
 *
 *   entropy  = fastMerkleRoot(sha256d(prevout), sha256(contract's canonical JSON))
 *   asset id = fastMerkleRoot(entropy, 32 zero bytes)
 *
 * where the prevout is the issuing input's outpoint serialized as its txid (internal byte order)
 * followed by its vout (4 bytes, little-endian), and fastMerkleRoot(a, b) is one SHA-256
 * compression of the 64 bytes a || b with no padding (Elements' `ComputeFastMerkleRoot`: the
 * midstate, written big-endian). The contract's canonical JSON is the one the asset registry
 * hashes: keys sorted, no spaces. Ids and txids are shown byte-reversed (display order).
 *
 * So a registry answer (`/asset/:id` gives `contract` and `issuance_prevout`) proves the
 * contract's `precision` only when the id recomputed from them is the id asked about.
 */
import { createHash } from 'node:crypto';
import { SHA256 } from '@noble/hashes/sha2';
import { readHex32 } from '../values.js';

/** SHA-256's compression of one 64-byte block from the initial state: the midstate. */
class Midstate extends SHA256 {
  compress(block: Uint8Array): Uint8Array {
    this.process(new DataView(block.buffer, block.byteOffset, 64), 0);
    const out = new Uint8Array(32);
    const view = new DataView(out.buffer);
    for (const [i, word] of this.get().entries()) view.setUint32(i * 4, word, false);
    this.destroy();
    return out;
  }
}

function fastMerkleRoot(left: Uint8Array, right: Uint8Array): Uint8Array {
  const block = new Uint8Array(64);
  block.set(left, 0);
  block.set(right, 32);
  return new Midstate().compress(block);
}

function sha256(bytes: Uint8Array): Uint8Array {
  return Uint8Array.from(createHash('sha256').update(bytes).digest());
}

function reversedHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex').reverse());
}

/**
 * The JSON the registry hashes: object keys sorted, no spaces. Numbers are written as
 * JavaScript writes them (integers, as contracts hold); anything that is not plain JSON data is
 * refused (undefined).
 */
export function canonicalJson(value: unknown): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonicalJson);
    return items.some((x) => x === undefined) ? undefined : `[${items.join(',')}]`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const parts: string[] = [];
    for (const key of keys) {
      const item = canonicalJson((value as Record<string, unknown>)[key]);
      if (item === undefined) return undefined;
      parts.push(`${JSON.stringify(key)}:${item}`);
    }
    return `{${parts.join(',')}}`;
  }
  return undefined;
}

/** sha256 of the contract's canonical JSON (internal byte order): what an issuance commits to. */
function contractDigest(contract: unknown): Uint8Array | undefined {
  const text = canonicalJson(contract);
  return text === undefined ? undefined : sha256(Buffer.from(text, 'utf8'));
}

/** The contract's hash in display order (as `issueasset` takes it). */
export function contractHash(contract: unknown): string | undefined {
  const digest = contractDigest(contract);
  return digest === undefined ? undefined : Buffer.from(digest).reverse().toString('hex');
}

export interface Outpoint {
  /** display order, 64 hex digits */
  txid: string;
  vout: number;
}

/** The asset id (display order) an issuance of `contract` spending `prevout` creates. */
export function issuedAssetId(prevout: Outpoint, contract: unknown): string | undefined {
  const txid = readHex32(prevout.txid);
  if (txid === null) return undefined;
  if (!Number.isInteger(prevout.vout) || prevout.vout < 0 || prevout.vout > 0xffffffff) return undefined;
  const digest = contractDigest(contract);
  if (digest === undefined) return undefined;
  const serialized = new Uint8Array(36);
  serialized.set(reversedHex(txid), 0);
  new DataView(serialized.buffer).setUint32(32, prevout.vout, true);
  const prevoutHash = sha256(sha256(serialized));
  const entropy = fastMerkleRoot(prevoutHash, digest);
  const id = fastMerkleRoot(entropy, new Uint8Array(32));
  return Buffer.from(id).reverse().toString('hex');
}

/** A registry contract's precision, when it is a whole number from 0 to 8; undefined otherwise. */
export function contractPrecision(contract: unknown): number | undefined {
  if (!contract || typeof contract !== 'object' || Array.isArray(contract)) return undefined;
  const precision = (contract as Record<string, unknown>).precision;
  if (precision === undefined) return 0; // the registry's default
  return typeof precision === 'number' && Number.isInteger(precision) && precision >= 0 && precision <= 8
    ? precision
    : undefined;
}

/**
 * The precision an asset registry answer proves: the contract's, when the id recomputed from the
 * contract and the issuance prevout is `assetId` (in its one form, lower case); undefined when it
 * proves nothing.
 */
export function provenPrecision(
  assetId: string,
  answer: { contract?: unknown; issuance_prevout?: unknown },
): number | undefined {
  const prevout = answer.issuance_prevout as Partial<Outpoint> | undefined;
  if (!prevout || typeof prevout.txid !== 'string' || typeof prevout.vout !== 'number') return undefined;
  if (issuedAssetId({ txid: prevout.txid, vout: prevout.vout }, answer.contract) !== assetId)
    return undefined;
  return contractPrecision(answer.contract);
}
