/**
 * The ledger in PostgreSQL on the test run's real server (test/postgres-setup.ts): the contract
 * every store keeps (test/helpers/ledger-contract.ts), and what only the database does: its
 * schema created on first use and versioned, migrated once when two processes start at once, a
 * newer schema refused; the facts kept by the database itself, whoever writes; an append all or
 * nothing.
 */
import { describe, expect, inject, it, vi } from 'vitest';
import { readLedgerSetting } from '../../src/domain/ledger-url.js';
import { openLedger } from '../../src/store/ledger.js';
import type { PostgresLedger } from '../../src/store/ledger-postgres.js';
import { SCHEMA_VERSION } from '../../src/store/ledger-schema.js';
import { failure } from '../helpers/failure.js';
import { created, depositId, ledgerContract, SERVICE } from '../helpers/ledger-contract.js';
import { freshDatabase, sql } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

// several runs of lbrl and round trips to the server per test, on a machine that may be busy
vi.setConfig({ testTimeout: 60_000 });

async function open(url: string, env: Record<string, string | undefined> = {}): Promise<PostgresLedger> {
  const setting = readLedgerSetting(url);
  if (!setting.ok) throw new Error(setting.expected);
  return (await openLedger(setting.value, { dir: tempDir(), warn: () => {}, env })) as PostgresLedger;
}

ledgerContract('PostgreSQL', async () => open(await freshDatabase(inject('postgresUrl'))));

