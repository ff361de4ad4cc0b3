/**
 * The spool: where a command keeps what a database ledger could not take (the server down, the
 * connection dropped after the service created a charge), so that nothing created is lost. It
 * is a file history of its own in the config directory (ledger-spool/history.ndjson); the next
 * command that reaches the ledger moves it in, in one transaction, and removes it.
 *
 * Moving in is safe to repeat: the spool is first renamed aside (one process takes it), and a
 * record the ledger already holds changes nothing. A run killed while moving leaves its part
 * aside under its pid; a later run moves it in. A deposit the ledger holds with another creation
 * (a service that reused an id meanwhile) is refused: that part is set aside as refused, and said.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LbrlError } from '../errors.js';
import { History } from './history.js';
import type { StoredRecord } from './history-records.js';
import type { Ledger } from './ledger-port.js';

export function spoolDir(configDir: string): string {
  return path.join(configDir, 'ledger-spool');
}

/** Keeps `records` in the spool; where it is, and whether it could. */
export function spoolRecords(
  configDir: string,
  records: StoredRecord[],
  warn: (line: string) => void,
): { ok: true; file: string } | { ok: false; file: string; error: string } {
  const spool = new History(spoolDir(configDir), warn);
  try {
    spool.append(records);
    return { ok: true, file: spool.file };
  } catch (error) {
    return { ok: false, file: spool.file, error: (error as Error).message };
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The parts to move in: the spool (renamed aside for this run), and what killed runs left aside. */
function takeSpool(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const parts = names
    .map((name) => /^moving-(\d+)-\d+$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && !alive(Number(m[1])))
    .map((m) => path.join(dir, m[0]));
  if (names.includes('history.ndjson')) {
    const aside = path.join(dir, `moving-${process.pid}-${Date.now()}`);
    fs.mkdirSync(aside, { mode: 0o700 });
    try {
      fs.renameSync(path.join(dir, 'history.ndjson'), path.join(aside, 'history.ndjson'));
      parts.push(aside);
    } catch {
      fs.rmSync(aside, { recursive: true, force: true }); // another run took it first
    }
  }
  return parts;
}

/**
 * Moves what the spool holds into the ledger; how many records. A fault of the ledger puts the
 * spool back as it was and is thrown (the command cannot use the ledger either).
 */
export async function moveSpoolIn(
  configDir: string,
  ledger: Ledger,
  warn: (line: string) => void,
  alarm: (line: string) => void,
): Promise<number> {
  const dir = spoolDir(configDir);
  let moved = 0;
  for (const part of takeSpool(dir)) {
    const records = [...new History(part, warn).stored()];
    try {
      await ledger.append(records);
      moved += records.length;
    } catch (error) {
      if (!(error instanceof LbrlError && error.type === 'mismatch')) {
        new History(dir, warn).append(records);
        fs.rmSync(part, { recursive: true, force: true });
        throw error;
      }
      const refused = path.join(dir, `refused-${Date.now()}.ndjson`);
      fs.renameSync(path.join(part, 'history.ndjson'), refused);
      alarm(
        `warning: the ledger refused what was kept in the spool (${error.message}); it is set aside in ${refused}`,
      );
    }
    fs.rmSync(part, { recursive: true, force: true });
  }
  return moved;
}
