/**
 * The connection to the ledger cut between two statements of one command: a loopback proxy
 * between lbrl and the PostgreSQL server passes the first k messages lbrl sends, then the line
 * goes dead both ways (test/helpers/cutting-proxy.ts). Each command is run with k = 1, 2, ...
 * until it completes uncut. Every cut run ends with exit 0, or one line and exit 6 that says what
 * was and was not recorded (never a stack, never a success when the write did not land); and
 * after a later command reaches the ledger directly, the ledger is whole: every deposit the
 * service made is there once, no batch row twice, nothing half-written.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { FileLedger } from '../../src/store/ledger-file.js';
import { BIN, runBin } from '../helpers/bin.js';
import { startCuttingProxy } from '../helpers/cutting-proxy.js';
import { LQ } from '../helpers/fixtures.js';
import { created, depositId } from '../helpers/ledger-contract.js';
import { freshDatabase, sql } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 600_000 });

type Service = Awaited<ReturnType<typeof startTestSandbox>>;
let service: Service;
beforeAll(async () => {
  service = await startTestSandbox({ clock: { now: Date.now() } });
});
afterAll(async () => {
  await service.close();
});

/** The ids of the deposits the service holds, whoever made them. */
function serviceIds(): string[] {
  return fs
    .readdirSync(path.join(service.dir, 'deposits'))
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length));
}

function host(ledger: string): Record<string, string> {
  return {
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    LBRL_BASE_URL: service.baseUrl,
    LBRL_TOKEN: SANDBOX_TOKEN,
    LBRL_LEDGER_URL: ledger,
    NO_COLOR: '1',
  };
}

function throughPort(url: string, port: number): string {
  const through = new URL(url);
  through.port = String(port);
  return through.toString();
}

const password = () => decodeURIComponent(new URL(inject('postgresUrl')).password);
const CUT_LINE =
  /^the connection to the ledger at postgres:\/\/lbrl:\[redacted\]@127\.0\.0\.1:\d+\/\w+ was lost \([^\n]*\); [^\n]+\n$/;
const CANNOT_REACH =
  /^cannot reach the ledger at postgres:\/\/lbrl:\[redacted\]@127\.0\.0\.1:\d+\/\w+: [^\n]+\n$/;
/** a batch whose rows could not be sent or recorded: each row's line says why, the run ends with this */
const ROWS_NOT_CREATED =
  /^\d+ of \d+ row\(s\) were not created \(rows [\d, ]+\); re-run with --resume to retry only those\n$/;
const KEPT_WARNING =
  /^warning: the ledger could not take what this command recorded \([^\n]*\); it is kept in [^\n]+ until the ledger can take it: the next command that reaches the ledger moves it in$/;
const SPOOLED =
  /^the ledger could not take what this command recorded \([^\n]*\); it is kept in [^\n]+ until the ledger can take it: the next command that reaches the ledger moves it in\n$/;

interface Cut {
  k: number;
  code: number;
  stdout: string;
  stderr: string;
  /** the error line's message (of --json's error object, or after "error: "), with its newline */
  said: string;
}

/** The one error line a run ended with, as its message: what --json's error object says, or the line after "error: ". */
function errorMessage(stderr: string): string {
  // before it, only the line saying what the ledger could not take is kept here (a batch goes on after it)
  const lines = stderr.split('\n').filter(Boolean);
  const last = lines.pop() ?? '';
  if (lines.some((line) => !KEPT_WARNING.test(line))) return stderr;
  if (last.startsWith('{')) return `${(JSON.parse(last) as { error: { message: string } }).error.message}\n`;
  return `${last.replace(/^error: /, '')}\n`;
}

/** Where a run happens: the ledger's database (reached directly) and the host's environment. */
interface World {
  url: string;
  env: Record<string, string>;
}

/**
 * Runs `args` in `world()` (made afresh for each k, or the same one) with the ledger through a
 * proxy that cuts after k messages, k = 1, 2, ... until a run is not cut; `after` checks the
 * ledger after each cut run. Returns every run.
 */
async function cutEverywhere(
  args: string[],
  world: () => Promise<World>,
  after: (run: Cut, world: World) => Promise<void>,
  step = 1,
): Promise<Cut[]> {
  const runs: Cut[] = [];
  for (let k = step; k < 200; k += step) {
    const { url, env } = await world();
    const proxy = await startCuttingProxy(Number(new URL(url).port), k);
    const r = await runBin(args, { ...env, LBRL_LEDGER_URL: throughPort(url, proxy.port) });
    await proxy.close();
    const run = { k, ...r, said: errorMessage(r.stderr) };
    runs.push(run);
    const said = `k=${k}: ${args.join(' ')}: exit ${r.code}\n${r.stderr}`;
    expect(`${r.stdout}${r.stderr}`, said).not.toContain(password());
    expect(r.stderr, said).not.toMatch(/\n\s+at /);
    if (!proxy.cut()) {
      expect(r.code, said).toBe(0);
      return runs;
    }
    if (r.code !== 0) {
      expect(r.code, said).toBe(6);
      expect(
        [CUT_LINE, CANNOT_REACH, SPOOLED, ROWS_NOT_CREATED].some((line) => line.test(run.said)),
        said,
      ).toBe(true);
    }
    await after(run, { url, env });
  }
  throw new Error(`${args.join(' ')} was still cut after 200 messages`);
}

