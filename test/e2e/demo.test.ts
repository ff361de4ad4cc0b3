/**
 * `npm run demo` (bin/demo.mjs) as a new user runs it, at a real terminal: its throw-away
 * sandbox directory is gone after a Ctrl-C (test/smoke/demo.test.ts runs it to its end, in the fast tier).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';

const DEMO = path.resolve(__dirname, '../../bin/demo.mjs');
let term: Tmux | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});

describe('npm run demo', () => {
  it('stopped with Ctrl-C while it waits for payment: exit 130, no directory left', async () => {
    const tmp = tempDir();
    term = new Tmux(`node ${DEMO}`, { HOME: tempDir(), TMPDIR: tmp });
    await term.waitFor(/Waiting for payment/);
    expect(fs.readdirSync(tmp).filter((name) => name.startsWith('lbrl-demo-'))).toHaveLength(1);
    term.type('C-c');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 130]');
    expect(fs.readdirSync(tmp).filter((name) => name.startsWith('lbrl-demo-'))).toEqual([]);
  });
});
