// What the sandbox costs as it stores more: memory (RSS and heap after a full GC) and disk per
// deposit, after 10,000 and 50,000 creates, each with its own Idempotency-Key, on a sandbox
// whose heap is capped at 128 MB (as a small container would).
//   node bench/sandbox-memory.mjs [--creates 10000,50000] [--png]
// The sandbox runs in a child process; its clock runs 3,000 times faster than the wall's, so
// the run spans days of sandbox time and idempotency keys expire and are swept as they would.
// Drawing each create's PNG is most of a create's time (about 10 ms here) and nothing of it is
// kept, so by default a fixed PNG stands in for it; --png draws the real one (slower).
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleLikeLbrl, ROOT, round } from './lib.mjs';

const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
const TOKEN = 'sbx_bench';
const SPEED = 3000;

if (process.argv[2] === '--child') {
  const [bundle, dir, png] = process.argv.slice(3);
  const { createHandler, listen, SandboxStore, qrPng } = await import(bundle);
  const pngOf = async (text) => (await qrPng(text)).toString('base64');
  const t0 = Date.now();
  const fixed = await pngOf('lbrl');
  const sandbox = await listen(
    createHandler({
      store: new SandboxStore(dir),
      token: TOKEN,
      autopaySeconds: null,
      now: () => t0 + (Date.now() - t0) * SPEED,
      qrPng: png === 'png' ? pngOf : async () => fixed,
    }),
    '127.0.0.1',
    0,
  );
  process.on('message', (m) => {
    if (m === 'measure') {
      globalThis.gc();
      globalThis.gc();
      const { rss, heapUsed } = process.memoryUsage();
      process.send({ rss, heapUsed });
    } else if (m === 'stop') sandbox.close().then(() => process.exit(0));
  });
  process.send({ baseUrl: sandbox.baseUrl });
} else {
  const arg = process.argv.indexOf('--creates');
  const marks = (arg > 0 ? process.argv[arg + 1] : '10000,50000').split(',').map(Number);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-mem-'));
  const bundle = path.join(work, 'sandbox.mjs');
  const entry = path.join(work, 'entry.ts');
  const src = (f) => JSON.stringify(path.join(ROOT, 'src/sandbox', f));
  fs.writeFileSync(
    entry,
    `export { createHandler, listen } from ${src('server.ts')};\n` +
      `export { SandboxStore } from ${src('store.ts')};\nexport { qrPng } from ${JSON.stringify(path.join(ROOT, 'src/ui/qrpng.ts'))};\n`,
  );
  await bundleLikeLbrl(entry, bundle);
  const dir = path.join(work, 'data');
  const png = process.argv.includes('--png') ? 'png' : 'fixed';
  const child = fork(new URL(import.meta.url).pathname, ['--child', bundle, dir, png], {
    execArgv: ['--expose-gc', '--max-old-space-size=128'],
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const { baseUrl } = await next();
  const measure = async () => {
    child.send('measure');
    return next();
  };
  const diskOf = (sub) => {
    let bytes = 0;
    let blocks = 0;
    let files = 0;
    for (const name of fs.readdirSync(path.join(dir, sub))) {
      const st = fs.statSync(path.join(dir, sub, name));
      bytes += st.size;
      blocks += st.blocks * 512;
      files++;
    }
    return { bytes, blocks, files };
  };
  const mb = (b) => round(b / 2 ** 20, 1);
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ amountInCents: 1500, lbrlAddress: LQ });
  let made = 0;
  const create = async () => {
    const i = made++;
    const res = await fetch(`${baseUrl}/v1/api/deposit`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `bench-${i}` },
      body,
    });
    if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${await res.text()}`);
    return (await res.json()).id;
  };
  const rows = [];
  const before = await measure();
  rows.push({ creates: 0, rssMB: mb(before.rss), heapMB: mb(before.heapUsed) });
  const started = Date.now();
  let lastId;
  for (const mark of marks) {
    while (made < mark) {
      const batch = Array.from({ length: Math.min(8, mark - made) }, create);
      lastId = (await Promise.all(batch)).at(-1);
    }
    const m = await measure();
    const deposits = diskOf('deposits');
    const keys = diskOf('idempotency');
    rows.push({
      creates: mark,
      seconds: round((Date.now() - started) / 1000, 0),
      rssMB: mb(m.rss),
      heapMB: mb(m.heapUsed),
      depositBytesEach: round(deposits.bytes / deposits.files, 0),
      depositDiskEach: round(deposits.blocks / deposits.files, 0),
      keyFiles: keys.files,
    });
  }
  // a deposit created first is still read from disk, correctly
  const first = await fetch(`${baseUrl}/v1/api/deposit/${lastId}`, { headers });
  if (first.status !== 200) throw new Error(`get: ${first.status}`);
  child.send('stop');
  console.table(rows);
  fs.rmSync(work, { recursive: true, force: true });
}
