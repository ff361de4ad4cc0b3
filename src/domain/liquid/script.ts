/**
 * The output script a Liquid address pays to, and its blinding public key when it is
 * confidential. An explorer shows only the unconfidential form of an output's address, so a
 * confidential address is matched through its script: the script is built from the hash or the
 * witness program alone, never from the blinding key.
 */
import { bech32, bech32m } from 'bech32';
import { decode as blech32Decode } from 'blech32';
import bs58check from 'bs58check';
import { decodeLiquidAddress } from './address.js';
import type { Network } from './networks.js';

export interface AddressScript {
  script: Uint8Array;
  /** 33 bytes, for a confidential address */
  blindingPubkey: Uint8Array | null;
  network: Network;
}

function p2pkh(hash: Uint8Array): Uint8Array {
  return Uint8Array.of(0x76, 0xa9, 0x14, ...hash, 0x88, 0xac);
}

function p2sh(hash: Uint8Array): Uint8Array {
  return Uint8Array.of(0xa9, 0x14, ...hash, 0x87);
}

function witness(version: number, program: Uint8Array): Uint8Array {
  return Uint8Array.of(version === 0 ? 0 : 0x50 + version, program.length, ...program);
}

/** The script of a valid Liquid address (checked by decodeLiquidAddress), or the reason it has none. */
export function addressScript(
  address: string,
): { ok: true; value: AddressScript } | { ok: false; reason: string } {
  const decoded = decodeLiquidAddress(address);
  if (!decoded.ok) return decoded;
  const { network, kind, confidential, encoding } = decoded.value;
  if (encoding === 'base58') {
    const payload = bs58check.decode(address);
    const hash = payload.subarray(payload.length - 20);
    const script = kind === 'p2pkh' ? p2pkh(hash) : p2sh(hash);
    return {
      ok: true,
      value: {
        script,
        blindingPubkey: confidential ? Uint8Array.from(payload.subarray(2, 35)) : null,
        network,
      },
    };
  }
  const lower = address.toLowerCase();
  // decodeLiquidAddress has checked the checksum, the variant and the program's length
  const words: ArrayLike<number> = confidential
    ? blech32Decode(lower, encoding === 'blech32m' ? 'blech32m' : 'blech32').data
    : (encoding === 'bech32m' ? bech32m : bech32).decode(lower, 90).words;
  const version = words[0]!;
  const data = Uint8Array.from(bech32.fromWords(Array.from(words).slice(1)));
  const program = confidential ? data.subarray(33) : data;
  return {
    ok: true,
    value: {
      script: witness(version, program),
      blindingPubkey: confidential ? Uint8Array.from(data.subarray(0, 33)) : null,
      network,
    },
  };
}
