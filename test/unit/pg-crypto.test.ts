/**
 * The primitives the build gives pg's authentication in place of its Web Crypto module
 * (store/pg-crypto.ts, bin/build-program.mjs): each gives the bytes pg's own module gives, for
 * the same inputs, so pg's SCRAM-SHA-256 and MD5 exchanges compute what they did.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as ours from '../../src/store/pg-crypto.js';

const pgCrypto = createRequire(import.meta.url)('pg/lib/crypto/utils.js') as typeof ours;
const hex = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as ArrayBuffer).toString('hex');

const PASSWORDS = ['secret', '', 'ação çé 密码 🔑', 'quote\'s "and" \\ back'];
const SALTS = [Buffer.alloc(16), Buffer.from('c2FsdHlzYWx0c2FsdHk=', 'base64'), Buffer.from([255, 0, 7])];

describe("pg's authentication primitives, from node:crypto", () => {
  it("derive SCRAM's salted password as pg's module does", async () => {
    for (const password of PASSWORDS)
      for (const salt of SALTS)
        for (const iterations of [1, 4096]) {
          const salted = await ours.deriveKey(password, salt, iterations);
          expect(salted).toHaveLength(32);
          expect(hex(salted)).toBe(hex(await pgCrypto.deriveKey(password, salt, iterations)));
        }
  });

  it('sign and digest as pg does, from its Buffers and ArrayBuffers alike', async () => {
    const key = await pgCrypto.deriveKey('secret', SALTS[1]!, 4096);
    for (const message of [
      'Client Key',
      'Server Key',
      'n=*,r=abc,r=abcdef,s=c2FsdA==,i=4096,c=biws,r=abcdef',
      'é',
    ]) {
      expect(hex(await ours.hmacSha256(key, message))).toBe(hex(await pgCrypto.hmacSha256(key, message)));
      expect(hex(await ours.hmacSha256(Buffer.from(key), message))).toBe(
        hex(await pgCrypto.hmacSha256(key, message)),
      );
    }
    expect(hex(await ours.sha256(key))).toBe(hex(await pgCrypto.sha256(key)));
    expect(hex(await ours.sha256(Buffer.from('abc')))).toBe(hex(await pgCrypto.sha256(Buffer.from('abc'))));
    for (const name of ['SHA-256', 'SHA-384', 'SHA-512'])
      expect(hex(await ours.hashByName(name, Buffer.from('certificate')))).toBe(
        hex(await pgCrypto.hashByName(name, Buffer.from('certificate'))),
      );
  });

  it("write MD5 authentication's password message as pg does", async () => {
    for (const password of PASSWORDS)
      expect(await ours.postgresMd5PasswordHash('lbrl', password, Buffer.from([1, 2, 3, 4]))).toBe(
        await pgCrypto.postgresMd5PasswordHash('lbrl', password, Buffer.from([1, 2, 3, 4])),
      );
  });

  it('give random bytes of the length asked', () => {
    const bytes = ours.randomBytes(18);
    expect(bytes).toHaveLength(18);
    expect(hex(bytes)).not.toBe(hex(ours.randomBytes(18)));
  });
});
