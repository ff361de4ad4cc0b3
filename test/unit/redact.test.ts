/** The redactor: a secret in any form it can take in text, and nothing else touched. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import { MIN_SECRET, REDACTED, Redactor } from '../../src/domain/text/redact.js';
import { Printer } from '../../src/ui/output.js';
import { cpuTimed } from '../helpers/cpu.js';

/** `text` with `secret` in none of its forms. */
function redactSecret(text: string, secret: string): string {
  const redactor = new Redactor();
  redactor.add(secret);
  return redactor.redact(text);
}

const T = 'tok_9f8e/7d6c+5b4a"3928\\1706%f5e4d3c2b1a0=';

describe('redactSecret', () => {
  it.each([
    ['as it is', T],
    ['JSON-escaped', JSON.stringify(T)],
    ['JSON in JSON', JSON.stringify(JSON.stringify({ t: T }))],
    ['slashes escaped', JSON.stringify(T).replace(/\//g, '\\/')],
    ['\\u escapes', [...T].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['encodeURIComponent', encodeURIComponent(T)],
    [
      'encodeURIComponent, lower-case hex',
      encodeURIComponent(T).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ['form encoding', new URLSearchParams({ t: T }).toString()],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(T))],
    ['HTML entities', T.replace(/"/g, '&quot;').replace(/\//g, '&#47;').replace(/\+/g, '&#x2b;')],
    ['base64 (Basic)', Buffer.from(`user:${T}`).toString('base64')],
    ['base64 at offset 1', Buffer.from(`u${T}x`).toString('base64')],
    ['base64 at offset 0, URL alphabet', Buffer.from(`${T}`).toString('base64url')],
    ['hex', Buffer.from(T).toString('hex')],
    ['HEX', Buffer.from(T).toString('hex').toUpperCase()],
  ])('%s', (_name, form) => {
    const out = redactSecret(`before ${form} after`, T);
    expect(out).toContain(REDACTED);
    expect(out.startsWith('before ')).toBe(true);
    expect(out).not.toContain(form);
    for (let i = 0; i + 8 <= T.length; i++) expect(out).not.toContain(T.slice(i, i + 8));
  });

  it.each([
    ['cut at the end with …', `invalid token ${T.slice(0, 4)}…`, 'invalid token [redacted]…'],
    ['cut at the end with ...', `invalid token ${T.slice(0, 5)}...`, 'invalid token [redacted]...'],
    [
      'cut, in JSON',
      `{"m":"invalid token ${T.slice(0, 7)}\\u2026"}`,
      '{"m":"invalid token [redacted]\\u2026"}',
    ],
    ['cut at the start', `…${T.slice(-4)} is not a token`, '…[redacted] is not a token'],
    ['cut at the start with ...', `x ...${T.slice(-5)} is not`, 'x ...[redacted] is not'],
    ['a piece of 8 anywhere', `a ${T.slice(10, 18)} b`, 'a [redacted] b'],
    ['cut inside an escape', `${JSON.stringify(T.slice(0, 17))}`, '"[redacted]"'],
  ])('%s', (_name, text, expected) => {
    expect(redactSecret(text, T)).toBe(expected);
  });

  it('leaves other text alone: a short piece that is not at a cut, other words, the masked form', () => {
    for (const text of [
      `a ${T.slice(0, 4)} b`,
      // at a quote or a line's start, a short piece is more likely the start of an id than a cut
      `"${T.slice(0, 7)}"`,
      `${T.slice(-7)}\tnext`,
      'tok_ and token and secret',
      `********${T.slice(-4)}`,
      '{"id":"3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d","amount":15}',
    ]) {
      expect(redactSecret(text, T)).toBe(text);
    }
  });

  it('property: a random token embedded in random text in any of its forms is gone; text without it is untouched', () => {
    const token = fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-+/=%"\\.~'),
      minLength: 16,
      maxLength: 64,
    });
    const encode = fc.constantFrom<(t: string) => string>(
      (t) => t,
      (t) => JSON.stringify(t),
      (t) => encodeURIComponent(t),
      (t) => new URLSearchParams({ t }).toString(),
      (t) => Buffer.from(`Basic:${t}`).toString('base64'),
      (t) => JSON.stringify(JSON.stringify(t)),
    );
    const filler = fc.string({ unit: fc.constantFrom(...' abcxyz:,{}[]"\n'), maxLength: 40 });
    fc.assert(
      fc.property(token, encode, filler, filler, (t, enc, a, b) => {
        const out = redactSecret(`${a}${enc(t)}${b}`, t);
        for (let i = 0; i + 8 <= t.length; i++) expect(out).not.toContain(t.slice(i, i + 8));
        expect(redactSecret(`${a}${b}`, t)).toBe(`${a}${b}`);
      }),
      { numRuns: 300 },
    );
  });

  it(`secrets shorter than ${MIN_SECRET} characters are not matched; short ones only whole`, () => {
    const r = new Redactor();
    r.add('abc');
    expect(r.size).toBe(0);
    r.add('abcdefghij');
    expect(r.redact('x abcdefghij y abcdefgh…')).toBe(`x ${REDACTED} y abcdefgh…`);
  });

  it('a 1 MB text (every answer is redacted as it arrives) takes well under 2 s', () => {
    const text = `${'a'.repeat(500_000)}${encodeURIComponent(T)}${'"b'.repeat(250_000)}`;
    const [redacted, ms] = cpuTimed(() => redactSecret(text, T));
    expect(redacted).not.toContain(encodeURIComponent(T));
    expect(ms).toBeLessThan(2000);
  });
});

describe('Printer.guard', () => {
  it('every write to the guarded streams is redacted; the streams keep their properties', () => {
    let out = '';
    let err = '';
    const ctx = {
      stdout: { write: (s: string) => (out += s), isTTY: true, columns: 80 },
      stderr: { write: (s: string) => (err += s), isTTY: false },
      env: {},
    } as unknown as Context;
    const p = new Printer(ctx, { json: false, quiet: false, color: false, verbose: false });
    p.addSecret(T);
    const guarded = p.guard(ctx);
    guarded.stdout.write(`spinner ${encodeURIComponent(T)}`);
    guarded.stderr.write(`\rrows ${T.slice(0, 5)}…`);
    // a write that ends in what may be the start of a secret is held back to the next write, the
    // end of the turn or a flush: whole, and redacted, when it comes out
    guarded.stdout.flush?.();
    guarded.stderr.flush?.();
    expect(out).toBe(`spinner ${REDACTED}`);
    expect(err).toBe(`\rrows ${REDACTED}…`);
    expect(guarded.stdout.isTTY).toBe(true);
    expect(guarded.stdout.columns).toBe(80);
    p.outUnredacted(T);
    expect(out).toBe(`spinner ${REDACTED}${T}\n`);
    // a spinner hooks write and calls the write it found: still redacted, no loop
    const stream = guarded.stderr as { write: (s: string) => unknown };
    const found = stream.write;
    stream.write = (s: string) => found(`hooked ${s}`);
    stream.write(T);
    guarded.stderr.flush?.();
    expect(err).toBe(`\rrows ${REDACTED}…hooked ${REDACTED}`);
    stream.write = found;
    stream.write(T);
    guarded.stderr.flush?.();
    expect(err).toBe(`\rrows ${REDACTED}…hooked ${REDACTED}${REDACTED}`);
  });
});

describe('a hex secret (a blinding key)', () => {
  const key = `${'0a1b2c3d4e5f'.repeat(5)}6789`;
  it('is the same secret in upper, lower or mixed case, and in its encodings of either case', () => {
    const r = new Redactor();
    r.add(key.toUpperCase());
    for (const form of [
      key,
      key.toUpperCase(),
      `${key.slice(0, 20).toUpperCase()}${key.slice(20)}`,
      Buffer.from(key).toString('base64'),
      Buffer.from(key.toUpperCase()).toString('base64url'),
      Buffer.from(key).toString('hex'),
      encodeURIComponent(`"${key}"`),
    ]) {
      const out = r.redact(`key=${form}.`);
      expect(out, form).toContain('[redacted]');
      expect(out.toLowerCase(), form).not.toContain(key.slice(10, 26));
    }
  });
});
