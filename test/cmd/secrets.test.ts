/** The token appears in no output, trace or error message, whatever the service echoes back. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

// characters that every encoding changes: / + " \\ = and a percent sign
const SECRET = 'sk_live/9f8e+7d6c"5b4a\\39281706%f5e4d3c2b1a0=';

/** The token in every form a careless service could echo it in. */
function echoes(t: string): Record<string, string> {
  return {
    raw: t,
    header: `Bearer ${t}`,
    uri: encodeURIComponent(t),
    uriLower: encodeURIComponent(t).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    form: new URLSearchParams({ t }).toString().slice(2),
    uriTwice: encodeURIComponent(encodeURIComponent(t)),
    jsonInJson: JSON.stringify(JSON.stringify({ token: t })),
    html: t.replace(/"/g, '&quot;').replace(/\//g, '&#x2F;'),
    basic: Buffer.from(`user:${t}`).toString('base64'),
    base64url: Buffer.from(`ab${t}`).toString('base64url'),
    hex: Buffer.from(t).toString('hex'),
    cutEnd: `token ${t.slice(0, 6)}…`,
    cutEndDots: `token ${t.slice(0, 5)}...`,
    cutStart: `…${t.slice(-6)} refused`,
  };
}

/** What must not be in the output: each form, and the pieces a cut would leave. */
function leaks(out: string, t: string): string[] {
  const found: string[] = [];
  for (const [name, form] of Object.entries(echoes(t))) {
    if (name.startsWith('cut')) continue;
    if (out.includes(form)) found.push(name);
  }
  if (out.includes(JSON.stringify(t).slice(1, -1))) found.push('json');
  // the part of base64 that the token alone decides, at the alignment of "user:"
  const b64 = Buffer.from(`user:${t}`).toString('base64');
  if (out.includes(b64.slice(8, b64.length - 4))) found.push('base64');
  for (let k = 4; k < 8; k++) {
    if (out.includes(`${t.slice(0, k)}…`) || out.includes(`${t.slice(0, k)}...`)) found.push(`head ${k}`);
    if (out.includes(`…${t.slice(-k)}`)) found.push(`tail ${k}`);
  }
  for (let i = 0; i + 8 <= t.length; i++) if (out.includes(t.slice(i, i + 8))) found.push(`piece at ${i}`);
  return found;
}

let server: TestServer;
let mode: 'ok' | 'echo-error' | 'echo-cut' = 'ok';

beforeAll(async () => {
  server = await startServer((req, res) => {
    // a careless service that echoes the Authorization header in everything it says, every way
    const token = String(req.headers.authorization).replace(/^Bearer /, '');
    const all = Object.values(echoes(token)).join(' | ');
    if (mode === 'echo-error') return json(res, 400, { message: `bad request from ${all}` });
    if (mode === 'echo-cut') return json(res, 400, { message: `${'x'.repeat(294)}${token}` });
    if (req.method === 'POST') return json(res, 201, { ...createAnswer(JSON.parse(req.body)), note: all });
    if (req.url.includes(ID))
      return json(res, 200, {
        ...getAnswer({
          status: 'FINALIZED',
          settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
          confirmedAt: '2026-11-22T10:00:00Z',
        }),
        note: all,
      });
    json(res, 404, { error: { code: 'not_found', message: `unknown, ${all}` } });
  });
});
afterAll(() => server.close());

const rows = () => {
  const f = path.join(tempDir(), 'rows.csv');
  fs.writeFileSync(f, `amount,to\n1,${LQ}\n2,${LQ}\n`);
  return f;
};

const COMMANDS: Array<[string, () => string[], string?]> = [
  ['deposit create', () => ['deposit', 'create', '--amount', '1', '--to', LQ]],
  ['deposit create --json', () => ['deposit', 'create', '--amount', '1', '--to', LQ, '--json']],
  ['deposit create --dry-run', () => ['deposit', 'create', '--amount', '1', '--to', LQ, '--dry-run']],
  ['deposit create --from', () => ['deposit', 'create', '--from', rows()]],
  ['deposit create --from --resume', () => ['deposit', 'create', '--from', rows(), '--resume']],
  ['deposit create --from --json', () => ['deposit', 'create', '--from', rows(), '--json']],
  ['deposit create --watch', () => ['deposit', 'create', '--amount', '1', '--to', LQ, '--watch']],
  ['deposit get', () => ['deposit', 'get', ID]],
  ['deposit get --json', () => ['deposit', 'get', ID, '--json']],
  ['deposit watch', () => ['deposit', 'watch', ID]],
  ['deposit watch --json', () => ['deposit', 'watch', ID, '--json']],
  ['deposit list --refresh', () => ['deposit', 'list', '--refresh']],
  ['deposit list --refresh --json', () => ['deposit', 'list', '--refresh', '--json']],
  ['deposit watch --pending', () => ['deposit', 'watch', '--pending']],
  ['auth status', () => ['auth', 'status']],
  ['auth status --json', () => ['auth', 'status', '--json']],
  ['auth login --with-token', () => ['auth', 'login', '--with-token', '--base-url', server.url], SECRET],
  ['auth logout', () => ['auth', 'logout']],
  ['config list', () => ['config', 'list']],
  ['config list --json', () => ['config', 'list', '--json']],
];

describe('the token never appears in output', () => {
  for (const echo of ['ok', 'echo-error', 'echo-cut'] as const) {
    it.each(COMMANDS)(`%s --verbose (service ${echo})`, async (_name, args, stdin) => {
      mode = echo;
      const dir = tempDir();
      // a saved token too, for the commands that read the profile
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify({ profiles: { default: { 'base-url': server.url, token: SECRET } } }),
        { mode: 0o600 },
      );
      // and a pending deposit in the history, for list --refresh
      const record = {
        v: 1,
        type: 'created',
        id: ID,
        profile: 'default',
        baseUrl: server.url,
        at: '2026-11-22T10:00:00.000Z',
        amountInCents: 100,
        destinationAddress: LQ,
        splitAddress: null,
        splitFee: null,
        status: 'WAITING_PAYMENT',
      };
      fs.writeFileSync(path.join(dir, 'history.ndjson'), `${JSON.stringify(record)}\n`, { mode: 0o600 });
      const r = await runCli([...args(), '--verbose'], {
        env: { LBRL_CONFIG_DIR: dir, LBRL_TOKEN: SECRET },
        stdin: stdin ?? '',
        clock: { now: 0 },
      });
      expect(leaks(r.stdout, SECRET)).toEqual([]);
      expect(leaks(r.stderr, SECRET)).toEqual([]);
      // the traces did happen, with the header redacted
      if (
        !args().includes('--dry-run') &&
        !args().includes('config') &&
        !(args()[0] === 'auth' && args()[1] !== 'login')
      ) {
        expect(r.stderr).toContain('authorization: Bearer [redacted]');
      }
    });
  }

  it('auth status --show-token is the one place it is printed', async () => {
    const r = await runCli(['auth', 'status', '--show-token'], {
      env: liveEnv(server.url, SECRET),
    });
    expect(r.stdout).toContain(SECRET);
  });
});

