/**
 * The throw-away PostgreSQL server of the end-to-end tier (test/postgres-setup.ts): it runs, on
 * loopback, with password authentication, and its Unix socket answers too.
 */
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';

describe('the test run’s PostgreSQL server', () => {
  it('answers on loopback with the password, and refuses a wrong one', async () => {
    const url = new URL(inject('postgresUrl'));
    expect(url.hostname).toBe('127.0.0.1');
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    const { rows } = await client.query<{ version: string }>('select version()');
    await client.end();
    expect(rows[0]!.version).toMatch(/^PostgreSQL 1[5-9]/);
    url.password = 'wrong';
    const refused = new pg.Client({ connectionString: url.toString() });
    await expect(refused.connect()).rejects.toThrow(/password authentication failed/);
  });

  it('answers on its Unix socket', async () => {
    const url = new URL(inject('postgresUrl'));
    const client = new pg.Client({
      host: inject('postgresSocketDir'),
      port: Number(url.port),
      user: 'lbrl',
      password: decodeURIComponent(url.password),
      database: 'postgres',
    });
    await client.connect();
    const { rows } = await client.query<{ one: number }>('select 1 as one');
    await client.end();
    expect(rows[0]!.one).toBe(1);
  });
});
