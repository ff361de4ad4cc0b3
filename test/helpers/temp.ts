import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// apart from the in-process CLI (./cli.ts): test/setup.ts runs before every test file, and a file
// that only needs a directory should not load the whole program for it

const made: string[] = [];

export function tempDir(prefix = 'lbrl-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Remove every directory tempDir made in this test file (test/setup.ts calls it). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A file of this name and text in a directory of its own (removed with the others). */
export function tempFile(name: string, text: string): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, text);
  return file;
}
