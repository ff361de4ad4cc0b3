/**
 * What an upgrade of the schema does besides its SQL (store/ledger-schema.ts): the rows of a
 * ledger written by an older lbrl given what the new columns hold, from the ledger's own log
 * (lbrl_records), in the migration's transaction. The log holds every record the ledger took,
 * in order, so each row gets what the file history would read from the same records.
 */
import type pg from 'pg';
import type { StoredRecord } from './history-records.js';
import { FACTS_VERSION } from './ledger-schema.js';
import { factsStatement } from './ledger-statements.js';

/** Lines of the log read at a time. */
const PAGE = 5000;
/** About this many bytes of statements go to the server at once. */
const STATEMENT_BYTES = 1 << 20;

/**
 * The settlement facts of every deposit, from the status answers and checks on chain the log
 * holds, read in the order taken (the first of each kept, as the file history keeps them).
 */
async function fillFacts(client: pg.Client, literal: (value: string) => string): Promise<void> {
  let after = 0;
  let batch: string[] = [];
  let size = 0;
  const send = async () => {
    if (batch.length > 0) await client.query(batch.join(';\n'));
    batch = [];
    size = 0;
  };
  for (;;) {
    const { rows } = await client.query<{ seq: string; line: string }>(
      `select seq, line from lbrl_records where seq > $1
         and line::jsonb->>'type' in ('status', 'verified', 'unverified') order by seq limit $2`,
      [after, PAGE],
    );
    for (const row of rows) {
      const statement = factsStatement(JSON.parse(row.line) as StoredRecord, literal);
      if (statement === null) continue;
      batch.push(statement);
      size += statement.length;
      if (size >= STATEMENT_BYTES) await send();
    }
    if (rows.length < PAGE) break;
    after = Number(rows[rows.length - 1]!.seq);
  }
  await send();
}

/** Runs what the migration to `version` needs besides its SQL, right after it. */
export async function afterMigration(
  client: pg.Client,
  version: number,
  literal: (value: string) => string,
): Promise<void> {
  if (version === FACTS_VERSION) await fillFacts(client, literal);
}
