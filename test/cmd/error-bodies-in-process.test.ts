/**
 * An error answer (4xx, 5xx) whose body is not UTF-8 (UTF-16 with or without its byte order mark,
 * Latin-1 or windows-1252 named by the content type or by nothing) is treated as a 2xx body is:
 * its bytes are never quoted as if they were text. The status keeps its own meaning and exit code
 * (a 404 of the service is "not found", exit 4; a 401 is the token's, exit 3; a 5xx the service's,
 * exit 1), and the message says the service's words could not be read as UTF-8. A UTF-8 error body
 * with terminal controls in it (ESC, CR, C1's one-character CSI, bidirectional overrides) is quoted
 * with each shown as an escape, as are the headers an error names (Location, Content-Type). The
 * real DepositClient and EsploraClient on a dispatcher without a socket; what a user sees is asserted.
 */
import { describe, expect, it } from 'vitest';
import type { WrittenReply } from '../helpers/answering-dispatcher.js';
import { ID } from '../helpers/fixtures.js';
import { answeredExplorer, getAnswered } from '../helpers/get-in-process.js';

const get = getAnswered;

const MESSAGE = JSON.stringify({ error: 'depósito não encontrado' });
const utf16le = (text: string, bom: boolean) =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string, bom: boolean) => {
  const bytes = Buffer.from(text, 'utf16le');
  bytes.swap16();
  return Buffer.concat([bom ? Buffer.from([0xfe, 0xff]) : Buffer.alloc(0), bytes]);
};

/** [name, body, content-type, what the message says of it] */
const FORMS: Array<[string, Buffer, string, string]> = [
  [
    'UTF-16LE with its BOM',
    utf16le(MESSAGE, true),
    'application/json',
    'it is UTF-16LE (by its byte order mark)',
  ],
  [
    'UTF-16LE without a BOM',
    utf16le(MESSAGE, false),
    'application/json',
    'it is UTF-16LE (by its zero bytes)',
  ],
  [
    'UTF-16BE with its BOM',
    utf16be(MESSAGE, true),
    'application/json',
    'it is UTF-16BE (by its byte order mark)',
  ],
  [
    'Latin-1 named by its content-type',
    Buffer.from(MESSAGE, 'latin1'),
    'application/json; charset=ISO-8859-1',
    'it is ISO-8859-1 (by its content-type)',
  ],
  [
    'windows-1252 named by its content-type',
    Buffer.from(MESSAGE, 'latin1'),
    'application/json; charset="windows-1252"',
    'it is windows-1252 (by its content-type)',
  ],
  [
    'Latin-1 named by nothing',
    Buffer.from(MESSAGE, 'latin1'),
    'application/json',
    'its bytes are not valid UTF-8',
  ],
];

const UNREAD = (said: string) => `its message could not be read as UTF-8 (${said})`;

/** [status, the line's start, the exit code] */
const STATUSES: Array<[number, (said: string) => string, number]> = [
  [404, (said) => `deposit ${ID} not found; ${UNREAD(said)}`, 4],
  [401, (said) => `the service refused the token (401): ${UNREAD(said)}`, 3],
  [403, (said) => `the service refused the token (403): ${UNREAD(said)}`, 3],
  [400, (said) => `the service refused the request (400): ${UNREAD(said)}`, 2],
  [422, (said) => `the service refused the request (422): ${UNREAD(said)}`, 2],
  [500, (said) => `the service answered 500: ${UNREAD(said)}`, 1],
  [503, (said) => `the service answered 503: ${UNREAD(said)}`, 1],
  [418, (said) => `the service answered 418: ${UNREAD(said)}`, 1],
];

describe('an error answer whose body is not UTF-8', () => {
  for (const [status, line, exit] of STATUSES)
    it.each(FORMS)(
      `${status}, %s: the status's meaning, no quote of its bytes`,
      async (_name, body, type, said) => {
        for (const json of [false, true]) {
          const r = await get({ status, headers: { 'content-type': type }, body }, json);
          expect(r.code).toBe(exit);
          expect(r.stdout).toBe('');
          const message = json ? JSON.parse(r.stderr).error.message : r.stderr.trim().split('\n')[0];
          expect(message.startsWith(json ? line(said) : `error: ${line(said)}`), message).toBe(true);
          expect(r.stderr).not.toContain('\ufffd');
          expect(r.stderr).not.toContain('\\x00');
          expect(r.stderr).not.toContain('\\u0000');
          expect(r.stderr).not.toContain('Ã');
          expect(r.stderr).not.toContain('\u0000');
        }
      },
    );

  it('429: rate limited, its wait kept, no quote of its bytes', async () => {
    const r = await get({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '30' },
      body: utf16le(MESSAGE, true),
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')[0]).toBe(
      `error: the service is rate limiting requests (429); it asks to wait 30 s: ${UNREAD('it is UTF-16LE (by its byte order mark)')}`,
    );
  });

  it('a 404 that is not JSON and not UTF-8 is still not the service (the base URL), unquoted', async () => {
    const r = await get({
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-16' },
      body: utf16le('Not Found', true),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `without the service's JSON error (${UNREAD('it is UTF-16LE (by its byte order mark)')})`,
    );
    expect(r.stderr).toContain("the URL is not the Deposit service's endpoint");
    expect(r.stderr).not.toContain('\\x00');
  });

  it('a UTF-8 body is quoted as before', async () => {
    const r = await get({ status: 500, headers: { 'content-type': 'application/json' }, body: MESSAGE });
    expect(r.stderr.trim().split('\n')[0]).toBe('error: the service answered 500: depósito não encontrado');
  });
});

describe('terminal controls in an error answer never reach the terminal', () => {
  // ESC [2K (erase the line), a CR that would return to overwrite it, C1's one-character CSI,
  // a right-to-left override, a BEL
  const EVIL = 'bad\u001b[2K\rStatus FINALIZED\u009b31m\u202edetaf\u0007';
  const ACTS = /[\u001b\r\u009b\u202e\u0007]/;
  it.each([
    [
      'a JSON message',
      { status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: EVIL }) },
    ],
    ['a plain-text 401', { status: 401, headers: { 'content-type': 'text/plain' }, body: EVIL }],
    [
      'a 404 route message',
      {
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: `no route ${EVIL}` }),
      },
    ],
    [
      'a redirect Location',
      {
        status: 302,
        headers: { location: `https://evil.example/${EVIL.replace(/[\u0000-\u001f]/g, '')}\u202e` },
      },
    ],
    [
      'a content-type of a 2xx',
      { status: 200, headers: { 'content-type': `text/plain\u202e\u009b2K` }, body: 'x' },
    ],
  ] as Array<[string, WrittenReply]>)('%s, in text and in --json', async (_name, reply) => {
    for (const json of [false, true]) {
      const r = await get(reply, json);
      expect(r.code).not.toBe(0);
      expect(r.stderr).not.toMatch(ACTS);
      expect(r.stdout).toBe('');
    }
  });
});

describe("the explorer's error answer that is not UTF-8", () => {
  it.each(FORMS)('%s: its status said, its bytes not quoted', async (_name, body, type, said) => {
    const explorer = answeredExplorer(() => ({
      status: 400,
      headers: { 'content-type': type },
      body,
    }));
    const failure = (await explorer.getTxStatus('ab'.repeat(32)).catch((error: Error) => error)) as Error;
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).toBe(
      `the explorer answered /tx/${'ab'.repeat(32)}/status with 400: ${UNREAD(said)}`,
    );
  });
});
