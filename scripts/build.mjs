// One bundle of the CLI (dist/lbrl.js) with a chunk per lazily imported command.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
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
  logLevel: 'warning',
  metafile: false,
});
