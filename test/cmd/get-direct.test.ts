/**
 * A plain `deposit get <id>` with the program's flags is read without commander (src/cli/direct.ts).
 * Whatever the words, a run says exactly what the commander program says for them: the same
 * stdout, stderr and exit code, path for path, against answers good and bad; and the words the
 * direct path does not read as plain go to the program.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainGetOf } from '../../src/cli/direct.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const GONE = '0b2e4c6d-1a3f-4b5c-8d7e-9f0a1b2c3d4e';
const LYING = '1c3f5d7e-2b4a-4c6d-9e8f-0a1b2c3d4e5f';
const BROKEN = '2d4a6e8f-3c5b-4d7e-8f9a-1b2c3d4e5f6a';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url.endsWith(GONE)) return json(res, 404, { message: 'not found' });
    // an answer for another deposit than the one asked
    if (req.url.endsWith(LYING)) return json(res, 200, getAnswer());
    if (req.url.endsWith(BROKEN)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":');
      return;
    }
    return json(res, 200, getAnswer());
  });
});
afterAll(() => server.close());

/** Each word list run twice, in fresh directories: directly (when plain), and by the program. */
async function bothPaths(args: string[], extraEnv: Record<string, string> = {}, terminal = false) {
  const env = () => ({
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    LBRL_BASE_URL: server.url,
    LBRL_TOKEN: TOKEN,
    TZ: 'UTC',
    ...extraEnv,
  });
  const client = { timeoutMs: 2000, connectTimeoutMs: 2000, maxRetries: 0 };
  const run = { client, now: () => 1_700_000_000_000, stdoutTTY: terminal, stderrTTY: terminal };
  const direct = await runCli(args, { ...run, env: env() });
  const program = await runCli(args, { ...run, env: env(), direct: false });
  return { direct, program };
}

const PLAIN: string[][] = [
  ['deposit', 'get', ID, '--json'],
  ['deposit', 'get', ID],
  ['deposit', 'get', '--json', ID],
  ['deposit', 'get', ID, '-q'],
  ['deposit', 'get', ID, '--quiet', '--json'],
  ['deposit', 'get', ID, '--profile', 'default', '--json'],
  ['deposit', 'get', ID, '--profile=default'],
  ['deposit', 'get', ID, '--profile', 'nope', '--json'],
  ['deposit', 'get', ID, '--profile', 'bad name!'],
  ['deposit', 'get', ID, '--base-url', 'ftp://example.com', '--json'],
  ['deposit', 'get', ID, '--base-url=not a url'],
  ['deposit', 'get', ID, '--no-color', '--no-input', '--insecure-skip-tls-verify'],
  ['deposit', 'get', ID, '--verbose', '--json'],
  ['deposit', 'get', 'not-an-id', '--json'],
  ['deposit', 'get', 'not-an-id'],
  ['deposit', 'get', 'help'],
  ['deposit', 'get', `${ID}\u001b[31m`, '--json'],
  ['deposit', 'get', GONE, '--json'],
  ['deposit', 'get', GONE],
  ['deposit', 'get', LYING, '--json'],
  ['deposit', 'get', BROKEN, '--json'],
  ['deposit', 'get', BROKEN, '-q'],
];

const NOT_PLAIN: string[][] = [
  ['deposit', 'get'],
  ['deposit', 'get', '--json'],
  ['deposit', 'get', ID, 'extra'],
  ['deposit', 'get', ID, '--json', '--json'],
  ['deposit', 'get', ID, '--profile'],
  ['deposit', 'get', ID, '--profile', '--json'],
  ['deposit', 'get', ID, '--profile='],
  ['deposit', 'get', ID, '--profile', 'a', '--profile', 'b'],
  ['deposit', 'get', '--', ID],
  ['deposit', 'get', ID, '--bogus'],
  ['deposit', 'get', ID, '-qV'],
  ['deposit', 'get', ID, '-h'],
  ['deposit', 'get', ID, '--qr-style', 'dark'],
  ['deposit', 'get', '--ref', 'order 1'],
  ['deposit', 'get', ''],
  ['--json', 'deposit', 'get', ID],
  ['deposit', 'gett', ID],
  ['deposit', 'list', '--json'],
];

describe('a plain deposit get, read without commander', () => {
  it('reads the program flags as commander gives them', () => {
    expect(plainGetOf(['deposit', 'get', ID, '--json'])).toEqual({
      id: ID,
      globals: { color: true, input: true, json: true },
    });
    expect(
      plainGetOf(['deposit', 'get', '--profile=work', ID, '--no-color', '-q', '--base-url', 'u']),
    ).toEqual({
      id: ID,
      globals: { color: false, input: true, quiet: true, profile: 'work', baseUrl: 'u' },
    });
  });

  it('leaves to the program every run it does not read as plain', () => {
    for (const args of PLAIN) expect(plainGetOf(args), args.join(' ')).toBeDefined();
    for (const args of NOT_PLAIN) expect(plainGetOf(args), args.join(' ')).toBeUndefined();
  });

  it.each(PLAIN.map((args) => [args.join(' '), args]))(
    'says what the program says: %s',
    async (_name, args) => {
      const { direct, program } = await bothPaths(args as string[]);
      expect(direct).toEqual(program);
    },
  );

  it.each(NOT_PLAIN.map((args) => [args.join(' '), args]))(
    'is the program itself when not plain: %s',
    async (_name, args) => {
      const { direct, program } = await bothPaths(args as string[]);
      expect(direct).toEqual(program);
    },
  );

  it('says the same on a terminal, coloured, and with a secret where an id should be', async () => {
    const secret = ['deposit', 'get', TOKEN];
    const { direct, program } = await bothPaths(secret);
    expect(direct).toEqual(program);
    expect(direct.stderr).not.toContain(TOKEN);
    const coloured = await bothPaths(['deposit', 'get', ID], {}, true);
    expect(coloured.direct).toEqual(coloured.program);
    expect(coloured.direct.stdout).toContain('\u001b[');
    const plain = await bothPaths(['deposit', 'get', ID, '--no-color'], {}, true);
    expect(plain.direct).toEqual(plain.program);
    expect(plain.direct.stdout).not.toContain('\u001b[');
    const failing = await bothPaths(['deposit', 'get', GONE, '--no-color'], {}, true);
    expect(failing.direct).toEqual(failing.program);
    expect(failing.direct.code).toBe(4);
  });
});
