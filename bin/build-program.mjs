// The program's build (npm run build): src/main.ts split into CommonJS chunks in dist/program/, so
// that a command reads and runs only the code it uses. esbuild splits ES modules only: it bundles
// as ES modules with code splitting, where every import() is a split point (the command manifest,
// src/commands/manifest.ts, has one per command, so each command, and each library a command
// imports lazily, gets chunks of its own, and a module two of them share goes to a chunk they both
// import). Each chunk is then turned into CommonJS (its imports become require() calls, import()
// a require() in a promise), which bin/lbrl.js compiles with a V8 code cache of its own.
// Writes dist/program/*.cjs, dist/meta.json (which modules each chunk holds) and dist/build-id.
// Usage: node bin/build-program.mjs
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { writeBuildId } from './build-id.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/program');
/** pg's own code, by its real path (where esbuild finds it, node_modules a link or not). */
const PG_LIB = path.dirname(fs.realpathSync(createRequire(path.join(root, 'package.json')).resolve('pg')));
fs.rmSync(out, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist/program',
  // chunks are named for the module that starts them (deposit-get-<hash>.cjs; chunk-<hash>.cjs for
  // code several of them share): what the start-up test reads
  chunkNames: '[name]-[hash]',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // undici's HTTP/2 client requires node:http2 at load time, and lbrl never speaks h2
  alias: {
    'node:http2': './src/api/no-http2.ts',
    // pg's optional native and Cloudflare bindings: never used, never bundled
    'pg-native': './src/store/pg-absent.ts',
    'pg-cloudflare': './src/store/pg-absent.ts',
  },
  // reads its WebAssembly file from beside its own code: installed as a dependency
  external: ['@vulpemventures/secp256k1-zkp'],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  write: false,
  plugins: [
    {
      // chalk's colour detection (for its default instance, which lbrl does not use: it sets the
      // level itself) imports node:os and node:tty, and an ES import of a built-in is hoisted to
      // the top of the chunk, so every run loaded them; chalk itself is evaluated only on the
      // first colour (ui/output.ts requires it then), and with these requires so are they
      name: 'chalk-detection-on-first-colour',
      setup(plugins) {
        plugins.onLoad(
          { filter: /[\\/]chalk[\\/]source[\\/]vendor[\\/]supports-color[\\/]index\.js$/ },
          ({ path: file }) => {
            const source = fs.readFileSync(file, 'utf8');
            const imports = /^import (\w+) from '(node:(?:process|os|tty))';$/gm;
            if ((source.match(imports) ?? []).length !== 3) throw new Error(`${file}: its imports changed`);
            return { contents: source.replace(imports, "const $1 = require('$2');"), loader: 'js' };
          },
        );
      },
    },
    {
      // pg's SCRAM and MD5 steps computed by node:crypto's synchronous calls, not Web Crypto's
      // thread pool (src/store/pg-crypto.ts says why); the exchange itself stays pg's. And
      // node:dns, which pg requires as it loads and lbrl's use of it never calls, loaded on first use.
      // Paths compared as real paths: esbuild names a module by its real path, and node_modules
      // may be a link, or pg a link into a store (pnpm); each swap must apply, or the build fails
      name: 'pg-lighter-load',
      setup(plugins) {
        const swapped = { dns: false, crypto: false };
        const inPg = (importer) =>
          `${fs.realpathSync(path.dirname(importer))}${path.sep}`.startsWith(PG_LIB + path.sep);
        plugins.onResolve({ filter: /^(node:)?dns$/ }, ({ importer }) => {
          if (!inPg(importer)) return undefined;
          swapped.dns = true;
          return { path: path.join(root, 'bin/shims/pg-dns.cjs') };
        });
        plugins.onResolve({ filter: /^\.\.?\/(crypto\/)?utils$/ }, ({ path: request, importer }) => {
          if (!inPg(importer)) return undefined;
          const dir = fs.realpathSync(path.dirname(importer));
          if (path.resolve(dir, request) !== path.join(PG_LIB, 'crypto/utils')) return undefined;
          swapped.crypto = true;
          return { path: path.join(root, 'src/store/pg-crypto.ts') };
        });
        plugins.onEnd(({ errors }) => {
          const missed = Object.keys(swapped).filter((what) => !swapped[what]);
          if (errors.length === 0 && missed.length > 0)
            throw new Error(
              `pg's ${missed.join(' and ')} not swapped: pg (${PG_LIB}) changed how it loads them`,
            );
        });
      },
    },
    {
      name: 'commander-without-child-process',
      setup(plugins) {
        plugins.onResolve({ filter: /^(node:)?child_process$/ }, ({ importer }) =>
          importer.includes(`${path.sep}node_modules${path.sep}commander${path.sep}`)
            ? { path: path.join(root, 'bin/shims/child-process.cjs') }
            : undefined,
        );
      },
    },
  ],
});

