/**
 * `auth status` and `config list` as functions of narrow options (runStatus, runListSettings): plain
 * values and a printer on plain strings, no factory, no files, no server. What a user sees is
 * asserted: stdout, stderr, the error. The end-to-end runs are in test/cmd/auth-config.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runStatus, type StatusCommandOptions } from '../../src/commands/auth.js';
import {
  type GetSettingOptions,
  type ListSettingsOptions,
  runGetSetting,
  runListSettings,
} from '../../src/commands/config.js';
import { LbrlError, usageError } from '../../src/errors.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

const TOKEN = 'tok_live_0123456789abcdef0123456789';

function printer(json: boolean, secrets: string[] = []) {
  const term = plainTerminal({ json });
  for (const s of secrets) term.printer.addSecret(s);
  return { p: term.printer, seen: term };
}

function status(over: Partial<StatusCommandOptions> & { json?: boolean }) {
  const { p, seen } = printer(over.json ?? false);
  let error: unknown;
  try {
    runStatus({
      flags: {},
      printer: p,
      json: false,
      profileName: 'work',
      configFile: '/home/ana/.config/lbrl/config.json',
      network: 'liquid',
      target: () => ({
        mode: 'live',
        baseUrl: 'https://pay.example.com',
        token: TOKEN,
        baseUrlFrom: 'profile work',
        tokenFrom: 'LBRL_TOKEN',
      }),
      baseUrlSetting: () => undefined,
      tokenSetting: () => undefined,
      ...over,
    });
  } catch (e) {
    error = e;
  }
  return { stdout: seen.stdout, stderr: seen.stderr, error };
}

describe('auth status, in process', () => {
  it('a live profile: its base URL and where each part comes from, the token masked', () => {
    const r = status({});
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain('Profile   work\nMode      live\n');
    expect(r.stdout).toContain('Base URL  https://pay.example.com (from profile work)\n');
    expect(r.stdout).toMatch(/Token {5}\S+ \(from LBRL_TOKEN\)\n/);
    expect(r.stdout).toContain('Network   liquid\nConfig    /home/ana/.config/lbrl/config.json');
    expect(r.stdout).not.toContain(TOKEN);
    expect(r.stderr).toBe('');
  });

  it('--show-token prints the token itself, on purpose, and --json is one object', () => {
    const r = status({ flags: { showToken: true }, json: true });
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'live', token: TOKEN, tokenSource: 'LBRL_TOKEN' });
  });

  it('the sandbox: no base URL and no token', () => {
    const r = status({ target: () => ({ mode: 'sandbox' }), json: true });
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'sandbox', baseUrl: null, token: null });
  });

  it('configured by half: the problem printed, then the error (its exit code), not a success', () => {
    const r = status({
      target: () => {
        throw usageError('LBRL_BASE_URL is set but no token: set LBRL_TOKEN or run lbrl auth login');
      },
      baseUrlSetting: () => ({ value: 'https://pay.example.com' }),
    });
    expect(r.stdout).toContain('Mode      incomplete\n');
    expect(r.stdout).toContain('Problem   LBRL_BASE_URL is set but no token');
    expect(r.error).toBeInstanceOf(LbrlError);
    expect((r.error as LbrlError).exitCode).toBe(2);
  });
});

function list(over: Partial<ListSettingsOptions>) {
  const { p, seen } = printer(over.json ?? false);
  runListSettings({
    printer: p,
    json: false,
    profileName: 'work',
    profile: {},
    setting: (k) => ({ network: 'liquid', 'base-url': 'https://ana:pw@pay.example.com/' })[k as string],
    ...over,
  });
  return { stdout: seen.stdout, stderr: seen.stderr };
}

describe('config list, in process', () => {
  it('every key, a URL without its credentials, the token and keys only as set', () => {
    const r = list({ profile: { token: TOKEN, 'blinding-keys': [{ key: 'k' } as never] } });
    expect(r.stdout).toContain('network=liquid\n');
    expect(r.stdout).toContain('base-url=https://[redacted]@pay.example.com/\n');
    expect(r.stdout).not.toMatch(/ana|pw/);
    expect(r.stdout).toContain('token=(set; see lbrl auth status)\n');
    expect(r.stdout).toContain('blinding-keys=(set: 1 for the wallet; never shown)');
    expect(r.stdout).not.toContain(TOKEN);
  });

  it('--json: null for what is not set', () => {
    const r = list({ json: true });
    const shown = JSON.parse(r.stdout);
    expect(shown).toMatchObject({ profile: 'work', network: 'liquid', token: null, 'blinding-keys': null });
    expect(shown['esplora-url']).toBeNull();
  });
});

async function getSetting(name: string, over: Partial<GetSettingOptions> & { json?: boolean } = {}) {
  const { p, seen } = printer(over.json ?? false);
  let error: unknown;
  try {
    await runGetSetting(name, {
      printer: p,
      json: false,
      profileName: 'work',
      configFile: '/home/ana/.config/lbrl/config.json',
      profile: () => ({}),
      baseUrlSetting: () => undefined,
      target: () => ({ mode: 'sandbox' }),
      network: () => 'liquid',
      ...over,
    });
  } catch (e) {
    error = e;
  }
  return { stdout: seen.stdout, stderr: seen.stderr, error };
}

describe('config get, in process', () => {
  it('a flag beats the profile: the value bare on stdout, where it came from on stderr', async () => {
    const r = await getSetting('base-url', {
      profile: () => ({ 'base-url': 'https://saved.example.com' }),
      baseUrlSetting: () => ({ value: 'https://flag.example.com', from: '--base-url' }),
    });
    expect(r.stdout).toBe('https://flag.example.com\n');
    expect(r.stderr).toBe('from: flag (--base-url)\n');
  });

  it('a saved value: the profile and its file named; a URL never shows its credentials', async () => {
    const r = await getSetting('base-url', {
      profile: () => ({ 'base-url': 'https://ana:pw@saved.example.com/' }),
      json: true,
    });
    expect(JSON.parse(r.stdout)).toEqual({
      key: 'base-url',
      value: 'https://[redacted]@saved.example.com/',
      source: 'profile',
      detail: 'profile work in /home/ana/.config/lbrl/config.json',
    });
  });

  it("the sandbox's asset by default while the embedded sandbox is in use", async () => {
    const r = await getSetting('asset-id');
    expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(r.stderr).toBe("from: default (the embedded sandbox's asset)\n");
  });

  it('an unknown key: a usage error naming the keys, nothing on stdout', async () => {
    const r = await getSetting('colour');
    expect((r.error as LbrlError).exitCode).toBe(2);
    expect((r.error as LbrlError).message).toMatch(
      /^unknown config key "colour": expected one of base-url, /,
    );
    expect(r.stdout).toBe('');
  });
});
