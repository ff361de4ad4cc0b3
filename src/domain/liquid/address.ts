import { bech32, bech32m } from 'bech32';
import { decode as blech32Decode } from 'blech32';
import bs58check from 'bs58check';

import { DEPOSIT_ID, isHex32 } from '../values.js';
import { NETWORKS, type Network } from './networks.js';

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

function invalidAddress(reason: string): AddressResult {
  return { ok: false, reason };
}

/** secp256k1: is this a valid compressed public key (02/03 prefix and x on the curve)? */
const FIELD_PRIME = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let square = base % mod;
  let bits = exp;
  while (bits > 0n) {
    if (bits & 1n) result = (result * square) % mod;
    square = (square * square) % mod;
    bits >>= 1n;
  }
  return result;
}
export function isCompressedPubkey(bytes: Uint8Array): boolean {
  if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) return false;
  const x = BigInt(`0x${Buffer.from(bytes.subarray(1)).toString('hex')}`);
  if (x >= FIELD_PRIME) return false;
  const rhs = (modPow(x, 3n, FIELD_PRIME) + 7n) % FIELD_PRIME;
  return rhs === 0n || modPow(rhs, (FIELD_PRIME - 1n) / 2n, FIELD_PRIME) === 1n;
}

function networkBy(pred: (p: NetworkParams) => boolean): Network | undefined {
  return NETWORKS.find((n) => pred(PARAMS[n]));
}

/** Version bytes of Bitcoin's base58 addresses (mainnet, testnet/signet/regtest). */
const BITCOIN_BASE58: Record<number, string> = {
  0: 'Bitcoin (mainnet)',
  5: 'Bitcoin (mainnet)',
  111: 'Bitcoin testnet',
  196: 'Bitcoin testnet',
};
/** Version bytes of private keys (WIF): never an address, and never to be shared. */
const WIF_VERSIONS = new Set([128, 239]);
const BASE58_CHARS = /^[1-9A-HJ-NP-Za-km-z]+$/;

function decodeBase58(input: string): AddressResult {
  // base58 decoding takes time quadratic in the length: refuse what no address is before it
  if (input.length > BASE58_LIMIT)
    return invalidAddress(
      `it is ${input.length} characters long; a base58 Liquid address has at most ${BASE58_LIMIT}`,
    );
  const bad = [...input].find((c) => !BASE58_CHARS.test(c));
  if (bad !== undefined)
    return invalidAddress(
      `it contains ${JSON.stringify(bad)}, which no base58 address has (0, O, I and l are left out), and it is not a bech32 Liquid address (lq1, ex1, tlq1, tex1, el1, ert1)`,
    );
  let payload: Uint8Array;
  try {
    payload = bs58check.decode(input);
  } catch {
    // a Liquid base58 address is 34 characters, or 80 when confidential: far from both, a piece is missing
    if (input.length < 33 || (input.length > 35 && input.length < 78))
      return invalidAddress(
        `it is ${input.length} characters long, but a base58 Liquid address has 34 (80 when confidential): a part is missing or extra`,
      );
    return invalidAddress('its base58 checksum does not match (a typo, or not an address)');
  }
  const version = payload[0]!;
  if (payload.length === 21) {
    const network = networkBy((p) => p.p2pkh === version || p.p2sh === version);
    if (!network) {
      const bitcoin = BITCOIN_BASE58[version];
      if (bitcoin) return invalidAddress(`it is a ${bitcoin} address, not a Liquid one`);
      return invalidAddress(
        `it is a base58 address of another chain (version byte ${version}), not a Liquid one`,
      );
    }
    const kind = PARAMS[network].p2pkh === version ? 'p2pkh' : 'p2sh';
    return { ok: true, value: { address: input, network, kind, confidential: false, encoding: 'base58' } };
  }
  if (payload.length === 55) {
    const prefix = payload[0]!;
    const inner = payload[1]!;
    const network = networkBy((p) => p.blinded === prefix && (p.p2pkh === inner || p.p2sh === inner));
    if (!network)
      return invalidAddress(`prefix bytes ${prefix},${inner} are not a Liquid confidential address prefix`);
    if (!isCompressedPubkey(payload.subarray(2, 35)))
      return invalidAddress('its blinding key is not a valid public key');
    const kind = PARAMS[network].p2pkh === inner ? 'p2pkh' : 'p2sh';
    return { ok: true, value: { address: input, network, kind, confidential: true, encoding: 'base58' } };
  }
  if ((payload.length === 33 || payload.length === 34) && WIF_VERSIONS.has(version))
    return invalidAddress('it is a private key (WIF), not an address: keep it secret');
  return invalidAddress(`its base58 payload has ${payload.length} bytes, not 21 or 55`);
}

