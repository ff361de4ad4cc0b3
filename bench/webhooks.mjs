// lbrl listen, measured as a user runs it (the built CLI, the embedded sandbox, a receiver on
// loopback):
//   1. delay: from a status change (sandbox pay) to the start of its delivery, with --interval 1;
//      the target is one polling interval plus under 100 ms;
//   2. throughput: 1,000 events waiting in the outbox, delivered to a local receiver;
//   3. the outbox after 100,000 delivered events: its size, and listen's start-up with it.
//   node bench/webhooks.mjs [--quick] [--delay-only]
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BIN, median, round, tempEnv } from './lib.mjs';

const quick = process.argv.includes('--quick');
const results = { date: new Date().toISOString(), node: process.version, rows: [] };

function receiver(onEvent) {
  const server = http.createServer((req, res) => {
    const at = performance.now() + performance.timeOrigin;
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200).end();
      onEvent(JSON.parse(body), req.headers, at);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/hooks`, close: () => server.close() }),
    ),
  );
}

function lbrl(args, env) {
  return execFileSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' }).trim();
}

function startListen(url, env, extra = []) {
  const child = spawn(process.execPath, [BIN, 'listen', '--forward-to', url, '--interval', '1', ...extra], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const started = Date.now();
  let stderr = '';
  const ready = new Promise((resolve) => {
    child.stderr.on('data', (c) => {
      stderr += c;
      if (stderr.includes('listening:')) resolve(Date.now() - started);
    });
  });
  return {
    child,
    ready,
    stderr: () => stderr,
    stop: () =>
      new Promise((r) => {
        child.on('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

const until = async (cond, ms = Number(process.env.BENCH_WAIT_MS ?? 600_000)) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

// 1. delay
{
  const { env, dir } = tempEnv();
  const seen = new Map();
  const after = new Map();
  const rx = await receiver((e, _h, at) => {
    seen.set(`${e.data.deposit.id} ${e.type}`, at);
    // the first event after the payment (a status that lasts a second may flash between two polls)
    if (e.type !== 'deposit.created' && !after.has(e.data.deposit.id)) after.set(e.data.deposit.id, at);
  });
  const listen = startListen(rx.url, env);
  await listen.ready;
  const delays = [];
  for (let i = 0; i < (quick ? 5 : 15); i++) {
    // one deposit followed at a time: with more, the request budget spaces their polls
    const id = lbrl(['sandbox', 'trigger', 'abandoned'], env);
    await until(() => seen.has(`${id} deposit.created`));
    // a random moment within the polling interval
    await new Promise((r) => setTimeout(r, Math.random() * 1000));
    lbrl(['sandbox', 'pay', id], env);
    // the status changed at the moment the sandbox recorded the payment
    const changedAt = JSON.parse(
      fs.readFileSync(path.join(dir, 'sandbox', 'events', `${id}.paid`), 'utf8'),
    ).at;
    await until(() => after.has(id));
    delays.push(after.get(id) - changedAt);
    await until(() => seen.has(`${id} deposit.finalized`));
  }
  await listen.stop();
  rx.close();
  results.rows.push({
    what: 'status change to delivery start, --interval 1 (target: at most 1000 + 100 ms)',
    median_ms: round(median(delays)),
    max_ms: round(Math.max(...delays)),
    runs: delays.length,
  });
}

/** Events waiting in a profile's outbox, as listen writes them: n deposits, `per` events each. */
function fillOutbox(dir, deposits, per, delivered) {
  fs.mkdirSync(path.join(dir, 'webhooks'), { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'webhooks', 'default.ndjson');
  const types = [
    'deposit.created',
    'deposit.pix_confirmed',
    'deposit.settlement_created',
    'deposit.tx_sent',
    'deposit.finalized',
  ];
  const fd = fs.openSync(file, 'w', 0o600);
  const at = new Date().toISOString();
  fs.writeSync(fd, `${JSON.stringify({ v: 1, type: 'since', at })}\n`);
  let lines = [];
  for (let d = 0; d < deposits; d++) {
    const id = crypto.randomUUID();
    for (let k = 0; k < per; k++) {
      const type = types[k % types.length];
      const eid = `evt_${crypto.randomBytes(20).toString('base64url').slice(0, 27)}`;
      const body = JSON.stringify({
        type,
        timestamp: at,
        data: {
          deposit: {
            id,
            status: 'FINALIZED',
            amount: 10,
            amountInCents: 1000,
            feeAmount: 0.1,
            netAmount: 9.9,
          },
          previousStatus: null,
        },
      });
      lines.push(JSON.stringify({ v: 1, type: 'event', id: eid, deposit: id, event: type, at, body }));
      if (delivered) lines.push(JSON.stringify({ v: 1, type: 'done', id: eid, at, http: 200 }));
    }
    lines.push(JSON.stringify({ v: 1, type: 'seen', deposit: id, status: 'FINALIZED', at, closed: true }));
    if (lines.length > 10_000) {
      fs.writeSync(fd, `${lines.join('\n')}\n`);
      lines = [];
    }
  }
  if (lines.length > 0) fs.writeSync(fd, `${lines.join('\n')}\n`);
  fs.closeSync(fd);
  return file;
}

// 2. throughput, 3. outbox after 100,000 delivered events
for (const [count, label] of process.argv.includes('--delay-only')
  ? []
  : [
      [1000, '1,000'],
      [quick ? 20_000 : 100_000, quick ? '20,000' : '100,000'],
    ]) {
  const { env, dir } = tempEnv();
  execFileSync(process.execPath, [BIN, 'listen', '--print-secret'], { env, stdio: 'ignore' });
  const file = fillOutbox(dir, count / 5, 5, false);
  const sizeBefore = fs.statSync(file).size;
  let received = 0;
  let first = 0;
  let last = 0;
  const rx = await receiver((_e, _h, at) => {
    received += 1;
    first ||= at;
    last = at;
  });
  const listen = startListen(rx.url, env);
  const startup = await listen.ready;
  await until(() => received >= count);
  // a poll round or two, so that listen compacts what it delivered
  await new Promise((r) => setTimeout(r, 2500));
  await listen.stop();
  rx.close();
  results.rows.push({
    what: `throughput: ${label} events from the outbox to a local receiver`,
    events_per_s: round(count / ((last - first) / 1000)),
    total_s: round((last - first) / 1000, 2),
    startup_ms_with_them_waiting: startup,
    outbox_before_kb: round(sizeBefore / 1024),
  });
  if (count >= 20_000) {
    const size = fs.statSync(file).size;
    const starts = [];
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      const again = startListen('http://127.0.0.1:9/never', env);
      starts.push(await again.ready);
      await again.stop();
    }
    const { env: emptyEnv } = tempEnv();
    execFileSync(process.execPath, [BIN, 'listen', '--print-secret'], { env: emptyEnv, stdio: 'ignore' });
    const empty = [];
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      const fresh = startListen('http://127.0.0.1:9/never', emptyEnv);
      empty.push(await fresh.ready);
      await fresh.stop();
    }
    results.rows.push({
      what: `outbox after ${label} delivered events (compacted: the last 1,000 kept for --replay)`,
      outbox_kb: round(size / 1024),
      lines: fs.readFileSync(file, 'utf8').split('\n').length - 1,
      startup_ms_median: median(starts),
      startup_ms_empty_outbox: median(empty),
    });
  }
}

console.table(results.rows);
fs.mkdirSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'results'), { recursive: true });
fs.writeFileSync(
  path.join(path.dirname(new URL(import.meta.url).pathname), 'results', 'webhooks.json'),
  `${JSON.stringify(results, null, 2)}\n`,
);
