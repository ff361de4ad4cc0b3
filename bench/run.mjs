// npm run bench: every benchmark of the project, printed as a table and saved as JSON.
//   node bench/run.mjs [--quick] [--watch-minutes N]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { BIN, bundleLikeLbrl, paired, ROOT, round, serveSandbox, tempEnv } from './lib.mjs';

const quick = process.argv.includes('--quick');
const watchArg = process.argv.indexOf('--watch-minutes');
const watchMinutes = watchArg > 0 ? Number(process.argv[watchArg + 1]) : 0;
const runs = quick ? 7 : 21;
const results = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model,
  rows: [],
};
const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

const { env } = tempEnv();
results.rows.push(paired('lbrl --version', [BIN, '--version'], env, runs));
results.rows.push(paired('lbrl --help', [BIN, '--help'], env, runs));

// autopay off: the watched deposit must stay pending for the whole watch
const serverEnv = { ...env, LBRL_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-srv-')) };
execFileSync(process.execPath, [BIN, 'config', 'set', 'sandbox-autopay', 'off'], {
  env: serverEnv,
  stdio: 'ignore',
});
const sandbox = await serveSandbox(serverEnv);
try {
  const live = { ...env, LBRL_BASE_URL: sandbox.baseUrl, LBRL_TOKEN: sandbox.token };
  const created = JSON.parse(
    execFileSync(process.execPath, [BIN, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'], {
      env: live,
    }),
  );
  results.rows.push(
    paired(
      'lbrl deposit get <id> --json (standing sandbox)',
      [BIN, 'deposit', 'get', created.id, '--json'],
      live,
      runs,
    ),
  );
  results.rows.push(
    paired(
      'lbrl deposit create --json (standing sandbox)',
      [BIN, 'deposit', 'create', '--amount', '10', '--to', LQ, '--json'],
      live,
      runs,
    ),
    paired('lbrl deposit list --json', [BIN, 'deposit', 'list', '--json'], live, runs),
  );
  // Node reads NODE_EXTRA_CA_CERTS, NODE_OPTIONS and the like at every start: the same row with
  // the caller's environment, both sides alike, shows what they do to the ratio
  const nodeVars = Object.keys(process.env).filter((k) => k.startsWith('NODE_'));
  if (nodeVars.length > 0) {
    results.rows.push(
      paired(
        `lbrl deposit get <id> --json, with the caller's ${nodeVars.join(', ')}`,
        [BIN, 'deposit', 'get', created.id, '--json'],
        { ...live, ...Object.fromEntries(nodeVars.map((k) => [k, process.env[k]])) },
        runs,
      ),
    );
  }

  // The floor under that row: one bare GET with undici, bundled as lbrl bundles it, and with
  // Node's own http client. What lbrl adds is the rest of the get row.
  const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-floor-'));
  await bundleLikeLbrl(path.join(ROOT, 'bench/floor/undici-get.mjs'), path.join(floorDir, 'undici-get.mjs'));
  const url = `${sandbox.baseUrl}/v1/api/deposit/${created.id}`;
  results.rows.push(
    paired(
      'floor: one GET with undici alone (bundled)',
      [path.join(floorDir, 'undici-get.mjs'), url, sandbox.token],
      live,
      runs,
    ),
    paired(
      'floor: one GET with node:http alone',
      [path.join(ROOT, 'bench/floor/http-get.mjs'), url, sandbox.token],
      live,
      runs,
    ),
  );
  fs.rmSync(floorDir, { recursive: true, force: true });

  const load = await autocannon({
    url: `${sandbox.baseUrl}/v1/api/deposit/${created.id}`,
    headers: { authorization: `Bearer ${sandbox.token}` },
    connections: 10,
    duration: quick ? 3 : 10,
  });
  results.sandbox = {
    requestsPerSecond: round(load.requests.average),
    p50ms: load.latency.p50,
    p99ms: load.latency.p99,
    non2xx: load.non2xx,
    errors: load.errors,
  };

  // a batch of 200 rows against a shell loop of 200 curl calls to the same server
  const rows = Array.from({ length: 200 }, (_, i) => `${i + 1},${LQ}`).join('\n');
  const csvFile = path.join(os.tmpdir(), `lbrl-bench-${process.pid}.csv`);
  fs.writeFileSync(csvFile, `amountCents,to\n${rows}\n`);
  const body = (i) => JSON.stringify({ amountInCents: i + 1, lbrlAddress: LQ });
  const loop = `for i in $(seq 1 200); do curl -s -o /dev/null -X POST -H "authorization: Bearer $LBRL_TOKEN" -H 'content-type: application/json' -H "idempotency-key: bench-$$-$i" --data '${body(0)}' "$LBRL_BASE_URL/v1/api/deposit"; done`;
  const batchMs = [];
  const curlMs = [];
  for (let k = 0; k < (quick ? 1 : 3); k++) {
    let t = Date.now();
    execFileSync(process.execPath, [BIN, 'deposit', 'create', '--from', csvFile], {
      env: live,
      stdio: 'ignore',
    });
    batchMs.push(Date.now() - t);
    t = Date.now();
    execFileSync('bash', ['-c', loop], { env: live, stdio: 'ignore' });
    curlMs.push(Date.now() - t);
  }
  fs.rmSync(csvFile, { force: true });
  const b = batchMs.sort((x, y) => x - y)[Math.floor(batchMs.length / 2)];
  const c = curlMs.sort((x, y) => x - y)[Math.floor(curlMs.length / 2)];
  results.batch = { rows: 200, lbrlMs: b, curlLoopMs: c, ratio: round(b / c, 2) };

  if (watchMinutes > 0) {
    // a watch of one deposit that never ends, read from /proc: CPU time and peak RSS
    const child = spawn(
      process.execPath,
      [BIN, 'deposit', 'watch', created.id, '--timeout', `${Math.round(watchMinutes * 60)}s`],
      { env: live, stdio: 'ignore' },
    );
    const tick = 100; // USER_HZ on Linux
    let cpuTicks = 0;
    let peakRssKb = 0;
    const started = Date.now();
    const timer = setInterval(() => {
      try {
        const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        cpuTicks = Number(stat[11]) + Number(stat[12]);
        const rss = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (rss) peakRssKb = Math.max(peakRssKb, Number(rss[1]));
      } catch {
        // the process has ended
      }
    }, 1000);
    await new Promise((r) => child.on('exit', r));
    clearInterval(timer);
    const seconds = (Date.now() - started) / 1000;
    results.watch = {
      minutes: watchMinutes,
      cpuPercentOfOneCore: round((cpuTicks / tick / seconds) * 100, 2),
      peakRssMb: round(peakRssKb / 1024),
    };
  }
} finally {
  sandbox.child.kill('SIGINT');
}

console.log(`lbrl benchmarks, ${results.date}, Node ${results.node}, ${results.cpus} cores (${results.cpu})`);
console.log('');
console.log('| what | node -e 0 (ms) | lbrl (ms) | ratio |');
console.log('|---|---|---|---|');
for (const r of results.rows) console.log(`| ${r.name} | ${r.nodeMs} | ${r.lbrlMs} | ${r.ratio}x |`);
console.log('');
const s = results.sandbox;
console.log(
  `sandbox serve, GET: ${s.requestsPerSecond} req/s, p50 ${s.p50ms} ms, p99 ${s.p99ms} ms, non-2xx ${s.non2xx}, errors ${s.errors}`,
);
const bt = results.batch;
console.log(
  `batch of ${bt.rows} rows: lbrl --from ${bt.lbrlMs} ms, shell loop of curl ${bt.curlLoopMs} ms, ratio ${bt.ratio}x`,
);
if (results.watch) {
  console.log(
    `deposit watch for ${results.watch.minutes} min: ${results.watch.cpuPercentOfOneCore}% of one core, peak RSS ${results.watch.peakRssMb} MB`,
  );
}
fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
