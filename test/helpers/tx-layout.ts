/**
 * A raw Elements transaction cut into its parts, so a test can serve a real transaction changed
 * in one place (its witness stripped, a range proof altered, an output added or made explicit)
 * under the txid its new bytes hash to, as a lying explorer would. Test-side only: it reads the
 * byte layout (Elements' `primitives/transaction.h`) without checking anything.
 */
import { createHash } from 'node:crypto';

export interface OutputParts {
  /** asset, value, nonce and script, as serialized */
  base: Buffer;
  surjectionProof: Buffer;
  rangeProof: Buffer;
}

export interface TxParts {
  version: Buffer;
  /** the input count and the inputs, as serialized */
  inputs: Buffer;
  inputCount: number;
  outputs: OutputParts[];
  locktime: Buffer;
  /** each input's witness, as serialized */
  inputWitness: Buffer;
}

function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.of(n);
  if (n <= 0xffff) return Buffer.from([0xfd, n & 0xff, n >> 8]);
  const b = Buffer.alloc(5);
  b[0] = 0xfe;
  b.writeUInt32LE(n, 1);
  return b;
}

/** One output's base bytes: an explicit asset (display order), an explicit value, no nonce, the script. */
export function explicitOutput(assetDisplayHex: string, units: bigint, scriptHex: string): Buffer {
  const value = Buffer.alloc(8);
  value.writeBigUInt64BE(units);
  const script = Buffer.from(scriptHex, 'hex');
  return Buffer.concat([
    Buffer.of(1),
    Buffer.from(assetDisplayHex, 'hex').reverse(),
    Buffer.of(1),
    value,
    Buffer.of(0),
    varint(script.length),
    script,
  ]);
}

export function splitTx(hex: string): TxParts {
  const b = Buffer.from(hex, 'hex');
  let at = 0;
  const readVarint = () => {
    const first = b[at++]!;
    if (first < 0xfd) return first;
    if (first === 0xfd) return b.readUInt16LE((at += 2) - 2);
    return b.readUInt32LE((at += 4) - 4);
  };
  const skipVarBytes = () => {
    const n = readVarint();
    at += n;
  };
  const skipConf = (explicitBytes: number) => {
    const prefix = b[at++]!;
    if (prefix === 0) return;
    at += prefix === 1 ? explicitBytes : 32;
  };
  const version = b.subarray(0, 4);
  const flag = b[4]!;
  at = 5;
  const inputsStart = at;
  const inputCount = readVarint();
  for (let i = 0; i < inputCount; i++) {
    at += 32;
    const vout = b.readUInt32LE(at);
    at += 4;
    skipVarBytes();
    at += 4;
    if (vout !== 0xffffffff && vout & 0x80000000) {
      at += 64;
      skipConf(8);
      skipConf(8);
    }
  }
  const inputs = b.subarray(inputsStart, at);
  const outputCount = readVarint();
  const outputs: OutputParts[] = [];
  for (let i = 0; i < outputCount; i++) {
    const start = at;
    skipConf(32);
    skipConf(8);
    skipConf(32);
    skipVarBytes();
    outputs.push({
      base: b.subarray(start, at),
      surjectionProof: Buffer.alloc(0),
      rangeProof: Buffer.alloc(0),
    });
  }
  const locktime = b.subarray(at, at + 4);
  at += 4;
  const witnessStart = at;
  if (flag === 1) {
    for (let i = 0; i < inputCount; i++) {
      skipVarBytes();
      skipVarBytes();
      for (let k = readVarint(); k > 0; k--) skipVarBytes();
      for (let k = readVarint(); k > 0; k--) skipVarBytes();
    }
  }
  const inputWitness = b.subarray(witnessStart, at);
  if (flag === 1) {
    for (const out of outputs) {
      let n = readVarint();
      out.surjectionProof = b.subarray(at, at + n);
      at += n;
      n = readVarint();
      out.rangeProof = b.subarray(at, at + n);
      at += n;
    }
  }
  return { version, inputs, inputCount, outputs, locktime, inputWitness };
}

/** The transaction again; `witness: false` leaves the witness out (flag 0), as a stripped copy. */
export function joinTx(parts: TxParts, o: { witness?: boolean } = {}): string {
  const withWitness = o.witness !== false;
  const chunks: Buffer[] = [
    parts.version,
    Buffer.of(withWitness ? 1 : 0),
    parts.inputs,
    varint(parts.outputs.length),
    ...parts.outputs.map((out) => out.base),
    parts.locktime,
  ];
  if (withWitness) {
    chunks.push(parts.inputWitness.length > 0 ? parts.inputWitness : Buffer.alloc(parts.inputCount * 4));
    for (const out of parts.outputs) {
      chunks.push(varint(out.surjectionProof.length), out.surjectionProof);
      chunks.push(varint(out.rangeProof.length), out.rangeProof);
    }
  }
  return Buffer.concat(chunks).toString('hex');
}

/** The txid of a raw transaction (display order): double SHA-256 of it without its witness. */
export function txidOf(hex: string): string {
  const base = Buffer.from(joinTx(splitTx(hex), { witness: false }), 'hex');
  const once = createHash('sha256').update(base).digest();
  return Buffer.from(createHash('sha256').update(once).digest()).reverse().toString('hex');
}
