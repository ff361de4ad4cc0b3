import { bech32, bech32m } from 'bech32';
import { decode as blech32Decode } from 'blech32';
import bs58check from 'bs58check';

import { NETWORKS, type Network } from './networks.js';

export { isNetwork, NETWORKS, type Network } from './networks.js';

interface NetworkParams {
  p2pkh: number;
  p2sh: number;
  blinded: number;
  bech32: string;
  blech32: string;
}

/** Elements chainparams: CLiquidV1Params, CLiquidTestNetParams, CCustomParams (elementsregtest). */
const PARAMS: Record<Network, NetworkParams> = {
  liquid: { p2pkh: 57, p2sh: 39, blinded: 12, bech32: 'ex', blech32: 'lq' },
  liquidtestnet: { p2pkh: 36, p2sh: 19, blinded: 23, bech32: 'tex', blech32: 'tlq' },
  elementsregtest: { p2pkh: 235, p2sh: 75, blinded: 4, bech32: 'ert', blech32: 'el' },
};

export type AddressKind = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'witness';

export interface LiquidAddress {
  /** as it is sent: bech32 and blech32 lower-cased, base58 as given */
  address: string;
  network: Network;
  kind: AddressKind;
  confidential: boolean;
  encoding: 'base58' | 'bech32' | 'bech32m' | 'blech32' | 'blech32m';
}

export type AddressResult = { ok: true; value: LiquidAddress } | { ok: false; reason: string };

const BECH32_LIMIT = 90;
const BLECH32_LIMIT = 1000;
/** A base58 Liquid address: 34 characters, or 80 when confidential (55 bytes and a checksum). */
const BASE58_LIMIT = 80;

function fail(reason: string): AddressResult {
  return { ok: false, reason };
}

/** secp256k1: is this a valid compressed public key (02/03 prefix and x on the curve)? */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
    e >>= 1n;
  }
  return result;
}
export function isCompressedPubkey(bytes: Uint8Array): boolean {
  if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) return false;
  const x = BigInt(`0x${Buffer.from(bytes.subarray(1)).toString('hex')}`);
  if (x >= P) return false;
  const rhs = (modPow(x, 3n, P) + 7n) % P;
  return rhs === 0n || modPow(rhs, (P - 1n) / 2n, P) === 1n;
}

function networkBy(pred: (p: NetworkParams) => boolean): Network | undefined {
  return NETWORKS.find((n) => pred(PARAMS[n]));
}

function decodeBase58(input: string): AddressResult {
  // base58 decoding takes time quadratic in the length: refuse what no address is before it
  if (input.length > BASE58_LIMIT)
    return fail(`it is ${input.length} characters long; a base58 Liquid address has at most ${BASE58_LIMIT}`);
  let payload: Uint8Array;
  try {
    payload = bs58check.decode(input);
  } catch {
    return fail('its base58 checksum does not match (a typo, or not an address)');
  }
  if (payload.length === 21) {
    const version = payload[0]!;
    const network = networkBy((p) => p.p2pkh === version || p.p2sh === version);
    if (!network) return fail(`version byte ${version} is not a Liquid address version`);
    const kind = PARAMS[network].p2pkh === version ? 'p2pkh' : 'p2sh';
    return { ok: true, value: { address: input, network, kind, confidential: false, encoding: 'base58' } };
  }
  if (payload.length === 55) {
    const prefix = payload[0]!;
    const version = payload[1]!;
    const network = networkBy((p) => p.blinded === prefix && (p.p2pkh === version || p.p2sh === version));
    if (!network)
      return fail(`prefix bytes ${prefix},${version} are not a Liquid confidential address prefix`);
    if (!isCompressedPubkey(payload.subarray(2, 35)))
      return fail('its blinding key is not a valid public key');
    const kind = PARAMS[network].p2pkh === version ? 'p2pkh' : 'p2sh';
    return { ok: true, value: { address: input, network, kind, confidential: true, encoding: 'base58' } };
  }
  return fail(`its base58 payload has ${payload.length} bytes, not 21 or 55`);
}

function witnessKind(version: number, programLength: number): AddressKind | null {
  if (version === 0) return programLength === 20 ? 'p2wpkh' : programLength === 32 ? 'p2wsh' : null;
  if (programLength < 2 || programLength > 40) return null;
  return version === 1 && programLength === 32 ? 'p2tr' : 'witness';
}

