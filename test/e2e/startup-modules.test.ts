import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOOK = path.join(ROOT, 'test/helpers/load-hook.mjs');
const PROGRAM = path.join(ROOT, 'dist/program');
type Output = {
  entryPoint?: string;
  imports: { path: string; kind: string }[];
  inputs: Record<string, { bytesInOutput: number }>;
};
const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/meta.json'), 'utf8')) as {
  outputs: Record<string, Output>;
};
/**
 * A module as esbuild names it, an installed package's from its last node_modules/ on: esbuild
 * names a module by its real path, outside the checkout when node_modules is a link (or pg a link
 * into a pnpm store).
 */
function packaged(name: string): string {
  const at = name.lastIndexOf('node_modules/');
  return at < 0 ? name : name.slice(at);
}

/** Each chunk of the program, by file name: the modules with code in it (as esbuild names them, packages from node_modules/). */
const CHUNKS = new Map(
  Object.entries(meta.outputs).map(([file, output]) => [
    path.basename(file),
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([name]) => packaged(name)),
  ]),
);

/** Each pack of the program (a chunk with the chunks it imports, read as one script), by file name. */
const PACKS = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/packs.json'), 'utf8')) as Record<
  string,
  string[]
>;

/** What each heavy thing is, as the bundle's inputs name it. */
const HEAVY: Record<string, RegExp> = {
  prompts: /^node_modules\/@inquirer\//,
  spinner: /^node_modules\/ora\//,
  'terminal QR': /^node_modules\/qrcode-terminal\//,
  'QR PNG': /^node_modules\/(qrcode|pngjs)\//,
  'config writer and schema validator': /^node_modules\/(conf|ajv)\//,
  sandbox: /^src\/sandbox\//,
  "customer's display": /^src\/display\//,
  'Liquid transactions and unblinding': /^src\/domain\/liquid\/(tx|unblind|asset|settlement|script)\.ts$/,
  'HTTP client': /^node_modules\/undici\//,
  'response models': /^node_modules\/zod\//,
  'address codecs': /^node_modules\/(bech32|bs58check|blech32)\//,
  commander: /^node_modules\/commander\//,
  'PostgreSQL client': /^node_modules\/(pg|pg-[a-z-]+|pgpass|postgres-[a-z]+)\//,
};

/** Node built-ins as heavy as a library, and packages installed beside lbrl (not bundled). */
const HEAVY_OUTSIDE: Record<string, string> = {
  'HTTP/2 (node:http2)': 'node:http2',
  'child processes (node:child_process)': 'node:child_process',
  'hashes (node:crypto)': 'node:crypto',
  // chalk's colour detection, made when chalk is evaluated: on the first colour, never for --json
  'terminal colour detection (node:tty)': 'node:tty',
  'secp256k1-zkp': 'node_modules/@vulpemventures/secp256k1-zkp/',
};

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
 * A run of lbrl: the Node built-ins it loaded (test/helpers/load-hook.mjs), and every script V8
 * compiled, from its coverage: which chunks of dist/program/ the run read, and which files from
 * outside them (an installed package).
 */
async function loadLog(
  args: string[],
  env: Record<string, string>,
  expectFailure = false,
): Promise<{ lines: string[]; chunks: string[]; scripts: string[] }> {
  const log = path.join(tempDir(), 'loaded.txt');
  const coverage = tempDir();
  fs.writeFileSync(log, '');
  // not execFileSync: the test's own server must go on answering meanwhile
  const run = promisify(execFile)(process.execPath, ['--import', HOOK, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env, LBRL_LOAD_LOG: log, NODE_V8_COVERAGE: coverage },
    timeout: 15_000,
  });
  run.child.stdin?.end(); // a command that reads stdin reads an empty one
  await run.catch((error: { code?: number }) => {
    if (!expectFailure) throw error;
  });
  const scripts: string[] = [];
  for (const file of fs.readdirSync(coverage)) {
    const { result } = JSON.parse(fs.readFileSync(path.join(coverage, file), 'utf8')) as {
      result: { url: string }[];
    };
    for (const script of result) scripts.push(script.url.replace(/^file:\/\//, ''));
  }
  // a pack (bin/build-program.mjs) is read as one script: the chunks it holds
  const chunks = scripts
    .filter((s) => path.dirname(s) === PROGRAM)
    .flatMap((s) => PACKS[path.basename(s)] ?? [path.basename(s)]);
  return { lines: fs.readFileSync(log, 'utf8').split('\n'), chunks, scripts };
}

/** The heavy things among what a run of lbrl read: the modules of the chunks it read, and outside. */
async function heavyLoaded(args: string[], env: Record<string, string>): Promise<string[]> {
  const { lines, chunks, scripts } = await loadLog(args, env);
  if (answeredByBin(args)) expect(chunks).toEqual([]);
  else expect(chunks).toContain('main.cjs');
  const found = new Set<string>();
  for (const chunk of chunks)
    for (const name of CHUNKS.get(chunk) ?? [])
      for (const [what, re] of Object.entries(HEAVY)) if (re.test(name)) found.add(what);
  for (const [what, name] of Object.entries(HEAVY_OUTSIDE))
    if (lines.includes(name) || scripts.some((s) => s.includes(`/${name}`))) found.add(what);
  return [...found].sort();
}

/** The command modules (src/commands/*.ts) among the modules of the chunks a run read. */
async function commandsRead(args: string[], env: Record<string, string>): Promise<string[]> {
  const { chunks } = await loadLog(args, env);
  const read = chunks.flatMap((chunk) => CHUNKS.get(chunk) ?? []);
  return read.filter((name) => /^src\/commands\/[^/]+\.ts$/.test(name)).sort();
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 200, getAnswer()));
});
afterAll(() => server.close());

