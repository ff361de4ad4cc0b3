/**
 * The example receiver of docs/events.md ("A receiver"), run as written with the standardwebhooks
 * package, fed by lbrl listen in-process against the embedded sandbox (a clock that only lbrl's
 * sleeps move): it takes every delivery, and refuses a forged one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function example(): string {
  const page = fs.readFileSync(path.join(ROOT, 'docs/events.md'), 'utf8');
  const section = page.slice(page.indexOf('## A receiver'));
  const code = /```js\n([\s\S]*?)```/.exec(section);
  if (!code) throw new Error('docs/events.md: no js block under "A receiver"');
  return code[1]!;
}

let child: ChildProcess | undefined;
afterAll(() => child?.kill('SIGKILL'));

describe('docs/events.md: the example receiver', () => {
  it('verifies and takes every event of a paid deposit, and refuses a forged one', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const clock = { now: Date.now() };
    const secret = (await runCli(['listen', '--print-secret'], { env, clock })).stdout.trim();
    const app = tempDir('lbrl-receiver-');
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    fs.mkdirSync(path.join(app, 'node_modules'));
    fs.symlinkSync(
      path.join(ROOT, 'node_modules/standardwebhooks'),
      path.join(app, 'node_modules/standardwebhooks'),
    );
    fs.writeFileSync(path.join(app, 'receiver.mjs'), example());
    child = spawn(process.execPath, ['receiver.mjs'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', LBRL_WEBHOOK_SECRET: secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const started = Date.now();
    while (!/receiving on (\S+)/.test(out)) {
      if (Date.now() - started > 10_000) throw new Error(`receiver did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const url = /receiving on (\S+)/.exec(out)![1]!;

    const id = (await runCli(['sandbox', 'trigger', 'paid'], { env, clock })).stdout.trim();
    const ctrl = new AbortController();
    const r = await runCli(['listen', '--forward-to', url], {
      env,
      clock,
      signal: ctrl.signal,
      onSleep: async () => {
        // the receiver checks timestamps against its real clock: lbrl's runs ahead of it by the
        // few seconds of the story, well within the 5 minutes allowed
        await new Promise((res) => setTimeout(res, 5));
        if (out.includes(`paid: ${id}`)) ctrl.abort();
      },
    });
    expect(r.code).toBe(130);
    const answers = r.stderr.split('\n').filter((l) => l.includes('--> '));
    expect(answers.length).toBeGreaterThanOrEqual(2);
    for (const line of answers) expect(line).toMatch(/--> 204 /);
    expect(out).toContain(`paid: ${id}`);

    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      },
      body: JSON.stringify({ type: 'deposit.finalized', data: { deposit: { id } } }),
    });
    expect(forged.status).toBe(400);
  }, 60_000);
});
