/**
 * The rules every store of the ledger applies alike (store/ledger-file.ts, store/ledger-postgres.ts).
 */
import { LbrlError } from '../errors.js';
import type { CreatedRecord } from './history-records.js';

/**
 * Whether a created record is the creation the ledger holds, given again (a replay: the spool
 * moved in twice, a batch row's answer recorded by two hosts): the same profile and amount, and
 * the same batch row or, outside a batch, the same moment. Anything else naming the same
 * deposit is another charge reusing its id.
 */
export function sameCreation(held: CreatedRecord, given: CreatedRecord): boolean {
  if (held.profile !== given.profile || held.amountInCents !== given.amountInCents) return false;
  // a batch row's deposit is the row's, whenever its answer was recorded (its Idempotency-Key is the row's)
  if (held.batchKey !== undefined || given.batchKey !== undefined) return held.batchKey === given.batchKey;
  return held.at === given.at;
}

/** A create answered with the id of a deposit the ledger holds: refused, nothing recorded (exit 1). */
export function reusedIdRefusal(held: CreatedRecord & { status: string }): LbrlError {
  return new LbrlError(
    `the service answered this create with the id of deposit ${held.id}, already in the ledger (created ${held.at}, ${held.amountInCents} cents, ${held.status}): a new charge never reuses an id. Nothing was recorded. Do not pay this charge`,
    'mismatch',
  );
}

/** The service key of the embedded sandbox (Session.targetKey): one machine's own service. */
export const EMBEDDED_SANDBOX_KEY = 'sandbox';

/**
 * The embedded sandbox is one machine's own (its data and its address are this machine's): a
 * ledger in a database, shared by hosts, never takes its charges, or two machines' sandboxes
 * would meet under one service key. Refused before any request (exit 2).
 */
export function embeddedSandboxRefusal(where: string): LbrlError {
  return new LbrlError(
    `the embedded sandbox is this machine's own: the ledger at ${where} is shared, and takes none of its charges. Point every host at one standing sandbox (lbrl sandbox serve, then LBRL_BASE_URL and LBRL_TOKEN), or use a profile whose ledger is file`,
    'usage',
  );
}
