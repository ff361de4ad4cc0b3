/**
 * The ledger in PostgreSQL, behind the same port as the file history (store/ledger.ts). Loaded
 * only when the ledger setting is a database URL, with the client (`pg`, pure JavaScript).
 *
 * One connection per command. Each append is one transaction: every record of it is taken, or
 * none. The guarantees are the database's (store/ledger-schema.ts): a unique constraint per
 * (service, deposit), a trigger that keeps a deposit's facts once seen, a primary key per batch
 * row; what lbrl adds is only which records are news (a status polled again is not).
 *
 * Faults (the server down, the password refused, the connection lost) are one LbrlError of
 * type `network` (exit 6) naming the ledger by its URL with the password redacted; an append cut
 * short is rolled back by the server, so nothing of it is half-written.
 */
import type pg from 'pg';
import type { LedgerUrl } from '../domain/ledger-url.js';
import { canonicalId } from '../domain/values.js';
import { interrupted, LbrlError } from '../errors.js';
import type { ClaimWaitOptions, RowTurn } from './claims.js';
import { type CreatedRecord, type HistoryEntry, MAX_ENTRIES, type StoredRecord } from './history-records.js';
import type { DepositSelection, Ledger, LedgerOptions } from './ledger-port.js';
import { LedgerOutcome } from './ledger-postgres-outcome.js';
import { brokenTextsWarning, type DepositRow, entryOfRow, SELECT_DEPOSIT } from './ledger-postgres-rows.js';
import { IDENTITY, LOG_PAGE, type StartRead, startOfConnection } from './ledger-postgres-start.js';
import { afterMigration } from './ledger-postgres-upgrade.js';
import { reusedIdRefusal, sameCreation } from './ledger-rules.js';
import { MIGRATION_LOCK, MIGRATIONS, SCHEMA_VERSION, VERSION_TABLE } from './ledger-schema.js';
import { recordStatement } from './ledger-statements.js';
import { connectionSettings } from './ledger-tls.js';
import { loadPg } from './pg-client.js';
import { takeEarlySocket } from './pg-early.js';
import { EarlySocket, serverAddress } from './pg-socket.js';

/** How long one statement may take before the connection is taken for lost (a pulled cable). */
const QUERY_TIMEOUT_MS = 60_000;
/** Rows fetched at a time by `records()`. */
const PAGE = 1000;
/** About this many bytes of statements go to the server at once (store/ledger-statements.ts). */
const STATEMENT_BYTES = 1 << 20;
/** Records of ledger import whose digests are looked up at once. */
const IMPORT_CHUNK = 2000;
/**
 * The advisory lock every append holds until it commits ('lbrA'): appends take their places in
 * lbrl_records one after the other, so a reader that has seen position n has seen every record
 * below it (store/ledger-mirror.ts reads on from the last position it saw).
 */
const APPEND_LOCK = 0x6c627241;

/**
 * node:crypto, loaded on first use rather than with this module: a command connects as soon as
 * this module runs (store/pg-socket.ts), and loading it first put off the connection by about 4 ms.
 * (pg's authentication loads it anyway, once the connection is under way.)
 */
let cryptoModule: typeof import('node:crypto') | undefined;
function nodeCrypto(): typeof import('node:crypto') {
  cryptoModule ??= require('node:crypto') as typeof import('node:crypto');
  return cryptoModule;
}

/** The advisory lock of one batch row: 64 bits of the SHA-256 of its identity, as a signed bigint. */
function rowLock(profile: string, baseUrl: string, batchKey: string): string {
  const digest = nodeCrypto()
    .createHash('sha256')
    .update(JSON.stringify(['row', profile, baseUrl, batchKey]))
    .digest();
  return digest.readBigInt64BE(0).toString();
}

/** Connection-level codes: SQLSTATE class 08, the server shutting down, or refusing connections. */
const LOST_STATES = /^(08|57P0[1-3])/;
/** What a socket's error code means, in words (a refused connection's message is only its address). */
const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name cannot be resolved now',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOENT: 'no server socket there',
};
const REFUSED_CREDENTIALS = new Set(['28P01', '28000']);

/**
 * What a failure of the database means to a user: one line, exit 6 when it could not be used. A
 * connection lost once made ends with what the command had done (`outcome`,
 * store/ledger-postgres-outcome.ts): a reader changed nothing, a writer's transaction was not
 * recorded, or was lost as it was committed.
 */
