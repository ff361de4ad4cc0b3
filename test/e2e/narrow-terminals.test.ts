/**
 * A watch, a list and a report in real terminals (tmux panes) of 20x8, 40x10 and 80x24, against
 * the embedded sandbox paying by itself: what the pane shows, scrollback and all, is read. No
 * line breaks a word, an id, a txid or an amount where the pane's edge falls; one wider than the
 * pane starts a line of its own, whole (the pane wraps it, nothing else is on it). The spinner's
 * line, redrawn in place, never wraps, so nothing of it is left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, codeCacheEnv } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';

const panes: Tmux[] = [];
afterAll(() => {
  for (const p of panes) p.close();
});

const SIZES = [
  { width: 20, height: 8 },
  { width: 40, height: 10 },
  { width: 80, height: 24 },
];
const COVERAGE = 'deposits of profile default on the sandbox (--all-services for every service)';
const STATUSES = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'];

/** The lines of the screen `long` (an id, a txid) is on: whole on one, or from a line's start on when wider than the pane. */
function placed(lines: string[], long: string, width: number): void {
  const head = long.slice(0, Math.min(width, 12));
  const starts = lines.map((line, at) => ({ line, at })).filter(({ line }) => line.includes(head));
  expect(starts.length, `${long} on the screen`).toBeGreaterThan(0);
  for (const { line, at } of starts) {
    if (long.length <= width) {
      expect(line, `${long} whole`).toContain(long);
      continue;
    }
    // wider than the pane: it starts a line, and the lines after it hold the rest
    expect(line.startsWith(long.slice(0, width)), `${long} starts a line:\n${line}`).toBe(true);
    const rest = lines.slice(at, at + Math.ceil(long.length / width)).join('');
    expect(rest.startsWith(long), `${long} continued:\n${rest}`).toBe(true);
  }
}

describe.concurrent('narrow terminals', () => {
  it.each(SIZES)(
    '$width x $height: a watch, a list and a report in whole words',
    { timeout: 60_000 },
    async (size) => {
      const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), TZ: 'America/Sao_Paulo', ...codeCacheEnv() };
      const command =
        `node ${BIN} config set sandbox-autopay 1 >/dev/null && ` +
        `ID=$(node ${BIN} deposit create --amount 5999,99 --to ${LQ} --yes -q 2>/dev/null) && ` +
        `node ${BIN} deposit watch "$ID" --interval 1 && node ${BIN} deposit list && node ${BIN} deposit report && ` +
        `node ${BIN} deposit get "$ID" --json > "$LBRL_CONFIG_DIR/got.json"`;
      const pane = new Tmux(command, env, size);
      panes.push(pane);
      const screen = await pane.ended();
      expect(screen, screen).toMatch(/\[exit 0\]/);
      const lines = screen.split('\n').map((line) => line.trimEnd());
      const got = JSON.parse(fs.readFileSync(path.join(env.LBRL_CONFIG_DIR, 'got.json'), 'utf8'));
      const id: string = got.id;
      const txid: string = got.settlement.liquidTxid;
      expect(txid).toMatch(/^[0-9a-f]{64}$/);
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(size.width);
      // the first line of list and report: every word whole on a line
      for (const word of COVERAGE.split(' '))
        expect(
          lines.some((line) => line.split(/\s+/).includes(word)),
          `${word}:\n${screen}`,
        ).toBe(true);
      // every status named whole, never a piece of one at the edge
      for (const status of STATUSES)
        for (const line of lines.filter((l) => l.includes(status.slice(0, 8))))
          expect(line, `${status}:\n${screen}`).toMatch(/[A-Z_]+/);
      for (const line of lines) {
        const words = line.split(/[\s()>,-]+/).filter((word) => /^[A-Z_]{4,}$/.test(word));
        for (const word of words.filter((w) => w.includes('_')))
          expect(
            STATUSES.some((status) => status.includes(word) && status.startsWith(word)) &&
              STATUSES.includes(word),
            `${word} in ${line}`,
          ).toBe(true);
      }
      placed(lines, id, size.width);
      placed(lines, txid, size.width);
      // an amount never cut, nor cut from its R$ (list's table names R$ once, in its header)
      for (const line of lines.filter((l) => l.includes('5.9')))
        expect(line, line).toMatch(/5\.(999,99|940,00)/);
      for (const line of lines) expect(line.endsWith('R$'), line).toBe(false);
      // nothing of the spinner left behind (its short id and a status, or its count)
      expect(screen).not.toContain(`${id.slice(0, 8)} `);
      expect(screen).not.toMatch(/watching \d/);
    },
  );
});
