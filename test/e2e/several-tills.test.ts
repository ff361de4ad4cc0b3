/**
 * Several tills, one ledger: the built program as separate hosts run it (each its own config
 * directory and process) against one deposit service and one real PostgreSQL server
 * (test/postgres-setup.ts). A charge made at one till is in the office's list, report and
 * reconcile; batch rows run on two hosts at once are created once; a charge made while the
 * database is unreachable is kept and moved in by the next command that reaches it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { BIN, codeCacheEnv, runBin } from '../helpers/bin.js';
import { EX, LQ } from '../helpers/fixtures.js';
import { freePort, freshDatabase, sql } from '../helpers/postgres.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 120_000 });

type Service = Awaited<ReturnType<typeof startTestSandbox>>;
let service: Service;
beforeAll(async () => {
  // the service's clock where the hosts' is: a settlement is matched to charges made before it
  service = await startTestSandbox({ clock: { now: Date.now() } });
});
afterAll(async () => {
  await service.close();
});

/** A host: its own config directory, the service, and the ledger's URL. */
function host(ledger: string): Record<string, string> & { LBRL_CONFIG_DIR: string } {
  return {
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    LBRL_BASE_URL: service.baseUrl,
    LBRL_TOKEN: SANDBOX_TOKEN,
    LBRL_LEDGER_URL: ledger,
  };
}

/** How many deposits the service holds, whoever made them. */
function serviceDeposits(): number {
  return fs.readdirSync(path.join(service.dir, 'deposits')).filter((n) => n.endsWith('.json')).length;
}

const password = () => decodeURIComponent(new URL(inject('postgresUrl')).password);

async function create(env: Record<string, string>, cents: number): Promise<string> {
  const made = await runBin(
    ['deposit', 'create', '--amount-cents', String(cents), '--to', LQ, '--json'],
    env,
  );
  expect(made.stderr).toBe('');
  expect(made.code).toBe(0);
  return (JSON.parse(made.stdout) as { id: string }).id;
}

describe('several tills, one ledger', () => {
  it("the office's list and report cover every till's charges, each seen at its next command", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const [till1, till2, office] = [host(url), host(url), host(url)];
    const first = await create(till1, 1250);
    const second = await create(till2, 800);
    const list = await runBin(['deposit', 'list', '--json'], office);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((d) => d.id).sort()).toEqual(
      [first, second].sort(),
    );
    const report = await runBin(['deposit', 'report', '--json'], office);
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout).total).toMatchObject({ createdCount: 2, createdCents: 2050 });
    // a charge the office had not seen is there at its next command, made after its first
    const third = await create(till1, 100);
    const again = await runBin(['deposit', 'list'], office);
    expect(
      again.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual([third, second, first]);
    // the office keeps no file history of its own: what it read is the database's
    expect(fs.existsSync(path.join(office.LBRL_CONFIG_DIR!, 'history.ndjson'))).toBe(false);
    for (const r of [list, report, again]) expect(`${r.stdout}${r.stderr}`).not.toContain(password());
  });

  it("the office reconciles a till's charge, paid and followed by another host", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const [till1, office] = [host(url), host(url)];
    for (const [key, value] of [
      ['esplora-url', `${service.baseUrl}/esplora`],
      ['asset-id', SANDBOX_ASSET_ID],
      ['default-address', EX],
    ])
      expect((await runBin(['config', 'set', key!, value!], office)).code).toBe(0);
    const made = await runBin(['deposit', 'create', '--amount', '35', '--to', EX, '--json'], till1);
    expect(made.code).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    expect((await runBin(['sandbox', 'pay', id], till1)).code).toBe(0);
    service.clock.now += 120_000;
    // the office follows what every till left pending
    const watched = await runBin(['deposit', 'watch', '--pending', '-q'], office);
    expect(watched.stderr).toBe('');
    expect(watched.code).toBe(0);
    service.clock.now += 60_000;
    const reconciled = await runBin(['deposit', 'reconcile', '--json'], office);
    expect(reconciled.stderr).toBe('');
    expect(reconciled.code).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toMatchObject({
      matched: [expect.objectContaining({ depositId: id, role: 'destination', address: EX })],
      missing: [],
      unmatched: [],
    });
    // what the office recorded (FINALIZED) is what till 1 sees
    const atTill = await runBin(['deposit', 'list', '--json'], till1);
    expect(JSON.parse(atTill.stdout)).toEqual([expect.objectContaining({ id, status: 'FINALIZED' })]);
  });

  it('create --from rows.csv --resume on two hosts at once creates each row once, sent by one host', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const rows = path.join(tempDir(), 'rows.csv');
    fs.writeFileSync(
      rows,
      `amount,to\n${Array.from({ length: 12 }, (_, i) => `${i + 1},${LQ}`).join('\n')}\n`,
    );
    const hosts = [host(url), host(url)];
    const before = serviceDeposits();
    const runs = await Promise.all(
      hosts.map((env) =>
        runBin(['deposit', 'create', '--from', rows, '--resume', '--concurrency', '4', '--json'], env),
      ),
    );
    const lines = runs.flatMap((r) => {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { row?: number; deposit?: { id: string }; resumed?: boolean });
    });
    const rowLines = lines.filter((l) => l.row !== undefined);
    expect(rowLines).toHaveLength(24);
    // each row sent by one host: the other found it done in the database
    const sent = rowLines.filter((l) => !l.resumed).map((l) => l.row);
    expect(sent.sort((a, b) => a! - b!)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(serviceDeposits() - before).toBe(12);
    expect(
      await sql(url, 'select count(*)::int as n, count(distinct batch_key)::int as rows from lbrl_deposits'),
    ).toEqual([{ n: 12, rows: 12 }]);
    // a third run, later, sends nothing
    const again = await runBin(['deposit', 'create', '--from', rows, '--resume', '--json'], host(url));
    expect(again.code).toBe(0);
    expect(serviceDeposits() - before).toBe(12);
  });
});

