/**
 * readAnswerBody (api/body.ts) at its edges, on a body that counts what was read of it: the limit itself
 * is read, one byte past it is not, and a body not read to its end is destroyed (which aborts its
 * request and closes the connection; test/cmd/huge-answers.test.ts holds that on a socket).
 */
import { describe, expect, it } from 'vitest';
import { readAnswerBody, unaskedEncoding } from '../../src/api/body.js';

function answer(headers: Record<string, string | string[]>, chunks: string[]) {
  const state = { chunksRead: 0, destroyed: false };
  const body = {
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        state.chunksRead += 1;
        yield Buffer.from(chunk);
      }
    },
    on: () => body,
    destroy: () => {
      state.destroyed = true;
    },
  };
  return { answer: { headers, body }, state };
}

describe('readAnswerBody', () => {
  it('a Content-Length at the limit is read whole', async () => {
    const { answer: a, state } = answer({ 'content-length': '10' }, ['12345', '67890']);
    const read = await readAnswerBody(a, 10);
    expect(read.kind === 'read' && read.bytes.toString()).toBe('1234567890');
    expect(state.destroyed).toBe(false);
  });

  it.each(['11', ' 11 ', '99999999999999999999999'])(
    'a Content-Length of %j over a limit of 10: not a byte read',
    async (length) => {
      const { answer: a, state } = answer({ 'content-length': length }, ['12345678901']);
      expect(await readAnswerBody(a, 10)).toEqual({ kind: 'too-large', declared: Number(length) });
      expect(state).toEqual({ chunksRead: 0, destroyed: true });
    },
  );

  it('no Content-Length: read up to the limit and not one chunk further', async () => {
    const { answer: a, state } = answer({}, ['123456', '789012', 'never read']);
    expect(await readAnswerBody(a, 10)).toEqual({ kind: 'too-large', declared: undefined });
    expect(state).toEqual({ chunksRead: 2, destroyed: true });
  });

  it('a Content-Length that lies low is still held to the limit as read', async () => {
    const { answer: a, state } = answer({ 'content-length': '2' }, ['123456', '789012']);
    expect((await readAnswerBody(a, 10)).kind).toBe('too-large');
    expect(state.destroyed).toBe(true);
  });

  it('an encoded body is not read', async () => {
    const { answer: a, state } = answer({ 'content-encoding': 'gzip' }, ['\x1f\x8b']);
    expect(await readAnswerBody(a, 10)).toEqual({ kind: 'encoded', encoding: 'gzip' });
    expect(state).toEqual({ chunksRead: 0, destroyed: true });
  });
});

describe('unaskedEncoding', () => {
  it.each([
    [undefined, undefined],
    ['identity', undefined],
    [' Identity ', undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['identity, br', 'br'],
    [['identity', 'deflate'], 'deflate'],
    ['gzip, gzip', 'gzip, gzip'],
  ])('%j: %j', (header, expected) => {
    expect(unaskedEncoding(header)).toBe(expected);
  });
});
