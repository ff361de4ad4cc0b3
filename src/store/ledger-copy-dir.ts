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
