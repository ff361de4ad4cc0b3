// Start-up counted in instructions, not timed: on a shared machine a wall-clock ratio moves by
// more than the changes it is meant to show, while the instructions a run executes barely move
// (V8's random hash seed alone moves a run by a few million: hence medians).
//   node bench/instructions.mjs [--runs 5] [--nodes 20,24] [--no-seed-cost] [--compare <checkout>]
// --compare counts another build (the checkout's dist/, built there) in the same loop, its
// get/create/list --json as rows of their own: a change's before and after on the same machine.
// --no-seed-cost takes out of each count what V8 spends at start on its random hash seed (its
// search for primes, detail::sprp in the profile: 7M to 14M from one run to the next, in every
// process, node -e 0 included): the rest then moves by about 1M, without fixing the seeds (which
// has Node compile its own built-ins from source, their code cache being keyed by the flags).
// Each run is counted by valgrind (cachegrind, no cache simulation: user-space instructions, every
// thread), after one run uncounted so that lbrl's code cache is warm, in the clean environment of
// bench/nodes.mjs. Rows as there: `node -e 0`, the undici floor, get/create/list --json, --version,
// --help; ratios of medians to `node -e 0`, and get minus the floor.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleLikeLbrl, median, nodeBin, ROOT, round, serveSandbox, tempEnv } from './lib.mjs';

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const runs = Number(option('--runs', '5'));
const majors = option('--nodes', '20,24').split(',');
const noSeedCost = process.argv.includes('--no-seed-cost');
if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed: this benchmark counts instructions with it');
  process.exit(1);
}

/** The instructions one run executes (valgrind's I refs), in millions; the run must succeed. */
function count(node, args, env) {
  spawnSync(node, args, { env, stdio: 'ignore' }); // warm: the code cache is written by a first run
  const out = path.join(os.tmpdir(), `lbrl-bench-cachegrind-${process.pid}.out`);
  const r = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      `--cachegrind-out-file=${noSeedCost ? out : '/dev/null'}`,
      node,
      ...args,
    ],
    { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(r.stderr);
  if (r.status !== 0 || !refs)
    throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return (Number(refs[1].replaceAll(',', '')) - (noSeedCost ? seedCost(out) : 0)) / 1e6;
}

/** The instructions of V8's hash seed's search for primes (detail::sprp), from a cachegrind file. */
function seedCost(file) {
  let fn = '';
  let total = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = line;
    else if (fn.includes('detail::sprp') && /^\d/.test(line)) total += Number(line.split(' ')[1]);
  }
  fs.rmSync(file, { force: true });
  return total;
}

/**
 * The build, copied once before anything runs: the counts take many minutes, and `npm run build`
 * in the meantime (it removes dist/ first) would have runs fail midway, or count two builds. Every
 * run, the sandbox's included, uses the copy.
 */
function buildCopy(root = ROOT) {
  if (!fs.existsSync(path.join(root, 'dist', 'build-id'))) {
    console.error('no build in dist/ (or one being made): run npm run build, then this benchmark');
    process.exit(1);
  }
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-build-'));
  for (const part of ['package.json', 'bin', 'dist'])
    fs.cpSync(path.join(root, part), path.join(copy, part), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const id = (dir) => fs.readFileSync(path.join(dir, 'dist', 'build-id'), 'utf8');
  if (!fs.existsSync(path.join(copy, 'dist', 'build-id')) || id(copy) !== id(root)) {
    console.error('dist/ changed while it was copied (a build running?): run this benchmark again after it');
    process.exit(1);
  }
  return path.join(copy, 'bin', 'lbrl.js');
}
const BIN = buildCopy();
const compared = option('--compare', undefined);
const OTHER = compared === undefined ? undefined : buildCopy(path.resolve(compared));
console.error(
  `counting the build copied to ${path.dirname(path.dirname(BIN))} (dist/ may be rebuilt meanwhile)`,
);

const { env } = tempEnv();
const serverEnv = { ...env, LBRL_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-srv-')) };
const sandbox = await serveSandbox(serverEnv, BIN);
const live = { ...env, LBRL_BASE_URL: sandbox.baseUrl, LBRL_TOKEN: sandbox.token };
const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
const created = JSON.parse(
  execFileSync(process.execPath, [BIN, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'], {
    env: live,
  }),
);
const floor = await bundleLikeLbrl(
  path.join(ROOT, 'bench/floor/undici-get.mjs'),
  path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-floor-')), 'undici-get.mjs'),
);
const rows = [
  { name: 'node -e 0', args: ['-e', '0'], env },
  {
    name: 'floor: one GET with undici alone',
    args: [floor, `${sandbox.baseUrl}/v1/api/deposit/${created.id}`, sandbox.token],
    env: live,
  },
  { name: 'lbrl deposit get <id> --json', args: [BIN, 'deposit', 'get', created.id, '--json'], env: live },
  {
    name: 'lbrl deposit create --json',
    args: [BIN, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'],
    env: live,
  },
  { name: 'lbrl deposit list --json', args: [BIN, 'deposit', 'list', '--json'], env: live },
  ...(OTHER === undefined
    ? []
    : [
        { name: 'compared: deposit get <id> --json', args: [OTHER, 'deposit', 'get', created.id, '--json'] },
        {
          name: 'compared: deposit create --json',
          args: [OTHER, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'],
        },
        { name: 'compared: deposit list --json', args: [OTHER, 'deposit', 'list', '--json'] },
      ].map((row) => ({ ...row, env: live }))),
  { name: 'lbrl --version', args: [BIN, '--version'], env },
  { name: 'lbrl --help', args: [BIN, '--help'], env },
];
const nodes = majors.map((major) => {
  const bin = nodeBin(major);
  return { bin, version: execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim() };
});
const counts = new Map(); // `${version} ${row}` -> [M]
try {
  // round after round, so that a change of the machine (another Node's cache written) falls on all
  for (let i = 0; i < runs; i++)
    for (const n of nodes)
      for (const row of rows) {
        const key = `${n.version} ${row.name}`;
        counts.set(key, [...(counts.get(key) ?? []), count(n.bin, row.args, row.env)]);
      }
} finally {
  sandbox.child.kill();
}

console.log(
  `instructions${noSeedCost ? " less the hash seed's search for primes" : ''}, median of ${runs} runs (millions; ratio to node -e 0), ${new Date().toISOString()}`,
);
console.log('');
console.log(`| what | ${nodes.map((n) => n.version).join(' | ')} |`);
console.log(`|---|${nodes.map(() => '---').join('|')}|`);
const med = (n, name) => median(counts.get(`${n.version} ${name}`));
for (const row of rows) {
  const cells = nodes.map(
    (n) => `${round(med(n, row.name))}M (${round(med(n, row.name) / med(n, 'node -e 0'), 2)}x)`,
  );
  console.log(`| ${row.name} | ${cells.join(' | ')} |`);
}
const gap = (get) =>
  nodes.map((n) => {
    const base = med(n, 'node -e 0');
    const ratio = (name) => med(n, name) / base;
    return `${round(ratio(get) - ratio('floor: one GET with undici alone'), 2)}x`;
  });
console.log(`| get --json minus the floor | ${gap('lbrl deposit get <id> --json').join(' | ')} |`);
if (OTHER !== undefined)
  console.log(
    `| compared: get --json minus the floor | ${gap('compared: deposit get <id> --json').join(' | ')} |`,
  );
