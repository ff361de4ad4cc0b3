/**
 * Several tills, one ledger: the built program as separate hosts run it (each its own config
 * directory and process) against one deposit service and one real PostgreSQL server
 * (test/postgres-setup.ts). A charge made at one till is in the office's list, report and
 * reconcile; batch rows run on two hosts at once are created once; a charge made while the
 * database is unreachable is kept and moved in by the next command that reaches it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { BIN, codeCacheEnv, runBin } from '../helpers/bin.js';
import { EX, LQ } from '../helpers/fixtures.js';
import { freePort, freshDatabase, sql } from '../helpers/postgres.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
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
