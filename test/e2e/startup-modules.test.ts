import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOOK = path.join(ROOT, 'test/helpers/load-hook.mjs');
const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/meta.json'), 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
};

/** What each heavy thing is, as the bundle's inputs name it. */
const HEAVY: Record<string, RegExp> = {
  prompts: /node_modules\/@inquirer\//,
  spinner: /node_modules\/ora\//,
  'terminal QR': /node_modules\/qrcode-terminal\//,
  'QR PNG': /node_modules\/qrcode\//,
  'config writer and schema validator': /node_modules\/(conf|ajv)\//,
  sandbox: /^src\/sandbox\//,
  'HTTP client': /node_modules\/undici\//,
  'response models': /node_modules\/zod\//,
  'address codecs': /node_modules\/(bech32|bs58check|blech32)\//,
  commander: /node_modules\/commander\//,
};

/** Node built-ins as heavy as a library: undici loads node:http2 unless the build leaves it out. */
const HEAVY_BUILTINS: Record<string, string> = { 'HTTP/2 (node:http2)': 'node:http2' };

/** bin/lbrl.js answers these itself: --version, and `<command path> --help` from dist/help.json. */
function answeredByBin(args: string[]): boolean {
  return (
    args[0] === '--version' ||
    (args.at(-1) === '--help' && args.slice(0, -1).every((a) => /^[a-z][a-z-]*$/.test(a)))
  );
}

/** What a run of lbrl loaded, as test/helpers/load-hook.mjs logs it. */
async function loadLog(args: string[], env: Record<string, string>): Promise<string[]> {
  const log = path.join(tempDir(), 'loaded.txt');
  fs.writeFileSync(log, '');
  // not execFileSync: the test's own server must go on answering meanwhile
  await promisify(execFile)(process.execPath, ['--import', HOOK, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env, LBRL_LOAD_LOG: log },
    timeout: 15_000,
  });
  return fs.readFileSync(log, 'utf8').split('\n');
}

/** The heavy things inside the bundle files a run of lbrl loaded. */
async function heavyLoaded(args: string[], env: Record<string, string>): Promise<string[]> {
  const lines = await loadLog(args, env);
  const files = lines
    .filter((u) => u.startsWith('file:') && u.includes('/dist/'))
    .map((u) => path.relative(ROOT, fileURLToPath(u)));
  if (!answeredByBin(args)) expect(files.length).toBeGreaterThan(0);
  const found = new Set<string>();
  for (const f of files) {
    const inputs = Object.keys(meta.outputs[f]?.inputs ?? {});
    for (const [name, re] of Object.entries(HEAVY)) if (inputs.some((i) => re.test(i))) found.add(name);
  }
  for (const [name, builtin] of Object.entries(HEAVY_BUILTINS)) if (lines.includes(builtin)) found.add(name);
  return [...found].sort();
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 200, getAnswer()));
});
afterAll(() => server.close());

describe('what loads on the hot paths (kept there without timing anything)', () => {
  const env = () => ({ HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() });

  it('--version loads nothing of the bundle at all', async () => {
    expect(await heavyLoaded(['--version'], env())).toEqual([]);
  });

  it('--help loads nothing of the bundle: bin/lbrl.js prints the page the build wrote', async () => {
    expect(await heavyLoaded(['--help'], env())).toEqual([]);
    expect(await heavyLoaded(['deposit', 'create', '--help'], env())).toEqual([]);
  });

  it('help the pages do not hold (options first) loads commander and nothing heavy', async () => {
    expect(await heavyLoaded(['--json', 'deposit', 'create', '--help'], env())).toEqual(['commander']);
  });

  it('deposit get --json loads the client and the models, nothing for people', async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    expect(await heavyLoaded(['deposit', 'get', ID, '--json'], live)).toEqual([
      'HTTP client',
      'commander',
      'response models',
    ]);
  });

  it('the check sees a heavy module when one is loaded', async () => {
    expect(
      await heavyLoaded(['deposit', 'get', ID, '--qr'], {
        ...env(),
        LBRL_BASE_URL: server.url,
        LBRL_TOKEN: TOKEN,
      }),
    ).toContain('terminal QR');
  });

  // a V8 flag changed at run time (main.ts: --liftoff-only) makes later built-ins miss Node's code cache
  it('deposit get loads no Node built-in after the V8 flag, for an address or a host name', async () => {
    const late = async (baseUrl: string, extra: string[] = []) =>
      (
        await loadLog(['deposit', 'get', ID, '--json', ...extra], {
          ...env(),
          LBRL_BASE_URL: baseUrl,
          LBRL_TOKEN: TOKEN,
        })
      ).filter((l) => l.startsWith('late:'));
    expect(await late(server.url)).toEqual([]);
    expect(await late(server.url.replace('127.0.0.1', 'localhost'))).toEqual([]);
    // the check sees one: the PNG writer's zlib comes after the request (not a hot path)
    expect(await late(server.url, ['--qr-png', path.join(tempDir(), 'qr.png')])).toContain('late:zlib');
  });
});
