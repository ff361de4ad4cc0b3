/**
 * Each record the ledger takes, as one SQL statement that applies it when it is news and then
 * logs its line in lbrl_records (what ledger export writes and hosts catch up from): the rules
 * of store/ledger-postgres.ts in the database's own words, so that many records go to the
 * server in one round trip (an append, a chunk of ledger import) instead of one each.
 *
 * Values are written as literals by the client's own escaping (pg's escapeLiteral); the lines
 * are lbrl's JSON. A statement affects its log's row count only when the record was news.
 */
import type {
  AttemptRecord,
  CreatedRecord,
  StatusRecord,
  StoredRecord,
  UnverifiedRecord,
  VerifiedRecord,
} from './history-records.js';

export type Literal = (value: string) => string;

/** The settlement txid a final answer names, when it names one. */
function finalTxid(record: StatusRecord): string | null {
  const settlement = record.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  return typeof settlement?.liquidTxid === 'string' ? settlement.liquidTxid : null;
}

/**
 * Which deposit a record after a creation is about, as the file history reads it (CreatedWhere,
 * history-merge.ts): the one of its service and id; one of an older release, naming no service,
 * is about the deposit of its id when that id is on one service only, else about none (the
 * sandbox and a live service may hand out the same id).
 */
function deposit(record: { id: string; baseUrl?: string | undefined }, literal: Literal): string {
  const id = literal(record.id);
  if (record.baseUrl !== undefined) return `base_url = ${literal(record.baseUrl)} and id = ${id}`;
  return `id = ${id} and (select count(*) from lbrl_deposits same where same.id = ${id}) = 1`;
}

/** `applied`, a data-modifying statement returning a row when it took the record, then its line logged. */
function logged(applied: string, line: string, literal: Literal): string {
  return `with applied as (${applied} returning 1) insert into lbrl_records (line) select ${literal(line)} where exists (select 1 from applied)`;
}

function createdStatement(record: CreatedRecord, line: string, literal: Literal): string {
  return logged(
    `insert into lbrl_deposits (base_url, id, profile, created_at, created, batch_key, status, status_at)
     values (${literal(record.baseUrl)}, ${literal(record.id)}, ${literal(record.profile)}, ${literal(record.at)}, ${literal(line)},
       ${record.batchKey === undefined ? 'null' : literal(record.batchKey)}, ${literal(record.status)}, ${literal(record.at)})
     on conflict (base_url, id) do nothing`,
    line,
    literal,
  );
}

function statusStatement(record: StatusRecord, line: string, literal: Literal): string {
  // news only: a status polled again changes nothing; the final answer and its txid are set
  // once (coalesce), and the trigger refuses any writer that would replace them
  const final = record.final ? `${literal(JSON.stringify(record.final))}::jsonb` : 'null::jsonb';
  const txid = finalTxid(record);
  return logged(
    `update lbrl_deposits set status = ${literal(record.status)}, status_at = ${literal(record.at)}, expired_at = null,
       final = coalesce(final, ${final}), settlement_txid = coalesce(settlement_txid, ${txid === null ? 'null' : literal(txid)})
     where ${deposit(record, literal)} and status is distinct from ${literal(record.status)}`,
    line,
    literal,
  );
}

function attemptStatement(record: AttemptRecord, line: string, literal: Literal): string {
  // the first Idempotency-Key of a row is the one: a second host's attempt keeps it
  return logged(
    `insert into lbrl_attempts (profile, base_url, batch_key, idempotency_key, at)
     values (${literal(record.profile)}, ${literal(record.baseUrl)}, ${literal(record.batchKey)}, ${literal(record.idempotencyKey)}, ${literal(record.at)})
     on conflict do nothing`,
    line,
    literal,
  );
}

/** A chain fact is news by the file history's rule (History.isNewChainFact), said of the row's `chain`. */
function chainStatement(fact: VerifiedRecord | UnverifiedRecord, line: string, literal: Literal): string {
  const news =
    fact.type === 'verified'
      ? `(chain is null or chain->>'type' <> 'verified' or chain->>'txid' is distinct from ${literal(fact.txid)})`
      : `(${fact.outcome === 'unproven' || fact.outcome === 'mismatch' ? 'chain is null' : 'false'} or
          (chain is not null and (chain->>'type' = 'verified' or chain->>'outcome' is distinct from ${literal(fact.outcome)}
            or chain->>'txid' is distinct from ${literal(fact.txid)})))`;
  return logged(
    `update lbrl_deposits set chain = ${literal(line)}::jsonb where ${deposit(fact, literal)} and ${news}`,
    line,
    literal,
  );
}

/** The statement that takes `record` (canonical: its id as the ledger keys it). */
export function recordStatement(record: StoredRecord, literal: Literal): string {
  const line = JSON.stringify(record);
  switch (record.type) {
    case 'created':
      return createdStatement(record, line, literal);
    case 'status':
      return statusStatement(record, line, literal);
    case 'attempt':
      return attemptStatement(record, line, literal);
    case 'expired':
      return logged(
        `update lbrl_deposits set expired_at = ${literal(record.at)}
         where ${deposit(record, literal)} and status = 'WAITING_PAYMENT' and expired_at is null`,
        line,
        literal,
      );
    default:
      return chainStatement(record, line, literal);
  }
}