describe('the ledger in PostgreSQL', () => {
  it('creates its schema on first use, at the version this lbrl knows, once', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const first = await open(url);
    expect(await first.schemaVersion()).toBe(SCHEMA_VERSION);
    await first.close();
    const again = await open(url);
    await again.close();
    expect(await sql(url, 'select version from lbrl_schema_version order by version')).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
    );
  });

  it('two processes starting on a new database at once: one migrates, the other finds it done', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const ledgers = await Promise.all([open(url), open(url), open(url)]);
    await Promise.all(ledgers.map((ledger) => ledger.append([created(1)])));
    expect(await ledgers[0]!.count()).toBe(1);
    for (const ledger of ledgers) await ledger.close();
    expect(await sql(url, 'select version from lbrl_schema_version order by version')).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
    );
  });

  it('refuses a schema newer than it knows, and leaves it as it is', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    await (await open(url)).close();
    await sql(url, 'insert into lbrl_schema_version (version) values (99)');
    const error = await failure(open(url));
    expect(error.message).toBe(
      `the ledger at ${url.replace(/:[^:@/]+@/, ':[redacted]@')} has schema version 99, newer than this lbrl knows (${SCHEMA_VERSION}); upgrade lbrl to use it`,
    );
    expect(error.exitCode).toBe(1);
    expect(await sql(url, 'select max(version) as v from lbrl_schema_version')).toEqual([{ v: 99 }]);
  });

  it('refuses a newer schema whatever the order its versions come in', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    await (await open(url)).close();
    const newer = SCHEMA_VERSION + 1;
    await sql(url, 'delete from lbrl_schema_version');
    await sql(url, `insert into lbrl_schema_version (version) select unnest($1::int[])`, [
      [newer, ...Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1)],
    ]);
    const error = await failure(open(url));
    expect(error.message).toContain(
      `has schema version ${newer}, newer than this lbrl knows (${SCHEMA_VERSION})`,
    );
    expect(error.exitCode).toBe(1);
  });

  it('keeps one row per deposit per service by its own constraint, and facts by its own trigger', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const ledger = await open(url);
    await ledger.append([created(1)]);
    await ledger.append([
      {
        v: 1,
        type: 'status',
        id: depositId(1),
        status: 'FINALIZED',
        at: '2026-11-20T12:05:00.000Z',
        final: { settlement: { liquidTxid: 'a'.repeat(64) }, confirmedAt: null },
      },
    ]);
    await ledger.close();
    // another writer, straight in SQL, is held to the same contract
    await expect(sql(url, `update lbrl_deposits set settlement_txid = '${'b'.repeat(64)}'`)).rejects.toThrow(
      /settlement of deposit .* is recorded as a{64}; it is never replaced/,
    );
    await expect(sql(url, `update lbrl_deposits set final = '{}'::jsonb`)).rejects.toThrow(/never replaced/);
    await expect(sql(url, `update lbrl_deposits set created = '{}'`)).rejects.toThrow(/never changed/);
    await expect(sql(url, 'delete from lbrl_deposits')).rejects.toThrow(/never deleted/);
    await expect(
      sql(
        url,
        `insert into lbrl_deposits (base_url, id, profile, created_at, created, status, status_at)
         values ($1, $2, 'x', 'x', '{}', 'WAITING_PAYMENT', 'x')`,
        [SERVICE, depositId(1)],
      ),
    ).rejects.toThrow(/lbrl_deposits_one_per_service/);
    // a later answer that changes the status keeps the first final answer
    const reopened = await open(url);
    await reopened.append([
      {
        v: 1,
        type: 'status',
        id: depositId(1),
        status: 'FAILED',
        at: '2026-11-20T12:06:00.000Z',
        final: { settlement: null, confirmedAt: null },
      },
    ]);
    expect((await reopened.recorded(depositId(1), SERVICE))?.final).toEqual({
      settlement: { liquidTxid: 'a'.repeat(64) },
      confirmedAt: null,
    });
    await reopened.close();
  });

  it('keeps the first Idempotency-Key of a batch row when two hosts attempt it', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const [till1, till2] = [await open(url), await open(url)];
    const attempt = (key: string) =>
      ({
        v: 1,
        type: 'attempt',
        profile: 'default',
        baseUrl: SERVICE,
        batchKey: 'row-1',
        idempotencyKey: key,
        at: 'x',
      }) as const;
    await till1.append([attempt('first')]);
    await till2.append([attempt('second')]);
    expect([...(await till2.batchState('default', SERVICE)).attempted]).toEqual([['row-1', 'first']]);
    await till1.close();
    await till2.close();
  });

  it('takes an append whole or not at all', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const ledger = await open(url);
    // the second record cannot be stored (PostgreSQL text holds no NUL): the first is not kept either
    const error = await failure(ledger.append([created(1), created(2, { at: 'bad\u0000time' })]));
    expect(error.message).toMatch(/^the ledger at .* answered with an error: /);
    expect(await ledger.count()).toBe(0);
    await ledger.append([created(3)]);
    expect(await ledger.count()).toBe(1);
    await ledger.close();
  });

  it('claims a batch row in the database: a second host waits, then finds it done; its first key is kept', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const [till1, till2] = [await open(url), await open(url)];
    const row = { profile: 'default', baseUrl: SERVICE, batchKey: 'row-1', at: 'x' };
    const wait = { sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), pollMs: 5 };
    const first = await till1.claimRow({ ...row, idempotencyKey: 'key-of-till-1' }, wait);
    expect(first).toMatchObject({ idempotencyKey: 'key-of-till-1' });
    // the row is claimed in the database before anything is sent: its attempt is there
    expect([...(await till2.batchState('default', SERVICE)).attempted]).toEqual([['row-1', 'key-of-till-1']]);
    let secondDone = false;
    const second = till2.claimRow({ ...row, idempotencyKey: 'key-of-till-2' }, wait).then((turn) => {
      secondDone = true;
      return turn;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(secondDone).toBe(false);
    await till1.append([created(1, { batchKey: 'row-1' })]);
    if ('claim' in first) first.claim.release();
    expect(await second).toEqual({ done: { id: depositId(1), status: 'WAITING_PAYMENT' } });
    // a claim whose holder dies (its connection gone) is the next host's, with the first key
    const third = await till2.claimRow({ ...row, batchKey: 'row-2', idempotencyKey: 'k2' }, wait);
    await till2.close();
    const fourth = await till1.claimRow({ ...row, batchKey: 'row-2', idempotencyKey: 'other' }, wait);
    expect([third, fourth].map((t) => ('idempotencyKey' in t ? t.idempotencyKey : t))).toEqual(['k2', 'k2']);
    await till1.close();
  });

  it('gives its log in the order the appends committed, from any position on', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const ledgers = await Promise.all([open(url), open(url), open(url)]);
    await Promise.all(
      ledgers.map((ledger, host) =>
        (async () => {
          for (let n = 0; n < 20; n++) await ledger.append([created(host * 100 + n + 1)]);
        })(),
      ),
    );
    const log = await ledgers[0]!.logAfter(0, 1000);
    expect(log).toHaveLength(60);
    expect(log.map((row) => row.seq)).toEqual([...log.map((row) => row.seq)].sort((a, b) => a - b));
    const after = await ledgers[1]!.logAfter(log[29]!.seq, 1000);
    expect(after.map((row) => row.line)).toEqual(log.slice(30).map((row) => row.line));
    for (const ledger of ledgers) await ledger.close();
  });
});
