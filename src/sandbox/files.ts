import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LbrlError } from '../errors.js';

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

/**
 * Made 0700 when missing. One that exists must be the user's (or root's) and writable by no one
 * else unless sticky, as the config directory (store/files.ts): whoever owns or can write it could
 * replace the standing server's token and deposits.
 */
export function ensureDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = typeof process.geteuid === 'function' ? process.geteuid() : undefined;
  if (uid === undefined) return;
  const fix = 'set LBRL_CONFIG_DIR to a directory of your own';
  // never through a link another user planted (a shared sticky directory): its target would pass
  // the checks below as the victim's own
  const link = fs.lstatSync(dir);
  if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0)
    throw new LbrlError(
      `refusing ${dir}: it is a symbolic link made by another user (uid ${link.uid}, you are ${uid}), and lbrl never writes through a link it did not make; remove it, or ${fix}`,
      'config',
    );
  const stats = fs.statSync(dir);
  if (stats.uid !== uid && stats.uid !== 0)
    throw new LbrlError(
      `refusing ${dir}: the directory belongs to another user (uid ${stats.uid}, you are ${uid}), who could replace the files lbrl keeps there; ${fix}`,
      'config',
    );
  if (stats.mode & 0o022 && !(stats.mode & 0o1000))
    throw new LbrlError(
      `refusing ${dir}: others can write the directory (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}) and could replace the files lbrl keeps there; ${fix}`,
      'config',
    );
}
