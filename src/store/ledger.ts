/**
 * The ledger as a port: what lbrl keeps of the deposits it created, with one contract whatever
 * holds it (test/helpers/ledger-contract.ts checks it on every store):
 * - one record per deposit per service: a deposit recorded twice is one entry;
 * - facts kept once seen: what the final answer said (the settlement's txid) is never replaced;
 * - idempotent batch rows: a row's outcome and its Idempotency-Key are found again by its key;
 * - appends are atomic: a batch of records is all there or none of it.
 *
 * Two stores: the file history (store/history.ts, through store/ledger-file.ts) and PostgreSQL
 * (store/ledger-postgres.ts, where a unique constraint, a trigger and transactions do the work).
 * The PostgreSQL client is loaded only when the ledger is a database.
 */
import type { LedgerSetting } from '../domain/ledger-url.js';
import type { Ledger, LedgerOptions } from './ledger-port.js';

/** The configured store, opened: the database's schema is created or brought forward first. */
export async function openLedger(setting: LedgerSetting, options: LedgerOptions): Promise<Ledger> {
  if (setting.kind === 'file') {
    const { FileLedger } = await import('./ledger-file.js');
    return new FileLedger(options.dir, options.warn);
  }
  const { openPostgresLedger } = await import('./ledger-postgres.js');
  return openPostgresLedger(setting.url, setting.shown, options);
}
