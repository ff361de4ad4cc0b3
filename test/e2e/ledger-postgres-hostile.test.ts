/**
 * The ledger in PostgreSQL attacked live, on a real server: rows no lbrl wrote inserted directly
 * into its log (lines that are not JSON, of another shape, huge, with control characters, a status
 * moved back, another service's), a server that is gone or stops, and a password that must appear
 * in no error, in any form (the human line, --json, --verbose). What a user sees is asserted: one
 * clear line, the documented exit code (6: the database unreachable), never a stack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { type BinResult, runBin } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { type Cluster, databaseUrl, freshDatabase, sql, startCluster } from '../helpers/postgres.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 120_000 });

const SERVICE = 'https://deposit.example.com';
const ID = '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';

function env(url: string, dir = tempDir()): Record<string, string> {
  return {
    HOME: dir,
    LBRL_CONFIG_DIR: dir,
    LBRL_BASE_URL: SERVICE,
    LBRL_TOKEN: 'test-token-0123456789abcdef',
    LBRL_LEDGER_URL: url,
    TZ: 'UTC',
  };
}

/** One line, no stack, no escape character, nothing of the password in any form. */
function said(r: BinResult, password: string): void {
  const all = r.stdout + r.stderr;
  expect(all).not.toMatch(/\n\s+at /);
  expect(all).not.toContain('\u001b');
  for (const form of [password, encodeURIComponent(password), Buffer.from(password).toString('base64')])
    expect(all, form).not.toContain(form);
}

const created = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    v: 1,
    type: 'created',
    id,
    profile: 'default',
    baseUrl: SERVICE,
    at: '2026-11-20T12:00:00.000Z',
    amountInCents: 1500,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    ...extra,
  });

describe('hostile rows in the log', () => {
  it('list, report and export read them, or say which line is wrong: no stack, no escape acted on', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const password = new URL(url).password;
    const dir = tempDir();
    const first = await runBin(['deposit', 'list', '--json'], env(url, dir));
    expect(first.code, first.stderr).toBe(0);
    const hostile = [
      'not json at all',
      '{"v":1,"type":"created"}',
      created(ID, { ref: `\u001b]52;c;ZWNobyBwd25lZA==\u0007 ${'x'.repeat(10)}` }),
      created('4f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', { note: 'y'.repeat(2_000_000) }),
      created('5f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', { amountInCents: '1e400' }),
      JSON.stringify({
        v: 1,
        type: 'status',
        id: ID,
        baseUrl: SERVICE,
        status: 'FINALIZED',
        at: '2026-11-20T12:05:00.000Z',
      }),
      JSON.stringify({
        v: 1,
        type: 'status',
        id: ID,
        baseUrl: SERVICE,
        status: 'WAITING_PAYMENT',
        at: '2026-11-20T12:06:00.000Z',
      }),
      created('6f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', { baseUrl: 'https://other.example.com' }),
      '{"v":1,"type":"created","id":{"toString":1}}',
      '[1,2,3]',
      'null',
    ];
    for (const line of hostile) await sql(url, 'insert into lbrl_records (line) values ($1)', [line]);
    for (const args of [
      ['deposit', 'list'],
      ['deposit', 'list', '--json'],
      ['deposit', 'report'],
      ['deposit', 'report', '--json'],
    ]) {
      const r = await runBin(args, env(url, dir));
      said(r, password);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      // what was skipped is said, naming the ledger (its password redacted), not only a file of this host's
      expect(r.stderr).toMatch(
        /warning: skipped 7 damaged line\(s\) in the records \(lbrl_records\) of the ledger at postgres:\/\/lbrl:\[redacted\]@[^ ]+/,
      );
      expect(r.stderr).toContain('with a reference or note that breaks the input rule');
      // the status moved back in the log is not believed: FINALIZED was seen, and stays
      if (args.join(' ') === 'deposit list --json') {
        const listed = JSON.parse(r.stdout) as Array<{ id: string; status: string; ref?: string }>;
        expect(listed.map((d) => [d.id, d.status])).toEqual([[ID, 'FINALIZED']]);
      }
      if (args.join(' ') === 'deposit list') expect(r.stdout).toContain('\\x1b]52;c;');
    }
  });
});