describe('what loads on the hot paths (kept there without timing anything)', () => {
  const env = () => ({ HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() });

  it('every heavy module is in a chunk read on demand: none is in main.cjs or what it imports', () => {
    // what main.cjs imports statically is read at every start, whatever the command
    const everyRun = new Set<string>();
    const visit = (file: string) => {
      if (everyRun.has(file)) return;
      everyRun.add(file);
      for (const i of meta.outputs[file]?.imports ?? []) if (i.kind !== 'dynamic-import') visit(i.path);
    };
    visit('dist/program/main.cjs');
    const atStart = [...everyRun].flatMap((file) => CHUNKS.get(path.basename(file)) ?? []);
    // commander too: a plain `deposit get` is read without it (src/cli/direct.ts)
    const onDemand = Object.entries(HEAVY);
    expect(atStart.filter((name) => onDemand.some(([, re]) => re.test(name)))).toEqual([]);
    expect(atStart).toContain('src/cli.ts');
    const all = [...CHUNKS.values()].flat();
    expect(all.filter((name) => onDemand.some(([, re]) => re.test(name))).length).toBeGreaterThan(50);
  });

  it('the split follows the command manifest: each command module starts a chunk of its own', () => {
    const manifest = fs.readFileSync(path.join(ROOT, 'src/commands/manifest.ts'), 'utf8');
    const loaded = [...manifest.matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map(
      (m) => `src/commands/${m[1]}.ts`,
    );
    expect(loaded.length).toBeGreaterThan(10);
    const starts = Object.values(meta.outputs).map((output) => output.entryPoint);
    for (const file of new Set(loaded)) expect(starts).toContain(file);
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

  it('deposit get --json reads the client and the models, nothing for people, not commander', async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    // the deposit is in no history of this config: the addresses its answer names were not sent by
    // this lbrl, so they are decoded (deposits/answer-addresses.ts); a recorded one is compared
    expect(await heavyLoaded(['deposit', 'get', ID, '--json'], live)).toEqual(
      ['HTTP client', 'address codecs', 'response models'].sort(),
    );
    for (const flags of [
      ['--profile', 'default', '--json'],
      ['--json', '--base-url', server.url, '--no-color'],
    ])
      expect(await heavyLoaded(['deposit', 'get', ID, ...flags], live)).toEqual(
        ['HTTP client', 'address codecs', 'response models'].sort(),
      );
    // the check sees commander when the words are not plain: a flag before the command
    expect(await heavyLoaded(['--json', 'deposit', 'get', ID], live)).toContain('commander');
  });

  it('deposit get --json reads its code in a few scripts: packs of chunks, not one file per chunk', async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    const { scripts } = await loadLog(['deposit', 'get', ID, '--json'], live);
    const read = scripts.filter((s) => path.dirname(s) === PROGRAM).map((s) => path.basename(s));
    // each file read is a read and a code cache deserialised: 44 chunks before the packs (8 for a
    // recorded deposit; an unrecorded one's addresses are decoded: the codecs' two more)
    expect(read).toContain('main.pack.cjs');
    expect(read.length).toBeLessThanOrEqual(11);
  });

  it('deposit get --json does not make process.stdin, which it never reads', async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    expect((await loadLog(['deposit', 'get', ID, '--json'], live)).lines).not.toContain('made:stdin');
    // the check sees it made: auth login --with-token reads the token from stdin
    const login = await loadLog(['auth', 'login', '--with-token', '--base-url', server.url], env(), true);
    expect(login.lines).toContain('made:stdin');
  });

  it('deposit get --json places no frame of a stack (closing the client had Node read one)', async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    const { lines } = await loadLog(['deposit', 'get', ID, '--json'], live);
    // a stack without frames costs nothing to read
    expect(lines.filter((line) => line.startsWith('stack:') && !line.endsWith(':0'))).toEqual([]);
    // the check sees one when a stack is read
    const log = path.join(tempDir(), 'loaded.txt');
    fs.writeFileSync(log, '');
    await promisify(execFile)(process.execPath, ['--import', HOOK, '-e', "new Error('x').stack"], {
      env: { PATH: process.env.PATH ?? '', LBRL_LOAD_LOG: log },
    });
    expect(fs.readFileSync(log, 'utf8')).toMatch(/^stack:Error:[1-9]/m);
  });

  it("a command reads no other command's module", async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    const own = ['src/commands/define.ts', 'src/commands/manifest.ts'];
    // a plain get: not even the manifest
    expect(await commandsRead(['deposit', 'get', ID, '--json'], live)).toEqual(
      ['src/commands/define.ts', 'src/commands/deposit-get.ts'].sort(),
    );
    expect(await commandsRead(['config', 'get', 'base-url'], env())).toEqual(
      [...own, 'src/commands/config.ts'].sort(),
    );
  });

  it('chalk is evaluated on the first colour: a get coloured for a terminal loads node:tty, --json does not', async () => {
    const live = { ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    expect(await heavyLoaded(['deposit', 'get', ID, '--json'], { ...live, FORCE_COLOR: '1' })).not.toContain(
      'terminal colour detection (node:tty)',
    );
    expect(await heavyLoaded(['deposit', 'get', ID], { ...live, FORCE_COLOR: '1' })).toContain(
      'terminal colour detection (node:tty)',
    );
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

  // a V8 flag changed at run time (main.ts: --liftoff-only, on Node 20 only) makes later
  // built-ins miss Node's code cache
  const flagged = Number(process.versions.node.split('.')[0]) < 22;
  it('deposit get loads no Node built-in after the V8 flag, for an address or a host name', async () => {
    const run = async (baseUrl: string, extra: string[] = []) =>
      (
        await loadLog(['deposit', 'get', ID, '--json', ...extra], {
          ...env(),
          LBRL_BASE_URL: baseUrl,
          LBRL_TOKEN: TOKEN,
        })
      ).lines;
    const late = async (baseUrl: string, extra: string[] = []) =>
      (await run(baseUrl, extra)).filter((l) => l.startsWith('late:'));
    expect(await late(server.url)).toEqual([]);
    expect(await late(server.url.replace('127.0.0.1', 'localhost'))).toEqual([]);
    const withPng = await late(server.url, ['--qr-png', path.join(tempDir(), 'qr.png')]);
    // the check sees one: the PNG writer's zlib comes after the request (not a hot path)
    if (flagged) expect(withPng).toContain('late:zlib');
    else expect(withPng).toEqual([]);
  });

  it('deposit get loads node:v8 only on Node 20, where it sets a flag (no load hook: it loads node:v8 itself)', async ({
    annotate,
  }) => {
    const probe = path.join(tempDir(), 'modules.cjs');
    const log = path.join(tempDir(), 'modules.txt');
    fs.writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, process.moduleLoadList.join('\\n')));`,
    );
    // the machine's Node, and the others of CI's list when bench/nodes.mjs has fetched them
    const cache = process.env.LBRL_CI_CACHE ?? path.join(os.homedir(), '.cache', 'lbrl-ci');
    const others = ['22', '24', '26'].map((major) => ({
      major,
      node: path.join(cache, `node-${major}`, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'),
    }));
    const missing = others.filter(({ node }) => !fs.existsSync(node)).map(({ major }) => major);
    // a Node that is not here is not checked, and the run says so (never a silent pass)
    if (missing.length > 0) {
      const notice = `Node ${missing.join(', ')} not checked: not in ${cache} (node bench/nodes.mjs fetches them); only Node ${process.versions.node} and the others found were`;
      // in the report (--reporter=verbose, CI's), and on stderr for the default reporter
      await annotate(notice, 'notice');
      console.warn(notice);
    }
    const nodes = [
      process.execPath,
      ...others.filter(({ node }) => fs.existsSync(node)).map(({ node }) => node),
    ];
    for (const node of nodes) {
      const major = Number(
        (await promisify(execFile)(node, ['-p', 'process.versions.node'])).stdout.split('.')[0],
      );
      await promisify(execFile)(node, ['--require', probe, BIN, 'deposit', 'get', ID, '--json'], {
        env: { PATH: process.env.PATH ?? '', ...env(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN },
      });
      const loaded = fs.readFileSync(log, 'utf8').split('\n');
      expect(loaded.includes('NativeModule v8'), `Node ${major}`).toBe(major < 22);
    }
  });

  it('deposit get sets --liftoff-only on Node 20, and no V8 flag from Node 22 on', async () => {
    const { lines } = await loadLog(['deposit', 'get', ID, '--json'], {
      ...env(),
      LBRL_BASE_URL: server.url,
      LBRL_TOKEN: TOKEN,
    });
    const flags = lines.filter((l) => l.startsWith('flag:'));
    if (flagged) expect(flags).toContain('flag:--liftoff-only');
    else expect(flags).toEqual([]);
  });
});
