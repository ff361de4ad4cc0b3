/**
 * The `ledger` setting: `file` (the history in the config directory) or a PostgreSQL URL in
 * libpq's form, `postgres://user:password@host:port/database?sslmode=...`. Pure: the URL is read
 * and checked here; connecting is the store's (store/ledger-postgres.ts).
 *
 * The password is a secret like the token: `shownLedgerUrl` is the only form of the URL any
 * message or output may carry, and `ledgerUrlSecrets` is what the output streams keep out.
 */
import type { Parsed } from './money.js';

/** libpq's sslmode values lbrl takes. `allow` and `prefer` fall back to plain text: refused. */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** A PostgreSQL URL as read: each part decoded; what the URL does not say is left undefined. */
export interface LedgerUrl {
  /** a host name or address, or a directory holding the server's Unix socket (it starts with /) */
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  sslmode?: SslMode;
  sslrootcert?: string;
  sslcert?: string;
  sslkey?: string;
  applicationName?: string;
  /** seconds */
  connectTimeout?: number;
}

export type LedgerSetting = { kind: 'file' } | { kind: 'postgres'; url: LedgerUrl; shown: string };

export const LEDGER_EXPECTED =
  'file, or a PostgreSQL URL: postgres://user:password@host:port/database (libpq form; postgresql:// too)';

/** The query parameters lbrl understands (libpq's names); any other is refused, as libpq does. */
const PARAMS = [
  'host',
  'port',
  'user',
  'password',
  'dbname',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'application_name',
  'connect_timeout',
] as const;

