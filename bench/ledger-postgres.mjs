// The ledger in PostgreSQL at scale: a throw-away server on loopback (initdb and pg_ctl, as the
// e2e tests make it), 100,000 deposits moved in with `ledger import`, then `deposit list` and
// `deposit report` on a host that has never read the ledger (its copy read whole) and on one
// whose copy is up to date (what every later command pays), and the cost a command adds to
// connect: `deposit list` on an empty database against the same on an empty file history.
// Time is the median of 5 runs (connect: 21 pairs), RSS the peak, `heap32` the run again within a
// 32 MB heap (memory flat in the number of deposits). The connect rows also count instructions
// (valgrind, when installed: median of 3), which a busy machine barely moves. `--compare <bin>`
// runs the connect rows with another build of lbrl too (its bin/lbrl.js), run for run: before
// and after a change, under the same load.
//
// `--connect-only` runs the connect rows alone (no import, no list or report of the deposits),
// `--pairs <n>` sets how many alternated pairs they take (default 21). Beside them, the floors of
// the field in the same rounds: pg's Client alone (bench/floor/pg-connect.cjs) and psql, each
// connecting and asking `select 1` (medians of the pairs' differences with their bare start).
//
//   npm run build && node bench/ledger-postgres.mjs [--size 100000] [--compare <bin>]
//     [--connect-only] [--pairs 21]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { BIN, median, ROOT, userEnv, writeHistory } from './lib.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};
const SIZE = Number(arg('--size', '100000'));
const COMPARE = arg('--compare', undefined);
const CONNECT_ONLY = process.argv.includes('--connect-only');
const PAIRS = Number(arg('--pairs', '21'));
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
    // the program's modules load some built-ins with require on first use (node:net, node:crypto)
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  return import(out);
}

/** ms, peak RSS (MB) and exit code of one run. */
function measure(args, env, heapMb, bin = BIN) {
  const t = process.hrtime.bigint();
  const flags = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const r = spawnSync(
    process.execPath,
    [...flags, '--require', path.join(import.meta.dirname, 'rss.cjs'), bin, ...args],
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
    ...userEnv(),
    LBRL_CONFIG_DIR: dir,
    HOME: dir,
    LBRL_BASE_URL: SERVICE,
    LBRL_TOKEN: 'bench-token-0123456789abcdef',
  };
  if (url) env.LBRL_LEDGER_URL = url;
  else delete env.LBRL_LEDGER_URL;
  return env;
}

/** Millions of instructions a run executes (valgrind's I refs), median of 3; undefined without valgrind. */
function instructions(args, env, bin) {
  const counts = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(
      'valgrind',
      [
        '--tool=cachegrind',
        '--cache-sim=no',
        '--cachegrind-out-file=/dev/null',
        process.execPath,
        bin,
        ...args,
      ],
      { env, encoding: 'utf8' },
    );
    const refs = /I\s+refs:\s+([\d,]+)/.exec(r.stderr ?? '');
    if (r.error || !refs) return undefined;
    counts.push(Number(refs[1].replaceAll(',', '')) / 1e6);
  }
  return Math.round(median(counts));
}

/** ms of one run of a command of the field (no lbrl); it must succeed. */
function timed(command, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** The psql of the server's own installation, else the one on PATH; undefined when there is none. */
function psqlBin() {
  for (const candidate of ['/usr/lib/postgresql/15/bin/psql', 'psql'])
    if (spawnSync(candidate, ['--version']).status === 0) return candidate;
  return undefined;
}

/**
 * The floors of the field, run for run as the connect rows are: pg's Client alone (connect, one
 * `select 1`, end: bench/floor/pg-connect.cjs) against `node -e 0`, and psql doing the same
 * against `psql --version` (its start without a connection). Each is what connecting costs that
 * program, to set beside what it costs lbrl.
 */
function floors(url) {
  const env = userEnv();
  const script = path.join(import.meta.dirname, 'floor', 'pg-connect.cjs');
  const psql = psqlBin();
  const sides = { node: [], pg: [], psqlStart: [], psql: [] };
  for (let i = 0; i < PAIRS; i++) {
    sides.node.push(timed(process.execPath, ['-e', '0'], env));
    sides.pg.push(timed(process.execPath, [script, url], env));
    if (!psql) continue;
    sides.psqlStart.push(timed(psql, ['--version'], env));
    sides.psql.push(timed(psql, ['-X', '-q', '-c', 'select 1', url], env));
  }
  const cost = (a, b) => Math.round(median(a.map((ms, i) => ms - b[i])));
  const out = [
    {
      what: "floor: pg's Client alone, connect + select 1 + end, minus node -e 0",
      ms: cost(sides.pg, sides.node),
    },
  ];
  if (psql)
    out.push({
      what: 'floor: psql -c "select 1", minus psql --version',
      ms: cost(sides.psql, sides.psqlStart),
    });
  return out;
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
  if (!CONNECT_ONLY) {
    writeHistory(source.LBRL_CONFIG_DIR, SIZE, SERVICE);
    rows.push(row(`ledger import (${SIZE} deposits)`, [measure(['ledger', 'import'], source)]));
  }
  const COMMANDS = [
    ['deposit list', ['deposit', 'list', '--json']],
    ['deposit report', ['deposit', 'report', '--json']],
  ];
  for (const [name, args] of CONNECT_ONLY ? [] : COMMANDS) {
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
  // the cost of connecting: an empty database against an empty file history, run for run (and
  // with the build to compare, in the same rounds); each build with hosts of its own (its code cache)
  const builds = [{ name: '', bin: BIN }];
  if (COMPARE) builds.push({ name: ` (${COMPARE})`, bin: path.resolve(COMPARE) });
  const emptyUrl = databaseUrl(cluster.url, 'empty');
  for (const build of builds) {
    build.onFile = hostEnv(undefined);
    build.onDatabase = hostEnv(emptyUrl);
    build.file = [];
    build.database = [];
    measure(['deposit', 'list'], build.onFile, undefined, build.bin);
    measure(['deposit', 'list'], build.onDatabase, undefined, build.bin);
  }
  for (let i = 0; i < PAIRS; i++)
    for (const build of i % 2 ? [...builds].reverse() : builds) {
      build.file.push(measure(['deposit', 'list'], build.onFile, undefined, build.bin));
      build.database.push(measure(['deposit', 'list'], build.onDatabase, undefined, build.bin));
    }
  for (const build of builds) {
    const file = median(build.file.map((r) => r.ms));
    const database = median(build.database.map((r) => r.ms));
    rows.push(row(`deposit list, empty file history${build.name}`, build.file));
    rows.push(row(`deposit list, empty database${build.name}`, build.database));
    rows.push({ what: `connect cost (difference of medians)${build.name}`, ms: Math.round(database - file) });
    const pairs = median(build.database.map((r, i) => r.ms - build.file[i].ms));
    rows.push({
      what: `connect cost (median of the pairs' differences)${build.name}`,
      ms: Math.round(pairs),
    });
    const counted = instructions(['deposit', 'list'], build.onFile, build.bin);
    if (counted !== undefined) {
      const onDatabase = instructions(['deposit', 'list'], build.onDatabase, build.bin);
      rows.push({
        what: `empty list, instructions (M): file, database, added${build.name}`,
        ms: `${counted}, ${onDatabase}, ${onDatabase - counted}`,
      });
    }
  }
  rows.push(...floors(emptyUrl));
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
