/**
 * Colours that read on a light terminal as on a dark one: no yellow, cyan or bright colours
 * (SGR 33, 36, 90-97), which vanish on white; statuses, warnings and notes in bold, green, red
 * or magenta.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { LQ } from '../helpers/fixtures.js';

const UNREADABLE_ON_WHITE = /\u001b\[(?:[0-9;]*;)?(33|36|9[0-7])m/;

describe('colours on any background', () => {
  it('create --watch to FINALIZED, get, and a warning: none in yellow, cyan or a bright colour', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), FORCE_COLOR: '1', TZ: 'UTC' };
    const clock = { now: Date.parse('2026-11-22T10:00:00Z') };
    const tty = { env, clock, stdoutTTY: true, stderrTTY: true };
    const created = await runCli(
      ['deposit', 'create', '--amount', '15', '--to', LQ, '--yes', '--no-qr', '--watch', '--no-input'],
      tty,
    );
    expect(created.code).toBe(0);
    const all = created.stdout + created.stderr;
    // colour is on: the statuses are drawn in it
    expect(all).toMatch(/\u001b\[1mWAITING_PAYMENT/);
    expect(all).toMatch(/\u001b\[32mFINALIZED/);
    expect(all).toMatch(/\u001b\[35mSETTLEMENT_CREATED/);
    expect(all).not.toMatch(UNREADABLE_ON_WHITE);
    const id = /[0-9a-f-]{36}/.exec(created.stdout)![0];
    const got = await runCli(['deposit', 'get', id], tty);
    expect(got.code).toBe(0);
    expect(got.stdout + got.stderr).not.toMatch(UNREADABLE_ON_WHITE);
    const warned = await runCli(['auth', 'logout'], {
      ...tty,
      env: { ...env, LBRL_TOKEN: 'tok_env_abcdefghijklmnop' },
    });
    expect(warned.stderr).toContain('LBRL_TOKEN is still set');
    expect(warned.stderr).not.toMatch(UNREADABLE_ON_WHITE);
  });
});
