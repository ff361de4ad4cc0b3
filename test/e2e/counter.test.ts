/**
 * At the counter, as a shopkeeper and a customer see it: `create --watch` in real terminals
 * (tmux panes) of three sizes, on a dark and a light background, against the embedded sandbox
 * paying by itself. The code is decoded from what the pane shows, not from lbrl's output.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, codeCacheEnv } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { decodeTerminal, zbarScreen } from '../helpers/qr.js';
import { tempDir } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';

// every pane waits for the sandbox's real seconds (paid after 1 s, a step a second), so the
// tests run at once: each has panes of its own, and all are closed at the end
const panes: Tmux[] = [];
afterAll(() => {
  for (const p of panes) p.close();
});

const PANES = [
  { width: 80, height: 24 },
  { width: 100, height: 30 },
  { width: 160, height: 50 },
];
/** tmux answers the background query (OSC 11) with its window-style; unset, it does not answer. */
const BACKGROUNDS = [
  { theme: 'dark' as const, windowStyle: undefined },
  { theme: 'light' as const, windowStyle: 'bg=#ffffff,fg=#000000' },
];

function start(size: { width: number; height: number }, windowStyle: string | undefined, args = ''): Tmux {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), TZ: 'America/Sao_Paulo', ...codeCacheEnv() };
  const command =
    `node ${BIN} config set sandbox-autopay 1 >/dev/null && ` +
    `node ${BIN} deposit create --amount 0,50 --to ${LQ} --watch --interval 1 --yes ${args}`;
  const pane = new Tmux(command, env, size, windowStyle);
  panes.push(pane);
  return pane;
}

describe.concurrent('at the counter', () => {
  describe('create --watch at the counter, in real terminals', () => {
    // The paid moment is on the screen for the sandbox's 4 s between PIX_CONFIRMED and the end,
    // whose lines then scroll the code away; a test worker starved of CPU for those seconds (other
    // files of the tier spawn hundreds of processes) reads the pane too late. That is the test's
    // race, not the view's, so the run is tried again on fresh panes, at most twice.
    it('80x24, 100x30 and 160x50, dark and light: the code decodes from the pane, the paid moment and the end are read', {
      retry: 2,
      timeout: 60_000,
    }, async () => {
      const started = PANES.flatMap((size) =>
        BACKGROUNDS.map((bg) => ({ size, ...bg, pane: start(size, bg.windowStyle) })),
      );
      // all at once; each pane is read the moment it is paid, while the code is still up
      const runs = await Promise.all(
        started.map(async (run) => {
          // the screen that first shows it paid, read at once: the end's lines later scroll the code away
          // (both rows of the paid moment: a frame can be read half drawn, its rows old or new)
          const paid = await run.pane.waitFor(
            /PAID {2}R\$ 0,50[^\n]*\n[^\n]*at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d -03:00/,
            30_000,
            { visible: true },
          );
          const shown = paid.replace(/\n$/, '');
          const end = await run.pane.ended();
          return { ...run, shown, end };
        }),
      );
      for (const { size, theme, shown, end } of runs) {
        const label = `${size.width}x${size.height} ${theme}`;
        expect(shown.split('\n').length, label).toBeLessThanOrEqual(size.height);
        // what the view drew (everything after the last note before it), read by jsQR...
        const note = shown.lastIndexOf('for autopay)\n');
        const view = note < 0 ? shown : shown.slice(note + 'for autopay)\n'.length);
        const decoded = decodeTerminal(view, theme);
        expect(decoded?.startsWith('000201'), `${label}:\n${view}`).toBe(true);
        // ...and the whole pane, text and all, read by zbarimg, as a camera would see it
        expect(zbarScreen(shown, theme), label).toBe(decoded);
        // the copy-paste string as printed (wrapped at the pane's width) is what the code holds
        expect(end.replace(/\n/g, ''), label).toContain(decoded);
        expect(shown, label).toMatch(/at 2026-\d\d-\d\d \d\d:\d\d:\d\d -03:00/);
        expect(end, label).toContain('[exit 0]');
        expect(end, label).toMatch(/Paid {6}R\$ 0,50 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d -03:00/);
        expect(end, label).toMatch(/Txid {6}[0-9a-f]{64}/);
        expect(end, label).toMatch(/deposit [0-9a-f-]{36} FINALIZED\n/);
        expect(end, label).not.toMatch(/\s+at \S+ \(/);
      }
    });

    // 79x23 holds a 41-module code but not a 45 (the size depends on the id): the unit tests pin it
    it('too small (60x20, 40x10): says so with --qr-png and follows to the end; TERM=dumb: plain lines', async () => {
      const small = [
        { width: 60, height: 20 },
        { width: 40, height: 10 },
      ].map((size) => start(size, undefined));
      const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), TERM: 'dumb', ...codeCacheEnv() };
      const dumb = new Tmux(
        `node ${BIN} config set sandbox-autopay 1 >/dev/null && node ${BIN} deposit create --amount 0,50 --to ${LQ} --watch --interval 1 --yes`,
        env,
        { width: 80, height: 24 },
      );
      panes.push(dumb);
      const [a, b, plain] = await Promise.all([...small, dumb].map((pane) => pane.ended()));
      for (const end of [a!, b!]) {
        expect(end).toContain('[exit 0]');
        expect(end.replace(/\n/g, '')).toContain('--qr-png <file>');
        expect(end).not.toContain('█');
        expect(end).toMatch(/FINALIZED/);
      }
      expect(plain).toContain('[exit 0]');
      // lines wrap at the pane's width
      const joined = plain!.replace(/\n/g, '');
      expect(joined).toMatch(/-> FINALIZED {2}txid [0-9a-f]{64}/);
      expect(joined).toMatch(/Paid {6}R\$ 0,50 at /);
      expect(plain).not.toContain('PAID  R$');
    });
  });

  describe('the QR style, when the terminal does not say its background', () => {
    it('is guessed dark and said once on stderr, with the setting that fixes it; an answering terminal hears nothing of it', async () => {
      const silent = start({ width: 100, height: 30 }, undefined);
      const answering = start({ width: 100, height: 30 }, 'bg=#ffffff,fg=#000000');
      const [guessed, told] = await Promise.all([silent.ended(), answering.ended()]);
      expect(guessed).toContain('[exit 0]');
      const notes = guessed.split('\n').filter((l) => l.includes('did not say its background'));
      expect(notes).toHaveLength(1);
      expect(guessed.replace(/\s+/g, ' ')).toContain('lbrl config set qr-style light');
      expect(told).toContain('[exit 0]');
      expect(told).not.toContain('did not say its background');
    }, 60_000);
  });
});
