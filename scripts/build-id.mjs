// The build's id: a SHA-256 of the program (dist/lbrl.cjs), written to dist/build-id. bin/lbrl.js
// keys the V8 code cache by it, so a program with other content (a rebuild that kept the size
// and the time, as `cp -p`, `rsync -a` and reproducible builds do) never runs an older build's
// cached code, and no run has to read and hash the whole program to know it.
// Usage: node scripts/build-id.mjs [the package's directory]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const program = fs.readFileSync(path.join(root, 'dist/lbrl.cjs'));
const id = createHash('sha256').update(program).digest('hex');
fs.writeFileSync(path.join(root, 'dist/build-id'), `${id}\n`);
