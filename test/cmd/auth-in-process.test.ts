/**
 * `auth login` and `auth logout` as functions of narrow options (runLogin, runLogout): a printer on
 * plain strings, a fake client whose one probe answers as the test says (status, content type and
 * body, as the client hands them over), and a config file in a temporary directory. No factory, no
 * server. What a user sees is asserted: stdout, stderr (an error as the handler prints it), the exit
 * code, the file's bytes and modes. The whole runs through the CLI are in test/cmd/auth-config.test.ts,
 * the probe on the wire in test/cmd/auth-config-wire.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../src/api/client.js';
import {
  type LoginCommandOptions,
  type LogoutCommandOptions,
  runLogin,
  runLogout,
} from '../../src/commands/auth.js';
import type { Prompter } from '../../src/context.js';
import type { Target } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { ConfigStore } from '../../src/store/config.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, TOKEN } from '../helpers/fixtures.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

const BASE = 'https://pay.example.com';
const mode = (file: string) => fs.statSync(file).mode & 0o777;

/** An answer as a server writes it: a status, a content type and a body. */
function answer(status: number, body: unknown, ...type: [string?]): Answer {
  const contentType = type.length === 0 ? 'application/json' : type[0];
  return { status, contentType, text: typeof body === 'string' ? body : JSON.stringify(body) };
}
const NOT_FOUND = answer(404, { error: { code: 'not_found', message: 'no such deposit' } });

interface LoginRun {
  stdout: string;
  stderr: string;
  error: unknown;
  code: number;
  /** the ids probed, in order */
  probes: string[];
  /** the targets a client was asked for */
  targets: Target[];
  dir: string;
  file: string;
  /** the token saved in the profile, or null when nothing was saved */
  saved: unknown;
}

async function login(
  o: {
    flags?: LoginCommandOptions['flags'];
    stdin?: string;
    env?: Record<string, string | undefined>;
    base?: string | undefined;
    probe?: Answer;
    prompter?: Prompter;
  } = {},
): Promise<LoginRun> {
  const term = plainTerminal({ stdin: o.stdin ?? `${TOKEN}\n`, env: o.env });
  const dir = path.join(tempDir(), 'cfg');
  const store = new ConfigStore(dir);
  const probes: string[] = [];
  const targets: Target[] = [];
  let error: unknown;
  try {
    await runLogin({
      flags: o.flags ?? { withToken: true },
      printer: term.printer,
      ctx: term.ctx,
      baseUrlSetting: () =>
        'base' in o ? (o.base === undefined ? undefined : { value: o.base }) : { value: BASE },
      prompter: async () => o.prompter,
      client: async (target) => {
        targets.push(target);
        return {
          probeDeposit: async (id) => {
            probes.push(id);
            return o.probe ?? NOT_FOUND;
          },
        };
      },
      profileName: 'default',
      configFile: store.file,
      updateProfile: (change) => store.updateProfile('default', change),
    });
  } catch (e) {
    error = e;
    if (e instanceof LbrlError) term.printer.error(e);
  }
  const file = store.file;
  const saved = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).profiles.default.token : null;
  const code = error === undefined ? 0 : error instanceof LbrlError ? error.exitCode : -1;
  return { stdout: term.stdout, stderr: term.stderr, error, code, probes, targets, dir, file, saved };
}

