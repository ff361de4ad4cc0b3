/**
 * The history is UTF-8 text, one record a line, and lbrl appends UTF-8 lines to it. A history
 * saved in UTF-16 (Windows PowerShell's `>` and `Out-File` write it so, with the byte order mark
 * FF FE) would read as nothing but damaged lines, and a line appended to it would be UTF-8 in the
 * middle of UTF-16: so such a file is neither read nor written; every command that would is
 * refused with one line naming the file and how to convert it (a UTF-8 byte order mark, which
 * PowerShell 5's `Set-Content -Encoding utf8` writes, is read as any UTF-8).
 */
import fs from 'node:fs';
import { LbrlError } from '../errors.js';
import { lstatOwnFile, type OpenedFile, openOwnFile } from './files.js';

/** The history opened (openOwnFile), once its first bytes show it is not UTF-16. */
export function openHistory(
  file: string,
  how: 'read' | 'append',
  warn: (line: string) => void,
): OpenedFile | undefined {
  const opened = openOwnFile(file, how, 'history', warn);
  if (!opened) return undefined;
  try {
    refuseUtf16(opened.fd, file);
  } catch (error) {
    fs.closeSync(opened.fd);
    throw error;
  }
  return opened;
}

/**
 * Throws, before anything is sent, when lbrl could not append to the history at `file`: a link,
 * a hard link, not a regular file (a directory, a FIFO), another user's, not writable, or UTF-16
 * text. What openOwnFile refuses (a link is never followed) is refused here, up front, with the
 * same line; a history not there yet is made by the first append.
 */
export function checkHistoryToAppend(file: string, warn: (line: string) => void): void {
  if (!lstatOwnFile(file, 'history')) return;
  try {
    fs.accessSync(file, fs.constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const fix =
      code === 'EROFS'
        ? 'set LBRL_CONFIG_DIR to a directory on a writable file system'
        : `make it writable (chmod u+w ${JSON.stringify(file)}), or set LBRL_CONFIG_DIR to a directory of your own`;
    throw new LbrlError(
      `refusing ${file}: lbrl cannot write it (${code}), so what this command makes or learns could not be recorded; nothing was sent. To go on, ${fix}`,
      'config',
    );
  }
  // the append's own open: a link swapped in since is still never followed (O_NOFOLLOW, fstat)
  const opened = openOwnFile(file, 'append', 'history', warn)!;
  try {
    refuseUtf16(opened.fd, file);
  } finally {
    fs.closeSync(opened.fd);
  }
}

function refuseUtf16(fd: number, file: string): void {
  const head = Buffer.alloc(4);
  const length = fs.readSync(fd, head, 0, 4, 0);
  const form = utf16Form(head.subarray(0, length));
  if (form === undefined) return;
  throw new LbrlError(
    `the history ${file} is UTF-16 text (${form.said}), not the UTF-8 lbrl reads and writes: nothing was read from it or written to it. Convert it to UTF-8, e.g. iconv -f ${form.iconv} -t UTF-8 ${file} > history.utf8 && mv history.utf8 ${file} (PowerShell: (Get-Content ${file}) | Set-Content -Encoding utf8 ${file})`,
    'config',
  );
}

/** How the first bytes of a file say it is UTF-16: a byte order mark, or a record's `{"` spelt in it. */
function utf16Form(head: Buffer): { said: string; iconv: string } | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, at) => head[at] === byte);
  if (starts(0xff, 0xfe)) return { said: 'it begins with the byte order mark FF FE', iconv: 'UTF-16' };
  if (starts(0xfe, 0xff)) return { said: 'it begins with the byte order mark FE FF', iconv: 'UTF-16' };
  // `{"` as UTF-16 spells it, one way round or the other
  if (starts(0x7b, 0, 0x22, 0)) return { said: 'little-endian, with no byte order mark', iconv: 'UTF-16LE' };
  if (starts(0, 0x7b, 0, 0x22)) return { said: 'big-endian, with no byte order mark', iconv: 'UTF-16BE' };
  return undefined;
}