describe('a database that is gone, or stops', () => {
  let cluster: Cluster | undefined;
  afterAll(() => cluster?.stop());

  it('a wrong password, a server stopped: exit 6, one line, the password nowhere', async () => {
    cluster = await startCluster();
    const url = await freshDatabase(cluster.url);
    const good = new URL(url);
    const wrong = databaseUrl(cluster.url, good.pathname.slice(1), {
      name: 'lbrl',
      password: 'S3cr3t-p4ss/w@rd%',
    });
    for (const flags of [[], ['--json'], ['--verbose']]) {
      const r = await runBin(['deposit', 'list', ...flags], env(wrong));
      expect(r.stderr).toContain('refused the credentials: password authentication failed');
      said(r, 'S3cr3t-p4ss/w@rd%');
      expect(r.code).toBe(6);
    }
    const dir = tempDir();
    expect((await runBin(['deposit', 'list'], env(url, dir))).code).toBe(0);
    cluster.crash();
    for (const flags of [[], ['--json'], ['--verbose']]) {
      const r = await runBin(['deposit', 'list', ...flags], env(url, dir));
      expect(r.stderr).toMatch(/cannot reach the ledger at postgres:\/\/lbrl:\[redacted\]@/);
      said(r, good.password);
      expect(r.code).toBe(6);
    }
    cluster.start();
  });

  it('every connection killed while commands run (pg_terminate_backend): exit 0 or 6, never a stack, nothing lost', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const password = new URL(url).password;
    const dir = tempDir();
    const sandbox = await startTestSandbox({ clock: { now: Date.now() } });
    const sandboxEnv = { ...env(url, dir), LBRL_BASE_URL: sandbox.baseUrl, LBRL_TOKEN: SANDBOX_TOKEN };
    const warm = await runBin(['deposit', 'list'], sandboxEnv);
    expect(warm.code, warm.stderr).toBe(0);
    let killing = true;
    const database = new URL(url).pathname.slice(1);
    const killer = (async () => {
      while (killing) {
        await sql(
          inject('postgresUrl'),
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
          [database],
        ).catch(() => {});
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const codes: number[] = [];
    for (let run = 0; run < 10; run++) {
      const args =
        run % 2 === 0
          ? ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '-q', '--no-qr']
          : ['deposit', 'list', '--json'];
      const r = await runBin(args, sandboxEnv);
      said(r, password);
      codes.push(r.code);
    }
    killing = false;
    await killer;
    const after = await runBin(['deposit', 'list', '--json'], sandboxEnv);
    // every deposit the service made is in the ledger: what a lost connection could not take was
    // kept in the spool and moved in by the next command
    expect(after.code, after.stderr).toBe(0);
    const made = fs
      .readdirSync(path.join(sandbox.dir, 'deposits'))
      .map((file) => file.replace(/\.json$/, ''));
    const recorded = (JSON.parse(after.stdout) as Array<{ id: string }>).map((d) => d.id);
    expect(recorded.sort()).toEqual(made.sort());
    expect(codes.every((code) => code === 0 || code === 6)).toBe(true);
    await sandbox.close();
  });

  it('a backend killed with kill -9 while lists run (the server restarts every backend): exit 0 or 6, never a stack', async () => {
    const own = await startCluster();
    try {
      const url = await freshDatabase(own.url);
      const password = new URL(url).password;
      const dir = tempDir();
      expect((await runBin(['deposit', 'list', '--json'], env(url, dir))).code).toBe(0);
      const database = new URL(url).pathname.slice(1);
      let killing = true;
      const killer = (async () => {
        while (killing) {
          const rows = await sql<{ pid: number }>(
            own.url,
            'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
            [database],
          ).catch(() => []);
          for (const { pid } of rows) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {}
          }
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const codes: number[] = [];
      for (let run = 0; run < 6; run++) {
        const r = await runBin(['deposit', 'list', ...(run % 2 ? ['--json'] : [])], env(url, dir));
        said(r, password);
        if (r.code !== 0) expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
        codes.push(r.code);
      }
      killing = false;
      await killer;
      expect(
        codes.every((code) => code === 0 || code === 6),
        String(codes),
      ).toBe(true);
    } finally {
      own.stop();
    }
  });
});
