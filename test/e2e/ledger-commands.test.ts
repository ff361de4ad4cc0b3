/**
 * `lbrl ledger status|import|export` run as a user runs them (the built program), on the test
 * run's real PostgreSQL server (test/postgres-setup.ts) and on the file history; and the faults:
 * a server that is down, a refused password, a connection dropped mid-command, a certificate
 * that does not check out. Each fault is one line on stderr and exit 6; the password is never
 * in any output.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { type StoredRecord, statusRecord } from '../../src/store/history-records.js';
import { SCHEMA_VERSION } from '../../src/store/ledger-schema.js';
import { runBin } from '../helpers/bin.js';
import { created, depositId } from '../helpers/ledger-contract.js';
import { freePort, freshDatabase, sql } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

// several runs of lbrl and round trips to the server per test, on a machine that may be busy
vi.setConfig({ testTimeout: 60_000 });

const TLS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/tls');

/** A config directory whose history holds these records, written as lbrl writes them. */
function configWith(records: StoredRecord[]): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), records.map((r) => `${JSON.stringify(r)}\n`).join(''), {
    mode: 0o600,
  });
  return dir;
}

const password = () => decodeURIComponent(new URL(inject('postgresUrl')).password);
const shown = (url: string) => url.replace(/^(postgres:\/\/[^:]+:)[^@]+@/, '$1[redacted]@');

function expectNoPassword(...texts: string[]): void {
  for (const text of texts) expect(text).not.toContain(password());
}

const RECORDS: StoredRecord[] = [
  created(1),
  created(2, { profile: 'till-2' }),
  statusRecord(depositId(1), 'PIX_CONFIRMED', Date.parse('2026-11-20T12:00:30.000Z')),
];

describe('ledger status, import and export', () => {
  it('on the file history: the store, its path, no schema version, its deposits', async () => {
    const dir = configWith(RECORDS);
    const r = await runBin(['ledger', 'status', '--json'], { LBRL_CONFIG_DIR: dir });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      store: 'file',
      where: path.join(dir, 'history.ndjson'),
      schemaVersion: null,
      deposits: 2,
    });
    const imported = await runBin(['ledger', 'import'], { LBRL_CONFIG_DIR: dir });
    expect(imported.code).toBe(2);
    expect(imported.stderr).toMatch(
      /^error: the ledger is the file history already: set the ledger to a database first/,
    );
  });

  it('moves a file history into PostgreSQL once however often it is imported, and back out byte for byte', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const dir = configWith(RECORDS);
    const env = { LBRL_CONFIG_DIR: dir, LBRL_LEDGER_URL: url };
    const before = await runBin(['ledger', 'status'], env);
    expect(before.stdout).toBe(
      `Store     PostgreSQL\nWhere     ${shown(url)}\nSchema    ${SCHEMA_VERSION}\nDeposits  0\n`,
    );
    const first = await runBin(['ledger', 'import'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(
      `imported 3 new record(s) of 3 from ${path.join(dir, 'history.ndjson')} into ${shown(url)}; it holds 2 deposit(s)\n`,
    );
    const again = await runBin(['ledger', 'import', '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ records: 3, imported: 0, deposits: 2 });
    const status = await runBin(['ledger', 'status', '--json'], env);
    expect(JSON.parse(status.stdout)).toEqual({
      store: 'postgres',
      where: shown(url),
      schemaVersion: SCHEMA_VERSION,
      deposits: 2,
    });
    const exported = await runBin(['ledger', 'export'], env);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(fs.readFileSync(path.join(dir, 'history.ndjson'), 'utf8'));
    // the export is a file history another machine reads
    const elsewhere = tempDir();
    fs.writeFileSync(path.join(elsewhere, 'history.ndjson'), exported.stdout);
    const read = await runBin(['ledger', 'status', '--json'], { LBRL_CONFIG_DIR: elsewhere });
    expect(JSON.parse(read.stdout)).toMatchObject({ store: 'file', deposits: 2 });
    expectNoPassword(before.stdout, first.stderr, again.stdout, status.stdout, exported.stdout);
  });

  it('a file history that grew since is imported for what is new', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const dir = configWith(RECORDS);
    const env = { LBRL_CONFIG_DIR: dir, LBRL_LEDGER_URL: url };
    expect((await runBin(['ledger', 'import'], env)).code).toBe(0);
    fs.appendFileSync(path.join(dir, 'history.ndjson'), `${JSON.stringify(created(3))}\n`);
    const more = await runBin(['ledger', 'import', '--json'], env);
    expect(JSON.parse(more.stdout)).toMatchObject({ records: 4, imported: 1, deposits: 3 });
  });
});