/** A CPF's two check digits (mod 11), on its eleven digits. */
function isCpf(text: string): boolean {
  const digits = text.replace(/\D/g, '').split('').map(Number);
  if (digits.length !== 11 || digits.every((x) => x === digits[0])) return false;
  const check = (digitCount: number) => {
    let sum = 0;
    for (let i = 0; i < digitCount; i++) sum += digits[i]! * (digitCount + 1 - i);
    const remainder = (sum * 10) % 11;
    return remainder === 10 ? 0 : remainder;
  };
  return check(9) === digits[9] && check(10) === digits[10];
}

/** Human-readable parts of Bitcoin's segwit addresses. */
const BITCOIN_HRPS: Record<string, string> = {
  bc: 'Bitcoin (mainnet)',
  tb: 'Bitcoin testnet',
  bcrt: 'Bitcoin regtest',
};

/** Other chains' segwit prefixes a person may paste; any other valid bech32 is named by its prefix. */
const OTHER_HRPS: Record<string, string> = {
  ltc: 'Litecoin',
  tltc: 'Litecoin testnet',
  rltc: 'Litecoin regtest',
};
const LIQUID_HRPS = new Set(['lq', 'ex', 'tlq', 'tex', 'el', 'ert']);

/** A bech32 or bech32m string with a valid checksum (any prefix), by its prefix; else undefined. */
function bech32Prefix(input: string): string | undefined {
  if (input.length > BECH32_LIMIT) return undefined;
  for (const codec of [bech32, bech32m]) {
    try {
      return codec.decode(input, BECH32_LIMIT).prefix.toLowerCase();
    } catch {
      // not this variant
    }
  }
  return undefined;
}

/** `a` or `an` before a network's name. */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/**
 * What a string that is no Liquid address is, when that can be told from its shape: another
 * chain's address, a Lightning invoice, a PIX key, a payment URI. Undefined when it looks like
 * none of them (then the Liquid decoders say what is wrong with it).
 */
