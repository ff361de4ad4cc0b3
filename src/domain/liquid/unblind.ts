/**
 * Unblinding a confidential output, with every piece of cryptography from libraries:
 * ECDH, range proof rewind, generators and Pedersen commitments from secp256k1-zkp (the
 * secp256k1-zkp C library in WebAssembly), SHA-256 and HMAC-SHA256 from node:crypto.
 *
 * What the range proof gives back is trusted only after the output's asset commitment and value
 * commitment have been recomputed from it and found equal to the output's (as Elements' own
 * UnblindConfidentialPair and rust-elements do).
 */
import { createHash, createHmac } from 'node:crypto';
import { readHex32 } from '../values.js';
import { type TxOutput, toDisplayHex } from './tx.js';

/** The part of @vulpemventures/secp256k1-zkp this code uses. */
export interface Zkp {
  ecdh(pubkey: Uint8Array, scalar: Uint8Array): Uint8Array;
  ecc: {
    isPrivate(key: Uint8Array): boolean;
    isPoint(point: Uint8Array): boolean;
    pointFromScalar(scalar: Uint8Array, compressed?: boolean): Uint8Array | null;
  };
  generator: {
    generate(seed: Uint8Array): Uint8Array;
    generateBlinded(key: Uint8Array, blinder: Uint8Array): Uint8Array;
  };
  pedersen: { commitment(value: string, generator: Uint8Array, blinder: Uint8Array): Uint8Array };
  rangeproof: {
    rewind(
      proof: Uint8Array,
      valueCommitment: Uint8Array,
      assetCommitment: Uint8Array,
      nonce: Uint8Array,
      extraCommit?: Uint8Array,
    ): { value: string; minValue: string; maxValue: string; blinder: Uint8Array; message: Uint8Array };
    sign(
      value: string,
      valueCommitment: Uint8Array,
      assetCommitment: Uint8Array,
      valueBlinder: Uint8Array,
      nonce: Uint8Array,
      minValue?: string,
      base10Exp?: string,
      minBits?: string,
      message?: Uint8Array,
      extraCommit?: Uint8Array,
    ): Uint8Array;
  };
  surjectionproof: {
    initialize(
      inputTags: Uint8Array[],
      outputTag: Uint8Array,
      maxIterations: number,
      seed: Uint8Array,
    ): { proof: Uint8Array; inputIndex: number };
    generate(
      proof: Uint8Array,
      inputTags: Uint8Array[],
      outputTag: Uint8Array,
      inputIndex: number,
      inputBlindingKey: Uint8Array,
      outputBlindingKey: Uint8Array,
    ): Uint8Array;
    verify(proof: Uint8Array, inputTags: Uint8Array[], outputTag: Uint8Array): boolean;
  };
}

let loading: Promise<Zkp> | undefined;

/**
 * The library, loaded (and its WebAssembly compiled, ~35 ms) only on the paths that need it.
 * Left out of the bundle (`--external` in the build) and installed beside it as the package's one
 * dependency: its Emscripten loader finds its WebAssembly file through its own `__dirname`. The
 * bundle turns this import() into a require() of the installed package; the sources (tests) import
 * it as an ES module, where the CommonJS exports arrive as `default`.
 */
export function loadZkp(): Promise<Zkp> {
  loading ??= import('@vulpemventures/secp256k1-zkp').then((imported) => {
    const mod = imported as unknown as { default: (() => Promise<Zkp>) | { default: () => Promise<Zkp> } };
    const init = typeof mod.default === 'function' ? mod.default : mod.default.default;
    return init();
  });
  return loading;
}

/** SLIP-77: an address's blinding private key from the wallet's master blinding key. */
export function slip77BlindingKey(masterBlindingKey: Uint8Array, scriptPubKey: Uint8Array): Uint8Array {
  if (masterBlindingKey.length !== 32) throw new Error('a SLIP-77 master blinding key has 32 bytes');
  return Uint8Array.from(createHmac('sha256', masterBlindingKey).update(scriptPubKey).digest());
}

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const KEY_EXPECTED =
  'a blinding private key as 64 hex digits, slip77(<master blinding key>) or a ct(slip77(...),...) descriptor';

/**
 * A blinding key as a user gives it. Elements prints an address's key (`dumpblindingkey`) and a
 * wallet's master key (`dumpmasterblindingkey`) alike, as 64 hex digits, so a bare key is tried
 * both ways; `slip77(...)` and a CT descriptor `ct(slip77(...),...)` are master keys. The key
 * itself never appears in the reason for refusing it.
 */
