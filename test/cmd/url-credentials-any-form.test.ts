/**
 * A password written into a URL is never repeated, however the URL is spelt. A URL parser reads
 * user information after `http:\\`, `https:/` or a bare `http:` just as after `http://`, so a
 * refusal that redacted only after `://` printed `http:\\till:hunter2pass@127.0.0.1` whole. A
 * ledger URL's query parameters that lbrl does not know (`sslpassword=…`, a name percent-encoded)
 * may hold a secret as much as `password=` does: their values are shown redacted too.
 */
import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../src/api/baseurl.js';
import { runSetSetting } from '../../src/commands/config.js';
import { ledgerUrlSecrets, readLedgerSetting, shownLedgerUrl } from '../../src/domain/ledger-url.js';
import { resolveTarget } from '../../src/factory/target.js';
import type { Profile } from '../../src/store/config.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';

const SECRET = 'hunter2pass';

/** the base URL forms a URL parser reads a user and password from */
const BASE_URL_FORMS = [
  `http:\\\\till:${SECRET}@127.0.0.1:8080/`,
  `http:/till:${SECRET}@127.0.0.1/`,
  `http:till:${SECRET}@127.0.0.1/`,
  `HTTPS:\\/till:${SECRET}@pay.example.com`,
  `https:///till:${SECRET}@pay.example.com`,
  `https:${SECRET}@pay.example.com`,
];

function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return String((error as Error).message);
  }
  throw new Error('not refused');
}

describe('a base URL with credentials, in a form that is not scheme://', () => {
  it.each(BASE_URL_FORMS)('%s: each form a URL parser reads does carry the password', (form) => {
    // the premise: these are credentials to a URL parser, not text lbrl could leave as it is
    const url = new URL(form);
    expect(url.username + url.password).toContain(SECRET);
  });

  it.each(BASE_URL_FORMS)('%s: LBRL_BASE_URL is refused without the password', (form) => {
    const message = refusal(() =>
      resolveTarget({
        flags: {},
        env: { LBRL_BASE_URL: form, LBRL_TOKEN: 'tok_secret_ABCDEFGHIJKLMNOP' },
        profileName: 'default',
        saved: () => ({}),
        configFile: 'config.json',
      }),
    );
    expect(message).toContain('invalid LBRL_BASE_URL');
    expect(message).toContain('[redacted]@');
    expect(message).not.toContain(SECRET);
  });

  it.each(BASE_URL_FORMS)(
    '%s: config set base-url refuses it without the password, writing nothing',
    async (form) => {
      const term = plainTerminal();
      let writes = 0;
      const r = await seenRun(term, () =>
        runSetSetting('base-url', form, {
          printer: term.printer,
          profileName: 'default',
          profileForRepair: () => ({}) as Profile,
          updateProfile: async () => {
            writes += 1;
          },
        }),
      );
      expect(r.error?.exitCode).toBe(2);
      expect(r.error?.message).not.toContain(SECRET);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(writes).toBe(0);
    },
  );

  it('text that is no URL is left as it is', () => {
    expect(withoutCredentials('error: at till@shop, see https://example.com/a@b')).toBe(
      'error: at till@shop, see https://example.com/a@b',
    );
    expect(withoutCredentials('http: nothing@here')).toBe('http: nothing@here');
  });
});

describe("a ledger URL's unknown or disguised parameters", () => {
  it.each([
    [`postgresql://till@127.0.0.1/shop?sslpassword=${SECRET}&sslmode=bogus`, 'sslpassword=[redacted]'],
    [`postgres://till@127.0.0.1/shop?sslmode=require&pasword=${SECRET}`, 'pasword=[redacted]'],
    [`postgres://till@127.0.0.1/shop?pass%77ord=${SECRET}&sslmode=bogus`, 'pass%77ord=[redacted]'],
    [`postgres://till@127.0.0.1/shop?pass%77ord=${SECRET}&sslmode=require`, 'pass%77ord=[redacted]'],
  ])('%s: shown with that value redacted', (text, shown) => {
    const read = readLedgerSetting(text);
    const said = read.ok ? read.value.kind === 'postgres' && read.value.shown : read.expected;
    expect(shownLedgerUrl(text)).toContain(shown);
    expect(shownLedgerUrl(text)).not.toContain(SECRET);
    expect(String(said)).not.toContain(SECRET);
    // and the output streams keep it out wherever else it may appear
    expect(ledgerUrlSecrets(text)).toContain(SECRET);
  });

  it('the parameters that hold no secret stay readable', () => {
    const text =
      'postgres://till@db.example.com/shop?sslmode=verify-full&application_name=till1&connect_timeout=5';
    expect(shownLedgerUrl(text)).toBe(text);
  });

  it('config set ledger refuses an unknown parameter without its value', async () => {
    const term = plainTerminal();
    const r = await seenRun(term, () =>
      runSetSetting('ledger', `postgres://till@db.example.com/shop?sslpassword=${SECRET}`, {
        printer: term.printer,
        profileName: 'default',
        profileForRepair: () => ({}) as Profile,
        updateProfile: async () => {},
      }),
    );
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('unknown parameter "sslpassword"');
    expect(r.error?.message).not.toContain(SECRET);
  });
});
