/** The token appears in no output, trace or error message, whatever the service echoes back. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const SECRET = 'sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
let server: TestServer;
let mode: 'ok' | 'echo-error' = 'ok';

beforeAll(async () => {
  server = await startServer((req, res) => {
    // a careless service that echoes the Authorization header in everything it says
    const echoed = String(req.headers.authorization);
    if (mode === 'echo-error') return json(res, 400, { message: `bad request from ${echoed}` });
    if (req.method === 'POST') return json(res, 201, { ...createAnswer(JSON.parse(req.body)), note: echoed });
    if (req.url.includes(ID))
      return json(res, 200, {
        ...getAnswer({
          status: 'FINALIZED',
          settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
          confirmedAt: '2026-11-22T10:00:00Z',
        }),
        note: echoed,
      });
    json(res, 404, { message: `unknown, ${echoed}` });
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
  ['deposit get', () => ['deposit', 'get', ID]],
  ['deposit get --json', () => ['deposit', 'get', ID, '--json']],
  ['deposit watch', () => ['deposit', 'watch', ID]],
  ['deposit watch --json', () => ['deposit', 'watch', ID, '--json']],
  ['deposit list --refresh', () => ['deposit', 'list', '--refresh']],
  ['auth status', () => ['auth', 'status']],
  ['auth status --json', () => ['auth', 'status', '--json']],
  ['auth login --with-token', () => ['auth', 'login', '--with-token', '--base-url', server.url], SECRET],
  ['auth logout', () => ['auth', 'logout']],
  ['config list', () => ['config', 'list']],
  ['config list --json', () => ['config', 'list', '--json']],
];

describe('the token never appears in output', () => {
  for (const echo of ['ok', 'echo-error'] as const) {
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
      expect(r.stdout).not.toContain(SECRET);
      expect(r.stderr).not.toContain(SECRET);
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
