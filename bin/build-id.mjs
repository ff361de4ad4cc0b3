// The build's id, dist/build-id: a SHA-256 of each chunk of the program (dist/program/*.cjs), one
// line each (`<sha256> <file>`), under a first line that is the SHA-256 of those lines: the id of
// the whole build. bin/lbrl.js keys the V8 code cache of each chunk by that chunk's hash, so a
// program with other content (a rebuild that kept the size and the time, as `cp -p`, `rsync -a`
// and reproducible builds do) never runs an older build's cached code, and no run has to read and
// hash the program to know it.
// Usage: node bin/build-id.mjs [the package's directory]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

export function writeBuildId(root) {
  const dir = path.join(root, 'dist/program');
  const lines = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.cjs'))
    .sort()
    .map((file) => `${sha256(fs.readFileSync(path.join(dir, file)))} ${file}\n`)
    .join('');
  fs.writeFileSync(path.join(root, 'dist/build-id'), `${sha256(lines)}\n${lines}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeBuildId(
    path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..')),
  );
}
