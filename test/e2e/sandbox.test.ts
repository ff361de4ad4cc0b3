import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** The statuses of a paid deposit, the sandbox moving it on by its own clock. */
const PAID = /^(PIX_CONFIRMED|SETTLEMENT_CREATED|TX_SENT|FINALIZED)$/;

describe('the built lbrl against the embedded sandbox', () => {
  it('create in one process, get and pay in the next ones', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    expect((await runBin(['config', 'set', 'sandbox-autopay', 'off'], env)).code).toBe(0);
    const created = await runBin(['deposit', 'create', '--amount', '1500', '--to', LQ, '--json'], env);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const deposit = JSON.parse(created.stdout);
    expect(deposit).toMatchObject({ status: 'WAITING_PAYMENT', amountInCents: 150000, sandbox: true });

    const human = await runBin(['deposit', 'get', deposit.id], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Status   WAITING_PAYMENT');
    expect(human.stderr).toMatch(/^sandbox: no account configured, using the embedded sandbox/);
    expect(human.stderr.trim().split('\n')).toHaveLength(1);

    const paid = await runBin(['sandbox', 'pay', deposit.id], env);
    expect(paid.code).toBe(0);
    expect(paid.stdout).toBe(`paid ${deposit.id}: PIX_CONFIRMED now, FINALIZED in about 3 s\n`);
    const after = await runBin(['deposit', 'get', deposit.id, '--json'], env);
    // paid: the sandbox's own clock moves it on within seconds, and a loaded machine may take
    // that long to start the next process
    expect(JSON.parse(after.stdout)).toMatchObject({
      status: expect.stringMatching(PAID),
      confirmedAt: expect.any(String),
    });
    const again = await runBin(['sandbox', 'pay', deposit.id], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('only a WAITING_PAYMENT deposit can be paid');
  });

  it('sandbox fail ends a waiting deposit in FAILED', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const created = JSON.parse(
      (await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '--json'], env)).stdout,
    );
    expect((await runBin(['sandbox', 'fail', created.id], env)).code).toBe(0);
    const got = await runBin(['deposit', 'get', created.id, '-q'], env);
    expect(got.stdout).toBe('FAILED\n');
    expect((await runBin(['sandbox', 'pay', '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d'], env)).code).toBe(4);
  });

  it('many processes creating at once on one data directory lose nothing', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runBin(['deposit', 'create', '--amount-cents', String(i + 1), '--to', LQ, '-q'], env),
      ),
    );
    const ids = results.map((r) => {
      expect(r.code).toBe(0);
      return r.stdout.trim();
    });
    expect(new Set(ids).size).toBe(8);
    const files = fs.readdirSync(path.join(env.LBRL_CONFIG_DIR, 'sandbox', 'deposits'));
    expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(8);
    expect(files.filter((f) => f.endsWith('.tmp'))).toHaveLength(0);
    const got = await Promise.all(ids.map((id) => runBin(['deposit', 'get', id, '--json'], env)));
    expect(got.map((g) => JSON.parse(g.stdout).amountInCents).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });

  it('sandbox serve prints a base URL and token that work in live mode', async () => {
    const dir = tempDir();
    // paid by the test, not by the sandbox itself after 5 s (a slow start of the payer must not race it)
    expect(
      (await runBin(['config', 'set', 'sandbox-autopay', 'off'], { HOME: tempDir(), LBRL_CONFIG_DIR: dir }))
        .code,
    ).toBe(0);
    const child = spawnBin(['sandbox', 'serve'], { HOME: tempDir(), LBRL_CONFIG_DIR: dir });
    children.push(child);
    const out = await waitForOutput(child, /LBRL_TOKEN=\S+\n/);
    const baseUrl = /LBRL_BASE_URL=(\S+)/.exec(out)![1]!;
    const token = /LBRL_TOKEN=(\S+)/.exec(out)![1]!;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const live = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: baseUrl, LBRL_TOKEN: token };
    const created = await runBin(['deposit', 'create', '--amount', '2', '--to', LQ, '--json'], live);
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).id;
    // the payer acts on the server's data directory from another process
    expect((await runBin(['sandbox', 'pay', id], { HOME: tempDir(), LBRL_CONFIG_DIR: dir })).code).toBe(0);
    const got = await runBin(['deposit', 'get', id, '--json'], live);
    expect(JSON.parse(got.stdout).status).toMatch(PAID);
    const bad = await runBin(['deposit', 'get', id], { ...live, LBRL_TOKEN: 'wrong-token-0123456789' });
    expect(bad.code).toBe(3);
    expect(bad.stderr).not.toContain(token);
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
  });

  it('sandbox serve --host 0.0.0.0 prints a loopback URL lbrl accepts, and malformed requests do not end it', async () => {
    const dir = tempDir();
    const child = spawnBin(['sandbox', 'serve', '--host', '0.0.0.0'], {
      HOME: tempDir(),
      LBRL_CONFIG_DIR: dir,
    });
    children.push(child);
    const out = await waitForOutput(child, /LBRL_TOKEN=\S+\n/);
    const baseUrl = /LBRL_BASE_URL=(\S+)/.exec(out)![1]!;
    const token = /LBRL_TOKEN=(\S+)/.exec(out)![1]!;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(baseUrl).port);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => s.write(text));
        let got = '';
        s.on('data', (d) => {
          got += d.toString('latin1');
        });
        s.on('error', () => {});
        s.on('close', () => resolve(got));
      });
    const auth = `Authorization: Bearer ${token}\r\nConnection: close\r\n`;
    expect(await raw('GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 [\s\S]*\r\n\r\n\{"error":\{"code":"bad_request","message":"the request target must be a path/,
    );
    expect(await raw(`GET /v1/api/deposit/%zz HTTP/1.1\r\nHost: x\r\n${auth}\r\n`)).toMatch(
      /^HTTP\/1\.1 404 [\s\S]*\{"error":\{"code":"not_found","message":"deposit %zz not found"\}\}$/,
    );
    expect(await raw('\x16\x03\x01 not http\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    const live = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: baseUrl, LBRL_TOKEN: token };
    const created = await runBin(['deposit', 'create', '--amount', '2', '--to', LQ, '--json'], live);
    expect(created.code).toBe(0);
    expect(child.exitCode).toBeNull();
    child.kill('SIGINT');
    expect(await new Promise((r) => child.on('exit', (c) => r(c)))).toBe(130);
  });

  it('--version and --help exit 0; an unknown command exits 2', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const v = await runBin(['--version'], env);
    expect(v).toEqual({
      code: 0,
      stdout: `${JSON.parse(fs.readFileSync('package.json', 'utf8')).version}\n`,
      stderr: '',
    });
    const h = await runBin(['deposit', 'create', '--help'], env);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('--amount <reais>');
    const u = await runBin(['depost'], env);
    expect(u.code).toBe(2);
    expect(u.stderr).toBe("error: unknown command 'depost' (Did you mean deposit?) (see lbrl --help)\n");
  });
});

describe('help for scripts', () => {
  it.each([
    [[]],
    [['deposit']],
    [['deposit', 'create']],
    [['deposit', 'get']],
    [['deposit', 'watch']],
    [['deposit', 'list']],
    [['auth', 'login']],
    [['auth', 'status']],
    [['auth', 'logout']],
    [['config', 'set']],
    [['config', 'get']],
    [['config', 'list']],
    [['config', 'unset']],
    [['sandbox', 'serve']],
    [['sandbox', 'pay']],
    [['sandbox', 'fail']],
    [['completion']],
  ])('lbrl %j --help ends with examples', async (args) => {
    const r = await runBin([...args, '--help'], { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() });
    expect(r.code).toBe(0);
    const tail = r.stdout.slice(r.stdout.lastIndexOf('Examples:'));
    expect(tail).toMatch(/^Examples:\n( {2}.+\n)+$/);
    expect(tail).toContain('lbrl ');
  });
});