fs.mkdirSync(out, { recursive: true });
for (const file of result.outputFiles) {
  const cjs = await transform(file.text, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // import() of a chunk becomes Promise.resolve().then(() => require(...)): bin/lbrl.js loads it
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.writeFileSync(file.path, withoutCopies(cjs.code));
}
fs.writeFileSync(path.join(root, 'dist/meta.json'), JSON.stringify(result.metafile));
writePacks(result.metafile);

/**
 * esbuild's CommonJS interop (__toESM) makes, at each import of a module, a new object with a
 * getter for each of the module's properties: node:fs's hundred and more in each chunk that
 * imports it, and every export of a chunk at each import() of it. A chunk's exports already are
 * an ES module's (getters, __esModule), so it is used as is; a Node built-in is read through an
 * object whose prototype it is, with itself as the default export: the same reads, no copies.
 */
function withoutCopies(code) {
  let builtins = false;
  const lean = code.replace(/__toESM\((require\("(node:[\w/]+|\.\/[\w.-]+\.cjs)"\))\)/g, (_, call, id) => {
    if (!id.startsWith('node:')) return call;
    builtins = true;
    return `__builtin(${call})`;
  });
  return builtins ? `var __builtin=m=>({__proto__:m,default:m});${lean}` : lean;
}

/**
 * Packs: each chunk that is read on its own (main.cjs, and each chunk an import() names) written
 * again with the small chunks it imports statically, which are read with it whenever it is read,
 * as one script (`<chunk>.pack.cjs`: an object of each chunk's CommonJS function, by name). A
 * `deposit get` read 44 chunks, each a file read and a code cache deserialised (about 0.3M
 * instructions each before any of its code ran); bin/lbrl.js reads a pack where there is one, a
 * chunk's own file otherwise. Left out of a pack: the chunks main.cjs reads (read already by
 * then) and chunks over PACKED_MAX bytes (undici's, zod's: theirs is the cost of their size).
 * dist/packs.json lists each pack's chunks (the start-up test reads it).
 */
function writePacks(metafile) {
  const PACKED_MAX = 32 * 1024;
  const name = (file) => path.basename(file);
  const imports = new Map();
  const targets = new Set(['main.cjs']);
  for (const [file, output] of Object.entries(metafile.outputs)) {
    const statics = [];
    for (const { path: to, kind } of output.imports) {
      if (!to.startsWith('dist/program/')) continue;
      if (kind === 'dynamic-import') targets.add(name(to));
      else statics.push(name(to));
    }
    imports.set(name(file), statics);
  }
  const closure = (chunk, seen = new Set()) => {
    if (seen.has(chunk)) return seen;
    seen.add(chunk);
    for (const next of imports.get(chunk) ?? []) closure(next, seen);
    return seen;
  };
  const atStart = closure('main.cjs');
  const source = new Map();
  const read = (chunk) => {
    if (!source.has(chunk)) source.set(chunk, fs.readFileSync(path.join(out, chunk), 'latin1'));
    return source.get(chunk);
  };
  const packs = {};
  for (const target of [...targets].sort()) {
    const members = [...closure(target)].filter(
      (chunk) =>
        chunk === target ||
        ((target === 'main.cjs' || !atStart.has(chunk)) && read(chunk).length <= PACKED_MAX),
    );
    if (members.length < 2) continue;
    const pack = target.replace(/\.cjs$/, '.pack.cjs');
    const parts = members.map(
      (chunk) =>
        `${JSON.stringify(chunk)}:function (exports, require, module, __filename, __dirname) { ${read(chunk)}\n}`,
    );
    fs.writeFileSync(path.join(out, pack), `({${parts.join(',\n')}})`, 'latin1');
    packs[pack] = members;
  }
  fs.writeFileSync(path.join(root, 'dist/packs.json'), JSON.stringify(packs));
}
writeBuildId(root);
