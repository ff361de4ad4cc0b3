/**
 * Target resolution (factory/target.ts) as a pure function of the flags, the environment and the
 * profile's settings: no config file, no process, no I/O. What a user would read is asserted: the
 * target, or the one-line error and its exit code.
 */
import { describe, expect, it } from 'vitest';
import { LbrlError } from '../../src/errors.js';
import {
  baseUrlSource,
  profileNameOf,
  renderModeOf,
  resolveLedger,
  resolveTarget,
  type TargetInputs,
  tokenSource,
} from '../../src/factory/target.js';

const SERVICE = 'https://pay.example.com';
const TOKEN = 'tok_live_0123456789abcdef';
const CONFIG_FILE = '/config/lbrl/config.json';

/** The inputs of one resolution; `saved` counts how often the profile was read. */
function inputs(given: {
  flags?: TargetInputs['flags'];
  env?: TargetInputs['env'];
  saved?: ReturnType<TargetInputs['saved']>;
}): TargetInputs & { reads: () => number } {
  let reads = 0;
  return {
    flags: given.flags ?? {},
    env: given.env ?? {},
    profileName: 'work',
    saved: () => {
      reads += 1;
      return given.saved ?? {};
    },
    configFile: CONFIG_FILE,
    reads: () => reads,
  };
}

/** The error a call throws, as the one handler would show it: its message and exit code. */
function refusal(call: () => unknown): { message: string; exitCode: number } {
  try {
    call();
  } catch (error) {
    if (error instanceof LbrlError) return { message: error.message, exitCode: error.exitCode };
    throw error;
  }
  throw new Error('expected a refusal, got none');
}

describe('resolveTarget', () => {
  it('is the sandbox when no base URL and no token are given anywhere', () => {
    expect(resolveTarget(inputs({}))).toEqual({ mode: 'sandbox' });
  });

  it('is live from the profile, naming the profile and the config file as the sources', () => {
    expect(resolveTarget(inputs({ saved: { 'base-url': SERVICE, token: TOKEN } }))).toEqual({
      mode: 'live',
      baseUrl: SERVICE,
      token: TOKEN,
      baseUrlFrom: 'profile work',
      tokenFrom: CONFIG_FILE,
    });
  });

  it('takes --base-url over LBRL_BASE_URL over the profile, and LBRL_TOKEN over the profile', () => {
    const saved = { 'base-url': 'https://saved.example.com', token: 'tok_saved_0123456789' };
    const fromFlag = resolveTarget(
      inputs({
        flags: { baseUrl: SERVICE },
        env: { LBRL_BASE_URL: 'https://env.example.com', LBRL_TOKEN: TOKEN },
        saved,
      }),
    );
    expect(fromFlag).toMatchObject({ baseUrl: SERVICE, baseUrlFrom: '--base-url', tokenFrom: 'LBRL_TOKEN' });
    const fromEnv = resolveTarget(inputs({ env: { LBRL_BASE_URL: 'https://env.example.com' }, saved }));
    expect(fromEnv).toMatchObject({
      baseUrl: 'https://env.example.com',
      baseUrlFrom: 'LBRL_BASE_URL',
      token: 'tok_saved_0123456789',
      tokenFrom: CONFIG_FILE,
    });
  });

  it('reads the profile only when a flag or a variable does not decide first', () => {
    const decided = inputs({ flags: { baseUrl: SERVICE }, env: { LBRL_TOKEN: TOKEN } });
    resolveTarget(decided);
    expect(decided.reads()).toBe(0);
    const undecided = inputs({ env: { LBRL_TOKEN: TOKEN }, saved: { 'base-url': SERVICE } });
    resolveTarget(undecided);
    expect(undecided.reads()).toBe(1);
  });

  it('refuses a base URL from the config as "base-url in the config", its credentials never shown', () => {
    const refused = refusal(() =>
      resolveTarget(
        inputs({ saved: { 'base-url': 'http://user:hunter2secret@pay.example.com', token: TOKEN } }),
      ),
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.message).toMatch(
      /^invalid base-url in the config "http:\/\/\[redacted\]@pay\.example\.com\/?": expected an https:\/\//,
    );
    expect(refused.message).not.toContain('hunter2secret');
  });

  it('refuses a plain http base URL from --base-url, naming the flag', () => {
    const refused = refusal(() =>
      resolveTarget(inputs({ flags: { baseUrl: 'http://pay.example.com' }, env: { LBRL_TOKEN: TOKEN } })),
    );
    expect(refused).toEqual({
      message:
        'invalid --base-url "http://pay.example.com": expected an https:// URL (plain http:// only for 127.0.0.1, ::1 or localhost), with no credentials, query or fragment',
      exitCode: 2,
    });
  });

  it('refuses a token too short to be kept out of output, and one with a space, naming where it came from', () => {
    expect(
      refusal(() => resolveTarget(inputs({ flags: { baseUrl: SERVICE }, env: { LBRL_TOKEN: 'short' } }))),
    ).toEqual({
      message:
        'invalid token from LBRL_TOKEN: it is 5 character(s); lbrl needs at least 16 to keep it out of everything it prints',
      exitCode: 2,
    });
    expect(
      refusal(() => resolveTarget(inputs({ saved: { 'base-url': SERVICE, token: 'tok with space 123' } })))
        .message,
    ).toBe(
      `invalid token from ${CONFIG_FILE}: expected a token of printable characters with no spaces or line breaks (at most 4096)`,
    );
  });

  it('refuses a token without a base URL, and a base URL without a token, saying what to do', () => {
    expect(refusal(() => resolveTarget(inputs({ env: { LBRL_TOKEN: TOKEN } })))).toEqual({
      message:
        'a token is set (LBRL_TOKEN) but no base URL: pass --base-url, set LBRL_BASE_URL, or run lbrl auth login --base-url <url>',
      exitCode: 2,
    });
    expect(refusal(() => resolveTarget(inputs({ saved: { token: TOKEN } }))).message).toMatch(
      /^a token is set \(profile work\) but no base URL/,
    );
    expect(refusal(() => resolveTarget(inputs({ env: { LBRL_BASE_URL: SERVICE } })))).toEqual({
      message:
        'a base URL is set (LBRL_BASE_URL) but no token: set LBRL_TOKEN or run lbrl auth login; for the sandbox, unset the base URL',
      exitCode: 2,
    });
  });

  it('gives each source as typed, unchecked, for auth status and config get', () => {
    expect(baseUrlSource(inputs({ saved: { 'base-url': 'not a url' } }))).toEqual({
      value: 'not a url',
      from: 'profile work',
    });
    expect(tokenSource(inputs({}))).toBeUndefined();
    expect(tokenSource(inputs({ env: { LBRL_TOKEN: '' } }))).toEqual({ value: '', from: 'LBRL_TOKEN' });
  });
});