export function foreignKind(input: string): string | undefined {
  const lower = input.toLowerCase();
  const uri = /^([a-z][a-z0-9+.-]*):(?:\/\/)?([^?]*)/.exec(lower);
  if (uri && /^(liquidnetwork|liquidtestnet|liquid)$/.test(uri[1]!)) {
    const address = input.slice(uri[1]!.length + 1).split('?')[0]!;
    return `it is a payment URI, not an address: give the address alone (${address})`;
  }
  if (uri && uri[1] === 'bitcoin') return 'it is a Bitcoin payment URI, not a Liquid address';
  if (uri && uri[1] === 'lightning') return 'it is a Lightning payment URI, not a Liquid address';
  if (uri && /^(https?|ftp)$/.test(uri[1]!)) return 'it is a web address (URL), not a Liquid address';
  const sep = lower.lastIndexOf('1');
  const hrp = sep > 0 ? lower.slice(0, sep) : '';
  const bitcoin = BITCOIN_HRPS[hrp];
  if (bitcoin) return `it is a ${bitcoin} address, not a Liquid one`;
  const prefix = /^ln/.test(lower) ? undefined : bech32Prefix(input);
  if (prefix !== undefined && !LIQUID_HRPS.has(prefix)) {
    const other = OTHER_HRPS[prefix];
    return other
      ? `it is a ${other} address, not a Liquid one`
      : `it is a bech32 address of another chain (${prefix}1…), not a Liquid one`;
  }
  if (/^ln(bc|tb|tbs|bcrt|sb)[0-9munp]*1/.test(lower))
    return 'it is a Lightning invoice, not a Liquid address';
  if (/^lnurl1/.test(lower)) return 'it is an LNURL (Lightning), not a Liquid address';
  if (/^0x[0-9a-f]{40}$/.test(lower)) return 'it is an Ethereum (or EVM) address, not a Liquid one';
  if (/^0x[0-9a-f]*$/.test(lower)) return 'it is a hexadecimal number, not a Liquid address';
  if (/^000201/.test(input) && /6304[0-9A-Fa-f]{4}$/.test(input))
    return 'it is a PIX copy-and-paste code (BR Code), not a Liquid address';
  if (/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(input))
    return 'it is an e-mail address (a PIX key?), not a Liquid address';
  // a CPF before a phone number: eleven digits may be either, and a CPF has check digits
  if (/^\d{3}\.?\d{3}\.?\d{3}-?\d{2}$/.test(input) && (/\D/.test(input) || isCpf(input)))
    return 'it is a CPF (a PIX key?), not a Liquid address';
  if (/^\+\d{10,15}$/.test(input) || /^\(?\d{2}\)?\s?9?\d{4}-?\d{4}$/.test(input))
    return 'it is a phone number (a PIX key?), not a Liquid address';
  if (/^\d{11}$/.test(input))
    return 'it is eleven digits (a CPF or a phone number: a PIX key?), not a Liquid address';
  if (/^\d{2}\.?\d{3}\.?\d{3}\/?\d{4}-?\d{2}$/.test(input))
    return 'it is a CNPJ (a PIX key?), not a Liquid address';
  if (DEPOSIT_ID.test(lower)) return 'it is a UUID (a PIX random key, or a deposit id), not a Liquid address';
  if (/^[xyztuv]pub[1-9A-HJ-NP-Za-km-z]{100,112}$/.test(input))
    return 'it is an extended public key (xpub), not an address';
  if (/^[xyztuv]prv[1-9A-HJ-NP-Za-km-z]{100,112}$/.test(input))
    return 'it is an extended private key, not an address: keep it secret';
  if (isHex32(lower)) return 'it is 64 hexadecimal digits (a txid or an asset id), not an address';
  return undefined;
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
  if (input !== lower && input !== input.toUpperCase())
    return invalidAddress('it mixes upper and lower case');

  if (bech) {
    if (lower.length > BECH32_LIMIT) return invalidAddress(`it is longer than ${BECH32_LIMIT} characters`);
    let words: number[] | undefined;
    let encoding: 'bech32' | 'bech32m' | undefined;
    const bech32Decoded = bech32.decodeUnsafe(lower, BECH32_LIMIT);
    if (bech32Decoded) {
      words = bech32Decoded.words;
      encoding = 'bech32';
    } else {
      const bech32mDecoded = bech32m.decodeUnsafe(lower, BECH32_LIMIT);
      if (bech32mDecoded) {
        words = bech32mDecoded.words;
        encoding = 'bech32m';
      }
    }
    if (!words || !encoding) return invalidAddress(segwitProblem(lower, hrp, false));
    return checkWitness(lower, bech, words, encoding, false);
  }

  if (lower.length > BLECH32_LIMIT) return invalidAddress(`it is longer than ${BLECH32_LIMIT} characters`);
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
  if (!words || !encoding) return invalidAddress(segwitProblem(lower, hrp, true));
  return checkWitness(lower, blech!, words, encoding, true);
}

const BECH32_CHARS = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;

