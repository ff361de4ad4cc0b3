/**
 * What reaches stdout and stderr passes the redactor whatever writes it and however: a Buffer or
 * another Uint8Array, a string in another encoding, a secret written in pieces (in any of its
 * forms), text and bytes mixed. Asserted on the bytes the real stream receives.
 */
import { describe, expect, it } from 'vitest';
import type { Context, OutStream } from '../../src/context.js';
import { Printer, redactingContext } from '../../src/ui/output.js';

const TOKEN = 'tok_live_7Hq2Zp9Lm4Xw8Rv3Nc6Bd1Fs';
const KEY = '3fa9c2e17b4d8a6052e9f1c3b7a4d2e8091f6c5b3a7e2d4c8b1f0a9e6d3c2b7a';
const WHSEC = `whsec_${Buffer.from('k3y-bytes-for-the-webhook-signer').toString('base64')}`;

/** A stream that keeps every chunk as the bytes it would put on the wire. */
function wire(): { stream: OutStream; bytes: () => Buffer; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = {
    isTTY: false,
    write(chunk: unknown, ...rest: unknown[]) {
      const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8';
      chunks.push(
        typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk as Uint8Array),
      );
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    },
  };
  return { stream, bytes: () => Buffer.concat(chunks), text: () => Buffer.concat(chunks).toString('utf8') };
}

/** The CLI's context (cli.ts makes it so before anything is parsed) on the two wires. */
function cliStreams() {
  const out = wire();
  const err = wire();
  const ctx = redactingContext({ stdout: out.stream, stderr: err.stream, env: {} } as unknown as Context, {
    tokens: [TOKEN],
    keys: [KEY],
    webhooks: [WHSEC],
  });
  return { ctx, out, err };
}

