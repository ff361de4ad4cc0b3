import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../store/files.js';

function tmpName(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

function writeTmp(file: string, data: string, mode: number): string {
  const tmp = tmpName(file);
  const fd = fs.openSync(tmp, 'wx', mode);
  try {
    // no fsync: a sandbox must survive killed processes, which the page cache outlives;
    // surviving a power cut is not worth an fsync on every write here
    fs.writeSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

/**
 * Publish a file whole and only if it does not exist yet: written to a temporary file,
 * then linked into place (link fails when the name is taken). A kill -9 at any point
 * leaves either no file or the whole file. Returns false when the name was taken.
 */
export function publishExclusive(file: string, data: string, mode = 0o600): boolean {
  const tmp = writeTmp(file, data, mode);
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

export function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

/** Made 0700 when missing; one that exists must be the user's and writable by no one else. */
export function ensureDir(dir: string): void {
  ensurePrivateDir(dir);
}