/** A fresh database whose schema a first command made, and a host on it. */
async function migratedWorld(): Promise<World> {
  const url = await freshDatabase(inject('postgresUrl'));
  const env = host(url);
  const status = await runBin(['ledger', 'status'], env);
  expect(status.code, status.stderr).toBe(0);
  return { url, env };
}

/** A later command on a direct connection: what a cut command left in the spool moves in. */
async function laterCommand(url: string, env: Record<string, string>): Promise<void> {
  const r = await runBin(['deposit', 'list', '--json'], { ...env, LBRL_LEDGER_URL: url });
  expect(r.code, r.stderr).toBe(0);
}

/** The ledger is whole: each deposit the service made once, every batch row once. */
async function ledgerIsWhole(url: string, made: string[]): Promise<void> {
  const rows = await sql<{ id: string; batch_key: string | null }>(
    url,
    'select id, batch_key from lbrl_deposits',
  );
  const ids = rows.map((row) => row.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.sort()).toEqual([...made].sort());
  const keys = rows.map((row) => row.batch_key).filter((key) => key !== null);
  expect(new Set(keys).size).toBe(keys.length);
}

describe('the connection to the ledger cut between two statements', () => {
  it('deposit create', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const env = host(url);
    const before = new Set(serviceIds());
    const runs = await cutEverywhere(
      ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '--json'],
      async () => ({ url, env }),
      async (run) => {
        await laterCommand(url, env);
        const made = serviceIds().filter((id) => !before.has(id));
        await ledgerIsWhole(url, made);
        // a charge created and printed: its record is in the ledger, or the command said it is kept
        if (run.stdout) expect(run.code === 0 || SPOOLED.test(run.said), run.stderr).toBe(true);
      },
    );
    expect(runs.length).toBeGreaterThan(3);
  });

  it('deposit list and report: a reader says nothing was changed', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const env = host(url);
    for (let n = 0; n < 3; n++) await laterCommand(url, env);
    const made = await runBin(['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '--json'], env);
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    for (const args of [
      ['deposit', 'list', '--json'],
      ['deposit', 'report', '--json'],
      ['ledger', 'status'],
      ['ledger', 'export'],
      // the service says what the ledger holds already: nothing to record
      ['deposit', 'get', id, '--json'],
    ]) {
      const reader = host(url);
      await cutEverywhere(
        args,
        async () => ({ url, env: reader }),
        async (run) => {
          if (run.code === 6 && CUT_LINE.test(run.said))
            expect(run.stderr, `${args.join(' ')} k=${run.k}`).toMatch(/nothing was changed/);
          await ledgerIsWhole(url, [id]);
        },
      );
    }
  });

  it('deposit create --from rows.csv --resume: each row once, however the run was cut', async () => {
    // rows of other amounts for each k: the service answers a row's idempotency key with the deposit it made
    const rows = path.join(tempDir(), 'rows.csv');
    const args = ['deposit', 'create', '--from', rows, '--resume', '--json'];
    let before = new Set<string>();
    let k = 0;
    await cutEverywhere(
      args,
      async () => {
        k++;
        fs.writeFileSync(rows, `amount,to\n${[1, 2].map((n) => `${k}.0${n},${LQ}`).join('\n')}\n`);
        before = new Set(serviceIds());
        return migratedWorld();
      },
      async (run, { url, env }) => {
        // the run again, uncut, finishes the batch: each row sent once, all of it recorded
        const again = await runBin(args, { ...env, LBRL_LEDGER_URL: url });
        expect(again.code, `k=${run.k}: ${again.stderr}`).toBe(0);
        const made = serviceIds().filter((id) => !before.has(id));
        expect(made, `k=${run.k}`).toHaveLength(2);
        await ledgerIsWhole(url, made);
      },
      // every fourth message: each run makes a database and a batch afresh (some seventy messages)
      4,
    );
  });

  it('ledger import: all of it or none, and run again it completes once', async () => {
    await cutEverywhere(
      ['ledger', 'import'],
      async () => {
        const { url, env } = await migratedWorld();
        new FileLedger(env.LBRL_CONFIG_DIR!, () => {}).history.append(
          [1, 2, 3, 4, 5].map((n) => created(n, { baseUrl: service.baseUrl })),
        );
        return { url, env };
      },
      async (run, { url, env }) => {
        const held = await sql<{ n: number }>(url, 'select count(*)::int as n from lbrl_deposits').catch(
          () => [{ n: 0 }],
        );
        expect([0, 5], `k=${run.k}: ${run.stderr}`).toContain(held[0]!.n);
        // taken whole: a run that ended in exit 6 after it was committed says so, or that it is not known
        if (held[0]!.n === 5 && run.code === 6)
          expect(run.said).toMatch(/is not known|what this command recorded before was kept/);
        if (held[0]!.n === 0 && run.code === 6) expect(run.said).not.toMatch(/was kept/);
        const again = await runBin(['ledger', 'import', '--json'], { ...env, LBRL_LEDGER_URL: url });
        expect(again.code, again.stderr).toBe(0);
        await ledgerIsWhole(
          url,
          [1, 2, 3, 4, 5].map((n) => depositId(n)),
        );
      },
    );
  });

  it('deposit watch --pending: the statuses it learnt are recorded, or kept, once', async () => {
    await cutEverywhere(
      ['deposit', 'watch', '--pending', '-q'],
      async () => {
        const { url, env } = await migratedWorld();
        // the service's clock where the host's is, each time: a charge is not made in its future
        service.clock.now = Date.now();
        const made = await runBin(
          ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '--json'],
          env,
        );
        expect(made.code, made.stderr).toBe(0);
        const id = (JSON.parse(made.stdout) as { id: string }).id;
        expect((await runBin(['sandbox', 'pay', id], env)).code).toBe(0);
        service.clock.now += 180_000;
        return { url, env };
      },
      async (run, { url, env }) => {
        await laterCommand(url, env);
        const rows = await sql<{ status: string }>(url, 'select status from lbrl_deposits');
        expect(rows).toHaveLength(1);
        // a watch that ended well recorded the end it saw
        if (run.code === 0) expect(rows[0]!.status, `k=${run.k}: ${run.stderr}`).toBe('FINALIZED');
      },
      // every fourth message: each run makes a database, a charge and its payment afresh
      4,
    );
  });

  it('the schema made on first use: cut anywhere, it is there whole or not at all, and the next command makes it', async () => {
    await cutEverywhere(
      ['ledger', 'status', '--json'],
      async () => {
        const url = await freshDatabase(inject('postgresUrl'));
        return { url, env: host(url) };
      },
      async (run, { url, env }) => {
        const tables = await sql<{ n: number }>(
          url,
          "select count(*)::int as n from pg_tables where schemaname = 'public' and tablename like 'lbrl%'",
        );
        const versions = await sql<{ v: number }>(
          url,
          'select max(version)::int as v from lbrl_schema_version',
        ).catch(() => []);
        // none of it, or all of it with its version
        if (tables[0]!.n > 0) expect(versions[0]?.v, `k=${run.k}`).toBeGreaterThan(0);
        if (run.code === 6 && CUT_LINE.test(run.said) && versions.length === 0)
          expect(run.said).toMatch(/nothing was changed/);
        const status = await runBin(['ledger', 'status', '--json'], env);
        expect(status.code, status.stderr).toBe(0);
      },
      // every other message: the migration is some forty, each run makes a database afresh
      2,
    );
  });

  it('listen: cut anywhere, it ends with one line and exit 6, or delivers; never a crash', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      for (let k = 4; k < 200; k += 4) {
        const { url, env } = await migratedWorld();
        service.clock.now = Date.now();
        const made = await runBin(
          ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '--json'],
          env,
        );
        expect(made.code, made.stderr).toBe(0);
        const id = (JSON.parse(made.stdout) as { id: string }).id;
        const proxy = await startCuttingProxy(Number(new URL(url).port), k);
        const child = spawn(process.execPath, [BIN, 'listen', '--forward-to', receiver.url], {
          env: { PATH: process.env.PATH ?? '', ...env, LBRL_LEDGER_URL: throughPort(url, proxy.port) },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        const delivered = () => receiver.taken().some((d) => d.deposit === id);
        // a cut listen rides the outage out for less than its lease (30 s), then ends
        const end = Date.now() + 45_000;
        let code: number | null | undefined;
        void exited.then((c) => (code = c));
        while (code === undefined && !(delivered() && !proxy.cut()) && Date.now() < end)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const said = `k=${k}: listen: exit ${code}\n${stderr}`;
        if (code === undefined) {
          // delivered uncut, or riding a cut out: stopped as a user stops it
          child.kill('SIGINT');
          expect(await exited, said).toBe(130);
        } else {
          expect(code, said).toBe(6);
          // it says what it rode out (warnings) as it goes; it ends with one error line
          const last = stderr.trimEnd().split('\n').pop()!;
          expect(last, said).toMatch(
            /^error: (listen lost the lead on the events of profile default \(the ledger at postgres:\/\/lbrl:\[redacted\]@[^\n]+ could not be reached in time to renew its lease\)|the connection to the ledger at postgres:\/\/lbrl:\[redacted\]@[^\n]+ was lost|cannot reach the ledger at)/,
          );
          expect(stderr.match(/^error: /gm), said).toHaveLength(1);
        }
        expect(stderr, said).not.toMatch(/\n\s+at /);
        expect(stderr, said).not.toContain(password());
        await proxy.close();
        if (!proxy.cut()) {
          expect(delivered(), said).toBe(true);
          return;
        }
      }
      throw new Error('listen was still cut after 200 messages');
    } finally {
      await receiver.close();
    }
  });
});
