// The library build (npm run build runs it after the program's): src/index.ts as one ES module,
// dist/lib/index.js, and its type declarations, dist/lib/**/*.d.ts. Only the declarations that
// index.d.ts reaches are kept, and none of them may import a package: a user installs none of
// the libraries the bundle holds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/lib');
fs.rmSync(out, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/lib/index.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // the CommonJS libraries inlined (undici) call require(): an ES module has none of its own
  banner: {
    js: "import { createRequire as __lbrlCreateRequire } from 'node:module';\nconst require = __lbrlCreateRequire(import.meta.url);",
  },
  alias: { 'node:http2': './src/api/no-http2.ts' },
  external: ['@vulpemventures/secp256k1-zkp'],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
fs.writeFileSync(path.join(root, 'dist/meta-lib.json'), JSON.stringify(result.metafile));

const types = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-types-'));
try {
  execFileSync(process.execPath, [tscPath(), '-p', 'tsconfig.lib.json', '--outDir', types], {
    cwd: root,
    stdio: 'inherit',
  });
  const todo = ['index.d.ts'];
  const kept = new Set();
  while (todo.length > 0) {
    const file = todo.pop();
    if (kept.has(file)) continue;
    kept.add(file);
    // comments may quote code (an example's `from 'lbrl'`): only the declarations count
    const text = fs
      .readFileSync(path.join(types, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const [, spec] of text.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)) {
      if (spec.startsWith('.')) {
        todo.push(path.join(path.dirname(file), spec.replace(/\.js$/, '.d.ts')));
      } else if (!isBuiltin(spec)) {
        throw new Error(`dist/lib/${file} imports ${spec}, which a user does not install`);
      }
    }
  }
  for (const file of kept) {
    fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    fs.copyFileSync(path.join(types, file), path.join(out, file));
  }
} finally {
  fs.rmSync(types, { recursive: true, force: true });
}

function tscPath() {
  return path.join(root, 'node_modules/typescript/bin/tsc');
}
