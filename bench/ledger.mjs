// The history as a ledger at scale: `deposit list` (with filters), `deposit report` and
// `deposit reconcile` over 10,000 and 100,000 deposits. Time (median of 5) and peak RSS of each,
// so that memory flat in the number of deposits shows as the same RSS at both sizes.
//
//   npm run build && node bench/ledger.mjs [--sizes 10000,100000]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, median, userEnv, writeHistory } from './lib.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};
const SIZES = arg('--sizes', '10000,100000').split(',').map(Number);

/** ms and peak RSS (MB) of one run; the RSS from the process's own resource usage at exit. */
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
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN, code: r.status };
}

// a list after any change of the file not made by lbrl reads the whole file and makes the
// creation index again (store/history-index.ts): that row removes the index before each run
const FRESH_INDEX = 'fresh index';
const COMMANDS = [
  ['list', ['deposit', 'list', '--json']],
  [`list (${FRESH_INDEX})`, ['deposit', 'list', '--json']],
  [
    'list --status FINALIZED --unverified --since 30d',
    ['deposit', 'list', '--status', 'FINALIZED', '--unverified', '--since', '30d', '--json'],
  ],
  [
    'list --status EXPIRED --until 60d',
    ['deposit', 'list', '--status', 'EXPIRED', '--until', '60d', '--json'],
  ],
  ['report --by day', ['deposit', 'report', '--json']],
  ['report --by month --csv', ['deposit', 'report', '--by', 'month', '--csv']],
  ['reconcile --since 1d', ['deposit', 'reconcile', '--since', '1d', '--json']],
];

const rows = [];
for (const n of SIZES) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-ledger-'));
  fs.chmodSync(dir, 0o700);
  writeHistory(dir, n, 'sandbox');
  const env = { ...userEnv(), LBRL_CONFIG_DIR: dir, HOME: dir, LBRL_BASE_URL: '', LBRL_TOKEN: '' };
  delete env.LBRL_BASE_URL;
  delete env.LBRL_TOKEN;
  const index = path.join(dir, 'history.ndjson.index');
  for (const [name, args] of COMMANDS) {
    const before = () => name.includes(FRESH_INDEX) && fs.rmSync(index, { force: true });
    const runs = [];
    for (let i = 0; i < 5; i++) {
      before();
      runs.push(measure(args, env));
    }
    before();
    rows.push({
      deposits: n,
      command: name,
      ms: Math.round(median(runs.map((r) => r.ms))),
      rssMb: Math.round(Math.max(...runs.map((r) => r.rssMb))),
      exit: runs[0].code,
      // memory flat in the number of deposits: the same run within a 32 MB heap
      heap32: measure(args, env, 32).code === runs[0].code ? 'ok' : 'fails',
    });
  }
  if (process.argv.includes('--keep')) console.log(`kept: LBRL_CONFIG_DIR=${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
