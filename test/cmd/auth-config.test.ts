/**
 * `auth` and `config` run whole through the registry (flags and arguments parsed by commander, the
 * profile chosen by --profile or LBRL_PROFILE, the one error handler and its exit codes) over a real
 * config file in a temporary directory: its bytes, its mode, a damaged one. No server: a run that
 * must send nothing sends through a client that reaches nothing and says what it was asked. The
 * commands' logic on narrow options is in auth-in-process, settings-in-process and set-in-process;
 * the probe of `auth login` on the wire is in auth-config-wire.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CreateFlags, createOptionsOf, runCreate } from '../../src/commands/deposit-create.js';
import type { Context } from '../../src/context.js';
import { openRuntime } from '../../src/factory/factory.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { EX, ID, TEX, TOKEN } from '../helpers/fixtures.js';
import { noNetwork } from '../helpers/no-network.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
let dir: string;

beforeEach(() => {
  dir = path.join(tempDir(), 'cfg');
});

const mode = (file: string) => fs.statSync(file).mode & 0o777;

// the probe on the wire (its request, what the real client hands over of an answer):
// auth-config-wire.test.ts; what each answer means, refused tokens included: auth-in-process.test.ts
describe('auth', () => {
  it('--no-verify saves without a request; status masks, --show-token shows; logout removes', async () => {
    const env = { LBRL_CONFIG_DIR: dir };
    const net = noNetwork();
    const r = await runCli(
      ['auth', 'login', '--base-url', SERVICE, '--with-token', '--no-verify', '--profile', 'work'],
      { env, stdin: TOKEN, client: net.client },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Logged in to ${SERVICE} (profile work)`);
    expect(net.requests()).toEqual([]);
    const status = await runCli(['auth', 'status', '--profile', 'work'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Mode      live');
    expect(status.stdout).toContain(`Base URL  ${SERVICE} (from profile work)`);
    expect(status.stdout).toContain(`Token     ********MNOP (from ${path.join(dir, 'config.json')})`);
    expect(status.stdout).not.toContain(TOKEN);
    const shown = await runCli(['auth', 'status', '--show-token', '--json'], {
      env: { ...env, LBRL_PROFILE: 'work' },
    });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      profile: 'work',
      mode: 'live',
      token: TOKEN,
      tokenSource: path.join(dir, 'config.json'),
    });
    const out = await runCli(['auth', 'logout', '--profile', 'work'], { env });
    expect(out.code).toBe(0);
    const after = await runCli(['auth', 'status', '--profile', 'work', '--json'], { env });
    expect(after.code).toBe(2);
    expect(JSON.parse(after.stdout)).toMatchObject({ mode: 'incomplete', tokenSource: null });
  });

  it('LBRL_TOKEN beats the profile, and status says where it comes from', async () => {
    const r = await runCli(['auth', 'status', '--json'], {
      env: { LBRL_CONFIG_DIR: dir, LBRL_TOKEN: TOKEN, LBRL_BASE_URL: 'https://pay.example.com/prefix/' },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({
      mode: 'live',
      baseUrl: 'https://pay.example.com/prefix',
      tokenSource: 'LBRL_TOKEN',
      token: '********MNOP',
    });
  });

  it('with nothing known the mode is the sandbox', async () => {
    const r = await runCli(['auth', 'status', '--json'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'sandbox', network: 'liquid' });
  });

  it.each([
    [{ LBRL_TOKEN: TOKEN }, 'a token is set (LBRL_TOKEN) but no base URL'],
    [{ LBRL_BASE_URL: 'https://pay.example.com' }, 'a base URL is set (LBRL_BASE_URL) but no token'],
    [
      { LBRL_BASE_URL: 'http://pay.example.com', LBRL_TOKEN: TOKEN },
      'invalid LBRL_BASE_URL "http://pay.example.com": expected an https:// URL',
    ],
    [{ LBRL_BASE_URL: 'https://u:p@pay.example.com', LBRL_TOKEN: TOKEN }, 'invalid LBRL_BASE_URL'],
    [{ LBRL_BASE_URL: 'https://pay.example.com', LBRL_TOKEN: 'two words' }, 'invalid token from LBRL_TOKEN'],
    [{ LBRL_BASE_URL: 'https://pay.example.com', LBRL_TOKEN: 'a\nb' }, 'invalid token from LBRL_TOKEN'],
    [{ LBRL_BASE_URL: 'https://pay.example.com', LBRL_TOKEN: '' }, 'invalid token from LBRL_TOKEN'],
    [{ LBRL_PROFILE: '../etc' }, 'invalid LBRL_PROFILE "../etc"'],
  ])('deposit get with %j is a usage error and sends nothing', async (extra, message) => {
    const net = noNetwork();
    const r = await runCli(['deposit', 'get', ID], {
      env: { LBRL_CONFIG_DIR: dir, ...extra },
      client: net.client,
    });
    expect(r.code).toBe(2);
    expect(net.requests()).toEqual([]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('login without a base URL or a terminal says what to pass', async () => {
    const a = await runCli(['auth', 'login', '--with-token'], {
      env: { LBRL_CONFIG_DIR: dir },
      stdin: TOKEN,
    });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('auth login needs the service URL: pass --base-url <url>');
    const b = await runCli(['auth', 'login', '--base-url', SERVICE], { env: { LBRL_CONFIG_DIR: dir } });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('pipe it in with lbrl auth login --with-token');
  });
});

describe('config', () => {
  const env = () => ({ LBRL_CONFIG_DIR: dir });

  it('set checks and normalises, get prints the bare value, list shows all', async () => {
    expect((await runCli(['config', 'set', 'split-fee', '2,5'], { env: env() })).code).toBe(0);
    expect((await runCli(['config', 'get', 'split-fee'], { env: env() })).stdout).toBe('2.50%\n');
    expect((await runCli(['config', 'get', 'network'], { env: env() })).stdout).toBe('liquid\n');
    expect((await runCli(['config', 'set', 'default-address', EX], { env: env() })).code).toBe(0);
    expect(
      (await runCli(['config', 'set', 'base-url', 'https://pay.example.com/api/'], { env: env() })).code,
    ).toBe(0);
    const list = await runCli(['config', 'list'], { env: env() });
    expect(list.stdout).toBe(
      [
        'base-url=https://pay.example.com/api',
        'network=liquid',
        `default-address=${EX}`,
        'split-address=',
        'split-fee=2.50%',
        'sandbox-autopay=5',
        'qr-style=detect',
        'esplora-url=',
        'asset-id=',
        'asset-precision=',
        'confirmations=2',
        'verify=off',
        'expire-after=24h',
        'requests-per-minute=60',
        'shop-name=',
        'ledger=file',
        'token=',
        'blinding-keys=',
        '',
      ].join('\n'),
    );
    expect((await runCli(['config', 'unset', 'split-fee'], { env: env() })).code).toBe(0);
    expect((await runCli(['config', 'get', 'split-fee'], { env: env() })).stdout).toBe('');
    expect(mode(path.join(dir, 'config.json'))).toBe(0o600);
  });

  it('profiles are separate', async () => {
    await runCli(['config', 'set', 'network', 'liquidtestnet', '--profile', 'test'], { env: env() });
    await runCli(['config', 'set', 'default-address', TEX, '--profile', 'test'], { env: env() });
    expect((await runCli(['config', 'get', 'network'], { env: env() })).stdout).toBe('liquid\n');
    expect(
      (await runCli(['config', 'get', 'network'], { env: { ...env(), LBRL_PROFILE: 'test' } })).stdout,
    ).toBe('liquidtestnet\n');
  });

  it.each([
    [
      ['set', 'network', 'bitcoin'],
      'invalid value for network "bitcoin": expected one of liquid, liquidtestnet, elementsregtest',
    ],
    [
      ['set', 'default-address', TEX],
      'expected a liquid address (this is a liquidtestnet address; set network first)',
    ],
    [['set', 'default-address', 'nope'], 'invalid value for default-address "nope"'],
    [['set', 'split-fee', '0'], 'invalid value for split-fee "0"'],
    [['set', 'sandbox-autopay', 'soon'], 'invalid value for sandbox-autopay "soon"'],
    [['set', 'base-url', 'ftp://x'], 'invalid value for base-url "ftp://x"'],
    [['set', 'token', 'x'], 'the token is set with lbrl auth login'],
    [['get', 'colour'], 'unknown config key "colour"'],
    [['set', 'network'], "missing required argument 'value'"],
  ])('config %j is refused with exit 2', async (args, message) => {
    const r = await runCli(['config', ...args], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(dir, 'config.json'))).toBe(false);
  });

  it('repairs a config file readable by others, and says so', async () => {
    await runCli(['config', 'set', 'network', 'liquid'], { env: env() });
    fs.chmodSync(path.join(dir, 'config.json'), 0o644);
    const r = await runCli(['config', 'get', 'network'], { env: env() });
    expect(r.stderr).toContain('was readable by others; its permissions are now 0600');
    expect(mode(path.join(dir, 'config.json'))).toBe(0o600);
  });

  it('a damaged config file is a clear error, not a crash', async () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const r = await runCli(['config', 'get', 'network'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the config file ${path.join(dir, 'config.json')} is damaged`);
  });
});

describe('addresses from the profile are checked too', () => {
  it('a default-address of another network is refused before sending', async () => {
    const d = tempDir();
    fs.writeFileSync(
      path.join(d, 'config.json'),
      JSON.stringify({ profiles: { default: { 'default-address': TEX } } }),
      { mode: 0o600 },
    );
    // deposit create on narrow options: the profile's settings as the factory reads them from
    // the file, the service a scripted one, what a user sees on a plain terminal
    const { factory } = openRuntime(
      {
        stdout: { write: () => true },
        stderr: { write: () => true },
        stdin: process.stdin,
        env: { LBRL_CONFIG_DIR: d, LBRL_BASE_URL: SERVICE, LBRL_TOKEN: TOKEN },
        homedir: os.tmpdir(),
        now: () => 0,
        sleep: async () => {},
        random: () => 0.5,
        signal: new AbortController().signal,
      } as Context,
      {},
    );
    const term = plainTerminal();
    const api = scriptedDepositApi();
    const r = await seenRun(term, () =>
      runCreate({
        ...createOptionsOf({ amount: '1' } as CreateFlags, factory),
        printer: term.printer,
        ctx: term.ctx,
        client: async () => api,
        watchClient: async () => api,
        prompter: async () => undefined,
      }),
    );
    expect(r.error?.exitCode).toBe(2);
    // as the one handler prints it: one line on stderr naming the setting and its source
    term.printer.error(r.error!);
    expect(term.stderr).toMatch(/^error: invalid default-address \(config\) .*\n$/);
    expect(term.stderr).toContain(TEX);
    expect(r.stdout).toBe('');
    expect(api.calls).toEqual([]);
  });
});

describe('profiles that do not exist', () => {
  it('a misspelt --profile is an error, never a quiet switch to the sandbox', async () => {
    const d = tempDir();
    await runCli(['config', 'set', 'network', 'liquid', '--profile', 'prod'], {
      env: { LBRL_CONFIG_DIR: d },
    });
    const r = await runCli(['deposit', 'get', ID, '--profile', 'prdo'], { env: { LBRL_CONFIG_DIR: d } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: no profile named "prdo" (from --profile); the profiles are: default, prod; did you mean "prod"? Create it with lbrl config set <key> <value> --profile prdo, or lbrl auth login --profile prdo\n',
    );
  });
});

describe('a damaged config entry', () => {
  const KEY = 'ab'.repeat(32);
  const write = (profile: Record<string, unknown>) => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), {
      mode: 0o600,
    });
  };
  const env = () => ({ LBRL_CONFIG_DIR: dir });
  const file = () => path.join(dir, 'config.json');

  it.each([
    ['blinding-keys a string', { 'blinding-keys': KEY }, 'blinding-keys', 'set-blinding-key --clear'],
    [
      'blinding-keys a list of strings',
      { 'blinding-keys': [KEY] },
      'blinding-keys',
      'set-blinding-key --clear',
    ],
    [
      'blinding-keys an entry without a key',
      { 'blinding-keys': [{ address: 'x' }] },
      'blinding-keys',
      '--clear',
    ],
    ['blinding-keys an object', { 'blinding-keys': { key: KEY } }, 'blinding-keys', '--clear'],
    ['verify a boolean', { verify: true }, 'verify', 'config unset verify'],
    ['network a number', { network: 1 }, 'network', 'config unset network'],
    ['base-url a list', { 'base-url': ['https://x'] }, 'base-url', 'config unset base-url'],
    ['token a number', { token: 1234 }, 'token', 'auth logout'],
    ['webhook-secret a number', { 'webhook-secret': 5 }, 'webhook-secret', 'config unset webhook-secret'],
    ['webhook-secret a list', { 'webhook-secret': [KEY] }, 'webhook-secret', 'config unset webhook-secret'],
    [
      'webhook-secret an object',
      { 'webhook-secret': { k: KEY } },
      'webhook-secret',
      'config unset webhook-secret',
    ],
    ['webhook-secret true', { 'webhook-secret': true }, 'webhook-secret', 'config unset webhook-secret'],
    ['expire-after a number', { 'expire-after': 24 }, 'expire-after', 'config unset expire-after'],
    ['requests-per-minute null', { 'requests-per-minute': null }, 'requests-per-minute', 'config unset'],
    ['shop-name an object', { 'shop-name': { a: 1 } }, 'shop-name', 'config unset shop-name'],
    ['asset-precision a list', { 'asset-precision': [8] }, 'asset-precision', 'config unset asset-precision'],
  ])(
    '%s: a config error (exit 2) naming the file and the key, never a key itself',
    async (_n, profile, key, repair) => {
      write(profile);
      for (const args of [
        ['config', 'list'],
        ['auth', 'status'],
        ['config', 'get', 'network'],
        ['deposit', 'get', ID],
      ]) {
        const r = await runCli(args, { env: env() });
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout).toBe('');
        const lines = r.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(file());
        expect(lines[0]).toContain(`"${key}"`);
        expect(lines[0]).toContain(repair);
        expect(r.stderr).not.toContain(KEY.slice(0, 16));
        expect(r.stderr).not.toMatch(/unexpected failure/);
      }
      const j = await runCli(['config', 'list', '--json'], { env: env() });
      expect(JSON.parse(j.stderr)).toMatchObject({ error: { type: 'config_invalid', exitCode: 2 } });
    },
  );

  it.each([
    // a byte-order mark is read past (config-file-forms.test.ts): what follows it is still judged
    ['a byte-order mark before a profile that is a string', '\ufeff{"profiles":{"default":"x"}}'],
    ['a profile that is a list', '{"profiles":{"default":[1]}}'],
  ])(
    '%s: deposit list and report say the config is damaged (exit 2), not "no deposits"',
    async (_n, text) => {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(file(), text, { mode: 0o600 });
      for (const args of [
        ['deposit', 'list'],
        ['deposit', 'report'],
        ['deposit', 'list', '--json'],
      ]) {
        const r = await runCli(args, { env: env() });
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(file());
      }
    },
  );

  it.each([
    ['a list holding the token', ['tok_live_in_a_list_0123456789abcdef'], 'default'],
    ['a string (the token itself)', 'tok_live_as_a_string_0123456789abcd', 'default'],
    ['a number, in another profile', 5, 'work'],
  ])(
    'a profile that is %s: every command names auth logout, which removes it whole; the others work again',
    async (_n, damaged, name) => {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(
        file(),
        JSON.stringify({ profiles: { [name]: damaged, other: { 'sandbox-autopay': 'off' } } }),
        { mode: 0o600 },
      );
      const flag = name === 'default' ? [] : ['--profile', name];
      const logoutCommand = `lbrl auth logout${name === 'default' ? '' : ` --profile ${name}`}`;
      for (const args of [
        ['config', 'list'],
        ['config', 'get', 'network'],
        ['config', 'unset', 'network'],
        ['deposit', 'list'],
      ]) {
        const r = await runCli([...args, ...flag], { env: env() });
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(`remove it with ${logoutCommand} `);
        expect(r.stderr).not.toContain('tok_live');
      }
      // nothing is saved into it, and no success is claimed: a setting put in a list would be lost
      const before = fs.readFileSync(file(), 'utf8');
      const login = await runCli(
        ['auth', 'login', '--with-token', '--base-url', 'https://pay.example.com', '--no-verify', ...flag],
        { env: env(), stdin: 'tok_live_new_one_0123456789abcdef\n' },
      );
      expect(login.code).toBe(2);
      expect(login.stderr).not.toContain('Logged in');
      expect(login.stderr).toContain(`remove it with ${logoutCommand} `);
      expect(fs.readFileSync(file(), 'utf8')).toBe(before);
      const out = await runCli(['auth', 'logout', ...flag], { env: env() });
      expect(out.code).toBe(0);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain(`Logged out: profile ${name} in ${file()} was damaged`);
      expect(out.stderr).toContain('removed whole');
      expect(out.stderr).not.toContain('tok_live');
      // the damaged profile gone, the others as they were, the file still private
      expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({
        profiles: { other: { 'sandbox-autopay': 'off' } },
      });
      expect(fs.statSync(file()).mode & 0o777).toBe(0o600);
      const list = await runCli(['config', 'list'], { env: env() });
      expect(list.code).toBe(0);
      // a second logout has nothing to remove
      const again = await runCli(['auth', 'logout'], { env: env() });
      expect(again.code).toBe(0);
      expect(again.stderr).toBe('profile default has no saved token\n');
    },
  );

  it('a damaged webhook secret: listen says so (exit 2), and config unset webhook-secret repairs it', async () => {
    write({ 'webhook-secret': 5, 'sandbox-autopay': 'off' });
    const listen = await runCli(['listen', '--print-secret'], { env: env() });
    expect(listen.code).toBe(2);
    expect(listen.stdout).toBe('');
    expect(listen.stderr).toContain('"webhook-secret"');
    expect(listen.stderr).not.toMatch(/unexpected failure/);
    expect((await runCli(['config', 'unset', 'webhook-secret'], { env: env() })).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({
      profiles: { default: { 'sandbox-autopay': 'off' } },
    });
    const made = await runCli(['listen', '--print-secret'], { env: env() });
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^whsec_[A-Za-z0-9+/]+=*\n$/);
  });

  it('the repair commands work on it: set-blinding-key --clear, config unset, config set, auth logout', async () => {
    write({ 'blinding-keys': KEY, verify: true, confirmations: 3, token: 5 });
    expect((await runCli(['config', 'set-blinding-key', '--clear'], { env: env() })).code).toBe(0);
    expect((await runCli(['config', 'unset', 'verify'], { env: env() })).code).toBe(0);
    expect((await runCli(['config', 'set', 'confirmations', '4'], { env: env() })).code).toBe(0);
    expect((await runCli(['auth', 'logout'], { env: env() })).code).toBe(0);
    const r = await runCli(['config', 'list'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('confirmations=4');
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({
      profiles: { default: { confirmations: '4' } },
    });
  });

  it('--clear of one address keeps the sound keys of the others and of the wallet', async () => {
    write({ 'blinding-keys': [{ key: KEY }, { key: KEY, address: EX }, { key: KEY, address: TEX }, 7] });
    const r = await runCli(
      ['config', 'set-blinding-key', '--clear', '--address', TEX, '--profile', 'default'],
      {
        env: env(),
      },
    );
    // TEX is a testnet address on a liquid profile: refused before anything is changed
    expect(r.code).toBe(2);
    const cleared = await runCli(['config', 'set-blinding-key', '--clear', '--address', EX], { env: env() });
    expect(cleared.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8')).profiles.default['blinding-keys']).toEqual([
      { key: KEY },
      { key: KEY, address: TEX },
    ]);
  });

  it('profiles that are not an object: a config error naming the file', async () => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file(), JSON.stringify({ profiles: ['default'] }), { mode: 0o600 });
    const r = await runCli(['config', 'list'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file());
    expect(r.stderr).toContain('"profiles"');
  });
});

describe('config get: the value in force and where it came from', () => {
  const env = () => ({ LBRL_CONFIG_DIR: dir });
  const get = (args: string[], extra: Record<string, string> = {}) =>
    runCli(['config', 'get', ...args], { env: { ...env(), ...extra } });

  it.each([
    ['network', 'liquid\n', 'from: default'],
    ['confirmations', '2\n', 'from: default'],
    [
      'qr-style',
      'detect\n',
      'from: default (asks the terminal for its background; dark when it does not answer)',
    ],
    ['esplora-url', 'https://blockstream.info/liquid/api\n', 'from: default (the public explorer of liquid'],
    ['asset-id', '(the sandbox asset)', 'from: default'],
    ['split-fee', '', 'from: unset'],
  ])('%s unset: the default on stdout, "from: default" on stderr', async (key, stdout, source) => {
    const r = await get([key]);
    expect(r.code).toBe(0);
    if (key === 'asset-id')
      expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/); // the sandbox's, in sandbox mode
    else expect(r.stdout).toBe(stdout);
    expect(r.stderr).toContain(source);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a live profile without asset-id has none in force, and says so', async () => {
    const live = { LBRL_BASE_URL: 'https://pay.example.com', LBRL_TOKEN: TOKEN };
    const r = await get(['asset-id'], live);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toContain('from: unset');
    expect((await get(['esplora-url'], live)).stdout).toBe('https://blockstream.info/liquid/api\n');
  });

  it('from the profile, the environment and a flag', async () => {
    await runCli(['config', 'set', 'base-url', 'https://a.example.com'], { env: env() });
    await runCli(['config', 'set', 'network', 'liquidtestnet'], { env: env() });
    const profile = await get(['base-url']);
    expect(profile.stdout).toBe('https://a.example.com\n');
    expect(profile.stderr).toContain(`from: profile (profile default in ${path.join(dir, 'config.json')})`);
    expect((await get(['esplora-url'])).stdout).toBe('https://blockstream.info/liquidtestnet/api\n');
    const environment = await get(['base-url'], { LBRL_BASE_URL: 'https://b.example.com' });
    expect(environment.stdout).toBe('https://b.example.com\n');
    expect(environment.stderr).toContain('from: environment (LBRL_BASE_URL)');
    const flag = await get(['base-url', '--base-url', 'https://c.example.com'], {
      LBRL_BASE_URL: 'https://b.example.com',
    });
    expect(flag.stdout).toBe('https://c.example.com\n');
    expect(flag.stderr).toContain('from: flag (--base-url)');
  });

  it('--json: one object with the key, the value (null when none) and its source; -q: the bare value only', async () => {
    const j = await get(['network', '--json']);
    expect(JSON.parse(j.stdout)).toEqual({
      key: 'network',
      value: 'liquid',
      source: 'default',
      detail: 'default',
    });
    expect(j.stderr).toBe('');
    expect(JSON.parse((await get(['split-fee', '--json'])).stdout)).toMatchObject({
      value: null,
      source: 'unset',
    });
    const q = await get(['network', '-q']);
    expect(q).toMatchObject({ stdout: 'liquid\n', stderr: '' });
  });

  it('qr-style detect is a value it can be set back to', async () => {
    expect((await runCli(['config', 'set', 'qr-style', 'light'], { env: env() })).code).toBe(0);
    expect((await get(['qr-style'])).stdout).toBe('light\n');
    expect((await runCli(['config', 'set', 'qr-style', 'detect'], { env: env() })).code).toBe(0);
    expect((await get(['qr-style'])).stdout).toBe('detect\n');
  });
});

describe('a config file of megabytes', () => {
  it('config list and get answer in time: the credential filter is linear in the text', async () => {
    const big = tempDir();
    // a run of letters before no "://" once made every start position rescan the run
    fs.writeFileSync(
      path.join(big, 'config.json'),
      JSON.stringify({
        profiles: { default: { 'shop-name': 'x'.repeat(2_000_000), 'base-url': `${'a'.repeat(1_000_000)}` } },
      }),
      { mode: 0o600 },
    );
    const started = Date.now();
    for (const args of [
      ['config', 'list'],
      ['config', 'get', 'shop-name'],
      ['config', 'get', 'base-url'],
    ]) {
      const r = await runCli(args, { env: { LBRL_CONFIG_DIR: big } });
      expect(r.stderr).not.toMatch(/unexpected failure/);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