/** Why a bech32/blech32 string with a Liquid prefix does not decode: a bad character, a wrong length, or the checksum. */
function segwitProblem(lower: string, hrp: string, confidential: boolean): string {
  const data = lower.slice(hrp.length + 1);
  const bad = [...data].find((c) => !BECH32_CHARS.test(c));
  if (bad !== undefined)
    return `it contains ${JSON.stringify(bad)} after "${hrp}1", which ${confidential ? 'blech32' : 'bech32'} does not use (1, b, i and o are left out)`;
  // v0 key hash (20 bytes), or v0 script hash / v1 taproot (32 bytes); blech32 adds the 33-byte blinding key
  const checksum = confidential ? 12 : 6;
  const key = confidential ? 33 : 0;
  const lengths = [20, 32].map((n) => hrp.length + 1 + 1 + Math.ceil(((key + n) * 8) / 5) + checksum);
  if (!lengths.includes(lower.length))
    return `it is ${lower.length} characters long, but a ${hrp}1 address has ${lengths.join(' or ')}: a character is missing or extra`;
  return `its ${confidential ? 'blech32' : 'bech32'} checksum does not match (a typo, or not an address)`;
}

function checkWitness(
  address: string,
  network: Network,
  words: ArrayLike<number>,
  encoding: LiquidAddress['encoding'],
  confidential: boolean,
): AddressResult {
  if (words.length < 1) return invalidAddress('it has no witness program');
  const version = words[0]!;
  if (version > 16) return invalidAddress(`witness version ${version} is above 16`);
  const modern = encoding === 'bech32m' || encoding === 'blech32m';
  if (version === 0 && modern)
    return invalidAddress(
      `witness version 0 must use ${confidential ? 'blech32' : 'bech32'}, not ${encoding}`,
    );
  if (version > 0 && !modern)
    return invalidAddress(
      `witness version ${version} must use ${confidential ? 'blech32m' : 'bech32m'}, not ${encoding}`,
    );
  const data = fromWords(Array.from(words).slice(1));
  if (!data) return invalidAddress('its witness program has invalid padding');
  let program = data;
  if (confidential) {
    if (data.length < 33) return invalidAddress('it is too short to hold a blinding key');
    if (!isCompressedPubkey(data.subarray(0, 33)))
      return invalidAddress('its blinding key is not a valid public key');
    program = data.subarray(33);
  }
  const kind = witnessKind(version, program.length);
  if (!kind)
    return invalidAddress(`a witness version ${version} program of ${program.length} bytes is not valid`);
  return { ok: true, value: { address, network, kind, confidential, encoding } };
}

/**
 * Decode and check a Liquid address of any type on any of the three networks, in time
 * linear in the input's length: the length is capped before any decoding.
 */
export function decodeLiquidAddress(input: string): AddressResult {
  if (input.length === 0) return invalidAddress('it is empty');
  if (input.length > BLECH32_LIMIT)
    return invalidAddress(
      `it is ${input.length} characters long; a Liquid address has at most ${BLECH32_LIMIT}`,
    );
  if (!/^[\x21-\x7e]+$/.test(input)) {
    const trimmed = input.trim();
    if (trimmed !== input && /^[\x21-\x7e]+$/.test(trimmed))
      return invalidAddress('it has spaces or a line break around it (copied with them?)');
    return invalidAddress('it contains spaces or characters no address has');
  }
  const segwit = decodeSegwit(input);
  if (segwit) return segwit;
  const foreign = foreignKind(input);
  if (foreign) return invalidAddress(foreign);
  return decodeBase58(input);
}

/** Decode, then require the given network. */
export function checkLiquidAddress(input: string, network: Network): AddressResult {
  const address = decodeLiquidAddress(input);
  if (!address.ok) return address;
  if (address.value.network !== network) {
    return invalidAddress(
      `it is ${article(address.value.network)} ${address.value.network} address, but the profile's network is ${network}; use ${article(network)} ${network} address or \`lbrl config set network ${address.value.network}\``,
    );
  }
  return address;
}
