import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

async function sandbox(autopaySeconds: number | null = 5) {
  const sb = await startTestSandbox({ autopaySeconds });
  closers.push(() => sb.close());
  const env = liveEnv(sb.baseUrl, SANDBOX_TOKEN);
  const create = async () =>
    (await sb.call('POST', '/v1/api/deposit', { amountInCents: 100, lbrlAddress: LQ })).body.id as string;
  return { sb, env, create };
}

async function scripted(
  handler: Parameters<typeof startServer>[0],
): Promise<{ server: TestServer; env: Record<string, string> }> {
  const server = await startServer(handler);
  closers.push(() => server.close());
  return { server, env: liveEnv(server.url) };
}

const status = (s: string, extra: Record<string, unknown> = {}) => getAnswer({ status: s, ...extra });
const finalized = () =>
  status('FINALIZED', {
    settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
    confirmedAt: '2026-11-22T10:00:05Z',
  });

describe('deposit watch', () => {
  it('--json: one NDJSON line per observed status until FINALIZED, exit 0', async () => {
    const { sb, env, create } = await sandbox(5);
    const id = await create();
    const r = await runCli(['deposit', 'watch', id, '--interval', '1', '--json'], { env, clock: sb.clock });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status)).toEqual([
      'WAITING_PAYMENT',
      'PIX_CONFIRMED',
      'SETTLEMENT_CREATED',
      'TX_SENT',
      'FINALIZED',
    ]);
    expect(lines[4]).toMatchObject({
      id,
      settlement: { liquidTxid: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(r.stderr).toBe('');
  });

  it('without a TTY: one plain timestamped line per transition, no spinner frames, no colour', async () => {
    const { sb, env, create } = await sandbox(2);
    const id = await create();
    const r = await runCli(['deposit', 'watch', id], {
      env: { ...env, TZ: 'America/Sao_Paulo' },
      clock: sb.clock,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^2026-11-22T10:00:00Z  ${id}  WAITING_PAYMENT$`));
    expect(lines.at(-1)).toMatch(new RegExp(`^\\S+Z  ${id}  \\S+ -> FINALIZED  txid [0-9a-f]{64}$`));
    expect(r.stdout + r.stderr).not.toMatch(/\u001b\[/);
    // for a person, on stderr: the paid moment in local time, the settlement, how it ended
    expect(r.stderr).toMatch(
      new RegExp(
        `^Paid {6}R\\$ 1,00 at 2026-11-22 07:00:02 -03:00  \\(deposit ${id}\\)\n` +
          'Txid {6}[0-9a-f]{64}\n' +
          'Explorer {2}https://blockstream\\.info/liquid/tx/[0-9a-f]{64}\n' +
          `deposit ${id} FINALIZED\n$`,
      ),
    );
    // polled every 3 s by default
    expect(new Set(r.sleeps)).toEqual(new Set([3000]));
  });

  it('a deposit that fails exits 5', async () => {
    const { sb, env, create } = await sandbox(null);
    const id = await create();
    sb.store.record(id, 'failed', sb.clock.now + 4000);
    const r = await runCli(['deposit', 'watch', id], { env, clock: sb.clock });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`error: deposit ${id} ended FAILED`);
  });

  it('--timeout ends the watch with 124', async () => {
    const { sb, env, create } = await sandbox(null);
    const id = await create();
    const started = sb.clock.now;
    const r = await runCli(['deposit', 'watch', id, '--timeout', '10s'], { env, clock: sb.clock });
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('timed out after 10 s with 1 deposit(s) not yet FINALIZED or FAILED');
    expect(sb.clock.now - started).toBe(10_000);
  });

  it('an unknown id exits 4, a 401 in the middle of a watch exits 3', async () => {
    const { sb, env } = await sandbox();
    const r = await runCli(['deposit', 'watch', ID], { env, clock: sb.clock });
    expect(r.code).toBe(4);
    const { env: env2 } = await scripted((_req, res, n) =>
      n < 3 ? json(res, 200, status('WAITING_PAYMENT')) : json(res, 401, { message: 'expired' }),
    );
    const r2 = await runCli(['deposit', 'watch', ID], { env: env2, clock: { now: 0 } });
    expect(r2.code).toBe(3);
    expect(r2.stderr).toContain('the service refused the token (401): expired');
  });

  it('rides out 502, 429 with Retry-After, dropped connections and time-outs, saying so on stderr', async () => {
    const { server, env } = await scripted((_req, res, n) => {
      if (n === 2) return json(res, 502, 'bad gateway');
      if (n === 3) return json(res, 429, { message: 'slow' }, { 'retry-after': '20' });
      if (n === 4) return void res.destroy();
      if (n === 5) return; // never answers: a time-out
      return json(res, 200, n < 7 ? status('WAITING_PAYMENT') : finalized());
    });
    const r = await runCli(['deposit', 'watch', ID, '--json'], {
      env,
      clock: { now: 0 },
      client: { timeoutMs: 200 },
    });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).status),
    ).toEqual(['WAITING_PAYMENT', 'FINALIZED']);
    const retries = r.stderr.split('\n').filter((l) => l.startsWith('retrying in'));
    expect(retries).toHaveLength(4);
    expect(retries[0]).toContain('the service answered 502');
    expect(retries[1]).toMatch(/^retrying in 20 s: the service is rate limiting/);
    expect(r.sleeps).toContain(20_000);
    expect(server.requests).toHaveLength(7);
  });

  it('an answer about another deposit ends the watch (exit 1): it says nothing about this one', async () => {
    const { env } = await scripted((_req, res) =>
      json(res, 200, status('WAITING_PAYMENT', { id: '00000000-0000-4000-8000-000000000000' })),
    );
    const r = await runCli(['deposit', 'watch', ID], { env, clock: { now: 0 } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `asked for deposit ${ID}, but the service answered with deposit 00000000-0000-4000-8000-000000000000`,
    );
  });

  it('a service that stays unreachable ends the watch with 6 after the documented limit', async () => {
    const { server, env } = await scripted((_req, res) => {
      res.destroy();
    });
    const clock = { now: 0 };
    const r = await runCli(['deposit', 'watch', ID], { env, clock });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/error: gave up after \d+ s of failures/);
    expect(clock.now).toBeGreaterThanOrEqual(5 * 60 * 1000);
    expect(clock.now).toBeLessThan(7 * 60 * 1000);
    // back-off keeps the count of requests low
    expect(server.requests.length).toBeLessThan(25);
  });

  it('many deposits share one budget: at most 60 requests a minute, one per deposit per interval', async () => {
    const { sb, env, create } = await sandbox(null);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await create());
    const seen: number[] = [];
    const { server, env: proxied } = await scripted(async (req, res) => {
      seen.push(sb.clock.now);
      const r = await sb.call('GET', req.url);
      json(res, r.status, r.body);
    });
    const r = await runCli(['deposit', 'watch', ...ids, '--interval', '1', '--timeout', '2m'], {
      env: { ...env, ...proxied, LBRL_BASE_URL: server.url },
      clock: sb.clock,
    });
    expect(r.code).toBe(124);
    for (let i = 0; i < seen.length; i++) {
      const window = seen.filter((t) => t >= seen[i]! && t < seen[i]! + 60_000);
      expect(window.length).toBeLessThanOrEqual(60);
    }
    expect(seen.length).toBeGreaterThan(100);
    expect(server.requests.length).toBe(seen.length);
  });

  it('Ctrl-C exits 130', async () => {
    const { sb, env, create } = await sandbox(null);
    const id = await create();
    const controller = new AbortController();
    const clock = sb.clock;
    const started = clock.now;
    const ticking = {
      get now() {
        if (clock.now - started > 9000) controller.abort();
        return clock.now;
      },
      set now(v) {
        clock.now = v;
      },
    };
    const r = await runCli(['deposit', 'watch', id], { env, clock: ticking, signal: controller.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain('error');
  });

  it.each([
    [['--interval', '0'], 'invalid --interval "0": expected a whole number of seconds from 1 to 3600'],
    [['--interval', '1.5'], 'invalid --interval "1.5"'],
    [['--timeout', '10d'], 'invalid --timeout "10d": expected a duration such as 90, 90s, 10m or 1h'],
  ])('refuses %j before any request', async (args, message) => {
    const { server, env } = await scripted((_req, res) => json(res, 200, status('WAITING_PAYMENT')));
    const r = await runCli(['deposit', 'watch', ID, ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a bad id among good ones before any request', async () => {
    const { server, env } = await scripted((_req, res) => json(res, 200, status('WAITING_PAYMENT')));
    const r = await runCli(['deposit', 'watch', ID, '../../etc'], { env });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('deposit create --watch', () => {
  it('creates, shows the QR and the string, then follows to FINALIZED', async () => {
    const { sb, env } = await sandbox(3);
    const r = await runCli(['deposit', 'create', '--amount', '10', '--to', LQ, '--watch'], {
      env,
      clock: sb.clock,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('PIX copy-paste:');
    expect(r.stdout).toMatch(/WAITING_PAYMENT\n[\s\S]*-> FINALIZED {2}txid/);
  });

  it('in the embedded sandbox, says how to pay', async () => {
    const clock = { now: Date.parse('2026-11-22T10:00:00Z') };
    const r = await runCli(['deposit', 'create', '--amount', '10', '--to', LQ, '--watch', '--no-qr'], {
      env: { LBRL_CONFIG_DIR: tempDir() },
      clock,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /sandbox: simulate the payment with: lbrl sandbox pay [0-9a-f-]{36} \(or wait 5 s for autopay\)/,
    );
  });
});
