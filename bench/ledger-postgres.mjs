// The ledger in PostgreSQL at scale: a throw-away server on loopback (initdb and pg_ctl, as the
// e2e tests make it), 100,000 deposits moved in with `ledger import`, then `deposit list` and
// `deposit report` on a host that has never read the ledger (its copy read whole) and on one
// whose copy is up to date (what every later command pays), and the cost a command adds to
// connect: `deposit list` on an empty database against the same on an empty file history.
// Time is the median of 5 runs (connect: 11), RSS the peak, `heap32` the run again within a
// 32 MB heap (memory flat in the number of deposits).
//
//   npm run build && node bench/ledger-postgres.mjs [--size 100000]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { BIN, median, ROOT, writeHistory } from './lib.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};
const SIZE = Number(arg('--size', '100000'));
// a service the hosts name (list and report send no request): a database ledger refuses the
// embedded sandbox, which is each machine's own
const SERVICE = 'https://deposit.example.com';

/** A TypeScript module bundled to run here (the test harness's cluster, the connect measure). */
async function bundled(entry) {
  // under node_modules, so that its import of pg is found
  const out = path.join(ROOT, 'node_modules', '.cache', 'lbrl-bench', `${path.basename(entry, '.ts')}.mjs`);
  await esbuild.build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    external: ['pg', 'vitest'],
    logLevel: 'error',
  });
  return import(out);
}

/** ms, peak RSS (MB) and exit code of one run. */
function measure(args, env, heapMb) {
  const t = process.hrtime.bigint();
  const flags = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const r = spawnSync(
    process.execPath,
    [...flags, '--require', path.join(import.meta.dirname, 'rss.cjs'), BIN, ...args],
    {
      env,
      encoding: 'utf8',
    },
  );
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  const rss = /maxrss-kb=(\d+)/.exec(r.stderr);
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN };
}

function hostEnv(url) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-host-'));
  fs.chmodSync(dir, 0o700);
  const env = {
    ...process.env,
    LBRL_CONFIG_DIR: dir,
    HOME: dir,
    LBRL_BASE_URL: SERVICE,
    LBRL_TOKEN: 'bench-token-0123456789abcdef',
  };
  if (url) env.LBRL_LEDGER_URL = url;
  else delete env.LBRL_LEDGER_URL;
  return env;
}

const row = (what, runs, extra = {}) => ({
  what,
  ms: Math.round(median(runs.map((r) => r.ms))),
  rssMb: Math.round(Math.max(...runs.map((r) => r.rssMb))),
  ...extra,
});

const { startCluster, databaseUrl, sql } = await bundled('test/helpers/postgres.ts');
const cluster = await startCluster();
const rows = [];
try {
  await sql(cluster.url, 'create database bench');
  await sql(cluster.url, 'create database empty');
  const url = databaseUrl(cluster.url, 'bench');
  // the deposits, moved in as a user would
  const source = hostEnv(url);
  writeHistory(source.LBRL_CONFIG_DIR, SIZE, SERVICE);
  rows.push(row(`ledger import (${SIZE} deposits)`, [measure(['ledger', 'import'], source)]));
  const COMMANDS = [
    ['deposit list', ['deposit', 'list', '--json']],
    ['deposit report', ['deposit', 'report', '--json']],
  ];
  for (const [name, args] of COMMANDS) {
    rows.push(row(`${name}, a host's first (its copy read whole)`, [measure(args, hostEnv(url))]));
    const office = hostEnv(url);
    measure(args, office);
    const runs = Array.from({ length: 5 }, () => measure(args, office));
    let heap32 = 'ok';
    try {
      measure(args, office, 32);
    } catch {
      heap32 = 'fails';
    }
    rows.push(row(`${name}, copy up to date`, runs, { heap32 }));
  }
  // the cost of connecting: an empty database against an empty file history, run for run
  const onFile = hostEnv(undefined);
  const onDatabase = hostEnv(databaseUrl(cluster.url, 'empty'));
  measure(['deposit', 'list'], onDatabase);
  const file = [];
  const database = [];
  for (let i = 0; i < 11; i++) {
    file.push(measure(['deposit', 'list'], onFile));
    database.push(measure(['deposit', 'list'], onDatabase));
  }
  rows.push(row('deposit list, empty file history', file));
  rows.push(row('deposit list, empty database', database));
  rows.push({
    what: 'connect cost (difference of medians)',
    ms: Math.round(median(database.map((r) => r.ms)) - median(file.map((r) => r.ms))),
  });
  // the same, in one process: open, spool, catch up, close; the first run loads the client
  const connect = await bundled('bench/ledger-connect-entry.ts');
  const times = await connect.connectCost(
    databaseUrl(cluster.url, 'empty'),
    hostEnv(undefined).LBRL_CONFIG_DIR,
    21,
  );
  rows.push({ what: 'connect in process, first (client loaded)', ms: Math.round(times[0]) });
  rows.push({
    what: 'connect in process, median of 20 more',
    ms: Math.round(median(times.slice(1)) * 10) / 10,
  });
} finally {
  cluster.stop();
}
console.table(rows);