export function ledgerFault(
  error: unknown,
  shown: string,
  connected: boolean,
  outcome = 'what this command was writing was not recorded',
): LbrlError {
  if (error instanceof LbrlError) return error;
  const fault = error as { code?: string; message?: string };
  const code = fault.code ?? '';
  const reason =
    SOCKET_REASONS[code] ?? (fault.message || code || String(error)).split('\n')[0]!.slice(0, 300);
  if (REFUSED_CREDENTIALS.has(code))
    return new LbrlError(`the ledger at ${shown} refused the credentials: ${reason}`, 'network');
  if (code === '3D000') return new LbrlError(`the ledger at ${shown} cannot be used: ${reason}`, 'network');
  if (code === 'P0001') return new LbrlError(`the ledger refused a change: ${reason}`, 'mismatch');
  // an SQLSTATE is five digits or capitals, and no class of them begins with E; a socket's code
  // of five (EPIPE, EBADF, EPERM) is the connection's, not the server's answer
  const sqlError = /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code) && !LOST_STATES.test(code);
  if (sqlError)
    return new LbrlError(`the ledger at ${shown} answered with an error: ${reason} (${code})`, 'config');
  return connected
    ? new LbrlError(`the connection to the ledger at ${shown} was lost (${reason}); ${outcome}`, 'network')
    : new LbrlError(`cannot reach the ledger at ${shown}: ${reason}`, 'network');
}

/** A connection's end: the goodbye sent at once, the server's own close of it not waited for. */
export async function endConnection(client: pg.Client): Promise<void> {
  const ended = client.end().catch(() => {});
  // the Terminate message is written as end() is called; the server then closes its side in its
  // own time (tens of ms on a busy machine, which a command need not wait)
  await Promise.race([ended, new Promise<void>((resolve) => setImmediate(resolve))]);
}

/** The schema's version as found: 0 when the ledger has none yet. Read through the catalog's rows, in the statement's snapshot. */
async function schemaVersion(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ present: boolean }>(
    `select exists (select 1 from pg_catalog.pg_tables where schemaname = current_schema() and tablename = $1) as present`,
    [VERSION_TABLE],
  );
  if (!rows[0]?.present) return 0;
  const found = await client.query<{ version: number }>(
    `select max(version) as version from ${VERSION_TABLE}`,
  );
  return Number(found.rows[0]?.version ?? 0);
}

function newerSchema(found: number, shown: string): LbrlError {
  return new LbrlError(
    `the ledger at ${shown} has schema version ${found}, newer than this lbrl knows (${SCHEMA_VERSION}); upgrade lbrl to use it`,
    'config',
  );
}

/**
 * Brings the schema to SCHEMA_VERSION: nothing to do when it is there; otherwise, holding an
 * advisory lock (a second process waits, then finds it done), each missing migration in order,
 * in one transaction begun after the lock is held (so it sees what the holder before it
 * committed). A schema newer than this lbrl is refused, untouched.
 */
export async function migrate(client: pg.Client, shown: string): Promise<number> {
  return migrateFrom(client, shown, (await startOfConnection(client)).version);
}