function isPostgresScheme(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** Stands for the host a URL leaves empty after its user (`user:password@/db?host=/socket/dir`). */
const NO_HOST = 'no-host.invalid';

/**
 * The URL as a URL parser reads it. libpq (and psql) take a user with no host after it,
 * `postgres://user:password@/shop?host=/run/postgresql` (the host then comes from `host=`, the
 * environment or the default socket); the WHATWG parser refuses an empty host there, so it reads
 * such a URL with a stand-in host, which `hostless` says to drop.
 */
function parseUrl(text: string): { url: URL; hostless: boolean } | undefined {
  try {
    return { url: new URL(text), hostless: false };
  } catch {
    const userOnly = /^postgres(?:ql)?:\/\/[^/?#]*@(?=[/?#]|$)/i.exec(text);
    if (!userOnly) return undefined;
    try {
      const withHost = `${userOnly[0]}${NO_HOST}${text.slice(userOnly[0].length)}`;
      return { url: new URL(withHost), hostless: true };
    } catch {
      return undefined;
    }
  }
}

/** `file`, or a PostgreSQL URL checked part by part; the message never holds the password. */
export function readLedgerSetting(text: string): Parsed<LedgerSetting> {
  if (text === 'file') return { ok: true, value: { kind: 'file' } };
  if (!isPostgresScheme(text)) return { ok: false, expected: LEDGER_EXPECTED };
  const fail = (what: string): Parsed<LedgerSetting> => ({
    ok: false,
    expected: `${LEDGER_EXPECTED}; ${what}`,
  });
  // before the URL parser, which refuses `h1:5432,h2:5432` with no reason lbrl could give
  if (namesSeveralHosts(text)) return fail(SEVERAL_HOSTS);
  const parsed = parseUrl(text);
  if (!parsed) return { ok: false, expected: LEDGER_EXPECTED };
  const { url } = parsed;
  if (url.hash) return fail('it has a #fragment');
  const read = readParts(url, parsed.hostless);
  if (!read.ok) return fail(read.expected);
  return { ok: true, value: { kind: 'postgres', url: read.value, shown: shownLedgerUrl(text) } };
}

/** libpq's multi-host form (`h1:5432,h2:5432`, `host=h1,h2`), which pg, lbrl's client, cannot follow. */
const SEVERAL_HOSTS =
  'multi-host URLs (several hosts or ports, h1:5432,h2:5432 or host=h1,h2) are not supported: give one host and port';
/** The same refusal, for a list in PGHOST or PGPORT. */
export const MULTI_HOST_REFUSAL = 'multi-host lists are not supported';

/** Whether the URL's authority, or its host= or port= parameter, lists several (a comma: libpq's separator). */
function namesSeveralHosts(text: string): boolean {
  const schemeEnd = text.indexOf('//') + 2;
  const authority = text.slice(schemeEnd, authorityEnd(text, schemeEnd));
  const hostPart = authority.slice(authority.lastIndexOf('@') + 1);
  if (hostPart.includes(',') || /%2c/i.test(hostPart)) return true;
  const query = text.indexOf('?');
  if (query < 0) return false;
  return text
    .slice(query + 1)
    .split(/[&#]/)
    .some((pair) => /^(host|port)=/.test(pair) && /,|%2c/i.test(pair));
}

function decoded(part: string): string | undefined {
  if (part === '') return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

function readParts(url: URL, hostless: boolean): Parsed<LedgerUrl> {
  const out: LedgerUrl = {};
  const host = hostless ? undefined : decoded(url.hostname);
  if (host !== undefined) out.host = host.startsWith('[') ? host.slice(1, -1) : host;
  if (url.port) out.port = Number(url.port);
  const user = decoded(url.username);
  if (user !== undefined) out.user = user;
  const password = decoded(url.password);
  if (password !== undefined) out.password = password;
  const path = url.pathname.replace(/^\//, '');
  if (path.includes('/')) return { ok: false, expected: 'the path is one database name' };
  const database = decoded(path);
  if (database !== undefined) out.database = database;
  for (const [name, value] of url.searchParams) {
    const problem = readParam(out, name, value);
    if (problem) return { ok: false, expected: problem };
  }
  if (out.port !== undefined && (out.port < 1 || out.port > 65535))
    return { ok: false, expected: 'a port from 1 to 65535' };
  return { ok: true, value: out };
}

/** Sets one query parameter on `out`; returns what was wrong with it, if anything. */
function readParam(out: LedgerUrl, name: string, value: string): string | undefined {
  if (!(PARAMS as readonly string[]).includes(name))
    return `unknown parameter ${JSON.stringify(name.slice(0, 40))} (lbrl reads ${PARAMS.join(', ')})`;
  switch (name) {
    case 'sslmode':
      if (!(SSL_MODES as readonly string[]).includes(value))
        return `sslmode is one of ${SSL_MODES.join(', ')} (allow and prefer may fall back to plain text; to skip certificate checks, pass --insecure-skip-tls-verify)`;
      out.sslmode = value as SslMode;
      return undefined;
    case 'port':
      if (!/^\d{1,5}$/.test(value)) return 'a port from 1 to 65535';
      out.port = Number(value);
      return undefined;
    case 'connect_timeout':
      if (!/^\d{1,4}$/.test(value)) return 'connect_timeout is a whole number of seconds';
      out.connectTimeout = Number(value);
      return undefined;
    case 'host':
      out.host = value;
      return undefined;
    case 'user':
      out.user = value;
      return undefined;
    case 'password':
      out.password = value;
      return undefined;
    case 'dbname':
      out.database = value;
      return undefined;
    case 'application_name':
      out.applicationName = value;
      return undefined;
    default:
      out[name as 'sslrootcert' | 'sslcert' | 'sslkey'] = value;
      return undefined;
  }
}

/**
 * The URL as lbrl shows it: the password (in the authority or as `password=`) replaced by
 * `[redacted]`, the rest as given. Text that is not a URL at all is shown as `[redacted]` entire
 * when it holds an `@`, a `:` or `password` (it may be a mistyped URL with a password in it).
 */
export function shownLedgerUrl(text: string): string {
  const hidden = /[@:]|password/i.test(text) ? '[redacted]' : text;
  // without scheme://, `user:password@host` would read as a scheme and a path
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return hidden;
  const url = parseUrl(text)?.url;
  if (!url) return hidden;
  let shown = text;
  if (url.password !== '') {
    const schemeEnd = text.indexOf('//') + 2;
    const at = text.lastIndexOf('@', authorityEnd(text, schemeEnd));
    const colon = text.indexOf(':', schemeEnd);
    if (at > colon && colon !== -1) shown = `${text.slice(0, colon + 1)}[redacted]${text.slice(at)}`;
  }
  return withQueryValuesHidden(shown);
}

/** The query parameters whose values are shown: none of them is a secret (libpq's `password`, `sslpassword` are). */
const SHOWN_PARAMS: ReadonlySet<string> = new Set(PARAMS.filter((name) => name !== 'password'));

/**
 * The query's values replaced by `[redacted]`, except those of the parameters known to hold no
 * secret, each name read as a URL parser reads it (`pass%77ord` is `password`): an unknown
 * parameter (`sslpassword`, a misspelt `pasword`) may hold one.
 */
function withQueryValuesHidden(text: string): string {
  const query = text.indexOf('?');
  if (query < 0) return text;
  const hash = text.indexOf('#', query);
  const end = hash < 0 ? text.length : hash;
  const pairs = text
    .slice(query + 1, end)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const name = decoded(pair.slice(0, equals).replace(/\+/g, ' '));
      return name !== undefined && SHOWN_PARAMS.has(name) ? pair : `${pair.slice(0, equals)}=[redacted]`;
    });
  return `${text.slice(0, query + 1)}${pairs.join('&')}${text.slice(end)}`;
}

function authorityEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && !'/?#'.includes(text[end]!)) end++;
  return end;
}

/** What of a ledger URL to keep out of every output: its password as written and decoded. */
export function ledgerUrlSecrets(text: string | undefined): string[] {
  if (typeof text !== 'string' || !isPostgresScheme(text)) return [];
  const out: string[] = [];
  try {
    const url = parseUrl(text)?.url;
    if (!url) throw new Error('not a URL');
    if (url.password) out.push(url.password, decoded(url.password) ?? url.password);
    const param = url.searchParams.get('password');
    if (param) out.push(param);
    // an unknown parameter's value (sslpassword=…) is shown by no message, nor let through
    for (const [name, value] of url.searchParams)
      if (!SHOWN_PARAMS.has(name) && name !== 'password' && value.length >= 4) out.push(value);
  } catch {
    // not a URL: whatever stands between the scheme's // and the last @ may be a password
    const match = /^[a-z]+:\/\/[^@/]*?:([^/]*)@/i.exec(text);
    if (match?.[1]) out.push(match[1]);
  }
  return [...new Set(out)];
}
