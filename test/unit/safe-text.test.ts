import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLine, safeText, showValue, terminalSafe } from '../../src/domain/text/safe-text.js';

/** What a terminal shows once it has acted on every control: only the last line drawn. */
const TERMINAL_CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('safeText: nothing from the service acts on the terminal', () => {
  it.each([
    // erase the line, go back to its start, draw a fake status in green
    [
      'lq1abc\r\x1b[2K\x1b[32mStatus   FINALIZED\x1b[0m',
      'lq1abc\\r\\x1b[2K\\x1b[32mStatus   FINALIZED\\x1b[0m',
    ],
    // cursor up one line and over the real status
    ['WAITING_PAYMENT\x1b[1A\x1b[GStatus FINALIZED', 'WAITING_PAYMENT\\x1b[1A\\x1b[GStatus FINALIZED'],
    // a one-character C1 CSI (U+009B) does the same as ESC [
    ['x\u009b2Ky', 'x\\x9b2Ky'],
    // an OSC title/hyperlink and a BEL
    [
      '\x1b]8;;https://evil.invalid\x07click\x1b]8;;\x07',
      '\\x1b]8;;https://evil.invalid\\x07click\\x1b]8;;\\x07',
    ],
    ['a\nb\tc\x00d\x7fe', 'a\\nb\\tc\\x00d\\x7fe'],
    // right-to-left override: shows "lq1...cba" reversed; zero-width joiners hide a difference
    ['lq1\u202eabc', 'lq1\\u202eabc'],
    ['lq1\u200babc\ufeff', 'lq1\\u200babc\\ufeff'],
    ['\u2066x\u2069', '\\u2066x\\u2069'],
    // a backslash is doubled, so "\x1b" typed by the service is not mistaken for an escape shown
    ['\\x1b', '\\\\x1b'],
    ['\ud800', '\\ud800'],
  ])('%j is shown as %s', (input, shown) => {
    expect(safeText(input)).toBe(shown);
  });

  it.each([
    'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9k',
    'Fulano de Tal',
    'São Paulo',
    'R$ 1.500,00',
    '💸 pago',
  ])('leaves ordinary text as it is: %s', (text) => {
    expect(safeText(text)).toBe(text);
  });

  it('no string comes out with a terminal control in it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(safeText(s)).not.toMatch(TERMINAL_CONTROLS);
      }),
    );
  });

  it('different strings stay different (the escaping can be read back)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        fc.pre(a !== b);
        expect(safeText(a)).not.toBe(safeText(b));
      }),
    );
  });
});

describe('showValue', () => {
  it.each<[unknown, string]>([
    ['FINALIZED', 'FINALIZED'],
    ['', '"" (empty)'],
    [undefined, '(absent)'],
    [null, 'null'],
    [0.03, '0.03'],
    [{ a: '\x1b[2K' }, '{"a":"\\\\u001b[2K"}'],
  ])('%j as %s', (value, shown) => {
    expect(showValue(value)).toBe(shown);
  });

  it('cuts a long value and says how long it was', () => {
    expect(showValue('x'.repeat(500))).toBe(`${'x'.repeat(120)}… (500 characters)`);
  });
});

describe('terminalSafe and jsonLine: the last line of defence', () => {
  it('terminalSafe escapes what safeText does but the backslash, so safe text is not escaped twice', () => {
    const shown = safeText('a\x1bb');
    expect(terminalSafe(`x ${shown} \x9b y`)).toBe('x a\\x1bb \\x9b y');
    expect(terminalSafe('C:\\dir')).toBe('C:\\dir');
  });

  it('jsonLine is the same JSON value with nothing a terminal acts on', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        for (const v of [value, { text }, [text, value]]) {
          const line = jsonLine(v);
          expect(line).not.toMatch(TERMINAL_CONTROLS);
          expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(v)));
        }
      }),
    );
  });
});
