/**
 * The connection to the ledger cut between two statements of one command: a loopback proxy
 * between lbrl and the PostgreSQL server passes the first k messages lbrl sends, then the line
 * goes dead both ways (test/helpers/cutting-proxy.ts). Each command is run with k = 1, 2, ...
 * until it completes uncut. Every cut run ends with exit 0, or one line and exit 6 that says what
 * was and was not recorded (never a stack, never a success when the write did not land); and
 * after a later command reaches the ledger directly, the ledger is whole: every deposit the
 * service made is there once, no batch row twice, nothing half-written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { startCuttingProxy } from '../helpers/cutting-proxy.js';
import { LQ } from '../helpers/fixtures.js';
import { freshDatabase, sql } from '../helpers/postgres.js';
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
  if (stderr.startsWith('{')) {
    const lines = stderr.split('\n').filter(Boolean);
    if (lines.length !== 1) return stderr;
    return `${(JSON.parse(lines[0]!) as { error: { message: string } }).error.message}\n`;
  }
  return stderr.replace(/^error: /, '');
}

/**
 * Runs `args` on `env` with the ledger through a proxy that cuts after k messages, k = 1, 2, ...
 * until a run is not cut; `after` checks the ledger after each cut run (a later command on a
 * direct connection has run). Returns every run.
 */
async function cutEverywhere(
  url: string,
  env: Record<string, string>,
  args: string[],
  after: (run: Cut) => Promise<void>,
  input?: string,
): Promise<Cut[]> {
  const runs: Cut[] = [];
  for (let k = 1; k < 200; k++) {
    const proxy = await startCuttingProxy(Number(new URL(url).port), k);
    const r = await runBin(args, { ...env, LBRL_LEDGER_URL: throughPort(url, proxy.port) }, input);
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
        [CUT_LINE, CANNOT_REACH, SPOOLED].some((line) => line.test(run.said)),
        said,
      ).toBe(true);
    }
    await after(run);
  }
  throw new Error(`${args.join(' ')} was still cut after 200 messages`);
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
      url,
      env,
      ['deposit', 'create', '--amount', '10', '--to', LQ, '--yes', '--json'],
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
    ]) {
      const reader = host(url);
      await cutEverywhere(url, reader, args, async (run) => {
        if (run.code === 6 && CUT_LINE.test(run.said))
          expect(run.stderr, `${args.join(' ')} k=${run.k}`).toMatch(/nothing was changed/);
        await ledgerIsWhole(url, [id]);
      });
    }
  });
});