export function parseBlindingKey(
  text: string,
):
  | { ok: true; value: { outputKeys: Uint8Array[]; masterBlindingKeys: Uint8Array[] } }
  | { ok: false; expected: string } {
  const trimmed = text.trim();
  const bare = readHex32(trimmed);
  const hex = bare ?? slip77Master(trimmed);
  if (!hex) return { ok: false, expected: KEY_EXPECTED };
  const scalar = BigInt(`0x${hex}`);
  if (scalar === 0n || scalar >= CURVE_ORDER)
    return { ok: false, expected: `${KEY_EXPECTED}, within the range of secp256k1 keys` };
  const key = Uint8Array.from(Buffer.from(hex, 'hex'));
  return bare
    ? { ok: true, value: { outputKeys: [key], masterBlindingKeys: [key] } }
    : { ok: true, value: { outputKeys: [], masterBlindingKeys: [key] } };
}

/** A descriptor expression: `name(arg,arg,...)`, or a bare argument (a key, a path). */
interface Expr {
  name: string;
  args: Expr[] | null;
}

/**
 * Parse a descriptor expression completely: balanced parentheses, no empty argument, nothing
 * left over. Undefined for anything else.
 */
function parseExpr(text: string): Expr | undefined {
  let pos = 0;
  const atom = /^[A-Za-z0-9/'<>;*[\]h.+-]*/;
  const expr = (): Expr | undefined => {
    const name = atom.exec(text.slice(pos))![0];
    pos += name.length;
    if (text[pos] !== '(') return name.length > 0 ? { name, args: null } : undefined;
    if (!/^[a-z][a-z0-9_]*$/.test(name)) return undefined;
    pos += 1;
    const args: Expr[] = [];
    for (;;) {
      const arg = expr();
      if (!arg) return undefined;
      args.push(arg);
      if (text[pos] === ',') pos += 1;
      else if (text[pos] === ')') {
        pos += 1;
        return { name, args };
      } else return undefined;
    }
  };
  const expression = expr();
  return expression && pos === text.length ? expression : undefined;
}

/** The script descriptors a CT descriptor may wrap (Elements' and LWK's `el` forms). */
const CT_SCRIPTS = new Set(['elwpkh', 'elsh', 'elwsh', 'eltr', 'elpkh', 'elcombo']);
const CHECKSUM = /#[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{8}$/;

/** The descriptor checksum's alphabets and generator (BIP-380; Elements' descriptors use the same). */
const INPUT_CHARSET =
  '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i]!;
  }
  return chk;
}

