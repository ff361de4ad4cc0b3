/**
 * The ledger in PostgreSQL sends many records in few round trips: ledger import of 100,000
 * records and a large append are batched, never one query per record. Counted on a client that
 * answers as the server would (what the server then does is test/e2e/ledger-postgres.test.ts's).
 */

import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/store/history-records.js';
import { PostgresLedger, sqlLiteral } from '../../src/store/ledger-postgres.js';
import { created } from '../helpers/ledger-contract.js';

/** A client that takes every statement and counts the round trips. */
function countingClient() {
  const sent: string[] = [];
  const client = {
    on: () => client,
    async query(text: string, values?: unknown[]) {
      sent.push(text);
      if (text.startsWith('insert into lbrl_imported'))
        return { rows: (values![0] as Buffer[]).map((digest) => ({ digest })), rowCount: 0 };
      const statements = text.split(';\n').length;
      return statements > 1
        ? Array.from({ length: statements }, () => ({ rows: [], rowCount: 1 }))
        : { rows: [], rowCount: 1 };
    },
  };
  return { client: client as unknown as pg.Client, sent };
}

describe('the ledger in PostgreSQL, in round trips', () => {
  it('ledger import of 100,000 records: a few hundred round trips, not one per record', async () => {
    const { client, sent } = countingClient();
    const ledger = new PostgresLedger(client, 'postgres://lbrl:[redacted]@db.example/shop');
    function* records(): Generator<StoredRecord> {
      for (let n = 1; n <= 100_000; n++) yield created(n);
    }
    expect(await ledger.importRecords(records())).toEqual({ met: 100_000, fresh: 100_000 });
    expect(sent.length).toBeLessThan(300);
    // every record's statement went to the server
    expect(sent.join('\n').match(/insert into lbrl_deposits/g)).toHaveLength(100_000);
    // 100,000 statements written and counted: seconds on a loaded machine
  }, 120_000);

  it('an append of 1,000 records is one round trip besides its transaction', async () => {
    const { client, sent } = countingClient();
    const ledger = new PostgresLedger(client, 'postgres://lbrl:[redacted]@db.example/shop');
    await ledger.append(Array.from({ length: 1000 }, (_, i) => created(i + 1)));
    expect(sent.map((text) => text.split(' ')[0])).toEqual(['begin', 'select', 'with', 'commit']);
  });
});

describe('a value as an SQL literal', () => {
  it("is what the client's own escapeLiteral writes, for any text", () => {
    const clientEscaped = (value: string) => pg.Client.prototype.escapeLiteral.call({}, value);
    for (const value of ["it's", 'back\\slash', "\\'; drop table lbrl_deposits; --", '', "''\\\\"])
      expect(sqlLiteral(value)).toBe(clientEscaped(value));
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("'", '\\', 'a', 'E', ' ', ';', 'ç') }), (value) => {
        expect(sqlLiteral(value)).toBe(clientEscaped(value));
      }),
    );
  });
});
