/**
 * What a connection to the ledger in PostgreSQL asks as it begins (store/ledger-postgres.ts): the
 * schema's version, with what the command asks next, in one round trip.
 */
import type pg from 'pg';
import { VERSION_TABLE } from './ledger-schema.js';

/** PostgreSQL's code for a relation that does not exist. */
const UNDEFINED_TABLE = '42P01';

/** What the log's identity is read as (store/ledger-mirror.ts): the database's oid and its log table's. */
export const IDENTITY = `select (select oid from pg_database where datname = current_database())::text || '.' ||
  'lbrl_records'::regclass::oid::text as identity`;

/** A page of the log, in order: what a host's copy reads (store/ledger-mirror.ts). */
export const LOG_PAGE = 'select seq, line from lbrl_records where seq > $1 order by seq limit $2';

/** What the start of a connection read, besides the version: the log's identity and first page. */
export interface StartRead {
  version: number;
  identity?: string;
  page?: { after: number; limit: number; rows: Array<{ seq: number; line: string }> };
}

/**
 * The schema's version, asked in one round trip (what every command pays to connect): the
 * version table read straight away, its absence meaning none yet; with it, what the command asks
 * next (store/ledger-mirror.ts), in the same round trip: the identity of the ledger's log, and the
 * page of it the host's copy expects to read (`logFrom`). Outside a transaction only (an error
 * would end one): the migration reads the version through the catalog (schemaVersion).
 */
export async function startOfConnection(
  client: pg.Client,
  logFrom?: { after: number; limit: number },
): Promise<StartRead> {
  const valid = (n: number) => Number.isSafeInteger(n) && n >= 0;
  const page = logFrom && valid(logFrom.after) && valid(logFrom.limit) ? logFrom : undefined;
  // whole numbers checked above: the one query of several statements takes no parameters
  // the versions applied (one row each), their greatest taken here: on a new backend, the
  // server's planning of max() (its aggregate and the index it would read) cost about 1 to 3 ms
  // more than reading the few rows (bench/README.md)
  const statements = [`select version from ${VERSION_TABLE}`, IDENTITY];
  if (page) statements.push(LOG_PAGE.replace('$1', String(page.after)).replace('$2', String(page.limit)));
  try {
    const [versions, identity, log] = (await client.query(statements.join('; '))) as unknown as [
      pg.QueryResult<{ version: number }>,
      pg.QueryResult<{ identity: string }>,
      pg.QueryResult<{ seq: string; line: string }> | undefined,
    ];
    return {
      version: versions.rows.reduce((greatest, row) => Math.max(greatest, Number(row.version)), 0),
      identity: identity.rows[0]?.identity,
      page:
        page && log
          ? { ...page, rows: log.rows.map((row) => ({ seq: Number(row.seq), line: row.line })) }
          : undefined,
    };
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return { version: 0 };
    throw error;
  }
}