/** Each secret in the forms text can carry it. */
function forms(secret: string): Record<string, string> {
  return {
    raw: secret,
    // a key in hex is the same key in capitals; a token is not the same token
    ...(/^[0-9a-f]+$/.test(secret) ? { upper: secret.toUpperCase() } : {}),
    uri: encodeURIComponent(secret),
    uriTwice: encodeURIComponent(encodeURIComponent(secret)),
    json: JSON.stringify(secret).slice(1, -1),
    unicode: [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    // JSON inside JSON: the \u escapes escaped again
    unicodeTwice: [...secret].map((c) => `\\\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    html: [...secret].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
    base64: Buffer.from(secret).toString('base64'),
    hexUpper: Buffer.from(secret).toString('hex').toUpperCase(),
  };
}

const SECRETS: Record<string, string> = {
  token: TOKEN,
  key: KEY,
  webhook: WHSEC,
  webhookKeyHex: Buffer.from(WHSEC.slice(6), 'base64').toString('hex'),
};

/**
 * Every piece of 8 characters of any of the secrets' forms, and whose it is: a piece of what came
 * out found here is a leak. (Built once: asking each output for each piece took seconds.)
 */
const PIECES = new Map<string, string>();
for (const [name, secret] of Object.entries(SECRETS))
  for (const [form, text] of Object.entries(forms(secret))) {
    if (name === 'key' && form === 'upper') continue; // checked folded below
    for (let i = 0; i + 8 <= text.length; i++) {
      const piece = text.slice(i, i + 8);
      if (!PIECES.has(piece)) PIECES.set(piece, `${name}/${form} at ${i}`);
    }
  }
const KEY_PIECES = new Set<string>();
for (let i = 0; i + 8 <= KEY.length; i++) KEY_PIECES.add(KEY.slice(i, i + 8));

/** Pieces of 8 characters of any of the secrets' forms, in what came out. */
function leaks(out: string): string[] {
  const found = new Set<string>();
  const lower = out.toLowerCase();
  for (let i = 0; i + 8 <= out.length; i++) {
    const whose = PIECES.get(out.slice(i, i + 8));
    if (whose) found.add(whose);
    if (KEY_PIECES.has(lower.slice(i, i + 8))) found.add('key, any case');
  }
  return [...found];
}

describe('bytes written to the streams are redacted', () => {
  it.each([
    ['a Buffer', (s: OutStream, text: string) => (s.write as (c: unknown) => unknown)(Buffer.from(text))],
    [
      'a Uint8Array (not a Buffer), at an offset in its memory',
      (s: OutStream, text: string) => {
        const bytes = new Uint8Array(Buffer.from(`xxxx${text}`)).subarray(4);
        (s.write as (c: unknown) => unknown)(bytes);
      },
    ],
    [
      'a string written as hex',
      (s: OutStream, text: string) =>
        (s.write as (c: unknown, e: string) => unknown)(Buffer.from(text).toString('hex'), 'hex'),
    ],
    [
      'a string written as UTF-16',
      (s: OutStream, text: string) => (s.write as (c: unknown, e: string) => unknown)(text, 'utf16le'),
    ],
    [
      'a string written as latin1',
      (s: OutStream, text: string) => (s.write as (c: unknown, e: string) => unknown)(text, 'latin1'),
    ],
    [
      'a string written as base64, with a callback',
      (s: OutStream, text: string) =>
        (s.write as (c: unknown, e: string, cb: () => void) => unknown)(
          Buffer.from(text).toString('base64'),
          'base64',
          () => {},
        ),
    ],
  ])('%s: every secret, in every form, on stdout and stderr', (name, write) => {
    // what the bytes say, read in the encoding they were written in
    const read = (bytes: Buffer) => bytes.toString(name.includes('UTF-16') ? 'utf16le' : 'latin1');
    for (const secret of Object.values(SECRETS))
      for (const text of Object.values(forms(secret))) {
        const { ctx, out, err } = cliStreams();
        write(ctx.stdout, `value: ${text} ok\n`);
        write(ctx.stderr, `error: ${text} ok\n`);
        ctx.stdout.flush?.();
        ctx.stderr.flush?.();
        expect(leaks(read(out.bytes()))).toEqual([]);
        expect(leaks(read(err.bytes()))).toEqual([]);
        expect(read(out.bytes())).toMatch(/^value: .*\[redacted\].* ok\n$/);
      }
  });

  it('bytes with no secret come out byte for byte (a PNG, invalid UTF-8, a split multi-byte character)', () => {
    const { ctx, out } = cliStreams();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0xc3]);
    const pago = Buffer.from('Pago! R$ 15,50 — ✔\n');
    const write = ctx.stdout.write as (c: unknown) => unknown;
    write(png);
    write(pago.subarray(0, 20));
    write(pago.subarray(20));
    ctx.stdout.flush?.();
    expect(out.bytes().equals(Buffer.concat([png, pago]))).toBe(true);
  });
});

describe('a secret written in pieces is redacted', () => {
  it.each(Object.entries(SECRETS))(
    '%s: in every form, cut at every place into two writes',
    (_name, secret) => {
      for (const [form, text] of Object.entries(forms(secret))) {
        for (let at = 1; at < text.length; at++) {
          const { ctx, out } = cliStreams();
          ctx.stdout.write(`before ${text.slice(0, at)}`);
          ctx.stdout.write(`${text.slice(at)} after\n`);
          ctx.stdout.flush?.();
          const shown = out.text();
          expect({ form, at, leaks: leaks(shown) }).toEqual({ form, at, leaks: [] });
          // base64's last characters hold bits of what follows the secret: they are not its own
          const whole = form === 'base64' ? shown.replace(/\][A-Za-z0-9+/]{0,3}={0,2} /, '] ') : shown;
          expect({ form, at, shown: whole }).toEqual({ form, at, shown: 'before [redacted] after\n' });
        }
      }
    },
  );

  it('one character a write, then the end of the line; and as bytes', () => {
    for (const secret of Object.values(SECRETS)) {
      const { ctx, out, err } = cliStreams();
      for (const c of `id ${secret}\n`) ctx.stderr.write(c);
      for (const b of Buffer.from(`id ${secret}\n`))
        (ctx.stdout.write as (c: unknown) => unknown)(Buffer.from([b]));
      expect(err.text()).toBe('id [redacted]\n');
      expect(out.text()).toBe('id [redacted]\n');
    }
  });

  it('text then bytes, and a cursor move between two pieces, keep the order of what was written', () => {
    const { ctx, out } = cliStreams();
    const stream = ctx.stdout as OutStream & { cursorTo?: (x: number) => void };
    (out.stream as { cursorTo?: (x: number) => void }).cursorTo = () => out.stream.write('<cursor>');
    stream.write(`a ${TOKEN.slice(0, 10)}`);
    (stream.write as (c: unknown) => unknown)(Buffer.from(`${TOKEN.slice(10)} b\n`));
    stream.write('done: ok');
    stream.cursorTo?.(0);
    stream.write('x\n');
    expect(out.text()).toBe('a [redacted] b\ndone: ok<cursor>x\n');
  });

  it('what is held back comes out by itself at the end of the turn, with no flush', async () => {
    const { ctx, err } = cliStreams();
    ctx.stderr.write('? Access token: tok_');
    expect(err.text()).toBe('? Access token: ');
    await new Promise((r) => setImmediate(r));
    expect(err.text()).toBe('? Access token: tok_');
  });

  it("the printer's guard on a context the CLI did not make redacts bytes and pieces too", () => {
    const out = wire();
    const err = wire();
    const base = { stdout: out.stream, stderr: err.stream, env: {} } as unknown as Context;
    const printer = new Printer(base, { json: false, quiet: false, color: false, verbose: false });
    printer.addSecret(TOKEN);
    const ctx = printer.guard(base);
    (ctx.stdout.write as (c: unknown) => unknown)(Buffer.from(`${TOKEN}\n`));
    ctx.stderr.write(`x ${TOKEN.slice(0, 5)}`);
    ctx.stderr.write(`${TOKEN.slice(5)}\n`);
    expect(out.text()).toBe('[redacted]\n');
    expect(err.text()).toBe('x [redacted]\n');
  });
});
