/**
 * The ledger's tables in PostgreSQL, as migrations: MIGRATIONS[n - 1] takes the schema from
 * version n - 1 to n. A release only ever adds a migration at the end; store/ledger-postgres.ts
 * applies the missing ones forward in one transaction under an advisory lock, and refuses a
 * schema newer than the last one it knows.
 *
 * The contract is the database's own: one row per (service, deposit) by a unique constraint; the
 * facts of a deposit (its creation, its final answer and settlement txid) kept once seen by a
 * trigger that refuses to change them, whoever writes; no deposit deleted; a batch row's first
 * Idempotency-Key kept by a primary key.
 */

/** The table that says which version the schema is at (one row). */
export const VERSION_TABLE = 'lbrl_schema_version';

/** The advisory lock held while the schema is created or migrated ('lbrl' in ASCII). */
export const MIGRATION_LOCK = 0x6c62726c;

const VERSION_1 = `
create table lbrl_deposits (
  seq bigint generated always as identity primary key,
  base_url text not null,
  id text not null,
  profile text not null,
  created_at text not null,
  -- the created record as lbrl wrote it, JSON text (key order kept, as the file history has it)
  created text not null,
  batch_key text,
  status text not null,
  status_at text not null,
  final jsonb,
  settlement_txid text,
  chain jsonb,
  expired_at text,
  constraint lbrl_deposits_one_per_service unique (base_url, id)
);
create index lbrl_deposits_newest on lbrl_deposits (created_at desc, seq desc);
create index lbrl_deposits_by_id on lbrl_deposits (id);
create index lbrl_deposits_by_batch on lbrl_deposits (profile, base_url, batch_key) where batch_key is not null;

create table lbrl_attempts (
  profile text not null,
  base_url text not null,
  batch_key text not null,
  idempotency_key text not null,
  at text not null,
  primary key (profile, base_url, batch_key)
);

-- every record the ledger took, in order, as the file history's lines: what ledger export writes
create table lbrl_records (
  seq bigint generated always as identity primary key,
  line text not null
);

-- the records ledger import has met (a sha-256 of each line), taken or not: met twice, taken once
create table lbrl_imported (
  digest bytea primary key
);

create function lbrl_keep_facts() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    raise exception 'lbrl: deposit % is in the ledger for good; it is never deleted', old.id
      using errcode = 'P0001';
  end if;
  if new.base_url <> old.base_url or new.id <> old.id or new.profile <> old.profile
     or new.created_at <> old.created_at or new.created <> old.created
     or new.batch_key is distinct from old.batch_key then
    raise exception 'lbrl: the creation of deposit % is recorded; it is never changed', old.id
      using errcode = 'P0001';
  end if;
  if old.settlement_txid is not null and new.settlement_txid is distinct from old.settlement_txid then
    raise exception 'lbrl: the settlement of deposit % is recorded as %; it is never replaced',
      old.id, old.settlement_txid using errcode = 'P0001';
  end if;
  if old.final is not null and new.final is distinct from old.final then
    raise exception 'lbrl: the final answer of deposit % is recorded; it is never replaced', old.id
      using errcode = 'P0001';
  end if;
  return new;
end $$;

create trigger lbrl_keep_facts before update or delete on lbrl_deposits
  for each row execute function lbrl_keep_facts();
`;

/**
 * Several hosts at once (store/coordination-postgres.ts): leases (one holder until it expires:
 * a deposit followed by one watch --pending, a profile's events delivered by one listen), the
 * request budgets shared by every host's watch, the outboxes of listen, the display clears, and
 * a notification on every deposit written, for the displays (LISTEN lbrl_deposits).
 */
const HOSTS = `
create table lbrl_leases (
  name text primary key,
  holder text not null,
  expires_at timestamptz not null
);

-- the next free moment of a shared request budget: each request takes the next slot, spaced evenly
create table lbrl_request_budgets (
  name text primary key,
  next_at timestamptz not null
);

-- listen's outboxes: each line one record of the file outbox's NDJSON, in order
create table lbrl_outbox (
  outbox text not null,
  seq bigint generated always as identity,
  line text not null,
  primary key (outbox, seq)
);

-- lbrl display clear: no charge of the profile and service created at or before this is shown
create table lbrl_display_clears (
  profile text not null,
  base_url text not null,
  before text not null,
  primary key (profile, base_url)
);

create function lbrl_notify_deposit() returns trigger language plpgsql as $$
begin
  perform pg_notify('lbrl_deposits',
    json_build_object('profile', new.profile, 'baseUrl', new.base_url, 'id', new.id)::text);
  return null;
end $$;

create trigger lbrl_notify_deposit after insert or update on lbrl_deposits
  for each row execute function lbrl_notify_deposit();
`;

/**
 * The settlement facts of each deposit (its settlement's txid, when its payment was confirmed),
 * the first recorded of each, as the file history keeps them (history-merge.ts): a fact once
 * held is never changed or dropped, whoever writes. The rows of an older schema get theirs from
 * the log (store/ledger-postgres-upgrade.ts), in the same transaction.
 */
const FACTS = `
alter table lbrl_deposits add column facts jsonb;

create or replace function lbrl_keep_facts() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    raise exception 'lbrl: deposit % is in the ledger for good; it is never deleted', old.id
      using errcode = 'P0001';
  end if;
  if new.base_url <> old.base_url or new.id <> old.id or new.profile <> old.profile
     or new.created_at <> old.created_at or new.created <> old.created
     or new.batch_key is distinct from old.batch_key then
    raise exception 'lbrl: the creation of deposit % is recorded; it is never changed', old.id
      using errcode = 'P0001';
  end if;
  if old.settlement_txid is not null and new.settlement_txid is distinct from old.settlement_txid then
    raise exception 'lbrl: the settlement of deposit % is recorded as %; it is never replaced',
      old.id, old.settlement_txid using errcode = 'P0001';
  end if;
  if old.final is not null and new.final is distinct from old.final then
    raise exception 'lbrl: the final answer of deposit % is recorded; it is never replaced', old.id
      using errcode = 'P0001';
  end if;
  if old.facts is not null and (new.facts is null or not new.facts @> old.facts) then
    raise exception 'lbrl: the settlement facts of deposit % are recorded as %; they are never replaced',
      old.id, old.facts using errcode = 'P0001';
  end if;
  return new;
end $$;
`;

export const MIGRATIONS: readonly string[] = [VERSION_1, HOSTS, FACTS];

/** The version whose migration added the facts: a schema older than it has them filled from its log. */
export const FACTS_VERSION = 3;

/** The version this lbrl writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;