describe('the insecure-TLS warning', () => {
  it.each([[['-q']], [['--json']], [['--json', '-q']], [[]]])(
    'is printed on stderr whatever the options: %j',
    async (extra) => {
      mode = 'ok';
      const r = await runCli(['deposit', 'get', ID, '--insecure-skip-tls-verify', ...extra], {
        env: liveEnv(server.url, SECRET),
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        'warning: TLS certificate checks are OFF (--insecure-skip-tls-verify): anyone in between can read the token and change answers\n',
      );
      expect(r.stdout).not.toContain('TLS');
    },
  );
});

describe('secrets typed in the wrong place, before the profile is read', () => {
  const TOKEN_SAVED = 'tok_saved_Qw7rT2yU9iO4pA1sD6fG';
  const KEY = 'c0ffee'.repeat(10) + 'beef';
  const ENV_TOKEN = 'tok_env_Zx8cV3bN5mL1kJ7hG2fD';
  const configured = () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        profiles: {
          default: {
            'base-url': 'https://pay.example.com',
            token: TOKEN_SAVED,
            'blinding-keys': [{ key: KEY }],
          },
        },
      }),
      { mode: 0o600 },
    );
    return { HOME: tempDir(), LBRL_CONFIG_DIR: dir };
  };
  /** A secret in each case and encoding it could be typed in. */
  const typed = (secret: string): Record<string, string> => ({
    plain: secret,
    // a key is hex: the same key in either case (a token's case is part of it)
    ...(secret === KEY
      ? { upper: secret.toUpperCase(), mixed: `${secret.slice(0, 30).toUpperCase()}${secret.slice(30)}` }
      : {}),
    base64: Buffer.from(secret).toString('base64'),
    base64url: Buffer.from(`x${secret}`).toString('base64url'),
    url: encodeURIComponent(`/${secret}/`).replace(/_/g, '%5F'),
    hex: Buffer.from(secret).toString('hex'),
    hexUpper: Buffer.from(secret).toString('hex').toUpperCase(),
  });
  const places: Array<[string, (s: string) => string[]]> = [
    ['deposit get', (s) => ['deposit', 'get', s]],
    ['config get', (s) => ['config', 'get', s]],
    ['deposit list --limit', (s) => ['deposit', 'list', '--limit', s]],
    ['completion', (s) => ['completion', s]],
    ['deposit verify', (s) => ['deposit', 'verify', s]],
    ['sandbox pay', (s) => ['sandbox', 'pay', s]],
    ['an unknown command', (s) => [s]],
    ['an unknown option', (s) => ['deposit', 'get', `--${s}`]],
  ];
  for (const [secretName, secret, env] of [
    ['the saved token', TOKEN_SAVED, {}],
    ['the saved blinding key', KEY, {}],
    ['the token of LBRL_TOKEN', ENV_TOKEN, { LBRL_TOKEN: ENV_TOKEN }],
  ] as const) {
    it.each(places)(
      `${secretName} given to %s comes back redacted, in every case and encoding, with --json too`,
      async (_name, args) => {
        const base = { ...configured(), ...env };
        for (const [form, value] of Object.entries(typed(secret))) {
          for (const json of [false, true]) {
            const r = await runCli([...args(value), ...(json ? ['--json'] : [])], { env: base });
            const out = r.stdout + r.stderr;
            expect(r.code, `${form} ${json}`).not.toBe(0);
            expect(out, `${form} ${json ? '--json' : ''}`).not.toContain(value);
            expect(out, form).not.toContain(secret.slice(0, 16));
            if (secret === KEY) expect(out.toLowerCase(), form).not.toContain(secret.slice(0, 16));
          }
        }
      },
    );
  }
});

