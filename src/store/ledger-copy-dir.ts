/**
 * Where a host keeps its copy of a database ledger (store/ledger-mirror.ts): a directory of the
 * config directory named after the ledger as output shows it (its password redacted), readable in
 * a listing. Two ledgers whose names meet here never mix: the copy is started anew for a database
 * of another identity. Kept apart from the copy's machinery so that a command on the file ledger
 * loads none of it.
 */
import path from 'node:path';

export function ledgerCopyDir(configDir: string, where: string): string {
  return path.join(configDir, 'ledger-copy', where.replace(/[^A-Za-z0-9.-]+/g, '_').slice(0, 80));
}

/**
 * The warnings of a reader of the copy (a damaged line, a text cut), naming what the lines are:
 * the ledger's records in the database, where they must be mended, not this host's copy of them
 * (mended there, a line would only come back from the database at the next catch-up).
 */
export function namingTheLedger(
  warn: (line: string) => void,
  copyDir: string,
  where: string,
): (line: string) => void {
  const copy = path.join(copyDir, 'history.ndjson');
  const ledger = `the records (lbrl_records) of the ledger at ${where}`;
  return (line) => warn(line.split(copy).join(ledger));
}
