/**
 * What a get says of an answer's bytes, on the real DepositClient without a socket: a number the
 * schema refuses is quoted as the service wrote it (JSON.parse would round 9007199254740993 to
 * ...992), and a body that is not UTF-8 (UTF-16 with or without its BOM, Latin-1 named by its
 * content type) is said to be so, its charset named when the BOM or the header says it, its size
 * counted in bytes, never a garbled quote. What a user sees is asserted: stdout, stderr, exit code.
 */
import { describe, expect, it } from 'vitest';
import type { WrittenReply } from '../helpers/answering-dispatcher.js';
import { getAnswer } from '../helpers/fixtures.js';
import { answeredExplorer, getAnswered } from '../helpers/get-in-process.js';

const get = getAnswered;

/** The answer with a field's value written as given (a literal JSON.parse cannot keep). */
function answerWith(field: string, literal: string): WrittenReply {
  const marker = '"__literal__"';
  const text = JSON.stringify({ ...getAnswer(), [field]: '__literal__' }).replace(marker, literal);
  return { status: 200, headers: { 'content-type': 'application/json' }, body: text };
}

describe('a number the schema refuses is quoted as the service wrote it', () => {
  it.each([
    ['amountInCents', '9007199254740993'],
    ['amountInCents', '-12345678901234567891'],
    ['amountInCents', '1500.0000000000000001e0'],
    ['splitPercent', '1e400'],
    ['createdAt', '12345678901234567.5'],
  ])('%s: %s', async (field, literal) => {
    const r = await get(answerWith(field, literal));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${field}: `);
    expect(r.stderr).toContain(`service answered ${literal}`);
  });
});

describe('a body that is not UTF-8 is said so, its size in bytes', () => {
  const text = JSON.stringify({ ...getAnswer(), note: 'café' });
  const utf16le = (bom: boolean) =>
    Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);
  const utf16be = (bom: boolean) => {
    const bytes = Buffer.from(utf16le(false));
    bytes.swap16();
    return Buffer.concat([bom ? Buffer.from([0xfe, 0xff]) : Buffer.alloc(0), bytes]);
  };
  const latin1 = Buffer.from(text, 'latin1');
  it.each([
    ['UTF-16LE with its BOM', utf16le(true), 'application/json', 'it is UTF-16LE (by its byte order mark)'],
    ['UTF-16LE without a BOM', utf16le(false), 'application/json', 'it is UTF-16LE (by its zero bytes)'],
    ['UTF-16BE with its BOM', utf16be(true), 'application/json', 'it is UTF-16BE (by its byte order mark)'],
    ['UTF-16BE without a BOM', utf16be(false), 'application/json', 'it is UTF-16BE (by its zero bytes)'],
    [
      'Latin-1 named by its header',
      latin1,
      'application/json; charset=ISO-8859-1',
      'it is ISO-8859-1 (by its content-type)',
    ],
    ['Latin-1 named by nothing', latin1, 'application/json', 'its bytes are not valid UTF-8'],
  ])('%s', async (_name, bytes, type, said) => {
    for (const json of [false, true]) {
      const r = await get({ status: 200, headers: { 'content-type': type }, body: bytes }, json);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const line = `the service's answer is not UTF-8 (${bytes.length} bytes): ${said}; JSON is UTF-8. Do not pay this charge or trust its status`;
      if (json) expect(JSON.parse(r.stderr).error.message).toBe(line);
      else expect(r.stderr.trim()).toBe(`error: ${line}`);
      expect(r.stderr).not.toContain('\\u0000');
      expect(r.stderr).not.toContain('\ufffd');
    }
  });

  it('UTF-8 declared in any case, and plain ASCII under another charset, are read', async () => {
    for (const type of ['application/json; charset=UTF-8', 'application/json; charset=iso-8859-1']) {
      const r = await get({
        status: 200,
        headers: { 'content-type': type },
        body: JSON.stringify(getAnswer()),
      });
      expect(r.code, type).toBe(0);
    }
  });

  it('a body that is not JSON counts its bytes, not its characters', async () => {
    const body = 'não é JSON: ação';
    const r = await get({ status: 200, headers: { 'content-type': 'application/json' }, body });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is not valid JSON (${Buffer.byteLength(body)} bytes)`);
  });
});

describe("the explorer's answer that is not UTF-8 is said so too", () => {
  it.each([
    [
      'UTF-16LE with its BOM',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"status":1}', 'utf16le')]),
    ],
    ['Latin-1', Buffer.from('{"name":"ação"}', 'latin1')],
  ])('%s: a contract failure naming it, sizes in bytes', async (_name, body) => {
    const explorer = answeredExplorer(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body,
    }));
    const failure = await explorer.getTxStatus('ab'.repeat(32)).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(`is not UTF-8 (${body.length} bytes): `);
    expect((failure as Error).message).not.toContain('\ufffd');
  });
});
