/**
 * How lbrl connects to the ledger's database: host, user, password and TLS from the URL and
 * libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGSSLMODE; a .pgpass file
 * is read by the client when no password is given).
 *
 * TLS by sslmode, with lbrl's rule: certificates are always checked (`rejectUnauthorized: true`,
 * given explicitly so that NODE_TLS_REJECT_UNAUTHORIZED=0 changes nothing) unless
 * --insecure-skip-tls-verify. `require` and `verify-full` check the chain and the host name,
 * `verify-ca` the chain alone; `disable` speaks plain text. With no sslmode, a loopback host or
 * a Unix socket is plain text and any other host is `verify-full`.
 */
import fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { isLoopbackHost } from '../api/baseurl.js';
import { type LedgerUrl, SSL_MODES, type SslMode } from '../domain/ledger-url.js';
import { invalidValue, usageError } from '../errors.js';
import { namedHostAndPort } from './pg-socket.js';

export interface ConnectionSettings {
  host: string | undefined;
  port: number | undefined;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  applicationName: string;
  connectionTimeoutMillis: number;
  ssl: false | ConnectionOptions;
}

/** Seconds to wait for the server to answer a connection, when the URL says nothing. */
const CONNECT_TIMEOUT = 10;

export function connectionSettings(
  url: LedgerUrl,
  env: Record<string, string | undefined>,
  insecureSkipTlsVerify = false,
): ConnectionSettings {
  const { host, port } = namedHostAndPort(url, env);
  return {
    host,
    port,
    user: url.user ?? (env.PGUSER || undefined),
    password: url.password ?? (env.PGPASSWORD || undefined),
    database: url.database ?? (env.PGDATABASE || undefined),
    applicationName: url.applicationName ?? 'lbrl',
    connectionTimeoutMillis: (url.connectTimeout || CONNECT_TIMEOUT) * 1000,
    ssl: tlsOptions(url, host, env, insecureSkipTlsVerify),
  };
}

function sslModeOf(url: LedgerUrl, env: Record<string, string | undefined>): SslMode | undefined {
  if (url.sslmode) return url.sslmode;
  const fromEnv = env.PGSSLMODE;
  if (fromEnv === undefined || fromEnv === '') return undefined;
  if (!(SSL_MODES as readonly string[]).includes(fromEnv))
    throw invalidValue(
      'PGSSLMODE',
      fromEnv,
      `one of ${SSL_MODES.join(', ')} (allow and prefer may fall back to plain text; to skip certificate checks, pass --insecure-skip-tls-verify)`,
    );
  return fromEnv as SslMode;
}

function readPem(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(
      `cannot read the ledger's ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
}

export function tlsOptions(
  url: LedgerUrl,
  host: string | undefined,
  env: Record<string, string | undefined>,
  insecureSkipTlsVerify: boolean,
): false | ConnectionOptions {
  const local = host === undefined || host.startsWith('/') || isLoopbackHost(host);
  const mode = sslModeOf(url, env) ?? (local ? 'disable' : 'verify-full');
  if (mode === 'disable') return false;
  const options: ConnectionOptions = { rejectUnauthorized: !insecureSkipTlsVerify };
  if (mode === 'verify-ca') options.checkServerIdentity = () => undefined;
  if (url.sslrootcert && url.sslrootcert !== 'system') options.ca = readPem(url.sslrootcert, 'sslrootcert');
  if (url.sslcert) options.cert = readPem(url.sslcert, 'sslcert');
  if (url.sslkey) options.key = readPem(url.sslkey, 'sslkey');
  return options;
}
