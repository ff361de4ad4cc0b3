/**
 * At the counter, as a shopkeeper and a customer see it: `create --watch` in real terminals
 * (tmux panes) of three sizes, on a dark and a light background, against the embedded sandbox
 * paying by itself. The code is decoded from what the pane shows, not from lbrl's output.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { tempDir } from '../helpers/cli.js';
import { LQ } from '../helpers/fixtures.js';
import { decodeTerminal, zbarScreen } from '../helpers/qr.js';
import { Tmux } from '../helpers/tmux.js';

let panes: Tmux[] = [];
afterEach(() => {
  for (const p of panes) p.close();
  panes = [];
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
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), TZ: 'America/Sao_Paulo' };
  const command =
    `node ${BIN} config set sandbox-autopay 1 >/dev/null && ` +
    `node ${BIN} deposit create --amount 0,50 --to ${LQ} --watch --interval 1 --yes ${args}`;
  const pane = new Tmux(command, env, size, windowStyle);
  panes.push(pane);
  return pane;
}

describe('create --watch at the counter, in real terminals', () => {
  it('80x24, 100x30 and 160x50, dark and light: the code decodes from the pane, the paid moment and the end are read', async () => {
    const started = PANES.flatMap((size) =>
      BACKGROUNDS.map((bg) => ({ size, ...bg, pane: start(size, bg.windowStyle) })),
    );
    // all at once; each pane is read the moment it is paid, while the code is still up
    const runs = await Promise.all(
      started.map(async (run) => {
        await run.pane.waitFor(/PAID {2}R\$ 0,50/, 30_000);
        const shown = run.pane.visible().replace(/\n$/, '');
        const end = await run.pane.waitFor(/\[exit \d+\]/, 30_000);
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
  }, 60_000);

  it.each([[{ width: 79, height: 23 }], [{ width: 40, height: 10 }]])(
    '%o: too small for the code, says so with --qr-png, and still follows to the end',
    async (size) => {
      const pane = start(size, undefined);
      const end = await pane.waitFor(/\[exit \d+\]/, 20_000);
      expect(end).toContain('[exit 0]');
      expect(end.replace(/\n/g, '')).toContain('--qr-png <file>');
      expect(end).toMatch(/FINALIZED/);
    },
    30_000,
  );

  it('TERM=dumb: no redrawing, the plain lines to the end', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), TERM: 'dumb' };
    const pane = new Tmux(
      `node ${BIN} config set sandbox-autopay 1 >/dev/null && node ${BIN} deposit create --amount 0,50 --to ${LQ} --watch --interval 1 --yes`,
      env,
      { width: 80, height: 24 },
    );
    panes.push(pane);
    const end = await pane.waitFor(/\[exit \d+\]/, 20_000);
    expect(end).toContain('[exit 0]');
    // lines wrap at the pane's width
    const joined = end.replace(/\n/g, '');
    expect(joined).toMatch(/-> FINALIZED {2}txid [0-9a-f]{64}/);
    expect(joined).toMatch(/Paid {6}R\$ 0,50 at /);
    expect(end).not.toContain('PAID  R$');
  }, 30_000);
});
