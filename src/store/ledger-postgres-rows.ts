/**
 * A deposit's row in PostgreSQL (store/ledger-schema.ts) as the entry every reader gives: the
 * same entry the file history folds from the same records (history-merge.ts), field for field.
 */
import type { SettlementFacts } from '../domain/settlement-facts.js';
import { NOTE_MAX, REF_MAX } from '../domain/text/reference.js';
import { isTerminal } from '../domain/values.js';
import { settled } from './history-merge.js';
import {
  type CreatedRecord,
  type FinalFields,
  type HistoryEntry,
  LATER_FIELDS,
  type UnverifiedRecord,
  type VerifiedRecord,
} from './history-records.js';
import { heldLocalTexts } from './record-read.js';

export interface DepositRow {
  created: string;
  status: string;
  status_at: string;
  final: FinalFields | null;
  chain: VerifiedRecord | UnverifiedRecord | null;
  expired_at: string | null;
  facts: SettlementFacts | null;
}

export const SELECT_DEPOSIT =
  'select created, status, status_at, final, chain, expired_at, facts from lbrl_deposits';

/** What a reader says of the rows it read whose reference or note broke the input rule (counted, said once). */
export function brokenTextsWarning(count: number, where: string): string {
  return `warning: read ${count} deposit row(s) of the ledger at ${where} with a reference or note that breaks the input rule (over ${REF_MAX} or ${NOTE_MAX} characters: cut, ending in …; control or invisible characters: shown escaped)`;
}

/** A row as the entry; `broken` is told when its reference or note broke the input rule (and was held to it). */
export function entryOfRow(row: DepositRow, broken?: () => void): HistoryEntry {
  const created = JSON.parse(row.created) as CreatedRecord & Partial<HistoryEntry>;
  // what only later records state is believed from them alone, as the file's readers do
  for (const field of LATER_FIELDS) delete created[field];
  // a reference or note another till wrote is held to the rule input keeps, as the file's readers hold it
  if (heldLocalTexts(created)) broken?.();
  const entry: HistoryEntry = { ...created, status: row.status, statusAt: row.status_at };
  if (row.final && isTerminal(row.status)) entry.final = row.final;
  if (row.chain?.type === 'verified') {
    entry.verifiedAt = row.chain.at;
    entry.verifiedTxid = row.chain.txid;
  } else if (row.chain?.type === 'unverified') entry.onChain = row.chain.outcome;
  if (row.expired_at) entry.expiredAt = row.expired_at;
  if (row.facts) entry.facts = row.facts;
  return settled(entry);
}
