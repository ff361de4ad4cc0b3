import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOOK = path.join(ROOT, 'test/helpers/load-hook.mjs');
const PROGRAM = path.join(ROOT, 'dist/lbrl.cjs');
const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/meta.json'), 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
};
/** The modules with code in the program (those tree-shaking left empty have none to run). */
const IN_PROGRAM = Object.entries(meta.outputs['dist/lbrl.cjs']?.inputs ?? {})
  .filter(([, i]) => i.bytesInOutput > 0)
  .map(([name]) => name);

/** What each heavy thing is, as the bundle's inputs name it. */
const HEAVY: Record<string, RegExp> = {
  prompts: /^node_modules\/@inquirer\//,
  spinner: /^node_modules\/ora\//,
  'terminal QR': /^node_modules\/qrcode-terminal\//,
  'QR PNG': /^node_modules\/qrcode\//,
  'config writer and schema validator': /^node_modules\/(conf|ajv)\//,
  sandbox: /^src\/sandbox\//,
  'HTTP client': /^node_modules\/undici\//,
  'response models': /^node_modules\/zod\//,
  'address codecs': /^node_modules\/(bech32|bs58check|blech32)\//,
  commander: /^node_modules\/commander\//,
  'PostgreSQL client': /^node_modules\/(pg|pg-[a-z-]+|pgpass|postgres-[a-z]+)\//,
};

/** Node built-ins as heavy as a library: undici loads node:http2 unless the build leaves it out. */
const HEAVY_BUILTINS: Record<string, string> = { 'HTTP/2 (node:http2)': 'node:http2' };

/**
 * bin/lbrl.js answers these itself: --version, and `<command path> --help`, `help <command path>`
 * and `help <topic>` from dist/help.json.
 */
function answeredByBin(args: string[]): boolean {
  return (
    args[0] === '--version' ||
    (args.at(-1) === '--help' && args.slice(0, -1).every((a) => /^[a-z][a-z-]*$/.test(a))) ||
    (args[0] === 'help' && args.every((a) => /^[a-z][a-z-]*$/.test(a)))
  );
}

/**
 * A run of lbrl: the Node built-ins it loaded (test/helpers/load-hook.mjs), and the modules of the
 * bundle whose code ran, from V8's coverage of dist/lbrl.cjs. esbuild wraps every module that is
 * not part of every run in a function named after its path ("node_modules/undici/lib/....js"), run
 * when the module is first needed; that function's call count says whether the module loaded.
 */
async function loadLog(
  args: string[],
  env: Record<string, string>,
): Promise<{ lines: string[]; ran?: string[] }> {
  const log = path.join(tempDir(), 'loaded.txt');
  const coverage = tempDir();
  fs.writeFileSync(log, '');
  // not execFileSync: the test's own server must go on answering meanwhile
  await promisify(execFile)(process.execPath, ['--import', HOOK, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env, LBRL_LOAD_LOG: log, NODE_V8_COVERAGE: coverage },
    timeout: 15_000,
  });
  let ran: string[] | undefined;
  for (const file of fs.readdirSync(coverage)) {
    const { result } = JSON.parse(fs.readFileSync(path.join(coverage, file), 'utf8')) as {
      result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
    };
    for (const script of result)
      if (script.url === pathToFileURL(PROGRAM).href || script.url === PROGRAM)
        ran = script.functions.filter((f) => (f.ranges[0]?.count ?? 0) > 0).map((f) => f.functionName);
  }
  return { lines: fs.readFileSync(log, 'utf8').split('\n'), ran };
}

/** The heavy things among the modules a run of lbrl loaded. */
async function heavyLoaded(args: string[], env: Record<string, string>): Promise<string[]> {
  const { lines, ran } = await loadLog(args, env);
  if (answeredByBin(args)) expect(ran).toBeUndefined();
  else expect(ran?.length).toBeGreaterThan(0);
  const found = new Set<string>();
  for (const name of ran ?? [])
    for (const [what, re] of Object.entries(HEAVY))
      if (IN_PROGRAM.includes(name) && re.test(name)) found.add(what);
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

  it('every heavy module is loaded on demand: none is part of what every run executes', () => {
    // a module the entry imports statically runs at every start, unwrapped, where the checks below
    // could not see it: each heavy module must have its own wrapper in the bundle
    const program = fs.readFileSync(PROGRAM, 'utf8');
    // (commander is the program itself: every run that gets past bin/lbrl.js needs it)
    const onDemand = Object.entries(HEAVY).filter(([what]) => what !== 'commander');
    const heavy = IN_PROGRAM.filter((i) => onDemand.some(([, re]) => re.test(i)));
    expect(heavy.length).toBeGreaterThan(50);
    expect(heavy.filter((i) => !program.includes(`${JSON.stringify(i)}(`))).toEqual([]);
  });

  it('--version loads nothing of the bundle at all', async () => {
    expect(await heavyLoaded(['--version'], env())).toEqual([]);
  });

  it('--help loads nothing of the bundle: bin/lbrl.js prints the page the build wrote', async () => {
    expect(await heavyLoaded(['--help'], env())).toEqual([]);
    expect(await heavyLoaded(['deposit', 'create', '--help'], env())).toEqual([]);
    expect(await heavyLoaded(['help', 'deposit', 'create'], env())).toEqual([]);
    expect(await heavyLoaded(['help', 'exit-codes'], env())).toEqual([]);
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

  it('the PostgreSQL client loads only when the ledger is a database', async () => {
    expect(await heavyLoaded(['deposit', 'list'], env())).not.toContain('PostgreSQL client');
    expect(await heavyLoaded(['ledger', 'status'], env())).not.toContain('PostgreSQL client');
    const database = { ...env(), LBRL_LEDGER_URL: inject('postgresUrl') };
    expect(await heavyLoaded(['ledger', 'status'], database)).toContain('PostgreSQL client');
  }, 60_000);

  // a V8 flag changed at run time (main.ts: --liftoff-only) makes later built-ins miss Node's code cache
  it('deposit get loads no Node built-in after the V8 flag, for an address or a host name', async () => {
    const late = async (baseUrl: string, extra: string[] = []) =>
      (
        await loadLog(['deposit', 'get', ID, '--json', ...extra], {
          ...env(),
          LBRL_BASE_URL: baseUrl,
          LBRL_TOKEN: TOKEN,
        })
      ).lines.filter((l) => l.startsWith('late:'));
    expect(await late(server.url)).toEqual([]);
    expect(await late(server.url.replace('127.0.0.1', 'localhost'))).toEqual([]);
    // the check sees one: the PNG writer's zlib comes after the request (not a hot path)
    expect(await late(server.url, ['--qr-png', path.join(tempDir(), 'qr.png')])).toContain('late:zlib');
  });
});
