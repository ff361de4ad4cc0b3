// Start-up on every Node major users run, measured side by side in one run:
//   node bench/nodes.mjs [--quick] [--nodes 20,22,24,26]
// Each round runs, for every Node in turn, `node -e 0` and the lbrl command with that same Node,
// so a slow moment of this shared machine falls on all versions alike. Ratios of medians, as in
// bench/run.mjs; the environment is clean (PATH, HOME, a temporary config directory, no NODE_*).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, median, nodeBin, round, serveSandbox, tempEnv, timeRun } from './lib.mjs';

const quick = process.argv.includes('--quick');
const nodesArg = process.argv.indexOf('--nodes');
const majors = (nodesArg > 0 ? process.argv[nodesArg + 1] : '20,22,24,26').split(',');
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

const commands = [
  { name: 'lbrl --version', args: [BIN, '--version'], env },
  { name: 'lbrl --help', args: [BIN, '--help'], env },
  { name: 'lbrl deposit get <id> --json', args: [BIN, 'deposit', 'get', created.id, '--json'], env: live },
  // a cache directory that cannot be made: every run compiles the program, as a first run does
  {
    name: 'the same, with no code cache (first run, or unwritable cache directory)',
    args: [BIN, 'deposit', 'get', created.id, '--json'],
    env: { ...live, XDG_CACHE_HOME: noCache },
  },
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

console.log(
  `lbrl start-up by Node version, ${new Date().toISOString()}, ${os.cpus().length} cores, ${runs} pairs`,
);
console.log('');
console.log(`| what | ${nodes.map((n) => n.version).join(' | ')} |`);
console.log(`|---|${nodes.map(() => '---').join('|')}|`);
for (const c of commands) {
  const cells = nodes.map((n) => {
    const { base, cmd } = times.get(`${n.major} ${c.name}`);
    return `${round(median(cmd) / median(base), 2)}x (${round(median(cmd))} ms)`;
  });
  console.log(`| ${c.name} | ${cells.join(' | ')} |`);
}
console.log(
  `| node -e 0 | ${nodes.map((n) => `${round(median(times.get(`${n.major} lbrl --version`).base))} ms`).join(' | ')} |`,
);
