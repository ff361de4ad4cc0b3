/**
 * A throw-away PostgreSQL cluster for the tests that need a real server: made with `initdb` in a
 * temporary directory, started with `pg_ctl` on a free loopback port (and a Unix socket in the
 * same directory), password authentication (scram-sha-256) for the user `lbrl`. The server refuses
 * to run as root: as root, the directory is given to the `postgres` user and the programs run
 * through `runuser -u postgres --`.
 *
 * `test/e2e/postgres-setup.ts` starts one per test run and hands its URL to the files
 * (`inject('postgresUrl')`); each file makes its own database there (`freshDatabase`).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Where Debian's package puts the programs (not on PATH); PG_BIN to use others. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin/initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql; or set PG_BIN)');
  return path.join(root, versions[0]!, 'bin');
}

export interface Cluster {
  /** postgres://lbrl:<password>@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  password: string;
  /** the directory of the Unix socket */
  socketDir: string;
  dataDir: string;
  stop(): void;
  /** stop as a crash does (pg_ctl -m immediate) */
  crash(): void;
  /** start again after stop or crash, on the same port */
  start(): void;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL program as the user the server accepts. */
function runAsServer(program: string, args: string[]): string {
  const file = path.join(postgresBin(), program);
  const [command, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(command, argv, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startCluster(): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-pg-'));
  const dataDir = path.join(dir, 'data');
  const password = crypto.randomBytes(18).toString('base64url');
  const pwfile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (isRoot()) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  runAsServer('initdb', [
    '-D',
    dataDir,
    '-U',
    'lbrl',
    '--auth=scram-sha-256',
    '--pwfile',
    pwfile,
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () =>
    runAsServer('pg_ctl', [
      '-D',
      dataDir,
      '-w',
      '-t',
      '60',
      '-l',
      path.join(dir, 'log'),
      '-o',
      options,
      'start',
    ]);
  start();
  const stopWith = (mode: string) => () => {
    try {
      runAsServer('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
    } catch {
      // already stopped
    }
  };
  return {
    url: `postgres://lbrl:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    password,
    socketDir: dir,
    dataDir,
    start,
    crash: stopWith('immediate'),
    stop: () => {
      stopWith('fast')();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The cluster's URL with another database (and, when given, other credentials) in it. */
export function databaseUrl(
  clusterUrl: string,
  database: string,
  user?: { name: string; password: string },
): string {
  const url = new URL(clusterUrl);
  url.pathname = `/${database}`;
  if (user) {
    url.username = encodeURIComponent(user.name);
    url.password = encodeURIComponent(user.password);
  }
  return url.toString();
}

let databases = 0;

/** A new, empty database on the cluster at `clusterUrl`; its URL. */
export async function freshDatabase(clusterUrl: string): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `lbrl_${process.pid}_${Date.now().toString(36)}_${databases++}`;
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(clusterUrl, name);
}

/** Runs SQL on the database at `url` as the cluster's superuser (what lbrl would never do). */
export async function sql<T extends Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
