/**
 * The one place lbrl opens its own files (the config, the history, claims): never through a
 * symbolic link, never a file of another user, and modes set only on what lbrl made or owns.
 *
 * As ssh does with its keys, a file that fails these checks is refused with a message saying
 * what to do, rather than followed, chmod'ed or written through.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LbrlError } from '../errors.js';

const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** The effective user, or undefined where the platform has none (Windows). */
export function currentUid(): number | undefined {
  return typeof process.geteuid === 'function' ? process.geteuid() : undefined;
}

function refuse(file: string, why: string, fix: string): LbrlError {
  return new LbrlError(`refusing ${file}: ${why}; ${fix}`, 'config');
}

const ELSEWHERE = 'or set LBRL_CONFIG_DIR to a directory of your own';

export function symlinkRefused(file: string, what: string): LbrlError {
  return refuse(
    file,
    `it is a symbolic link, and lbrl never follows a link for its ${what}`,
    `replace the link with the file itself (mv the file it points to into its place), ${ELSEWHERE}`,
  );
}

/**
 * Refuses what is not a regular file of the current user, or (unless `linked`: files lbrl
 * itself publishes with link(2), as claims are) one with other names; returns the file's stat.
 */
export function checkOwnFile(stats: fs.Stats, file: string, what: string, linked = false): fs.Stats {
  if (stats.isSymbolicLink()) throw symlinkRefused(file, what);
  if (!stats.isFile()) throw refuse(file, `it is not a regular file`, `remove it, ${ELSEWHERE}`);
  const uid = currentUid();
  if (uid !== undefined && stats.uid !== uid) {
    throw refuse(
      file,
      `it belongs to another user (uid ${stats.uid}, you are ${uid}), and lbrl uses only a ${what} you own`,
      `if it is yours, run chown ${uid} ${JSON.stringify(file)}; if not, remove it, ${ELSEWHERE}`,
    );
  }
  if (stats.nlink > 1 && !linked) {
    throw refuse(
      file,
      `it has ${stats.nlink} names (hard links), so writing or chmod-ing it would change another file too`,
      `copy it (cp ${JSON.stringify(file)} x && mv x ${JSON.stringify(file)}), ${ELSEWHERE}`,
    );
  }
  return stats;
}

/**
 * Checks a path without following it: undefined when nothing is there, else the stat of an own
 * regular file (anything else is refused).
 */
export function lstatOwnFile(file: string, what: string): fs.Stats | undefined {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return checkOwnFile(stats, file, what);
}

export interface OpenedFile {
  fd: number;
  stat: fs.Stats;
}

/**
 * Opens an own file for reading (undefined when it does not exist) or appending (created 0600),
 * with O_NOFOLLOW so a link is never followed, and checks what was opened with fstat, so no swap
 * between a check and the open can slip through. An own file readable by others is set to 0600
 * through the open descriptor, with a warning.
 */
export function openOwnFile(
  file: string,
  how: 'read' | 'append',
  what: string,
  warn: (line: string) => void,
  linked = false,
): OpenedFile | undefined {
  // O_NONBLOCK: opening a FIFO planted in the file's place must not hang; on files it does nothing
  const flags =
    how === 'read'
      ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK
      : O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK;
  let fd: number;
  try {
    fd = fs.openSync(file, flags, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && how === 'read') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw symlinkRefused(file, what);
    throw new LbrlError(
      `cannot ${how === 'read' ? 'read' : 'write'} ${file}: ${(error as Error).message}`,
      'config',
    );
  }
  try {
    const stat = checkOwnFile(fs.fstatSync(fd), file, what, linked);
    if (stat.mode & 0o077) {
      fs.fchmodSync(fd, 0o600);
      warn(`warning: ${file} was readable by others; its permissions are now 0600`);
    }
    return { fd, stat };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * Makes the directory when it is missing, 0700 (and the parents it has to make). A directory
 * that already exists is lbrl's to use, not to change: its mode is left as it is.
 */
export function ensurePrivateDir(dir: string): void {
  let own: fs.Stats | undefined;
  try {
    own = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (own) {
    checkDirLink(own, dir);
    checkDirToWrite(dir);
    return;
  }
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  // what this call made, from the first new directory down, is 0700 whatever the umask
  let current = dir;
  for (;;) {
    fs.chmodSync(current, 0o700);
    if (current === first || current.length <= first.length) break;
    current = path.dirname(current);
  }
}

/**
 * A directory lbrl writes in is never reached through a link another user made: in a shared
 * directory (sticky, as /tmp) anyone may plant `webhooks` or `display` as a link to a directory
 * of the victim's, which the checks of what it points to would take as the victim's own. A link
 * the user made (one they own, or root's) is theirs to make; and what is there must be a directory.
 */
function checkDirLink(stats: fs.Stats, dir: string): void {
  const uid = currentUid();
  if (stats.isSymbolicLink()) {
    if (uid !== undefined && stats.uid !== uid && stats.uid !== 0)
      throw refuse(
        dir,
        `it is a symbolic link made by another user (uid ${stats.uid}, you are ${uid}), and lbrl never writes through a link it did not make`,
        `remove it, ${ELSEWHERE}`,
      );
    return;
  }
  if (!stats.isDirectory()) throw refuse(dir, 'it is not a directory of yours', `remove it, ${ELSEWHERE}`);
}

/**
 * A directory lbrl is to write in, as ssh judges its own: whoever owns it or can write it can
 * replace the files lbrl keeps there, so it must be the user's (or root's), and writable by no
 * one else unless its sticky bit (as on /tmp) keeps others from replacing files they do not own.
 */
function checkDirToWrite(dir: string): void {
  const stats = fs.statSync(dir);
  const uid = currentUid();
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) {
    throw refuse(
      dir,
      `the directory belongs to another user (uid ${stats.uid}, you are ${uid}), who could replace the files lbrl keeps there`,
      `set LBRL_CONFIG_DIR to a directory of your own`,
    );
  }
  if (uid !== undefined && stats.mode & 0o022 && !(stats.mode & 0o1000)) {
    throw refuse(
      dir,
      `others can write the directory (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}) and could replace the files lbrl keeps there`,
      `run chmod go-w ${JSON.stringify(dir)}, ${ELSEWHERE}`,
    );
  }
}
