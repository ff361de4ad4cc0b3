// Shared pieces of the benchmarks: paired runs against `node -e 0`, medians, ratios.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(ROOT, 'bin', 'lbrl.js');

const ADDRESS = 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn';
const DAY = 86_400_000;

/**
 * A history as lbrl writes it: n deposits over 90 days on the service `baseUrl` (its key in the
 * history: a base URL, or "sandbox"), most finalized, some verified, failed, expired.
 */
export function writeHistory(dir, n, baseUrl) {
  const now = Date.now();
  const out = fs.openSync(path.join(dir, 'history.ndjson'), 'w', 0o600);
  let buf = '';
  for (let i = 0; i < n; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const at = new Date(now - 90 * DAY + Math.floor((i / n) * 90 * DAY)).toISOString();
    const cents = 500 + ((i * 7919) % 50_000);
    const fee = Math.floor(cents / 100);
    buf += `${JSON.stringify({ v: 1, type: 'created', id, profile: 'default', baseUrl, at, amountInCents: cents, destinationAddress: ADDRESS, splitAddress: null, splitFee: null, status: 'WAITING_PAYMENT', answer: { amount: cents / 100, feeAmount: fee / 100, netAmount: (cents - fee) / 100, splitPercent: null, qrCodeText: 'x', createdAt: at } })}\n`;
    const kind = i % 10;
    if (kind < 7) buf += `${JSON.stringify({ v: 1, type: 'status', id, status: 'FINALIZED', at })}\n`;
    if (kind < 3) buf += `${JSON.stringify({ v: 1, type: 'verified', id, txid: 'cd'.repeat(32), at })}\n`;
    if (kind === 7) buf += `${JSON.stringify({ v: 1, type: 'status', id, status: 'FAILED', at })}\n`;
    if (kind === 8) buf += `${JSON.stringify({ v: 1, type: 'expired', id, at })}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(out, buf);
      buf = '';
    }
  }
  fs.writeSync(out, buf);
  fs.closeSync(out);
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function timeRun(args, env, node = process.execPath) {
  const t = process.hrtime.bigint();
  const r = spawnSync(node, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Alternate the command with `node -e 0`, so both see the same machine; medians and their ratio. */
export function paired(name, args, env, runs = 21) {
  const base = [];
  const cmd = [];
  for (let i = 0; i < 3; i++) {
    timeRun(['-e', '0'], env);
    timeRun(args, env);
  }
  for (let i = 0; i < runs; i++) {
    base.push(timeRun(['-e', '0'], env));
    cmd.push(timeRun(args, env));
  }
  const b = median(base);
  const c = median(cmd);
  return { name, nodeMs: round(b), lbrlMs: round(c), ratio: round(c / b, 2) };
}

export function round(x, d = 1) {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

/** The environment a user's shell gives lbrl: this one without Node's own variables (NODE_*), which users do not have. */
export function userEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NODE_')));
}

export function tempEnv() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-'));
  const env = { PATH: process.env.PATH, HOME: dir, LBRL_CONFIG_DIR: dir };
  return { dir, env };
}

/**
 * The bin directory of a Node major from the npm registry (node-linux-<arch>@<major>), installed
 * once into the same cache .ci/run uses; the machine's own Node for its own major.
 */
export function nodeBin(major) {
  if (process.versions.node.split('.')[0] === String(major)) return process.execPath;
  const cache =
    process.env.LBRL_CI_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'lbrl-ci');
  const dir = path.join(cache, `node-${major}`);
  const node = path.join(dir, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node');
  if (!fs.existsSync(node)) {
    const r = spawnSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--loglevel=error',
        '--prefix',
        dir,
        `node-linux-${process.arch}@${major}`,
      ],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) throw new Error(`could not install node-linux-${process.arch}@${major}`);
  }
  return node;
}

/** Start `lbrl sandbox serve` (of `bin`, the built program by default) and read its base URL and token. */
export function serveSandbox(env, bin = BIN) {
  const child = spawn(process.execPath, [bin, 'sandbox', 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const url = /LBRL_BASE_URL=(\S+)/.exec(out);
      const token = /LBRL_TOKEN=(\S+)/.exec(out);
      if (url && token) resolve({ child, baseUrl: url[1], token: token[1] });
    });
    child.on('exit', (code) => reject(new Error(`sandbox serve exited ${code}`)));
  });
}

/** Bundle one file the way `npm run build` bundles lbrl (the options of its esbuild command). */
export async function bundleLikeLbrl(entry, outfile) {
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    alias: { 'node:http2': path.join(ROOT, 'src/api/no-http2.ts') },
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  return outfile;
}
