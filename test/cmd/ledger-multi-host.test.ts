/**
 * libpq's multi-host URLs (`h1:5432,h2:5432`, `?host=h1,h2`) name several servers to try in
 * turn; pg, lbrl's client, cannot follow them. Such a URL is refused as it is read, in one line
 * that says so (not the generic "expected a PostgreSQL URL"), its password never shown, and no
 * command goes on with it: exit 2, nothing connected.
 */
import { describe, expect, it } from 'vitest';
import { readLedgerSetting } from '../../src/domain/ledger-url.js';
import { runCli, tempDir } from '../helpers/cli.js';

const NOT_SUPPORTED =
  'multi-host URLs (several hosts or ports, h1:5432,h2:5432 or host=h1,h2) are not supported: give one host and port';

describe('a multi-host ledger URL', () => {
  it.each([
    'postgres://till:pw@h1:5432,h2:5432/shop',
    'postgres://till:pw@h1,h2/shop',
    'postgresql://h1:5432,h2/shop',
    'postgres://till@/shop?host=h1,h2',
    'postgres://till@/shop?host=/run/a,/run/b',
    'postgres://till@db/shop?port=5432,5433',
    'postgres://till@h1%2Ch2/shop',
    'postgres://till@/shop?sslmode=require&host=h1%2ch2',
  ])('%s is refused, saying multi-host URLs are not supported', (text) => {
    const read = readLedgerSetting(text);
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.expected).toMatch(new RegExp(`; ${NOT_SUPPORTED.replace(/[()]/g, '\\$&')}$`));
  });

  it.each([
    'postgres://till:pa,ss@db.example.com:5432/shop',
    'postgres://till@db/shop?application_name=a,b',
    'postgres://till@db/sh,op',
  ])('%s (a comma elsewhere) is one host, read as before', (text) => {
    expect(readLedgerSetting(text).ok).toBe(true);
  });

  it('ends a command before anything is read or sent: one line, exit 2, the password not in it (a URL the parser cannot read is shown [redacted] whole)', async () => {
    const dir = tempDir();
    const r = await runCli(['deposit', 'list'], {
      env: {
        LBRL_CONFIG_DIR: dir,
        LBRL_LEDGER_URL: 'postgres://till:Sup3r-secret@h1:5432,h2:5432/shop',
        LBRL_BASE_URL: 'https://deposit.example.com',
        LBRL_TOKEN: 'test-token-0123456789abcdef',
      },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: invalid LBRL_LEDGER_URL "[redacted]": expected file, or a PostgreSQL URL: postgres://user:password@host:port/database (libpq form; postgresql:// too); ${NOT_SUPPORTED}\n`,
    );
    expect(r.stderr).not.toContain('Sup3r');
  });

  it.each([
    ['PGHOST', 'h1,h2', 'postgres://till:Sup3r-secret@/shop', 'host'],
    ['PGPORT', '5432,5433', 'postgres://till:Sup3r-secret@db.example.com/shop', 'port'],
  ])(
    'a list in %s (%s) is refused too, not read as one host or the default port',
    async (name, value, url, what) => {
      const r = await runCli(['deposit', 'list'], {
        env: {
          LBRL_CONFIG_DIR: tempDir(),
          LBRL_LEDGER_URL: url,
          [name]: value,
          LBRL_BASE_URL: 'https://deposit.example.com',
          LBRL_TOKEN: 'test-token-0123456789abcdef',
        },
      });
      expect(r).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `error: invalid ${name} "${value}": expected one ${what} (multi-host lists are not supported)\n`,
      });
    },
  );
});
