/**
 * One meaning, two stores, field for field: every kind of record given to the file history and
 * to PostgreSQL leaves the same entries in both (the facts kept once seen, the transaction a
 * verification proved, the status never moved back, expiries), and a host's copy of the database
 * (its log, read as a file history) says the same again. Then the upgrade: a database that the
 * release with schema version 2 filled, opened by this one, gets its deposits' facts from its log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { readLedgerSetting } from '../../src/domain/ledger-url.js';
import {
  type AttemptRecord,
  expiredRecord,
  type StatusRecord,
  type StoredRecord,
  statusRecord,
  unverifiedRecord,
  verifiedRecord,
} from '../../src/store/history-records.js';
import { openLedger } from '../../src/store/ledger.js';
import { FileLedger } from '../../src/store/ledger-file.js';
import type { Ledger } from '../../src/store/ledger-port.js';
import { type PostgresLedger, sqlLiteral } from '../../src/store/ledger-postgres.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/ledger-schema.js';
import { recordStatement as previousStatement } from '../fixtures/ledger-statements-v2.js';
import { created, depositId, SERVICE } from '../helpers/ledger-contract.js';
import { freshDatabase, sql } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 60_000 });

const SANDBOX = 'sandbox';
const T0 = Date.parse('2026-11-20T12:00:00.000Z');
const TXID = { a: 'a'.repeat(64), b: 'b'.repeat(64), c: 'c'.repeat(64) };
const CONFIRMED_AT = '2026-11-20T12:01:00.000Z';

async function open(url: string): Promise<PostgresLedger> {
  const setting = readLedgerSetting(url);
  if (!setting.ok) throw new Error(setting.expected);
  return (await openLedger(setting.value, { dir: tempDir(), warn: () => {}, env: {} })) as PostgresLedger;
}

/** A record about deposit n on `service` (null: one of an older release, naming none); at `second` seconds after T0. */
const on = <T extends StoredRecord>(record: T, service: string | null = SERVICE): T =>
  service === null ? record : { ...record, baseUrl: service };
const status = (
  n: number,
  value: string,
  second: number,
  answer?: object,
  service: string | null = SERVICE,
): StatusRecord => on(statusRecord(depositId(n), value, T0 + second * 1000, answer), service);
const finalized = (n: number, txid: string, second: number) =>
  status(n, 'FINALIZED', second, { settlement: { liquidTxid: txid }, confirmedAt: CONFIRMED_AT });
const verified = (n: number, txid: string, second: number) =>
  on(verifiedRecord(depositId(n), txid, T0 + second * 1000));
const unverified = (n: number, txid: string, outcome: string, second: number) =>
  on(unverifiedRecord(depositId(n), txid, outcome, T0 + second * 1000));
const expired = (n: number, second: number) => on(expiredRecord(depositId(n), T0 + second * 1000));
const attempt: AttemptRecord = {
  v: 1,
  type: 'attempt',
  profile: 'default',
  baseUrl: SERVICE,
  batchKey: 'row-b',
  idempotencyKey: 'idem-b',
  at: new Date(T0).toISOString(),
};

/** Appends, one step at a time: every kind of record, news and not, in orders two hosts may write them. */
const STEPS: StoredRecord[][] = [
  [
    created(1, { ref: 'order-7', note: 'table 3' }),
    created(2, { batchKey: 'row-a' }),
    created(3),
    created(4),
    created(5, { baseUrl: SANDBOX }),
    created(5),
  ],
  [attempt],
  [status(1, 'PIX_CONFIRMED', 10)],
  [status(1, 'SETTLEMENT_CREATED', 20)],
  // the same status, now naming its transaction; then again, then a replica behind
  [status(1, 'SETTLEMENT_CREATED', 25, { settlement: { liquidTxid: TXID.a } })],
  [status(1, 'SETTLEMENT_CREATED', 26, { settlement: { liquidTxid: TXID.a } })],
  [status(1, 'PIX_CONFIRMED', 27)],
  // a final answer naming another transaction: the first named is the fact
  [finalized(1, TXID.b, 60)],
  [verified(1, TXID.a, 70), verified(1, TXID.a, 71)],
  [unverified(1, TXID.a, 'pending', 80)],
  [unverified(1, TXID.a, 'pending', 81), verified(1, TXID.a, 90)],
  [finalized(2, TXID.c, 60), status(2, 'FAILED', 65, { settlement: null })],
  // a verification of another transaction than the facts name
  [verified(2, TXID.b, 70)],
  [status(2, 'GONE', 75)],
  [expired(3, 80)],
  [expired(3, 85)],
  [expired(4, 80), status(4, 'PIX_CONFIRMED', 82), expired(4, 84)],
  // records of an older release, naming no service: deposit 5 is on two, deposit 3 on one
  [status(5, 'FAILED', 90, { settlement: null }, null)],
  [status(3, 'TX_SENT', 91, { settlement: { liquidTxid: TXID.c } }, null)],
  [verified(3, TXID.c, 92)],
  [unverified(4, TXID.a, 'pending', 93)],
  [unverified(4, TXID.a, 'unproven', 94)],
  [on(verifiedRecord(depositId(5), TXID.b, T0 + 95_000), SANDBOX)],
  [status(6, 'FINALIZED', 96, { settlement: { liquidTxid: TXID.a } })],
];