/** The same, the version found at connect given (`found`). */
async function migrateFrom(
  client: pg.Client,
  shown: string,
  found: number,
  outcome = new LedgerOutcome(),
): Promise<number> {
  if (found === SCHEMA_VERSION) return found;
  if (found > SCHEMA_VERSION) throw newerSchema(found, shown);
  // released by the server if the connection drops
  await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    outcome.writing(true);
    await client.query('begin');
    try {
      const now = await schemaVersion(client);
      if (now > SCHEMA_VERSION) throw newerSchema(now, shown);
      if (now === 0)
        await client.query(
          `create table ${VERSION_TABLE} (version integer primary key, applied_at timestamptz not null default now())`,
        );
      for (let version = now + 1; version <= SCHEMA_VERSION; version++) {
        await client.query(MIGRATIONS[version - 1]!);
        await afterMigration(client, version, sqlLiteral);
        await client.query(`insert into ${VERSION_TABLE} (version) values ($1)`, [version]);
      }
      outcome.committing();
      await client.query('commit');
      outcome.ended(true);
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
  return SCHEMA_VERSION;
}

export async function openPostgresLedger(
  url: LedgerUrl,
  shown: string,
  options: LedgerOptions,
): Promise<PostgresLedger> {
  const settings = connectionSettings(url, options.env, options.insecureSkipTlsVerify);
  const { applicationName, host, port, ...rest } = settings;
  const address = serverAddress(host, port);
  // the server starts its process for this connection while the client loads; begun at the
  // program's entry when it guessed this address (store/pg-early.ts)
  const early = takeEarlySocket(address);
  const socket = early ?? new EarlySocket(address);
  let Client: typeof pg.Client;
  try {
    if (!early) await socket.begun();
    ({ Client } = await loadPg());
  } catch (error) {
    socket.discard();
    throw error;
  }
  const client = new Client({
    ...rest,
    ...address,
    stream: socket.stream,
    application_name: applicationName,
    keepAlive: true,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  const ledger = new PostgresLedger(client, shown, options.warn);
  try {
    await client.connect();
    ledger.connected = true;
    const start = await startOfConnection(client, options.logFrom?.());
    if ((await migrateFrom(client, shown, start.version, ledger.outcome)) === start.version)
      ledger.found(start);
  } catch (error) {
    await client.end().catch(() => {});
    throw ledgerFault(error, shown, ledger.connected, ledger.outcome.said());
  }
  return ledger;
}

/**
 * A string as an SQL literal, as the client's escapeLiteral writes it (quotes doubled; with a
 * backslash, an E'' literal with backslashes doubled, whatever standard_conforming_strings says),
 * in a few regular-expression passes rather than its character loop: ledger import writes
 * hundreds of thousands.
 */
export function sqlLiteral(value: string): string {
  const quoted = value.replace(/'/g, "''");
  return value.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

export class PostgresLedger implements Ledger {
  readonly kind = 'postgres';
  connected = false;
  /** what this connection has done, for the line a lost connection ends with */
  readonly outcome = new LedgerOutcome();
  /** the connection's failure while idle: the next use reports it */
  private lost: Error | undefined;
  /** the log's identity, read as the connection began, until asked (identity) */
  private identityAtStart: string | undefined;
  /** the page of the log read as the connection began, until asked (logAfter) */
  private pageAtStart: StartRead['page'];
  /** one use of the connection at a time: a transaction is never entered by another caller's query */
  private turn: Promise<unknown> = Promise.resolve();

  /** the rows with a reference or note cut were said (once per ledger: a display reads the newest again and again) */
  private brokenTextsSaid = false;

  constructor(
    private readonly client: pg.Client,
    readonly where: string,
    private readonly warn: (line: string) => void = () => {},
  ) {
    // an idle connection that drops emits 'error': kept, never thrown from an event
    client.on('error', (error) => {
      this.lost = error;
    });
  }

  /** Runs `work` when the connection is free, mapping any failure to the one line a user sees. */
  private using<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(async () => {
      if (this.lost) throw ledgerFault(this.lost, this.where, true, this.outcome.said());
      try {
        return await work();
      } catch (error) {
        throw ledgerFault(error, this.where, true, this.outcome.said());
      }
    });
    this.turn = run.catch(() => {});
    return run;
  }

  /** `work` in one transaction: committed whole, or rolled back (the server does so if the connection drops). */
  private transaction<T>(work: () => Promise<T>): Promise<T> {
    // the log grows: the page read at the start is no longer all there is after its position
    this.pageAtStart = undefined;
    return this.using(async () => {
      this.outcome.writing();
      await this.client.query('begin');
      try {
        const result = await work();
        this.outcome.committing();
        await this.client.query('commit');
        this.outcome.ended(true);
        return result;
      } catch (error) {
        const fault = ledgerFault(error, this.where, true, this.outcome.said());
        await this.client.query('rollback').catch(() => {});
        this.outcome.ended(false);
        throw fault;
      }
    });
  }

  append(records: StoredRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const given = records.map(canonical);
    return this.transaction(async () => {
      await this.client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK]);
      const taken = await this.takeAll(given);
      for (const [index, record] of given.entries())
        if (record.type === 'created' && !taken[index]) await this.refuseReuse(record);
    });
  }

  /** A created record the unique constraint kept out: the same creation again, or another charge reusing its id (refused). */
  private async refuseReuse(record: CreatedRecord): Promise<void> {
    const { rows } = await this.client.query<{ created: string; status: string }>(
      'select created, status from lbrl_deposits where base_url = $1 and id = $2',
      [record.baseUrl, record.id],
    );
    const held = JSON.parse(rows[0]!.created) as CreatedRecord;
    if (!sameCreation(held, record)) throw reusedIdRefusal({ ...held, status: rows[0]!.status });
  }

  /**
   * Takes the records in order, each applied when it is news and its line logged
   * (store/ledger-statements.ts), as many to a round trip as STATEMENT_BYTES allows; whether
   * each was taken.
   */
  private async takeAll(records: readonly StoredRecord[]): Promise<boolean[]> {
    const taken: boolean[] = [];
    const literal = (value: string) => {
      // the text a query is sent as ends at a NUL: refused here as the server refuses it in a value
      if (value.includes('\u0000'))
        throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
      return sqlLiteral(value);
    };
    let batch: string[] = [];
    let size = 0;
    const send = async () => {
      if (batch.length === 0) return;
      const result = (await this.client.query(batch.join(';\n'))) as unknown as
        | pg.QueryResult
        | pg.QueryResult[];
      for (const each of Array.isArray(result) ? result : [result]) taken.push((each.rowCount ?? 0) > 0);
      batch = [];
      size = 0;
    };
    for (const record of records) {
      const statement = recordStatement(record, literal);
      batch.push(statement);
      size += statement.length;
      if (size >= STATEMENT_BYTES) await send();
    }
    await send();
    return taken;
  }

  /**
   * ledger import: the records of a file history, each taken once however often it is imported
   * (lbrl_imported keeps a digest of every record met), in one transaction, IMPORT_CHUNK records
   * to a few round trips. Returns how many records were met, and how many for the first time.
   */
  importRecords(
    records: AsyncIterable<StoredRecord> | Iterable<StoredRecord>,
  ): Promise<{ met: number; fresh: number }> {
    return this.transaction(async () => {
      await this.client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK]);
      let met = 0;
      let fresh = 0;
      let chunk: StoredRecord[] = [];
      const importChunk = async () => {
        met += chunk.length;
        const taken = await this.firstMet(chunk);
        fresh += taken.length;
        await this.takeAll(taken);
        chunk = [];
      };
      for await (const record of records) {
        chunk.push(canonical(record));
        if (chunk.length >= IMPORT_CHUNK) await importChunk();
      }
      await importChunk();
      return { met, fresh };
    });
  }

  /** The records of `chunk` no import met before (their digests now kept), in order, each once. */
  private async firstMet(chunk: StoredRecord[]): Promise<StoredRecord[]> {
    if (chunk.length === 0) return [];
    const digests = chunk.map((record) =>
      nodeCrypto().createHash('sha256').update(JSON.stringify(record)).digest(),
    );
    const { rows } = await this.client.query<{ digest: Buffer }>(
      'insert into lbrl_imported (digest) select unnest($1::bytea[]) on conflict do nothing returning digest',
      [digests],
    );
    const unmet = new Set(rows.map((row) => row.digest.toString('hex')));
    return chunk.filter((_, index) => unmet.delete(digests[index]!.toString('hex')));
  }

  entries(filter: DepositSelection = {}, options: { limit?: number } = {}): Promise<HistoryEntry[]> {
    return this.using(async () => {
      const where: string[] = [];
      const values: unknown[] = [];
      const add = (column: string, value: string | undefined) => {
        if (value === undefined) return;
        values.push(value);
        where.push(`${column} = $${values.length}`);
      };
      add('profile', filter.profile);
      add('base_url', filter.baseUrl);
      add('id', filter.id === undefined ? undefined : canonicalId(filter.id));
      values.push(Math.min(options.limit ?? MAX_ENTRIES, MAX_ENTRIES));
      const { rows } = await this.client.query<DepositRow>(
        `${SELECT_DEPOSIT} ${where.length ? `where ${where.join(' and ')}` : ''}
         order by created_at desc, seq desc limit $${values.length}`,
        values,
      );
      let broken = 0;
      const entries = rows.map((row) => entryOfRow(row, () => broken++));
      if (broken > 0 && !this.brokenTextsSaid) {
        this.brokenTextsSaid = true;
        this.warn(brokenTextsWarning(broken, this.where));
      }
      return entries;
    });
  }

  async recorded(id: string, baseUrl: string): Promise<HistoryEntry | undefined> {
    return (await this.entries({ id, baseUrl }, { limit: 1 }))[0];
  }

  batchState(profile: string, baseUrl: string) {
    return this.using(async () => {
      const done = new Map<string, { id: string; status: string }>();
      const attempted = new Map<string, string>();
      const created = await this.client.query<{ batch_key: string; id: string; status: string }>(
        `select batch_key, id, status from lbrl_deposits where profile = $1 and base_url = $2 and batch_key is not null
         order by seq`,
        [profile, baseUrl],
      );
      for (const row of created.rows)
        if (!done.has(row.batch_key)) done.set(row.batch_key, { id: row.id, status: row.status });
      const attempts = await this.client.query<{ batch_key: string; idempotency_key: string }>(
        'select batch_key, idempotency_key from lbrl_attempts where profile = $1 and base_url = $2',
        [profile, baseUrl],
      );
      for (const row of attempts.rows) attempted.set(row.batch_key, row.idempotency_key);
      return { done, attempted };
    });
  }

  async *records(): AsyncIterable<StoredRecord> {
    let after = 0;
    for (;;) {
      const { rows } = await this.using(() =>
        this.client.query<{ seq: string; line: string }>(LOG_PAGE, [after, PAGE]),
      );
      for (const row of rows) yield JSON.parse(row.line) as StoredRecord;
      if (rows.length < PAGE) return;
      after = Number(rows[rows.length - 1]!.seq);
    }
  }

  logAfter(after: number, limit: number): Promise<Array<{ seq: number; line: string }>> {
    // the page read as the connection began, when it is the one asked: given once
    const known = this.pageAtStart;
    this.pageAtStart = undefined;
    if (known && known.after === after && known.limit === limit) return this.using(async () => known.rows);
    return this.using(async () => {
      const { rows } = await this.client.query<{ seq: string; line: string }>(LOG_PAGE, [after, limit]);
      return rows.map((row) => ({ seq: Number(row.seq), line: row.line }));
    });
  }

  identity(): Promise<string> {
    // read with the schema's version as the connection began: the first caller takes it
    const known = this.identityAtStart;
    this.identityAtStart = undefined;
    if (known !== undefined) return this.using(async () => known);
    // the database and its log table: a database dropped and made again has others
    return this.using(async () => {
      const { rows } = await this.client.query<{ identity: string }>(IDENTITY);
      return rows[0]!.identity;
    });
  }

  /** The log's identity as read when the connection began (store/ledger-postgres.ts startOfConnection). */
  found(start: StartRead): void {
    this.identityAtStart = start.identity;
    this.pageAtStart = start.page;
  }

  async claimRow(
    row: { profile: string; baseUrl: string; batchKey: string; idempotencyKey: string; at: string },
    wait: ClaimWaitOptions,
  ): Promise<RowTurn> {
    const lock = rowLock(row.profile, row.baseUrl, row.batchKey);
    await this.lockRow(lock, wait);
    const release = () => {
      void this.using(() => this.client.query('select pg_advisory_unlock($1::bigint)', [lock])).catch(
        () => {},
      );
    };
    try {
      const done = await this.rowDone(row);
      if (done) {
        release();
        return { done };
      }
      await this.append([{ v: 1, type: 'attempt', ...row }]);
      const key = await this.using(() =>
        this.client.query<{ idempotency_key: string }>(
          'select idempotency_key from lbrl_attempts where profile = $1 and base_url = $2 and batch_key = $3',
          [row.profile, row.baseUrl, row.batchKey],
        ),
      );
      return { idempotencyKey: key.rows[0]?.idempotency_key ?? row.idempotencyKey, claim: { release } };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Waits while another connection holds the row's lock (a run on this host or another), then takes it. */
  private async lockRow(lock: string, wait: ClaimWaitOptions): Promise<void> {
    const now = wait.now ?? Date.now;
    const started = now();
    for (;;) {
      const { rows } = await this.using(() =>
        this.client.query<{ got: boolean }>('select pg_try_advisory_lock($1::bigint) as got', [lock]),
      );
      if (rows[0]?.got) return;
      if (wait.timeoutMs !== undefined && now() - started >= wait.timeoutMs)
        throw new LbrlError(
          `a row is held by another lbrl run on the ledger at ${this.where} for longer than ${Math.round(wait.timeoutMs / 1000)} s: not sent; re-run with --resume`,
          'network',
        );
      if (wait.signal?.aborted) throw interrupted();
      try {
        await wait.sleep(wait.pollMs ?? 100, wait.signal);
      } catch {
        throw interrupted();
      }
    }
  }

  /** The deposit the ledger holds for a batch row, if any. */
  private async rowDone(row: { profile: string; baseUrl: string; batchKey: string }) {
    const { rows } = await this.using(() =>
      this.client.query<{ id: string; status: string }>(
        `select id, status from lbrl_deposits where profile = $1 and base_url = $2 and batch_key = $3
         order by seq limit 1`,
        [row.profile, row.baseUrl, row.batchKey],
      ),
    );
    return rows[0] ? { id: rows[0].id, status: rows[0].status } : undefined;
  }

  count(): Promise<number> {
    return this.using(async () => {
      const { rows } = await this.client.query<{ count: string }>(
        'select count(*) as count from lbrl_deposits',
      );
      return Number(rows[0]!.count);
    });
  }

  schemaVersion(): Promise<number> {
    return this.using(() => schemaVersion(this.client));
  }

  close(): Promise<void> {
    return endConnection(this.client);
  }
}

function canonical(record: StoredRecord): StoredRecord {
  return record.type === 'attempt' ? record : { ...record, id: canonicalId(record.id) };
}
