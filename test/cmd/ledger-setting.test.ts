/**
 * The `ledger` setting through the registry (config set/get/list, LBRL_LEDGER_URL) over a real
 * config file: checked when set, shown with its password redacted in every output, the password
 * (as written, percent-decoded, or as `password=`) never printed. No database is reached here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readLedgerSetting, shownLedgerUrl } from '../../src/domain/ledger-url.js';
import { runCli, tempDir } from '../helpers/cli.js';

const PASSWORD = 'Tr0ub4dor&3-horse';
const ENCODED = encodeURIComponent(PASSWORD);
const URL_TEXT = `postgres://till:${ENCODED}@db.example.com:5432/shop?sslmode=verify-full`;
const SHOWN = 'postgres://till:[redacted]@db.example.com:5432/shop?sslmode=verify-full';

let dir: string;
beforeEach(() => {
  dir = path.join(tempDir(), 'cfg');
});

function expectNoPassword(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(ENCODED);
    expect(text).not.toContain('Tr0ub4dor');
  }
}

describe('the ledger setting', () => {
  it('is file by default', async () => {
    const r = await runCli(['config', 'get', 'ledger'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('file\n');
    expect(r.stderr).toBe('from: default\n');
  });

  it('takes a PostgreSQL URL; set, get and list show it with the password redacted', async () => {
    const env = { LBRL_CONFIG_DIR: dir };
    const set = await runCli(['config', 'set', 'ledger', URL_TEXT], { env });
    expect(set.code).toBe(0);
    expect(set.stderr).toBe(`ledger set to ${SHOWN} (profile default)\n`);
    const file = path.join(dir, 'config.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).profiles.default.ledger).toBe(URL_TEXT);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const get = await runCli(['config', 'get', 'ledger'], { env });
    expect(get.stdout).toBe(`${SHOWN}\n`);
    const json = await runCli(['config', 'get', 'ledger', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ key: 'ledger', value: SHOWN, source: 'profile' });
    const list = await runCli(['config', 'list'], { env });
    expect(list.stdout).toContain(`ledger=${SHOWN}\n`);
    const listJson = await runCli(['config', 'list', '--json'], { env });
    expect(JSON.parse(listJson.stdout).ledger).toBe(SHOWN);
    expectNoPassword(
      set.stdout,
      set.stderr,
      get.stdout,
      get.stderr,
      json.stdout,
      list.stdout,
      listJson.stdout,
    );
  });

  it('LBRL_LEDGER_URL beats the profile, and get says so', async () => {
    const env = { LBRL_CONFIG_DIR: dir, LBRL_LEDGER_URL: `postgresql://office:${ENCODED}@10.0.0.5/ledger` };
    const r = await runCli(['config', 'get', 'ledger', '--json'], { env });
    expect(JSON.parse(r.stdout)).toEqual({
      key: 'ledger',
      value: 'postgresql://office:[redacted]@10.0.0.5/ledger',
      source: 'environment',
      detail: 'LBRL_LEDGER_URL',
    });
    expectNoPassword(r.stdout, r.stderr);
  });

  it.each([
    ['another scheme', `mysql://till:${ENCODED}@db.example.com/shop`, 'expected file, or a PostgreSQL URL'],
    ['a fallback to plain text', `postgres://till:${ENCODED}@db/shop?sslmode=prefer`, 'sslmode is one of'],
    [
      "pg's own no-verify",
      `postgres://till:${ENCODED}@db/shop?sslmode=no-verify`,
      '--insecure-skip-tls-verify',
    ],
    [
      'an unknown parameter',
      `postgres://till@db/shop?password=${ENCODED}&sslmod=require`,
      'unknown parameter "sslmod"',
    ],
    ['two path parts', `postgres://till:${ENCODED}@db/shop/x`, 'the path is one database name'],
    ['a port out of range', `postgres://till:${ENCODED}@db:70000/shop`, 'expected file, or a PostgreSQL URL'],
    ['a typo without a URL', `till:${PASSWORD}@db`, 'expected file, or a PostgreSQL URL'],
  ])('refuses %s: one line, exit 2, nothing saved, no password', async (_name, value, expected) => {
    const env = { LBRL_CONFIG_DIR: dir };
    const r = await runCli(['config', 'set', 'ledger', value], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: invalid value for ledger /);
    expect(r.stderr).toContain(expected);
    expect(r.stdout).toBe('');
    expectNoPassword(r.stderr);
    expect(fs.existsSync(path.join(dir, 'config.json'))).toBe(false);
  });

  it('a password given as password= is redacted too', async () => {
    const value = `postgres://till@db.example.com/shop?password=${ENCODED}&sslmode=require`;
    const r = await runCli(['config', 'set', 'ledger', value], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'ledger set to postgres://till@db.example.com/shop?password=[redacted]&sslmode=require (profile default)\n',
    );
  });
});

describe('reading a ledger URL', () => {
  it('decodes each part, a Unix socket directory included', () => {
    const read = readLedgerSetting('postgres://till:p%40ss%3Aword@%2Fvar%2Frun%2Fpostgresql:5433/shop');
    expect(read).toEqual({
      ok: true,
      value: {
        kind: 'postgres',
        shown: 'postgres://till:[redacted]@%2Fvar%2Frun%2Fpostgresql:5433/shop',
        url: {
          host: '/var/run/postgresql',
          port: 5433,
          user: 'till',
          password: 'p@ss:word',
          database: 'shop',
        },
      },
    });
    const byParam = readLedgerSetting('postgresql:///shop?host=/tmp&user=till&connect_timeout=5');
    expect(byParam).toMatchObject({
      ok: true,
      value: { url: { host: '/tmp', user: 'till', database: 'shop', connectTimeout: 5 } },
    });
    expect(readLedgerSetting('postgres://[::1]:5432/shop')).toMatchObject({
      ok: true,
      value: { url: { host: '::1', port: 5432 } },
    });
  });

  it('takes a user with no host after it, as libpq and psql do: the host from host= or the default', async () => {
    const text = `postgres://till:${ENCODED}@/shop?host=/run/postgresql&port=5433`;
    const shown = 'postgres://till:[redacted]@/shop?host=/run/postgresql&port=5433';
    expect(readLedgerSetting(text)).toEqual({
      ok: true,
      value: {
        kind: 'postgres',
        shown,
        url: { host: '/run/postgresql', port: 5433, user: 'till', password: PASSWORD, database: 'shop' },
      },
    });
    expect(readLedgerSetting('postgresql://till@/shop')).toEqual({
      ok: true,
      value: { kind: 'postgres', shown: 'postgresql://till@/shop', url: { user: 'till', database: 'shop' } },
    });
    expect(readLedgerSetting('postgres://till:pw@')).toMatchObject({
      ok: true,
      value: { url: { user: 'till' } },
    });
    const set = await runCli(['config', 'set', 'ledger', text], { env: { LBRL_CONFIG_DIR: dir } });
    expect([set.code, set.stderr]).toEqual([0, `ledger set to ${shown} (profile default)\n`]);
    expectNoPassword(set.stdout, set.stderr);
  });

  it('shows a password with an @ or a / in it redacted whole', () => {
    expect(shownLedgerUrl('postgres://u:a%40b%2Fc@h/d')).toBe('postgres://u:[redacted]@h/d');
    expect(shownLedgerUrl('postgres://u:a@b@h/d')).toBe('postgres://u:[redacted]@h/d');
  });
});
