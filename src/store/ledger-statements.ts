/**
 * Each record the ledger takes, as one SQL statement that applies it when it is news and then
 * logs its line in lbrl_records (what ledger export writes and hosts catch up from): the rules
 * of store/ledger-postgres.ts in the database's own words, so that many records go to the
 * server in one round trip (an append, a chunk of ledger import) instead of one each.
 *
 * Values are written as literals by the client's own escaping (pg's escapeLiteral); the lines
 * are lbrl's JSON. A statement affects its log's row count only when the record was news.
 */
import { STATUS_ORDER } from '../domain/values.js';
import { factsOfRecord, statusRank } from './history-merge.js';
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

/**
 * A status's place in the order a deposit moves through them, said of a column: the file
 * history's statusRank (history-merge.ts) in SQL, from the same list, so the two never differ.
 */
function rankOf(column: string): string {
  const order = STATUS_ORDER.map((status) => `'${status}'`).join(', ');
  return `(case when ${column} in ('FINALIZED', 'FAILED') then ${STATUS_ORDER.length + 1}
    else coalesce(array_position(array[${order}]::text[], ${column}), 0) - 1 end)`;
}

/**
 * The settlement facts a record states, as a jsonb literal (null when it is no status or check), and how
 * the row's facts take them: the first recorded of each is kept (`||` keeps its right side's).
 */
function factsOf(record: StoredRecord, literal: Literal): { json: string; merged: string } | null {
  const facts = factsOfRecord(record);
  // a final answer naming none states the empty set, which the file history keeps as such
  if (!facts) return null;
  const json = `${literal(JSON.stringify(facts))}::jsonb`;
  return { json, merged: `${json} || coalesce(facts, '{}'::jsonb)` };
}

function statusStatement(record: StatusRecord, line: string, literal: Literal): string {
  // news when it moves the deposit on (the file history's rule: never back, one end only), or
  // states a settlement fact the row does not hold yet; the final answer, its txid and each
  // fact are set once, and the trigger refuses any writer that would replace them
  const moves = `${statusRank(record.status)} > ${rankOf('status')}`;
  const final = record.final ? `${literal(JSON.stringify(record.final))}::jsonb` : 'null::jsonb';
  const txid = finalTxid(record);
  const facts = factsOf(record, literal);
  return logged(
    `update lbrl_deposits set status = case when ${moves} then ${literal(record.status)} else status end,
       status_at = case when ${moves} then ${literal(record.at)} else status_at end,
       expired_at = case when ${moves} then null else expired_at end,
       final = case when ${moves} then coalesce(final, ${final}) else final end,
       settlement_txid = case when ${moves} then coalesce(settlement_txid, ${txid === null ? 'null' : literal(txid)}) else settlement_txid end,
       facts = ${facts ? facts.merged : 'facts'}
     where ${deposit(record, literal)} and (${moves}${facts ? ` or not (coalesce(facts, '{}'::jsonb) @> ${facts.json})` : ''})`,
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
    `update lbrl_deposits set chain = ${literal(line)}::jsonb, facts = ${factsOf(fact, literal)!.merged}
     where ${deposit(fact, literal)} and ${news}`,
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
         where ${deposit(record, literal)} and status = 'WAITING_PAYMENT' and expired_at is distinct from ${literal(record.at)}`,
        line,
        literal,
      );
    default:
      return chainStatement(record, line, literal);
  }
}

/**
 * What an upgrade to the schema that keeps facts (store/ledger-postgres-upgrade.ts) does with a
 * record of the log: its settlement facts added to its deposit's row, the first of each kept; a
 * row it changes nothing of is left untouched. Null for a record that states no fact.
 */
export function factsStatement(record: StoredRecord, literal: Literal): string | null {
  if (record.type === 'created' || record.type === 'attempt' || record.type === 'expired') return null;
  const facts = factsOf(record, literal);
  if (!facts) return null;
  return `update lbrl_deposits set facts = ${facts.merged}
    where ${deposit(record, literal)} and (${facts.merged}) is distinct from facts`;
}