describe('faults of the database, as a till meets them', () => {
  const shown = (url: string) => url.replace(/^(postgres:\/\/[^:]+:)[^@]+@/, '$1[redacted]@');

  it('a database that is down: one line, exit 6, no request sent, the password nowhere', async () => {
    const url = `postgres://lbrl:${encodeURIComponent('Distinctive-Till-Password-8841')}@127.0.0.1:${await freePort()}/shop`;
    const before = serviceDeposits();
    for (const args of [
      ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes'],
      ['deposit', 'list'],
      ['deposit', 'report'],
      ['deposit', 'watch', '--pending'],
    ]) {
      const r = await runBin(args, host(url));
      expect(r.code).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`error: cannot reach the ledger at ${shown(url)}: connection refused\n`);
      expect(`${r.stdout}${r.stderr}`).not.toContain('Distinctive-Till-Password-8841');
    }
    expect(serviceDeposits()).toBe(before);
  });

  it("each host's embedded sandbox is its own service: a shared ledger takes none of its charges, said before any request; a standing sandbox is shared", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    // no service configured: each host would use the sandbox embedded in it, on its own port and data
    const embedded = () => {
      const { LBRL_BASE_URL: _url, LBRL_TOKEN: _token, ...rest } = host(url);
      return rest;
    };
    const [a, b] = [embedded(), embedded()];
    const refusal = `error: the embedded sandbox is this machine's own: the ledger at ${shown(url)} is shared, and takes none of its charges. Point every host at one standing sandbox (lbrl sandbox serve, then LBRL_BASE_URL and LBRL_TOKEN), or use a profile whose ledger is file\n`;
    for (const [env, args] of [
      [a, ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes']],
      [b, ['deposit', 'list']],
      [b, ['deposit', 'watch', '--pending']],
      [a, ['deposit', 'report']],
      [b, ['listen', '--forward-to', 'http://127.0.0.1:9/hooks']],
    ] as const) {
      const r = await runBin([...args], env);
      expect(r.stderr, args.join(' ')).toBe(refusal);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      // no sandbox was started, so no charge made
      expect(fs.existsSync(path.join(env.LBRL_CONFIG_DIR, 'sandbox', 'deposits'))).toBe(false);
    }
    // refused before the ledger was even opened: its schema is not made yet
    expect(await sql(url, "select to_regclass('lbrl_deposits') is null as untouched")).toEqual([
      { untouched: true },
    ]);
    // one standing sandbox for both: its base URL is the service key, the same on every host
    const id = await create(host(url), 700);
    const office = await runBin(['deposit', 'list', '--json'], host(url));
    expect(office.stdout).toContain(id);
    expect(await sql(url, 'select base_url from lbrl_deposits')).toEqual([{ base_url: service.baseUrl }]);
  });

  it('a password the server refuses: one line, exit 6, no request sent, neither password shown', async () => {
    const url = new URL(await freshDatabase(inject('postgresUrl')));
    url.password = 'Distinctive-Wrong-Password-5120';
    const before = serviceDeposits();
    const r = await runBin(
      ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '--json'],
      host(url.toString()),
    );
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        type: 'network',
        exitCode: 6,
        message: `the ledger at ${shown(url.toString())} refused the credentials: password authentication failed for user "lbrl"`,
      },
    });
    expect(`${r.stdout}${r.stderr}`).not.toContain('Distinctive-Wrong-Password-5120');
    expect(`${r.stdout}${r.stderr}`).not.toContain(password());
    expect(serviceDeposits()).toBe(before);
  });

  it('the connection dropped once the service made the charge: the charge is shown, kept here, said; the next command moves it in', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const database = new URL(url).pathname.slice(1);
    // the service, behind a door that cuts the till's database connections as a create comes in
    const front = await startServer(async (req, res) => {
      if (req.method === 'POST')
        await sql(
          inject('postgresUrl'),
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = 'lbrl'`,
          [database],
        );
      const answer = await request(`${service.baseUrl}${req.url}`, {
        method: req.method as 'GET' | 'POST',
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            ([name]) => !['host', 'content-length', 'connection'].includes(name),
          ),
        ) as Record<string, string>,
        body: req.method === 'POST' ? req.body : undefined,
      });
      res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
      res.end(await answer.body.text());
    });
    const till = { ...host(url), LBRL_BASE_URL: front.url };
    const made = await runBin(
      ['deposit', 'create', '--amount', '12.50', '--to', LQ, '--yes', '--json'],
      till,
    );
    expect(made.code).toBe(6);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    const spool = path.join(till.LBRL_CONFIG_DIR, 'ledger-spool', 'history.ndjson');
    expect(JSON.parse(made.stderr).error.message).toMatch(
      new RegExp(
        `^the ledger could not take what this command recorded \\(the connection to the ledger at .* was lost \\([^)]*\\)\\); it is kept in ${spool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} until the ledger can take it: the next command that reaches the ledger moves it in$`,
      ),
    );
    expect(made.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(`${made.stdout}${made.stderr}`).not.toContain(password());
    expect(fs.readFileSync(spool, 'utf8')).toContain(id);
    expect(await sql(url, 'select count(*)::int as n from lbrl_deposits')).toEqual([{ n: 0 }]);
    // the next command that reaches the ledger moves it in, and says so
    const list = await runBin(['deposit', 'list'], till);
    expect(list.code).toBe(0);
    expect(list.stderr.split('\n')[0]).toBe(
      'moved 1 record(s) kept here while the ledger was unreachable into the ledger',
    );
    expect(list.stdout.split('\t')[0]).toBe(id);
    expect(await sql(url, 'select id from lbrl_deposits')).toEqual([{ id }]);
    expect(fs.existsSync(spool)).toBe(false);
    // and another host sees it
    const office = { ...host(url), LBRL_BASE_URL: front.url };
    expect((await runBin(['deposit', 'list'], office)).stdout.split('\t')[0]).toBe(id);
    await front.close();
  });
});

describe("the README's example, as written", () => {
  /** Each line of the README's section, run by sh on the host its comment names, `lbrl` on PATH. */
  it('two tills and an office on one database', async () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
    const section = readme.split('\n## Several tills, one ledger\n')[1]!.split('\n## ')[0]!;
    const lines = /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim().split('\n');
    const url = new URL(await freshDatabase(inject('postgresUrl')));
    const secret = decodeURIComponent(url.password);
    url.password = '';
    const bin = tempDir();
    fs.writeFileSync(path.join(bin, 'lbrl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const hostEnv = () => {
      const { LBRL_LEDGER_URL: _ledger, ...rest } = host('');
      return {
        ...rest,
        ...codeCacheEnv(),
        PGPASSWORD: secret,
        ADDRESS: LQ,
        PATH: `${bin}:${process.env.PATH}`,
      };
    };
    const hosts: Record<string, ReturnType<typeof hostEnv>> = {
      'till 1': hostEnv(),
      'till 2': hostEnv(),
      office: hostEnv(),
    };
    const said: string[] = [];
    for (const line of lines) {
      const [command, comment] = line.split(/\s+# /) as [string, string];
      const who = comment.startsWith('every host')
        ? Object.keys(hosts)
        : [Object.keys(hosts).find((name) => comment.startsWith(name))!];
      expect(who[0], line).toBeDefined();
      if (command.includes('watch --pending')) {
        // the customers pay both charges meanwhile
        for (const id of await officeIds(hosts.office!))
          expect((await runBin(['sandbox', 'pay', id], hosts.office!)).code).toBe(0);
        service.clock.now += 120_000;
      }
      const text = command.replace("'postgres://lbrl@db.example.com:5432/shop'", `'${url}'`);
      for (const name of who) {
        const r = await shell(text, hosts[name]!);
        said.push(r.stdout, r.stderr);
        expect(r.code, `${name}: ${line}\n${r.stderr}`).toBe(0);
      }
    }
    const ids = await officeIds(hosts.office!);
    expect(ids).toHaveLength(2);
    // what the office's watch recorded, each till sees
    const atTill = await runBin(['deposit', 'list', '--json'], hosts['till 2']!);
    expect((JSON.parse(atTill.stdout) as Array<{ status: string }>).map((d) => d.status)).toEqual([
      'FINALIZED',
      'FINALIZED',
    ]);
    const report = await runBin(['deposit', 'report', '--json'], hosts.office!);
    expect(JSON.parse(report.stdout).total).toMatchObject({ createdCount: 2, createdCents: 4750 });
    for (const text of said) expect(text).not.toContain(secret);
  });
});

async function officeIds(env: Record<string, string>): Promise<string[]> {
  const r = await runBin(['deposit', 'list'], env);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[0]!);
}

function shell(
  command: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
