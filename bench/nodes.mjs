// Start-up on every Node major CI runs (.ci/run's LBRL_CI_NODES, "24 22 26" by default) and Node 20,
// measured side by side in one run:
//   node bench/nodes.mjs [--quick] [--nodes 20,22,24,26]
// Each round runs, for every command and every Node in turn, `node -e 0` and the command with that
// same Node, so a slow moment of this shared machine falls on all versions alike. Ratios of medians
// as in bench/run.mjs, and the spread of the per-pair ratios (first and third quartiles) as the
// noise. The environment is the same clean one on both sides: PATH, HOME and a temporary config
// directory, no NODE_* variable (NODE_EXTRA_CA_CERTS alone makes Node read a certificate bundle
// at every start, which hides what lbrl costs).
// The floor is one GET of the same deposit with undici alone, bundled as lbrl bundles it
// (bench/floor/undici-get.mjs): what `deposit get --json` cannot go below with this client.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, bundleLikeLbrl, median, nodeBin, ROOT, round, serveSandbox, tempEnv, timeRun } from './lib.mjs';

const quick = process.argv.includes('--quick');
const nodesArg = process.argv.indexOf('--nodes');
const ciNodes = (process.env.LBRL_CI_NODES ?? '24 22 26').split(/\s+/).filter(Boolean);
const majors =
  nodesArg > 0
    ? process.argv[nodesArg + 1].split(',')
    : [...new Set(['20', ...ciNodes])].sort((a, b) => a - b);
const runs = quick ? 7 : 21;
const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

const nodes = majors.map((major) => {
  const bin = nodeBin(major);
  return { major, bin, version: execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim() };
});

const { env, dir } = tempEnv();
const noCache = path.join(dir, 'not-a-directory');
fs.writeFileSync(noCache, '');
const serverEnv = { ...env, LBRL_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-srv-')) };
const sandbox = await serveSandbox(serverEnv);
const live = { ...env, LBRL_BASE_URL: sandbox.baseUrl, LBRL_TOKEN: sandbox.token };
const created = JSON.parse(
  execFileSync(process.execPath, [BIN, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'], {
    env: live,
  }),
);
const floor = await bundleLikeLbrl(
  path.join(ROOT, 'bench/floor/undici-get.mjs'),
  path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-floor-')), 'undici-get.mjs'),
);
const get = [BIN, 'deposit', 'get', created.id, '--json'];

const commands = [
  { name: 'lbrl --version', args: [BIN, '--version'], env },
  { name: 'lbrl --help', args: [BIN, '--help'], env },
  { name: 'lbrl deposit get <id> --json', args: get, env: live },
  {
    name: 'floor: one GET with undici alone',
    args: [floor, `${sandbox.baseUrl}/v1/api/deposit/${created.id}`, sandbox.token],
    env: live,
  },
  {
    name: 'lbrl deposit create --json',
    args: [BIN, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'],
    env: live,
  },
  { name: 'lbrl deposit list --json', args: [BIN, 'deposit', 'list', '--json'], env: live },
  // a cache directory that cannot be made: every run compiles what it reads, as a first run does
  { name: 'get --json with no code cache (first run)', args: get, env: { ...live, XDG_CACHE_HOME: noCache } },
];
const times = new Map(); // `${major} ${command}` -> { base: [], cmd: [] }
try {
  for (let round_ = -3; round_ < runs; round_++) {
    for (const c of commands)
      for (const n of nodes) {
        const key = `${n.major} ${c.name}`;
        if (!times.has(key)) times.set(key, { base: [], cmd: [] });
        const b = timeRun(['-e', '0'], c.env, n.bin);
        const t = timeRun(c.args, c.env, n.bin);
        if (round_ >= 0) {
          times.get(key).base.push(b);
          times.get(key).cmd.push(t);
        }
      }
  }
} finally {
  sandbox.child.kill();
}

const quartile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
const results = { date: new Date().toISOString(), cpus: os.cpus().length, runs, rows: [] };
console.log(`lbrl start-up by Node version, ${results.date}, ${results.cpus} cores, ${runs} pairs`);
console.log('ratio of medians to `node -e 0` (first to third quartile of the per-pair ratios; median ms)');
console.log('');
console.log(`| what | ${nodes.map((n) => n.version).join(' | ')} |`);
console.log(`|---|${nodes.map(() => '---').join('|')}|`);
for (const c of commands) {
  const cells = nodes.map((n) => {
    const { base, cmd } = times.get(`${n.major} ${c.name}`);
    const pairs = cmd.map((t, i) => t / base[i]);
    const row = {
      node: n.version,
      what: c.name,
      ratio: round(median(cmd) / median(base), 2),
      q1: round(quartile(pairs, 0.25), 2),
      q3: round(quartile(pairs, 0.75), 2),
      ms: round(median(cmd)),
      nodeMs: round(median(base)),
    };
    results.rows.push(row);
    return `${row.ratio}x (${row.q1}-${row.q3}; ${row.ms} ms)`;
  });
  console.log(`| ${c.name} | ${cells.join(' | ')} |`);
}
const baseOf = (n) => median(times.get(`${n.major} lbrl --version`).base);
console.log(`| node -e 0 | ${nodes.map((n) => `${round(baseOf(n))} ms`).join(' | ')} |`);
const gap = nodes.map((n) => {
  const ratio = (name) => results.rows.find((r) => r.node === n.version && r.what === name).ratio;
  return round(ratio('lbrl deposit get <id> --json') - ratio('floor: one GET with undici alone'), 2);
});
console.log(`| get --json minus the floor | ${gap.map((g) => `${g}x`).join(' | ')} |`);
fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'nodes.json'), `${JSON.stringify(results, null, 2)}\n`);