describe('auth login, in process', () => {
  it('--with-token: the token from stdin checked with a GET of a random id, saved privately', async () => {
    const r = await login();
    expect(r.error).toBeUndefined();
    expect(r.probes).toHaveLength(1);
    expect(r.probes[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.targets).toEqual([
      { mode: 'live', baseUrl: BASE, token: TOKEN, baseUrlFrom: '--base-url', tokenFrom: 'auth login' },
    ]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Logged in to ${BASE} (profile default); token saved in ${r.file}\n`);
    expect(JSON.parse(fs.readFileSync(r.file, 'utf8'))).toEqual({
      profiles: { default: { 'base-url': BASE, token: TOKEN } },
    });
    expect(mode(r.file)).toBe(0o600);
    expect(mode(r.dir)).toBe(0o700);
    expect(fs.readdirSync(r.dir)).toEqual(['config.json']);
  });

  it('two probes are two different ids: nothing the service could know', async () => {
    const [a, b] = [await login(), await login()];
    expect(a.probes[0]).not.toBe(b.probes[0]);
  });

  it.each([
    ['401', 401],
    ['403', 403],
  ])('a refused token (%s) exits 3 with the reason, nothing saved', async (_n, status) => {
    const r = await login({
      probe: answer(status, { error: { code: 'unauthorized', message: 'bad token' } }),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `error: the service refused the token (${status}): bad token; the token was not saved\n`,
    );
    expect(r.saved).toBe(null);
    expect(fs.existsSync(r.dir)).toBe(false);
  });

  // the probe's answer as the real client hands over a body that is not UTF-8: its text garbled,
  // and why (api/body-text.ts); the garble is never quoted
  const unreadable = (status: number, contentType = 'application/json'): Answer => ({
    status,
    contentType,
    text: Buffer.from(JSON.stringify({ error: 'token inválido' }), 'utf16le').toString('utf8'),
    notUtf8: 'it is UTF-16LE (by its zero bytes)',
  });
  it.each([
    [
      401,
      3,
      'error: the service refused the token (401): its message could not be read as UTF-8 (it is UTF-16LE (by its zero bytes)); the token was not saved',
    ],
    [
      503,
      1,
      'error: could not verify the token: the service answered 503: its message could not be read as UTF-8 (it is UTF-16LE (by its zero bytes)); nothing was saved',
    ],
    [
      404,
      1,
      `error: could not verify the token: ${BASE} answered 404 with a body that is not UTF-8 (it is UTF-16LE (by its zero bytes)), not what the Deposit service answers to a token it accepts; nothing was saved`,
    ],
  ])(
    'a probe answered %s in a body that is not UTF-8: the status said, its bytes not quoted',
    async (status, exit, line) => {
      const r = await login({ probe: unreadable(status) });
      expect(r.code).toBe(exit);
      expect(r.stderr.split('\n')[0]).toBe(line);
      expect(r.stderr).not.toContain('\u0000');
      expect(r.stderr).not.toContain('\\x00');
      expect(r.saved).toBe(null);
    },
  );

  it('a content type with terminal controls is quoted with them escaped', async () => {
    const r = await login({ probe: answer(200, 'x', 'text/plain\u202e\u009b2K') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(/[\u202e\u009b]/);
    expect(r.stderr).toContain('\\u202e');
  });

  it.each([
    ['404 not_found', NOT_FOUND],
    [
      '400 validation_error',
      answer(400, { error: { code: 'validation_error', message: 'bad id', field: 'id' } }),
    ],
    ['422 bad_request', answer(422, { error: { code: 'bad_request', message: 'bad id' } })],
    ['a deposit', answer(200, getAnswer())],
    [
      'a JSON type with parameters',
      answer(404, { error: { code: 'not_found', message: 'x' } }, 'application/problem+json; charset=utf-8'),
    ],
  ])("%s (the Deposit service's answer) means the token was accepted", async (_n, probe) => {
    const r = await login({ probe });
    expect(r.error).toBeUndefined();
    expect(r.saved).toBe(TOKEN);
  });

  it.each([
    [
      'an HTML page',
      answer(200, '<html><body>Welcome</body></html>', 'text/html'),
      '200 with content-type "text/html"',
    ],
    ['an HTML 404', answer(404, '<html></html>', 'text/html'), '404 with content-type "text/html"'],
    ['no content type', answer(404, '{}', undefined), '404 with no content-type'],
    ['a 200 {"ok":true}', answer(200, { ok: true }), '200 with a JSON body of another shape'],
    ["another server's 400", answer(400, { message: 'bad id' }), '400 with a JSON body of another shape'],
    ["another server's 404", answer(404, { message: 'nope' }), '404 with a JSON body of another shape'],
    ['a 404 of another code', answer(404, { error: { code: 'x', message: 'y' } }), '404 ("x")'],
    ['a JSON type with no JSON', answer(404, 'not json'), '404 with a body that is not JSON'],
    ['a 302', answer(302, { error: { code: 'not_found', message: 'x' } }), '302 ("not_found")'],
  ])(
    '%s is not the Deposit service: could not verify (exit 1), nothing saved unless --no-verify',
    async (_n, probe, what) => {
      const r = await login({ probe });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `error: could not verify the token: ${BASE} answered ${what}, not what the Deposit service answers to a token it accepts; nothing was saved\nhint: check the base URL; pass --no-verify to save the token without checking\n`,
      );
      expect(r.saved).toBe(null);
      const forced = await login({ probe, flags: { withToken: true, verify: false } });
      expect(forced.error).toBeUndefined();
      expect(forced.probes).toEqual([]);
      expect(forced.targets).toEqual([]);
      expect(forced.saved).toBe(TOKEN);
    },
  );

  it.each([
    [503, 'service'],
    [500, 'service'],
    [429, 'rate_limited'],
  ])('a %s is not an answer about the token: nothing saved, a hint to try again', async (status, type) => {
    const r = await login({ probe: answer(status, { message: 'down' }) });
    expect((r.error as LbrlError).type).toBe(type);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: could not verify the token: the service answered ${status}: down; nothing was saved\nhint: try again later, or pass --no-verify to save the token without checking\n`,
    );
    expect(r.saved).toBe(null);
  });

  it.each([
    ['short', 'abc', 'the token given is 3 character(s): lbrl needs at least 16'],
    ['15 characters', 'a'.repeat(15), 'the token given is 15 character(s): lbrl needs at least 16'],
    ['empty', '', 'the token given is not usable'],
    [
      'with a space',
      'tok_secret ABCDEFGHIJKLMNOP',
      'the token given is not usable: expected a token of printable',
    ],
    ['with a tab', 'tok_secret\tABCDEFGHIJKLMNOP', 'the token given is not usable'],
    ['with a control character', 'tok_secret\x1bABCDEFGHIJKLMNOP', 'the token given is not usable'],
    ['not ASCII', 'tok_secret_ÄBCDEFGHIJKLMNOP', 'the token given is not usable'],
  ])(
    'a token that cannot be redacted safely (%s) is refused (exit 2) before anything is sent or saved',
    async (_n, token, message) => {
      const r = await login({ stdin: `${token}\n` });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('nothing was saved');
      expect(r.targets).toEqual([]);
      expect(fs.existsSync(r.dir)).toBe(false);
    },
  );

  it('the token given is never printed, whatever the service says back', async () => {
    const r = await login({
      probe: answer(401, { error: { code: 'unauthorized', message: `token ${TOKEN} is unknown` } }),
    });
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(r.stderr).toContain('the service refused the token (401)');
  });

  it('without a base URL: says what to pass, exit 2, nothing asked or written', async () => {
    const r = await login({ base: undefined });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: auth login needs the service URL: pass --base-url <url> (or set LBRL_BASE_URL)\n',
    );
    expect(fs.existsSync(r.dir)).toBe(false);
  });

  it('a bad base URL is named without the password written in it', async () => {
    const r = await login({ base: 'ftp://ana:hunter2@pay.example.com' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: invalid --base-url /);
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.targets).toEqual([]);
  });

  it('with no terminal to ask and no --with-token: says how to pipe the token in', async () => {
    const r = await login({ flags: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: no terminal to ask for the token: pipe it in with lbrl auth login --with-token < token.txt\n',
    );
    expect(fs.existsSync(r.dir)).toBe(false);
  });

  it('at a terminal: the token is asked for (hidden), naming the service, and checked like a piped one', async () => {
    const asked: string[] = [];
    const prompter = {
      password: async ({ message }: { message: string }) => {
        asked.push(message);
        return TOKEN;
      },
    } as unknown as Prompter;
    const r = await login({ flags: {}, prompter });
    expect(asked).toEqual([`Access token for ${BASE}`]);
    expect(r.error).toBeUndefined();
    expect(r.probes).toHaveLength(1);
    expect(r.saved).toBe(TOKEN);
  });

  it('LBRL_TOKEN set: saved all the same, with a warning that it beats the saved token', async () => {
    const r = await login({ env: { LBRL_TOKEN: 'tok_other_0123456789abcdef' } });
    expect(r.saved).toBe(TOKEN);
    expect(r.stderr).toBe(
      `Logged in to ${BASE} (profile default); token saved in ${r.file}\nwarning: LBRL_TOKEN is set and beats the saved token\n`,
    );
  });
});

async function logout(profile: Record<string, unknown> | undefined, env: Record<string, string> = {}) {
  const term = plainTerminal({ env });
  const dir = path.join(tempDir(), 'cfg');
  const store = new ConfigStore(dir);
  if (profile) await store.updateProfile('work', (p) => Object.assign(p, profile));
  const options: LogoutCommandOptions = {
    printer: term.printer,
    ctx: term.ctx,
    profileName: 'work',
    configFile: store.file,
    damagedProfile: () => store.damagedProfile('work'),
    removeDamagedProfile: () => store.removeDamagedProfile('work'),
    savedToken: () => store.rawProfile('work').token,
    updateProfile: (change) => store.updateProfile('work', change),
  };
  await runLogout(options);
  const saved = fs.existsSync(store.file) ? JSON.parse(fs.readFileSync(store.file, 'utf8')) : null;
  return { stdout: term.stdout, stderr: term.stderr, file: store.file, saved };
}

describe('auth logout, in process', () => {
  it('removes the token and keeps the rest of the profile', async () => {
    const r = await logout({ 'base-url': BASE, token: TOKEN, network: 'liquidtestnet' });
    expect(r.saved).toEqual({ profiles: { work: { 'base-url': BASE, network: 'liquidtestnet' } } });
    expect(mode(r.file)).toBe(0o600);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Logged out: the token of profile work was removed from ${r.file}\n`);
  });

  it('a damaged token (not a string) is removed too', async () => {
    const r = await logout({ token: 42 });
    expect(r.saved).toEqual({ profiles: { work: {} } });
    expect(r.stderr).toContain('Logged out: the token of profile work was removed');
  });

  it('no token saved: says so and writes nothing', async () => {
    const r = await logout(undefined);
    expect(r.saved).toBe(null);
    expect(r.stderr).toBe('profile work has no saved token\n');
  });

  it('LBRL_TOKEN still set: a warning that it is still in force', async () => {
    const r = await logout({ token: TOKEN }, { LBRL_TOKEN: TOKEN });
    expect(r.stderr).toBe(
      `Logged out: the token of profile work was removed from ${r.file}\nwarning: LBRL_TOKEN is still set in the environment\n`,
    );
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });
});
