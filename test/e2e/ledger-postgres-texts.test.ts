/**
 * A reference or note read from the database's rows (what `display` reads, through
 * store/coordination-db.ts) is held to the input rule as the file's lines are, and said as the
 * file's reader says it: once, counted, naming the ledger by its URL without its password.
 */
import { describe, expect, inject, it, vi } from 'vitest';
import { readLedgerSetting } from '../../src/domain/ledger-url.js';
import { openLedger } from '../../src/store/ledger.js';
import { runBin } from '../helpers/bin.js';
import { created, SERVICE } from '../helpers/ledger-contract.js';
import { freshDatabase, sql } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 60_000 });

describe("the database's rows read by the input rule", () => {
  it('says once how many rows had a reference or note cut or escaped, naming the ledger', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const setting = readLedgerSetting(url);
    if (!setting.ok) throw new Error(setting.expected);
    const said: string[] = [];
    const ledger = await openLedger(setting.value, {
      dir: tempDir(),
      warn: (line) => said.push(line),
      env: {},
    });
    // as another till, a tool or an edit could have written them
    await ledger.append([
      created(1, { ref: 'r'.repeat(150) }),
      created(2, { note: 'bell\u0007here' }),
      created(3, { ref: 'pedido 7', note: 'ok' }),
    ]);
    const entries = await ledger.entries();
    expect(entries.map((entry) => entry.ref)).toEqual(['pedido 7', undefined, `${'r'.repeat(99)}…`]);
    await ledger.entries();
    await ledger.recorded(entries[2]!.id, entries[2]!.baseUrl);
    await ledger.close();
    const shown = url.replace(/:[^:@/]+@/, ':[redacted]@');
    expect(said).toEqual([
      `warning: read 2 deposit row(s) of the ledger at ${shown} with a reference or note that breaks the input rule (over 100 or 500 characters: cut, ending in …; control or invisible characters: shown escaped)`,
    ]);
  });
});

describe("the warnings of a command reading the ledger's records through this host's copy", () => {
  it('name the ledger (its password redacted), where the line must be mended, not the copy', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const setting = readLedgerSetting(url);
    if (!setting.ok) throw new Error(setting.expected);
    const ledger = await openLedger(setting.value, { dir: tempDir(), warn: () => {}, env: {} });
    await ledger.append([created(1, { ref: 'r'.repeat(150) }), created(2)]);
    await ledger.close();
    // a line another tool or an edit damaged in the database
    await sql(url, `insert into lbrl_records (line) values ('{"v":1,"type":"created",')`);
    const dir = tempDir();
    const r = await runBin(['deposit', 'list', '--json'], {
      HOME: dir,
      LBRL_CONFIG_DIR: dir,
      LBRL_BASE_URL: SERVICE,
      LBRL_TOKEN: 'test-token-0123456789abcdef',
      LBRL_LEDGER_URL: url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    const records = `the records (lbrl_records) of the ledger at ${url.replace(/:[^:@/]+@/, ':[redacted]@')}`;
    expect(r.stderr).toContain(`warning: read 1 line(s) in ${records} with a reference or note`);
    expect(r.stderr).toMatch(
      new RegExp(
        `warning: skipped 1 damaged line\\(s\\) in ${records.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`,
      ),
    );
    expect(r.stderr).not.toContain(dir);
  });
});

describe('an empty `deposit list` on a database ledger', () => {
  it("names the ledger (its password redacted) where it looked, not this host's copy", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const password = /:([^:@/]+)@/.exec(url)![1]!;
    const dir = tempDir();
    const env = {
      HOME: dir,
      LBRL_CONFIG_DIR: dir,
      LBRL_BASE_URL: SERVICE,
      LBRL_TOKEN: 'test-token-0123456789abcdef',
      LBRL_LEDGER_URL: url,
    };
    const shown = `the ledger at ${url.replace(`:${password}@`, ':[redacted]@')}`;
    const all = await runBin(['deposit', 'list'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toBe('');
    // said first: what the list covers (deposits of profile default on <service> ...)
    expect(all.stderr.split('\n').slice(-2)).toEqual([
      `no deposits recorded for profile default in ${shown}`,
      '',
    ]);
    const some = await runBin(['deposit', 'list', '--status', 'FAILED'], env);
    expect(some.code, some.stderr).toBe(0);
    expect(some.stderr.split('\n').slice(-2)).toEqual([
      `no deposits recorded for profile default that match in ${shown}`,
      '',
    ]);
    for (const run of [all, some]) {
      expect(run.stderr).not.toContain(dir);
      expect(run.stderr).not.toContain(password);
    }
  });
});
