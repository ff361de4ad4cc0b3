// One bundle of the CLI (dist/lbrl.js) with a chunk per lazily imported command.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const result = await build({
  entryPoints: { lbrl: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  define: { LBRL_VERSION: JSON.stringify(pkg.version) },
  // CommonJS packages inlined in an ESM bundle need a require of their own
  banner: {
    js: "import { createRequire as __lbrlCreateRequire } from 'node:module'; const require = __lbrlCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  metafile: true,
});
// which sources and packages each output file holds: the module-load test reads it
writeFileSync(new URL('../dist/meta.json', import.meta.url), JSON.stringify(result.metafile));
