/**
 * The library page's worked example (docs/library.md), run as written: its code block is a program
 * that imports 'lbrl' (the built package, through package.json "exports") and serves HTTP; it is
 * driven against a sandbox server whose clock the test moves, so nothing waits for real seconds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLbrlError, parseAmount } from '../../src/index.js';
import { LQ } from '../helpers/fixtures.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function example(): string {
  const page = fs.readFileSync(path.join(ROOT, 'docs/library.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(page);
  if (!code) throw new Error('docs/library.md: no js block');
  return code[1]!;
}

let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
let child: ChildProcess;
let base: string;

beforeAll(async () => {
  if (!fs.existsSync(path.join(ROOT, 'dist/lib/index.js')))
    throw new Error('dist/lib/index.js is missing: run npm run build');
  sandbox = await startTestSandbox();
  const app = tempDir('lbrl-library-doc-');
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.mkdirSync(path.join(app, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(app, 'node_modules/lbrl'), 'dir');
  fs.writeFileSync(path.join(app, 'server.mjs'), example());
  child = spawn(process.execPath, ['server.mjs'], {
    cwd: app,
    env: {
      PATH: process.env.PATH,
      DEPOSIT_URL: sandbox.baseUrl,
      DEPOSIT_TOKEN: SANDBOX_TOKEN,
      SHOP_ADDRESS: LQ,
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    child.on('exit', (code) => reject(new Error(`the example exited ${code}: ${stderr}`)));
  });
}, 20_000);

afterAll(async () => {
  child?.kill();
  await sandbox?.close();
});

/** The message the library's parser gives for an amount: the one the example must pass on. */
function refusal(amount: string): string {
  try {
    parseAmount(amount);
  } catch (error) {
    if (isLbrlError(error)) return error.message;
  }
  throw new Error(`${amount} was not refused`);
}

async function call(method: string, p: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${p}`, { method });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the example of docs/library.md', () => {
  it('creates a charge (once per order), refuses a bad amount by type, and waits for the payment', async () => {
    const created = await call('POST', '/charges?order=42&amount=15,50');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ cents: 1550 });
    expect(created.body.pix).toMatch(/^000201/);
    const id = created.body.id as string;
    const again = await call('POST', '/charges?order=42&amount=15,50');
    expect(again.body.id).toBe(id);

    const bad = await call('POST', '/charges?order=43&amount=1.500,00');
    expect(bad).toEqual({ status: 400, body: { error: 'usage', message: refusal('1.500,00') } });
    expect(bad.body.message).toMatch(/^invalid amount "1\.500,00": expected an amount in reais/);

    expect((await sandbox.call('POST', `/v1/api/deposit/${id}/pay`)).status).toBe(200);
    sandbox.clock.now += 60_000; // the sandbox's payment is done by the first poll
    const waited = await call('GET', `/charges/${id}/wait`);
    expect(waited.status).toBe(200);
    expect(waited.body.status).toBe('FINALIZED');
    expect(waited.body.txid).toMatch(/^[0-9a-f]{64}$/);

    const unknown = await call('GET', '/charges/11111111-2222-4333-8444-555555555555/wait');
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });
});