function fromWords(words: ArrayLike<number>): Uint8Array | null {
  const out = bech32.fromWordsUnsafe(Array.from(words));
  return out ? Uint8Array.from(out) : null;
}

function decodeSegwit(input: string): AddressResult | null {
  const lower = input.toLowerCase();
  const sep = lower.lastIndexOf('1');
  if (sep < 1) return null;
  const hrp = lower.slice(0, sep);
  const bech = networkBy((p) => p.bech32 === hrp);
  const blech = networkBy((p) => p.blech32 === hrp);
  if (!bech && !blech) return null;
  if (input !== lower && input !== input.toUpperCase()) return fail('it mixes upper and lower case');

  if (bech) {
    if (lower.length > BECH32_LIMIT) return fail(`it is longer than ${BECH32_LIMIT} characters`);
    let words: number[] | undefined;
    let encoding: 'bech32' | 'bech32m' | undefined;
    const a = bech32.decodeUnsafe(lower, BECH32_LIMIT);
    if (a) {
      words = a.words;
      encoding = 'bech32';
    } else {
      const b = bech32m.decodeUnsafe(lower, BECH32_LIMIT);
      if (b) {
        words = b.words;
        encoding = 'bech32m';
      }
    }
    if (!words || !encoding) return fail('its bech32 checksum does not match (a typo, or not an address)');
    return checkWitness(lower, bech, words, encoding, false);
  }

  if (lower.length > BLECH32_LIMIT) return fail(`it is longer than ${BLECH32_LIMIT} characters`);
  let words: Uint8Array | undefined;
  let encoding: 'blech32' | 'blech32m' | undefined;
  for (const enc of ['blech32', 'blech32m'] as const) {
    try {
      words = blech32Decode(lower, enc).data;
      encoding = enc;
      break;
    } catch {
      // try the other variant
    }
  }
  if (!words || !encoding) return fail('its blech32 checksum does not match (a typo, or not an address)');
  return checkWitness(lower, blech!, words, encoding, true);
}

function checkWitness(
  address: string,
  network: Network,
  words: ArrayLike<number>,
  encoding: LiquidAddress['encoding'],
  confidential: boolean,
): AddressResult {
  if (words.length < 1) return fail('it has no witness program');
  const version = words[0]!;
  if (version > 16) return fail(`witness version ${version} is above 16`);
  const modern = encoding === 'bech32m' || encoding === 'blech32m';
  if (version === 0 && modern)
    return fail(`witness version 0 must use ${confidential ? 'blech32' : 'bech32'}, not ${encoding}`);
  if (version > 0 && !modern)
    return fail(
      `witness version ${version} must use ${confidential ? 'blech32m' : 'bech32m'}, not ${encoding}`,
    );
  const data = fromWords(Array.from(words).slice(1));
  if (!data) return fail('its witness program has invalid padding');
  let program = data;
  if (confidential) {
    if (data.length < 33) return fail('it is too short to hold a blinding key');
    if (!isCompressedPubkey(data.subarray(0, 33))) return fail('its blinding key is not a valid public key');
    program = data.subarray(33);
  }
  const kind = witnessKind(version, program.length);
  if (!kind) return fail(`a witness version ${version} program of ${program.length} bytes is not valid`);
  return { ok: true, value: { address, network, kind, confidential, encoding } };
}

/**
 * Decode and check a Liquid address of any type on any of the three networks, in time
 * linear in the input's length: the length is capped before any decoding.
 */
export function decodeLiquidAddress(input: string): AddressResult {
  if (input.length === 0) return fail('it is empty');
  if (input.length > BLECH32_LIMIT)
    return fail(`it is ${input.length} characters long; a Liquid address has at most ${BLECH32_LIMIT}`);
  if (!/^[\x21-\x7e]+$/.test(input)) return fail('it contains spaces or characters no address has');
  return decodeSegwit(input) ?? decodeBase58(input);
}

/** Decode, then require the given network. */
export function checkLiquidAddress(input: string, network: Network): AddressResult {
  const r = decodeLiquidAddress(input);
  if (!r.ok) return r;
  if (r.value.network !== network) {
    return fail(`it is a ${r.value.network} address, but the profile's network is ${network}`);
  }
  return r;
}

/** The same address, as the service may echo it: bech32/blech32 compare without case. */
export function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  const da = decodeLiquidAddress(a);
  return da.ok && da.value.encoding !== 'base58' && a.toLowerCase() === b.toLowerCase();
}