describe('the webhook signing secret typed in the wrong place', () => {
  // stored in another profile than the one in use: still kept out from the first line
  const WHSEC = `whsec_${Buffer.from('0123456789abcdef'.repeat(2).split('').reverse().join('') + '+/?>~').toString('base64')}`;
  const BODY = WHSEC.slice('whsec_'.length);
  const configured = () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { default: {}, shop: { 'webhook-secret': WHSEC } } }),
      { mode: 0o600 },
    );
    return { HOME: tempDir(), LBRL_CONFIG_DIR: dir };
  };
  const key = Buffer.from(BODY, 'base64');
  const typed: Record<string, string> = {
    plain: WHSEC,
    'without whsec_': BODY,
    base64url: BODY.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    url: encodeURIComponent(WHSEC),
    'key hex': key.toString('hex'),
    'key HEX': key.toString('hex').toUpperCase(),
    base64: Buffer.from(WHSEC).toString('base64'),
  };
  const places: Array<[string, (s: string) => string[]]> = [
    ['config get', (s) => ['config', 'get', s]],
    ['config set shop-name', (s) => ['config', 'set', 'shop-name', s]],
    ['deposit report --since', (s) => ['deposit', 'report', '--since', s]],
    ['listen --replay', (s) => ['listen', '--replay', s]],
    ['sandbox send --to', (s) => ['sandbox', 'send', '--amount', '1', '--to', s]],
    ['display --host', (s) => ['display', '--host', `${s}!`]],
  ];
  it.each(places)('given to %s it comes back redacted in every form, with --json too', async (_n, args) => {
    const env = configured();
    for (const [form, value] of Object.entries(typed)) {
      for (const json of [false, true]) {
        const r = await runCli([...args(value), ...(json ? ['--json'] : [])], { env });
        const out = r.stdout + r.stderr;
        expect(r.code, `${form} ${json}`).not.toBe(0);
        expect(out, `${form} ${json}`).not.toContain(value);
        expect(out.toLowerCase(), form).not.toContain(key.toString('hex').slice(0, 16));
        expect(out, form).not.toContain(BODY.slice(0, 12));
      }
    }
  });
});

describe("the ledger's database password typed in the wrong place", () => {
  // in the URL of another profile's ledger, or of LBRL_LEDGER_URL, or PGPASSWORD: kept out from the first line
  const PASSWORD = 'Corr3ct-Horse/Battery?Staple';
  const ledgerUrl = `postgres://till:${encodeURIComponent(PASSWORD)}@db.example.com/shop`;
  const configured = (): Array<[string, Record<string, string>]> => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { default: {}, office: { ledger: ledgerUrl } } }),
      { mode: 0o600 },
    );
    return [
      ['in the config file', { HOME: tempDir(), LBRL_CONFIG_DIR: dir }],
      ['in LBRL_LEDGER_URL', { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: ledgerUrl }],
      ['in PGPASSWORD', { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), PGPASSWORD: PASSWORD }],
    ];
  };
  const typed: Record<string, string> = {
    plain: PASSWORD,
    url: encodeURIComponent(PASSWORD),
    base64: Buffer.from(PASSWORD).toString('base64'),
  };
  const places: Array<[string, (s: string) => string[]]> = [
    ['config get', (s) => ['config', 'get', s]],
    ['deposit report --since', (s) => ['deposit', 'report', '--since', s]],
    ['config set base-url', (s) => ['config', 'set', 'base-url', s]],
  ];
  it.each(places)('given to %s it comes back redacted in every form, with --json too', async (_n, args) => {
    for (const [where, env] of configured()) {
      for (const [form, value] of Object.entries(typed)) {
        for (const json of [false, true]) {
          const r = await runCli([...args(value), ...(json ? ['--json'] : [])], { env });
          const out = r.stdout + r.stderr;
          expect(r.code, `${where} ${form} ${json}`).not.toBe(0);
          expect(out, `${where} ${form} ${json}`).not.toContain(value);
          expect(out, `${where} ${form}`).not.toContain('Battery');
        }
      }
    }
  });
});