describe('renderModeOf', () => {
  it('knows a standing sandbox by the token it made, never by anything else', () => {
    const live = { mode: 'live', baseUrl: SERVICE, baseUrlFrom: '', tokenFrom: '' } as const;
    expect(renderModeOf({ mode: 'sandbox' })).toEqual({ sandbox: true });
    expect(renderModeOf({ ...live, token: `sbx_${'0a'.repeat(16)}` })).toEqual({
      sandbox: false,
      serviceUrl: SERVICE,
    });
    expect(renderModeOf({ ...live, token: `sbx_${'0A'.repeat(16)}` })).toEqual({ sandbox: false });
    expect(renderModeOf({ ...live, token: TOKEN })).toEqual({ sandbox: false });
  });
});

describe('profileNameOf', () => {
  it('takes --profile over LBRL_PROFILE over "default", and names the source of a bad name', () => {
    expect(profileNameOf({}, {})).toEqual({ name: 'default', from: 'LBRL_PROFILE' });
    expect(profileNameOf({}, { LBRL_PROFILE: 'shop' })).toEqual({ name: 'shop', from: 'LBRL_PROFILE' });
    expect(profileNameOf({ profile: 'till' }, { LBRL_PROFILE: 'shop' })).toEqual({
      name: 'till',
      from: '--profile',
    });
    expect(refusal(() => profileNameOf({ profile: '../x' }, {})).message).toMatch(
      /^invalid --profile "\.\.\/x": expected /,
    );
    expect(refusal(() => profileNameOf({}, { LBRL_PROFILE: 'a b' })).message).toMatch(
      /^invalid LBRL_PROFILE "a b": expected /,
    );
  });
});

describe('resolveLedger', () => {
  it('takes LBRL_LEDGER_URL (unless empty) over the profile over the file', () => {
    const url = 'postgres://lbrl@db.example.com/lbrl';
    expect(resolveLedger({}, () => undefined)).toEqual({ kind: 'file' });
    expect(resolveLedger({ LBRL_LEDGER_URL: '' }, () => undefined)).toEqual({ kind: 'file' });
    expect(resolveLedger({ LBRL_LEDGER_URL: url }, () => 'file')).toMatchObject({ kind: 'postgres' });
    expect(resolveLedger({}, () => url)).toMatchObject({ kind: 'postgres' });
  });

  it('refuses a bad setting naming where it came from, its password never shown', () => {
    const refused = refusal(() => resolveLedger({}, () => 'mysql://user:s3cretpass@db/x'));
    expect(refused.exitCode).toBe(2);
    expect(refused.message).toMatch(/^invalid ledger in the config /);
    expect(refused.message).not.toContain('s3cretpass');
    expect(refusal(() => resolveLedger({ LBRL_LEDGER_URL: 'nope' }, () => undefined)).message).toMatch(
      /^invalid LBRL_LEDGER_URL "nope": expected /,
    );
  });
});
