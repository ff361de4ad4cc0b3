/**
 * Bundled in place of pg's `lib/crypto/utils.js` (bin/build-program.mjs): the primitives pg's own
 * SCRAM-SHA-256 and MD5 authentication (pg/lib/crypto/sasl.js, pg/lib/client.js) call, given by
 * `node:crypto`'s synchronous functions instead of Web Crypto. The protocol and every step of it
 * stay pg's; what changes is who computes a hash.
 *
 * Why: pg's module reaches them through `crypto.subtle`, which loads Node's Web Crypto modules
 * and sends each of the seven steps of a SCRAM exchange (the PBKDF2 of 4,096 iterations, four
 * HMACs, a digest) to the thread pool and back. Measured on this machine, the same exchange took
 * 10 to 45 ms that way and 2 to 6 ms with these calls, on a command's path to the ledger.
 *
 * Same names and meanings as pg's module: digests are returned as Buffers (pg reads them
 * through Buffer.from), `deriveKey` gives the 32-byte salted password of RFC 7677.
 */
import nodeCrypto from 'node:crypto';

export function randomBytes(length: number): Buffer {
  return nodeCrypto.randomBytes(length);
}

export async function md5(text: string | Buffer): Promise<string> {
  return nodeCrypto.createHash('md5').update(text).digest('hex');
}

/** PostgreSQL's MD5 password message: 'md5' + md5(md5(password + user) + salt). */
export async function postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string> {
  const inner = await md5(password + user);
  return `md5${await md5(Buffer.concat([Buffer.from(inner), salt]))}`;
}

export async function sha256(data: Buffer | ArrayBuffer | Uint8Array): Promise<Buffer> {
  return nodeCrypto.createHash('sha256').update(bytes(data)).digest();
}

/** A digest named as pg names it ('SHA-256', 'SHA-384', 'SHA512-256'...): channel binding's. */
export async function hashByName(name: string, data: Buffer | ArrayBuffer | Uint8Array): Promise<Buffer> {
  return nodeCrypto.createHash(name.toLowerCase().replace(/^sha-/, 'sha')).update(bytes(data)).digest();
}

export async function hmacSha256(key: Buffer | ArrayBuffer | Uint8Array, message: string): Promise<Buffer> {
  return nodeCrypto.createHmac('sha256', bytes(key)).update(message, 'utf8').digest();
}

/** PBKDF2-HMAC-SHA-256, 32 bytes: SCRAM's salted password. */
export async function deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<Buffer> {
  return nodeCrypto.pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
}

function bytes(data: Buffer | ArrayBuffer | Uint8Array): Buffer | Uint8Array {
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