/** The 8-character checksum of a descriptor (BIP-380's `descsum_create`); undefined for a character it cannot hold. */
export function descriptorChecksum(descriptor: string): string | undefined {
  const symbols: number[] = [];
  let groups: number[] = [];
  for (const char of descriptor) {
    const index = INPUT_CHARSET.indexOf(char);
    if (index < 0) return undefined;
    symbols.push(index & 31);
    groups.push(index >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!);
      groups = [];
    }
  }
  if (groups.length === 1) symbols.push(groups[0]!);
  else if (groups.length === 2) symbols.push(groups[0]! * 3 + groups[1]!);
  const checksum = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((checksum >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}

/**
 * The master key of `slip77(<hex>)` or of a whole CT descriptor `ct(slip77(<hex>),el…(…))`
 * (an optional `#checksum` after it, which must be its checksum), parsed completely; undefined for anything else, so a
 * descriptor cut short, with junk after it or with an empty part is refused.
 */
function slip77Master(text: string): string | undefined {
  const body = text.replace(CHECKSUM, '');
  // a checksum, when given, is the descriptor's own: a wrong one is a descriptor mistyped
  if (body !== text && text.slice(body.length + 1) !== descriptorChecksum(body)) return undefined;
  const expression = parseExpr(body);
  if (!expression?.args) return undefined;
  const master = (node: Expr | undefined) =>
    node?.name === 'slip77' &&
    node.args?.length === 1 &&
    node.args[0]!.args === null &&
    readHex32(node.args[0]!.name) !== null
      ? node.args[0]!.name
      : undefined;
  if (expression.name === 'slip77') return body === text ? master(expression) : undefined;
  if (expression.name !== 'ct' || expression.args.length !== 2) return undefined;
  const script = expression.args[1]!;
  if (!script.args || !CT_SCRIPTS.has(script.name)) return undefined;
  return master(expression.args[0]);
}

/**
 * Whether a parsed blinding key is the blinding key of an address: the public key of the
 * address's key (given, or derived by SLIP-77 from a master key and the address's script) is the
 * one the confidential address carries.
 */
export function isAddressBlindingKey(
  zkp: Zkp,
  key: { outputKeys: Uint8Array[]; masterBlindingKeys: Uint8Array[] },
  address: { script: Uint8Array; blindingPubkey: Uint8Array },
): boolean {
  const candidates = [
    ...key.outputKeys,
    ...key.masterBlindingKeys.map((m) => slip77BlindingKey(m, address.script)),
  ];
  return candidates.some((candidate) => {
    const pub = zkp.ecc.pointFromScalar(candidate, true);
    return pub ? equal(pub, address.blindingPubkey) : false;
  });
}

export interface UnblindedOutput {
  /** in the asset's base units */
  value: bigint;
  /** display order */
  assetId: string;
  /** display order, as the explorer's `#blinded=` link wants them */
  valueBlindingFactor: string;
  assetBlindingFactor: string;
}

export type UnblindResult =
  | { ok: true; value: UnblindedOutput }
  | {
      ok: false;
      /** 'not-confidential': nothing to unblind; 'wrong-key': the key does not open it; 'forged': it opens, but its commitments do not match what it claims */
      code: 'not-confidential' | 'wrong-key' | 'forged' | 'bad-key';
      reason: string;
    };

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The range proof's nonce: SHA-256 of the ECDH secret (itself SHA-256 of the shared point). */
function rewindNonce(zkp: Zkp, ephemeralPubkey: Uint8Array, blindingKey: Uint8Array): Uint8Array {
  return Uint8Array.from(createHash('sha256').update(zkp.ecdh(ephemeralPubkey, blindingKey)).digest());
}

/**
 * Unblind one output with its blinding private key, then authenticate what came out: the asset
 * commitment recomputed from (asset, asset blinding factor) and the value commitment from
 * (value, that generator, value blinding factor) must both equal the output's.
 */
export function unblindOutput(zkp: Zkp, out: TxOutput, blindingKey: Uint8Array): UnblindResult {
  if (out.asset.kind !== 'confidential' || out.value.kind !== 'confidential') {
    return { ok: false, code: 'not-confidential', reason: `output ${out.index} is not blinded` };
  }
  if (blindingKey.length !== 32 || !zkp.ecc.isPrivate(blindingKey)) {
    return { ok: false, code: 'bad-key', reason: 'the blinding key is not a valid private key' };
  }
  if (!out.nonce || !zkp.ecc.isPoint(out.nonce) || out.rangeproof.length === 0) {
    return {
      ok: false,
      code: 'wrong-key',
      reason: `output ${out.index} carries no ephemeral key or range proof to unblind`,
    };
  }
  const assetCommitment = out.asset.commitment;
  const valueCommitment = out.value.commitment;
  let rewound: ReturnType<Zkp['rangeproof']['rewind']>;
  try {
    const nonce = rewindNonce(zkp, out.nonce, blindingKey);
    // the script is committed to in the proof (Elements' extra_commit)
    rewound = zkp.rangeproof.rewind(out.rangeproof, valueCommitment, assetCommitment, nonce, out.script);
  } catch {
    return {
      ok: false,
      code: 'wrong-key',
      reason: `output ${out.index} does not open with this blinding key`,
    };
  }
  if (rewound.message.length < 64) {
    return { ok: false, code: 'forged', reason: `output ${out.index}'s range proof carries no asset` };
  }
  const asset = rewound.message.subarray(0, 32);
  const abf = rewound.message.subarray(32, 64);
  let generator: Uint8Array;
  try {
    generator = zkp.generator.generateBlinded(asset, abf);
  } catch {
    return { ok: false, code: 'forged', reason: `output ${out.index}'s asset blinding factor is invalid` };
  }
  if (!equal(generator, assetCommitment)) {
    return {
      ok: false,
      code: 'forged',
      reason: `output ${out.index}'s asset commitment does not match the asset its range proof names`,
    };
  }
  let commitment: Uint8Array;
  try {
    commitment = zkp.pedersen.commitment(rewound.value, generator, rewound.blinder);
  } catch {
    return { ok: false, code: 'forged', reason: `output ${out.index}'s value blinding factor is invalid` };
  }
  if (!equal(commitment, valueCommitment)) {
    return {
      ok: false,
      code: 'forged',
      reason: `output ${out.index}'s value commitment does not match the value its range proof names`,
    };
  }
  return {
    ok: true,
    value: {
      value: BigInt(rewound.value),
      assetId: toDisplayHex(asset),
      valueBlindingFactor: toDisplayHex(rewound.blinder),
      assetBlindingFactor: toDisplayHex(abf),
    },
  };
}
