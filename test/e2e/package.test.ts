import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { LQ } from '../helpers/fixtures.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { forTest } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

// What a user gets from `npm pack` and `npm install -g <tarball>`: built from the current dist/
// (npm test builds first), installed into an empty prefix, run from there.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  man: string[];
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
};
type Meta = { outputs: Record<string, { imports?: { path: string; external?: boolean }[] }> };
/** What esbuild wrote of the program (dist/program/) and of the library (dist/lib/index.js). */
const metas = ['dist/meta.json', 'dist/meta-lib.json'].map(
  (file) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Meta,
);

/** npm itself, run by the Node under test (a node binary from the registry comes without npm). */
function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error' },
    timeout: 60_000,
  });
}

let tarball: string;
let prefix: string;

beforeAll(() => {
  const packDir = tempDir();
  const out = JSON.parse(npm(['pack', '--json', '--pack-destination', packDir, ROOT], packDir)) as {
    filename: string;
  }[];
  tarball = path.join(packDir, out[0]?.filename ?? '');
  prefix = tempDir();
  // offline: nothing of the install may need the registry beyond npm's cache, which `npm ci` filled
  npm(['install', '-g', '--offline', '--prefix', prefix, tarball], tempDir());
}, 120_000);

/** The installed lbrl, found on PATH as a user's shell finds it, run by the Node under test. */
async function lbrl(args: string[], env: Record<string, string> = {}) {
  const bin = path.join(prefix, 'bin');
  const r = await promisify(execFile)('lbrl', args, {
    env: {
      PATH: [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: tempDir(),
      ...env,
    },
    timeout: 45_000,
  });
  return r.stdout;
}

describe('the package a user installs', () => {
  it('holds only what runs: bin, the built program, the library and its declarations, the man pages, README, LICENSE', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''))
      .sort();
    const odd = files.filter(
      (f) =>
        !/^(LICENSE|README\.md|package\.json|bin\/lbrl\.js|bin\/package\.json|dist\/program\/[\w-]+(\.pack)?\.cjs|dist\/build-id|dist\/help\.json|dist\/lib\/index\.js|dist\/lib\/([a-z-]+\/)*[a-z-]+\.d\.ts|docs\/man\/lbrl(-[a-z-]+)?\.1)$/.test(
          f,
        ),
    );
    expect(odd).toEqual([]);
    expect(files).toContain('LICENSE');
    // every chunk of the program, which bin/lbrl.js loads when a command needs it
    const chunks = fs.readdirSync(path.join(ROOT, 'dist/program')).map((f) => `dist/program/${f}`);
    expect(chunks).toContain('dist/program/main.cjs');
    expect(files.filter((f) => f.startsWith('dist/program/'))).toEqual(chunks.sort());
    // the code cache is keyed by it: an install without it would use none
    expect(files).toContain('dist/build-id');
    expect(files).toContain('dist/lib/index.js');
    expect(files).toContain('dist/lib/index.d.ts');
    // the declarations index.d.ts reaches, and no others (the build keeps only those)
    // (the models' declarations would import zod, which a user does not install)
    expect(files.filter((f) => f.startsWith('dist/lib/api/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.d.ts')).length).toBeLessThan(20);
    expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('installs the man pages where man finds them (package.json "man")', () => {
    const man1 = path.join(prefix, 'share/man/man1');
    for (const page of pkg.man) {
      const name = path.basename(page);
      expect(fs.readFileSync(path.join(man1, name), 'utf8')).toBe(
        fs.readFileSync(path.join(ROOT, page), 'utf8'),
      );
    }
    expect(fs.existsSync(path.join(man1, 'lbrl-deposit-create.1'))).toBe(true);
  });

  it('holds the program as ASCII, which bin/lbrl.js reads as latin1', () => {
    const dir = path.join(ROOT, 'dist/program');
    for (const chunk of fs.readdirSync(dir))
      expect([chunk, fs.readFileSync(path.join(dir, chunk)).findIndex((byte) => byte > 0x7f)]).toEqual([
        chunk,
        -1,
      ]);
  });

  it('has no install script', () => {
    const scripts = Object.keys(pkg.scripts ?? {});
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'])
      expect(scripts).not.toContain(hook);
  });

  it('needs at run time exactly the dependencies it declares: the bundle leaves only those outside', () => {
    // A package the bundle cannot hold (a WebAssembly file read from disk, a native addon) stays in
    // `dependencies` and is marked external in the build; everything bundled is a devDependency.
    const outside = new Set<string>();
    for (const out of metas.flatMap((meta) => Object.values(meta.outputs)))
      for (const i of out.imports ?? [])
        if (i.external && !i.path.startsWith('node:') && !isBuiltin(i.path))
          outside.add(
            i.path
              .split('/')
              .slice(0, i.path.startsWith('@') ? 2 : 1)
              .join('/'),
          );
    expect([...outside].sort()).toEqual(Object.keys(pkg.dependencies ?? {}).sort());
  });

  it('installs into an empty prefix with no dev dependency', () => {
    const top = fs.readdirSync(path.join(prefix, 'lib/node_modules'));
    expect(top).toEqual(['lbrl']);
    const installed = path.join(prefix, 'lib/node_modules/lbrl/node_modules');
    const names = fs.existsSync(installed) ? listPackages(installed) : [];
    for (const dev of Object.keys(pkg.devDependencies ?? {})) expect(names).not.toContain(dev);
    if (Object.keys(pkg.dependencies ?? {}).length === 0) expect(names).toEqual([]);
  });

  it('runs from there: --version, a create against the embedded sandbox, completion bash', async () => {
    expect(await lbrl(['--version'])).toBe(`${pkg.version}\n`);
    const created = JSON.parse(
      await lbrl(['deposit', 'create', '--amount', '15.00', '--to', LQ, '--yes', '--no-input', '--json'], {
        LBRL_CONFIG_DIR: tempDir(),
      }),
    ) as { amountInCents: number; status: string };
    expect(created.amountInCents).toBe(1500);
    expect(created.status).toBe('WAITING_PAYMENT');
    expect(await lbrl(['completion', 'bash'])).toContain('complete -F _lbrl lbrl');
  });
});

