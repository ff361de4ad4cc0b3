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
} from './history.js';

export type Literal = (value: string) => string;

/** The settlement txid a final answer names, when it names one. */
function finalTxid(record: StatusRecord): string | null {
  const settlement = record.final?.settlement as { liquidTxid?: unknown } | null | undefined;
  return typeof settlement?.liquidTxid === 'string' ? settlement.liquidTxid : null;
}

/** `applied`, a data-modifying statement returning a row when it took the record, then its line logged. */
function logged(applied: string, line: string, literal: Literal): string {
  return `with applied as (${applied} returning 1) insert into lbrl_records (line) select ${literal(line)} where exists (select 1 from applied)`;
}

function createdStatement(record: CreatedRecord, line: string, q: Literal): string {
  return logged(
    `insert into lbrl_deposits (base_url, id, profile, created_at, created, batch_key, status, status_at)
     values (${q(record.baseUrl)}, ${q(record.id)}, ${q(record.profile)}, ${q(record.at)}, ${q(line)},
       ${record.batchKey === undefined ? 'null' : q(record.batchKey)}, ${q(record.status)}, ${q(record.at)})
     on conflict (base_url, id) do nothing`,
    line,
    q,
  );
}

function statusStatement(record: StatusRecord, line: string, q: Literal): string {
  // news only: a status polled again changes nothing; the final answer and its txid are set
  // once (coalesce), and the trigger refuses any writer that would replace them
  const final = record.final ? `${q(JSON.stringify(record.final))}::jsonb` : 'null::jsonb';
  const txid = finalTxid(record);
  return logged(
    `update lbrl_deposits set status = ${q(record.status)}, status_at = ${q(record.at)}, expired_at = null,
       final = coalesce(final, ${final}), settlement_txid = coalesce(settlement_txid, ${txid === null ? 'null' : q(txid)})
     where id = ${q(record.id)} and status is distinct from ${q(record.status)}`,
    line,
    q,
  );
}

function attemptStatement(record: AttemptRecord, line: string, q: Literal): string {
  // the first Idempotency-Key of a row is the one: a second host's attempt keeps it
  return logged(
    `insert into lbrl_attempts (profile, base_url, batch_key, idempotency_key, at)
     values (${q(record.profile)}, ${q(record.baseUrl)}, ${q(record.batchKey)}, ${q(record.idempotencyKey)}, ${q(record.at)})
     on conflict do nothing`,
    line,
    q,
  );
}

/** A chain fact is news by the file history's rule (History.isNewChainFact), said of the row's `chain`. */
function chainStatement(fact: VerifiedRecord | UnverifiedRecord, line: string, q: Literal): string {
  const news =
    fact.type === 'verified'
      ? `(chain is null or chain->>'type' <> 'verified' or chain->>'txid' is distinct from ${q(fact.txid)})`
      : `(${fact.outcome === 'unproven' || fact.outcome === 'mismatch' ? 'chain is null' : 'false'} or
          (chain is not null and (chain->>'type' = 'verified' or chain->>'outcome' is distinct from ${q(fact.outcome)}
            or chain->>'txid' is distinct from ${q(fact.txid)})))`;
  return logged(
    `update lbrl_deposits set chain = ${q(line)}::jsonb where id = ${q(fact.id)} and ${news}`,
    line,
    q,
  );
}

/** The statement that takes `record` (canonical: its id as the ledger keys it). */
export function recordStatement(record: StoredRecord, q: Literal): string {
  const line = JSON.stringify(record);
  switch (record.type) {
    case 'created':
      return createdStatement(record, line, q);
    case 'status':
      return statusStatement(record, line, q);
    case 'attempt':
      return attemptStatement(record, line, q);
    case 'expired':
      return logged(
        `update lbrl_deposits set expired_at = ${q(record.at)}
         where id = ${q(record.id)} and status = 'WAITING_PAYMENT' and expired_at is null`,
        line,
        q,
      );
    default:
      return chainStatement(record, line, q);
  }
}
