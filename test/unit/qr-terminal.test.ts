import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUIET_ZONE, renderTerminalQr } from '../../src/ui/qr.js';
import { qrPng } from '../../src/ui/qrpng.js';
import { brCode } from '../helpers/fixtures.js';
import { decodePng, decodeTerminal } from '../helpers/qr.js';

describe('the QR code drawn in the terminal', () => {
  it('decodes to exactly the BR Code on a dark terminal, with a four-module quiet zone', async () => {
    const text = brCode(150000);
    const drawn = await renderTerminalQr(text, 'dark');
    expect(decodeTerminal(drawn, 'dark')).toBe(text);
    const lines = drawn.split('\n');
    // the first two lines are all quiet zone: full light blocks
    for (const line of lines.slice(0, QUIET_ZONE / 2)) expect(line).toMatch(/^█+$/);
    for (const line of lines) expect(line.startsWith('█'.repeat(QUIET_ZONE))).toBe(true);
  });

  it('the light rendering decodes on a light terminal', async () => {
    const text = brCode(1);
    const drawn = await renderTerminalQr(text, 'light');
    expect(decodeTerminal(drawn, 'light')).toBe(text);
    expect(drawn.split('\n')[0]).toMatch(/^ +$/);
  });

  it('property: any BR Code-sized text survives the drawing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 600000 }),
        fc.constantFrom<'dark' | 'light'>('dark', 'light'),
        async (cents, theme) => {
          const text = brCode(cents);
          expect(decodeTerminal(await renderTerminalQr(text, theme), theme)).toBe(text);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('the PNG made for get --qr-png decodes too', async () => {
    const text = brCode(4242);
    expect(decodePng(await qrPng(text))).toBe(text);
  });
});

describe('the decoding check itself', () => {
  it('fails for a rendering shown on the wrong theme', async () => {
    const text = brCode(150000);
    expect(decodeTerminal(await renderTerminalQr(text, 'dark'), 'light')).toBeUndefined();
  });
});