async function everything(ledger: Ledger): Promise<unknown> {
  const each = [];
  for (const n of [1, 2, 3, 4, 5, 6])
    for (const service of [SERVICE, SANDBOX]) each.push(await ledger.recorded(depositId(n), service));
  return { entries: await ledger.entries(), each, count: await ledger.count() };
}

/** The host's copy of the database: its log, read as a file history is. */
async function copyOf(ledger: Ledger): Promise<FileLedger> {
  const dir = tempDir();
  const lines: string[] = [];
  for await (const record of ledger.records()) lines.push(`${JSON.stringify(record)}\n`);
  fs.writeFileSync(path.join(dir, 'history.ndjson'), lines.join(''));
  return new FileLedger(dir, () => {});
}

describe('the same records, the same entries in the file and in PostgreSQL', () => {
  it('after every step, for every kind of record', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const database = await open(url);
    const file = new FileLedger(tempDir(), () => {});
    for (const [index, step] of STEPS.entries()) {
      await file.append(step);
      await database.append(step);
      const said = await everything(file);
      expect({ step: index, ...((await everything(database)) as object) }).toEqual({
        step: index,
        ...(said as object),
      });
    }
    // what a host reads from its copy of the database says the same
    expect(await everything(await copyOf(database))).toEqual(await everything(file));
    // and another host's connection reads the same
    const office = await open(url);
    expect(await everything(office)).toEqual(await everything(file));
    await office.close();
    await database.close();
  });

  it('ledger import of the same records: the same entries, and importing again changes nothing', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const database = await open(url);
    const file = new FileLedger(tempDir(), () => {});
    for (const step of STEPS) await file.append(step);
    const records: StoredRecord[] = [];
    for await (const record of file.records()) records.push(record);
    await database.importRecords(records);
    expect(await everything(database)).toEqual(await everything(file));
    expect(await database.importRecords(records)).toEqual({ met: records.length, fresh: 0 });
    expect(await everything(database)).toEqual(await everything(file));
    await database.close();
  });

  it('keeps the facts by its own trigger, whoever writes', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const ledger = await open(url);
    await ledger.append([created(1)]);
    await ledger.append([status(1, 'SETTLEMENT_CREATED', 25, { settlement: { liquidTxid: TXID.a } })]);
    await ledger.close();
    await expect(
      sql(url, `update lbrl_deposits set facts = '{"settlement.liquidTxid": "${TXID.b}"}'::jsonb`),
    ).rejects.toThrow(/settlement facts of deposit .* are recorded as .*a{64}.*; they are never replaced/);
    await expect(sql(url, `update lbrl_deposits set facts = null`)).rejects.toThrow(/never replaced/);
    await expect(sql(url, `update lbrl_deposits set facts = '{}'::jsonb`)).rejects.toThrow(/never replaced/);
    // a fact added beside the held one is no replacement
    await sql(url, `update lbrl_deposits set facts = facts || '{"confirmedAt": "${CONFIRMED_AT}"}'::jsonb`);
  });
});

/** A database as the release with schema version 2 left it, holding `steps` as it took them. */
async function previousRelease(url: string, steps: StoredRecord[][]): Promise<void> {
  const setup = [
    'create table lbrl_schema_version (version integer primary key, applied_at timestamptz not null default now())',
    MIGRATIONS[0]!,
    MIGRATIONS[1]!,
    'insert into lbrl_schema_version (version) values (1), (2)',
  ];
  await sql(url, setup.join(';\n'));
  for (const step of steps)
    await sql(url, step.map((record) => previousStatement(record, sqlLiteral)).join(';\n'));
}

/** Steps the previous release took whole: the records it logged hold every fact the upgrade finds. */
const BEFORE: StoredRecord[][] = [
  STEPS[0]!,
  [status(1, 'SETTLEMENT_CREATED', 20, { settlement: { liquidTxid: TXID.a } })],
  [finalized(1, TXID.b, 60)],
  [verified(1, TXID.a, 70)],
  [finalized(2, TXID.c, 60)],
  [verified(2, TXID.b, 70)],
  [verified(3, TXID.c, 92)],
  [unverified(4, TXID.a, 'unproven', 94)],
  [status(5, 'FAILED', 90, { settlement: null }, null)],
];

describe('a database of the previous schema version, opened by this lbrl', () => {
  it('is migrated forward once, and each deposit gets the facts its log holds', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    await previousRelease(url, BEFORE);
    // three hosts start at once: one migrates, the others find it done
    const hosts = await Promise.all([open(url), open(url), open(url)]);
    expect(await sql(url, 'select version from lbrl_schema_version order by version')).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
    );
    const file = new FileLedger(tempDir(), () => {});
    for (const step of BEFORE) await file.append(step);
    for (const host of hosts) expect(await everything(host)).toEqual(await everything(file));
    expect(await hosts[0]!.recorded(depositId(1), SERVICE)).toMatchObject({
      verifiedTxid: TXID.a,
      facts: { 'settlement.liquidTxid': TXID.a, confirmedAt: CONFIRMED_AT },
    });
    // what comes after is kept by this release's rules: a later answer naming another changes nothing
    await hosts[1]!.append([status(3, 'FINALIZED', 99, { settlement: { liquidTxid: TXID.a } })]);
    await file.append([status(3, 'FINALIZED', 99, { settlement: { liquidTxid: TXID.a } })]);
    expect(await everything(hosts[2]!)).toEqual(await everything(file));
    for (const host of hosts) await host.close();
  });
});