describe("libpq's conventions", () => {
  it('a Unix socket host, PGPASSWORD, a .pgpass file', async () => {
    const url = new URL(await freshDatabase(inject('postgresUrl')));
    const database = url.pathname.slice(1);
    const socket = `postgres://lbrl@${encodeURIComponent(inject('postgresSocketDir'))}:${url.port}/${database}`;
    const status = async (ledgerUrl: string, extra: Record<string, string> = {}) =>
      runBin(['ledger', 'status', '--json'], {
        LBRL_CONFIG_DIR: tempDir(),
        LBRL_LEDGER_URL: ledgerUrl,
        ...extra,
      });
    const bySocket = await status(socket, { PGPASSWORD: password() });
    expect(JSON.parse(bySocket.stdout)).toMatchObject({
      store: 'postgres',
      where: socket,
      schemaVersion: SCHEMA_VERSION,
    });
    const home = tempDir();
    fs.writeFileSync(path.join(home, '.pgpass'), `127.0.0.1:${url.port}:${database}:lbrl:${password()}\n`, {
      mode: 0o600,
    });
    const byPgpass = await status(`postgres://lbrl@127.0.0.1:${url.port}/${database}`, { HOME: home });
    expect(byPgpass.code).toBe(0);
    expectNoPassword(bySocket.stdout, bySocket.stderr, byPgpass.stdout, byPgpass.stderr);
  });
});