describe('the library a Node program imports from the installed package', () => {
  it("import { ... } from 'lbrl' works in a program of its own: create, get, a typed refusal", async () => {
    const sandbox = await forTest(startTestSandbox());
    const app = tempDir('lbrl-app-');
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    fs.mkdirSync(path.join(app, 'node_modules'));
    // the package as npm installed it (with its one dependency), linked where the program looks
    fs.symlinkSync(path.join(prefix, 'lib/node_modules/lbrl'), path.join(app, 'node_modules/lbrl'), 'dir');
    fs.writeFileSync(
      path.join(app, 'main.mjs'),
      `import { createClient, isLbrlError, parseAmount } from 'lbrl';
const lbrl = createClient({ baseUrl: process.env.BASE_URL, token: process.env.TOKEN });
const charge = await lbrl.create({ amount: '15.00', to: process.env.TO });
const got = await lbrl.get(charge.id);
let refused;
try {
  await lbrl.create({ amount: '1.500,00', to: process.env.TO });
} catch (error) {
  refused = isLbrlError(error) ? [error.type, error.exitCode, error.message] : String(error);
}
await lbrl.close();
console.log(JSON.stringify({ cents: charge.amountInCents, id: got.id === charge.id, status: got.status, refused, parsed: parseAmount('15,50') }));
`,
    );
    const r = await promisify(execFile)(process.execPath, ['main.mjs'], {
      cwd: app,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: tempDir(),
        BASE_URL: sandbox.baseUrl,
        TOKEN: SANDBOX_TOKEN,
        TO: LQ,
      },
      timeout: 45_000,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      cents: 1500,
      id: true,
      status: 'WAITING_PAYMENT',
      refused: [
        'usage',
        2,
        expect.stringMatching(/^invalid amount "1\.500,00": expected an amount in reais/),
      ],
      parsed: 1550,
    });
  });
});

describe('the type declarations a TypeScript program gets from the installed package', () => {
  it.each(['node16', 'bundler'])(
    'tsc --noEmit resolves them with moduleResolution %s',
    (resolution) => {
      const app = tempDir('lbrl-ts-');
      fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      fs.mkdirSync(path.join(app, 'node_modules'));
      fs.symlinkSync(path.join(prefix, 'lib/node_modules/lbrl'), path.join(app, 'node_modules/lbrl'), 'dir');
      fs.writeFileSync(
        path.join(app, 'main.ts'),
        `import { createClient, type Deposit, EXIT_CODES, isLbrlError, type LbrlClient, parseAmount } from 'lbrl';
const lbrl: LbrlClient = createClient({ baseUrl: 'https://pay.example.com', token: 'a'.repeat(20) });
const cents: number = parseAmount('15,50');
const code: number = EXIT_CODES.mismatch;
export async function status(id: string): Promise<Deposit['status'] | undefined> {
  try {
    return (await lbrl.get(id)).status;
  } catch (error) {
    if (isLbrlError(error)) console.log(error.type, error.exitCode, cents, code);
  }
}
// @ts-expect-error reais are a string: a number of reais would be a float
lbrl.create({ amount: 15.5, to: 'lq1...' });
`,
      );
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      const module = resolution === 'bundler' ? 'esnext' : resolution;
      const r = (() => {
        try {
          return execFileSync(
            process.execPath,
            [
              tsc,
              '--noEmit',
              '--strict',
              '--target',
              'es2022',
              '--module',
              module,
              '--moduleResolution',
              resolution,
              '--types',
              'node',
              '--typeRoots',
              path.join(ROOT, 'node_modules/@types'),
              'main.ts',
            ],
            { cwd: app, encoding: 'utf8', timeout: 60_000 },
          );
        } catch (error) {
          return String((error as { stdout?: string }).stdout ?? error);
        }
      })();
      expect(r).toBe('');
    },
    90_000,
  );
});

function listPackages(dir: string): string[] {
  const names: string[] = [];
  for (const entry of fs.readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@'))
      for (const sub of fs.readdirSync(path.join(dir, entry))) names.push(`${entry}/${sub}`);
    else names.push(entry);
  }
  return names.sort();
}
