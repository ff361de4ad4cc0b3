// The manual (docs/commands/*.md, docs/man/*.1) and the generated blocks of docs/using.md and
// docs/scripting.md, written from the command definitions (src/commands/manifest.ts) and the help
// topics by src/commands/shared/manual.ts; package.json's `man` lists the man pages, so that
// `npm install -g` installs them. test/unit/manual.test.ts regenerates all of it in memory and
// fails when what is committed differs. Run by npm run build, after commands-manifest.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-manual-'));
try {
  const out = path.join(temp, 'manual.mjs');
  await esbuild.build({
    stdin: {
      contents: [
        "export { manualFiles, generatedBlocks, spliced, MAN_DIR } from './src/commands/shared/manual.ts';",
        "export { MANIFEST } from './src/commands/manifest.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: out,
    logLevel: 'warning',
  });
  const { manualFiles, generatedBlocks, spliced, MAN_DIR, MANIFEST } = await import(pathToFileURL(out).href);
  const pkgFile = path.join(root, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
  const files = manualFiles(MANIFEST, pkg.version);
  const write = (file, text) => {
    const full = path.join(root, file);
    if (!fs.existsSync(full) || fs.readFileSync(full, 'utf8') !== text) {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, text);
    }
  };
  for (const file of files) write(file.path, file.text);
  // a page of a command that is gone goes with it
  const wanted = new Set(files.map((file) => file.path));
  for (const dir of ['docs/commands', MAN_DIR])
    for (const name of fs.readdirSync(path.join(root, dir)))
      if (!wanted.has(`${dir}/${name}`)) fs.rmSync(path.join(root, dir, name));
  for (const block of generatedBlocks())
    write(block.page, spliced(fs.readFileSync(path.join(root, block.page), 'utf8'), block.name, block.text));
  const man = files.filter((file) => file.path.startsWith(`${MAN_DIR}/`)).map((file) => `./${file.path}`);
  if (JSON.stringify(pkg.man) !== JSON.stringify(man)) {
    pkg.man = man;
    fs.writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  }
} finally {
  fs.rmSync(temp, { recursive: true, force: true });
}