describe('ledger faults: one line, exit 6, no password, nothing half-written', () => {
  it.each([
    ['a host that does not exist', 'db.invalid:5432/shop', 'no such host'],
    [
      'a socket directory with no server',
      `${encodeURIComponent('/nonexistent-dir')}/shop`,
      'no server socket there',
    ],
  ])('%s', async (_name, rest, reason) => {
    const url = `postgres://lbrl:Secret-Ledger-Password@${rest}`;
    const r = await runBin(['ledger', 'status'], { LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: url });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(`error: cannot reach the ledger at ${shown(url)}: ${reason}\n`);
  });

  it('a database that does not exist', async () => {
    const url = new URL(inject('postgresUrl'));
    url.pathname = '/no_such_database';
    const r = await runBin(['ledger', 'status'], {
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_LEDGER_URL: url.toString(),
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(
      `error: the ledger at ${shown(url.toString())} cannot be used: database "no_such_database" does not exist\n`,
    );
  });

  it('a ledger URL damaged by hand in the config file: refused as it is read, its password not shown', async () => {
    const dir = tempDir();
    const damaged = 'postgres://till:Secret-Ledger-Password@db.example.com/shop?sslmode=allow';
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { default: { ledger: damaged } } }),
    );
    const r = await runBin(['ledger', 'status'], { LBRL_CONFIG_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: invalid ledger in the config "postgres:\/\/till:\[redacted\]@db\.example\.com\/shop\?sslmode=allow": expected .*sslmode is one of/m,
    );
    expect(r.stderr).not.toContain('Secret-Ledger-Password');
  });

  it('a server that is down', async () => {
    const port = await freePort();
    const url = `postgres://lbrl:${encodeURIComponent(password())}@127.0.0.1:${port}/shop`;
    const r = await runBin(['ledger', 'status'], { LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: url });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: cannot reach the ledger at ${shown(url)}: connection refused\n`);
    expectNoPassword(r.stderr);
  });

  it('a password the server refuses (and the wrong one is not printed either)', async () => {
    const url = new URL(inject('postgresUrl'));
    url.password = 'Wrong-Password-4711';
    const r = await runBin(['ledger', 'status', '--json'], {
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_LEDGER_URL: url.toString(),
    });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    const error = JSON.parse(r.stderr).error;
    expect(error).toEqual({
      type: 'network',
      exitCode: 6,
      message: `the ledger at ${shown(url.toString())} refused the credentials: password authentication failed for user "lbrl"`,
    });
    expect(r.stderr).not.toContain('Wrong-Password-4711');
  });

  it('a connection dropped in the middle of an import: nothing of it is kept, and running it again completes it', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const records: StoredRecord[] = [];
    for (let n = 1; n <= 20_000; n++) records.push(created(n));
    const dir = configWith(records);
    const env = { LBRL_CONFIG_DIR: dir, LBRL_LEDGER_URL: url };
    const database = new URL(url).pathname.slice(1);
    const running = runBin(['ledger', 'import'], env);
    let killed = 0;
    for (let tries = 0; tries < 400 && killed === 0; tries++) {
      const rows = await sql<{ killed: boolean }>(
        inject('postgresUrl'),
        `select pg_terminate_backend(pid) as killed from pg_stat_activity
         where datname = $1 and application_name = 'lbrl' and xact_start is not null
           and (query like 'insert into lbrl_imported%' or query like 'with applied as%')`,
        [database],
      );
      killed = rows.filter((row) => row.killed).length;
    }
    const r = await running;
    expect(killed).toBe(1);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(
      /^error: the connection to the ledger at postgres:\/\/lbrl:\[redacted\]@127\.0\.0\.1:\d+\/\w+ was lost \([^\n]*\); what this command was writing was not recorded\n$/,
    );
    expect(await sql(url, 'select count(*)::int as n from lbrl_deposits')).toEqual([{ n: 0 }]);
    expect(await sql(url, 'select count(*)::int as n from lbrl_imported')).toEqual([{ n: 0 }]);
    const again = await runBin(['ledger', 'import', '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ records: 20_000, imported: 20_000, deposits: 20_000 });
  }, 90_000);
});

describe('TLS to the ledger', () => {
  /** A server that answers PostgreSQL's SSLRequest with S and then speaks TLS with a self-signed certificate. */
  const servers: net.Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });
  async function tlsServer(): Promise<number> {
    const key = fs.readFileSync(path.join(TLS_DIR, 'key.pem'));
    const cert = fs.readFileSync(path.join(TLS_DIR, 'cert.pem'));
    const server = net.createServer((socket) => {
      socket.once('data', () => {
        socket.write('S');
        const secure = new tls.TLSSocket(socket, { isServer: true, key, cert });
        secure.on('error', () => {});
        // the handshake done, the server hangs up: the client says the connection ended
        secure.once('secure', () => secure.destroy());
      });
      socket.on('error', () => {});
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  }

  it('checks the certificate under sslmode=require, even with NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
    const port = await tlsServer();
    const url = `postgres://till:Secret-Till-Password@127.0.0.1:${port}/shop?sslmode=require`;
    for (const extra of [{}, { NODE_TLS_REJECT_UNAUTHORIZED: '0' }] as Record<string, string>[]) {
      const r = await runBin(['ledger', 'status'], {
        LBRL_CONFIG_DIR: tempDir(),
        LBRL_LEDGER_URL: url,
        ...extra,
      });
      expect(r.code).toBe(6);
      // (Node itself warns of the variable on stderr first)
      expect(
        r.stderr.replace(
          /^\(node:\d+\) Warning: Setting the NODE_TLS_REJECT_UNAUTHORIZED[^\n]*\n(\(Use[^\n]*\n)?/,
          '',
        ),
      ).toMatch(
        /^error: cannot reach the ledger at postgres:\/\/till:\[redacted\]@127\.0\.0\.1:\d+\/shop\?sslmode=require: self[- ]signed certificate/,
      );
      expect(r.stderr).not.toContain('Secret-Till-Password');
    }
    // the certificate's own CA given: the handshake passes (and this server then hangs up)
    const trusted = `${url}&sslrootcert=${encodeURIComponent(path.join(TLS_DIR, 'cert.pem'))}`;
    const r = await runBin(['ledger', 'status'], { LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: trusted });
    expect(r.code).toBe(6);
    expect(r.stderr).not.toMatch(/certificate/);
    // only --insecure-skip-tls-verify skips the check, and says so
    const insecure = await runBin(['ledger', 'status', '--insecure-skip-tls-verify'], {
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_LEDGER_URL: url,
    });
    expect(insecure.stderr).toMatch(/^warning: TLS certificate checks are OFF/);
    expect(insecure.stderr).not.toMatch(/certificate$/m);
  });

  it('refuses to go on in plain text when sslmode asks for TLS and the server has none', async () => {
    const url = new URL(inject('postgresUrl'));
    url.searchParams.set('sslmode', 'require');
    const r = await runBin(['ledger', 'status'], {
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_LEDGER_URL: url.toString(),
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/: the server does not support SSL connections\n$/i);
  });
});
