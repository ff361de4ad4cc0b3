/** The standing sandbox as two people use it: one serves, the other creates and pays through its API. */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { getAnswer, ID, LQ, TOKEN } from '../helpers/fixtures.js';
import { json, startServer } from '../helpers/server.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('a standing sandbox', () => {
  it('sandbox pay through LBRL_BASE_URL from another config directory; each request logged on stderr', async () => {
    const serverDir = tempDir();
    expect(
      (
        await runBin(['config', 'set', 'sandbox-autopay', 'off'], {
          HOME: tempDir(),
          LBRL_CONFIG_DIR: serverDir,
        })
      ).code,
    ).toBe(0);
    const child = spawnBin(['sandbox', 'serve', '--host', '0.0.0.0'], {
      HOME: tempDir(),
      LBRL_CONFIG_DIR: serverDir,
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d.toString();
    });
    const out = await waitForOutput(child, /LBRL_TOKEN=\S+\n/);
    const baseUrl = /LBRL_BASE_URL=(\S+)/.exec(out)![1]!;
    const token = /LBRL_TOKEN=(\S+)/.exec(out)![1]!;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const live = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: baseUrl, LBRL_TOKEN: token };

    const created = await runBin(['deposit', 'create', '--amount', '2', '--to', LQ, '--json'], live);
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const before = await runBin(['deposit', 'get', id, '--json'], live);
    expect(JSON.parse(before.stdout).status).toBe('WAITING_PAYMENT');

    const paid = await runBin(['sandbox', 'pay', id], live);
    expect(paid).toMatchObject({ code: 0, stdout: `paid ${id}: PIX_CONFIRMED\n` });
    // the standing server runs on the real clock: a paid deposit moves on a step a second, and a
    // loaded machine may take that long between two runs
    const paidStatus = '(PIX_CONFIRMED|SETTLEMENT_CREATED|TX_SENT|FINALIZED)';
    const after = await runBin(['deposit', 'get', id, '--json'], live);
    expect(JSON.parse(after.stdout).status).toMatch(new RegExp(`^${paidStatus}$`));

    // paid already: 409, exit 2 with the server's message; an unknown id 404, exit 4; a wrong token exit 3
    const again = await runBin(['sandbox', 'pay', id], live);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(
        `the service refused the request \\(409\\): deposit ${id} is ${paidStatus}; only a WAITING_PAYMENT deposit can be paid`,
      ),
    );
    // failed: a second charge, still waiting (the paid one may be final by now on a loaded
    // machine, and a final deposit cannot fail)
    const other = await runBin(['deposit', 'create', '--amount', '3', '--to', LQ, '--json'], live);
    const otherId = JSON.parse(other.stdout).id as string;
    const failed = await runBin(['sandbox', 'fail', otherId, '--json'], live);
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.stdout)).toMatchObject({ id: otherId, status: 'FAILED' });
    expect((await runBin(['deposit', 'get', otherId, '-q'], live)).stdout).toBe('FAILED\n');
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = await runBin(['sandbox', 'fail', unknown], live);
    expect(missing.code).toBe(4);
    expect(missing.stderr.trim()).toBe(`error: deposit ${unknown} not found`);
    const wrong = await runBin(['sandbox', 'fail', id], { ...live, LBRL_TOKEN: 'wrong-token-0123456789' });
    expect(wrong.code).toBe(3);

    // one line per request: method, path, status, time
    expect(stderr).toMatch(/^POST \/v1\/api\/deposit 201 \d+ ms$/m);
    expect(stderr).toMatch(new RegExp(`^POST /v1/api/deposit/${id}/pay 200 \\d+ ms$`, 'm'));
    expect(stderr).toMatch(new RegExp(`^POST /v1/api/deposit/${id}/pay 409 \\d+ ms$`, 'm'));
    expect(stderr).toMatch(new RegExp(`^POST /v1/api/deposit/${otherId}/fail 200 \\d+ ms$`, 'm'));
    expect(stderr).toMatch(new RegExp(`^GET /v1/api/deposit/${unknown} 404 \\d+ ms$`, 'm'));
    expect(stderr).toMatch(new RegExp(`^GET /v1/api/deposit/${id} 200 \\d+ ms$`, 'm'));
    child.kill('SIGINT');
    expect(await new Promise((r) => child.on('exit', (c) => r(c)))).toBe(130);
  });

  it('-q keeps the server quiet', async () => {
    const serverDir = tempDir();
    const child = spawnBin(['sandbox', 'serve', '-q'], { HOME: tempDir(), LBRL_CONFIG_DIR: serverDir });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d.toString();
    });
    const out = await waitForOutput(child, /LBRL_TOKEN=\S+\n/);
    const baseUrl = /LBRL_BASE_URL=(\S+)/.exec(out)![1]!;
    const token = /LBRL_TOKEN=(\S+)/.exec(out)![1]!;
    const live = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: baseUrl, LBRL_TOKEN: token };
    expect((await runBin(['deposit', 'create', '--amount', '2', '--to', LQ], live)).code).toBe(0);
    child.kill('SIGINT');
    await new Promise((r) => child.on('exit', r));
    expect(stderr.trim()).toBe('');
  });
});

describe('sandbox pay against a service that is not a sandbox', () => {
  it('refuses a deposit without "sandbox": true, and sends no pay request', async () => {
    const server = await startServer((_req, res) => json(res, 200, getAnswer({})));
    try {
      const r = await runCli(['sandbox', 'pay', ID], {
        env: { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN },
      });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `error: deposit ${ID} at ${server.url} is not a sandbox deposit (no "sandbox": true): sandbox pay acts only on a sandbox`,
      );
      expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`GET /v1/api/deposit/${ID}`]);
    } finally {
      await server.close();
    }
  });
});
