/**
 * `deposit watch` on the wire: what the real HTTP client makes of the sockets, status codes,
 * headers and words of a service (a local server, the embedded sandbox's own) in the middle of a
 * watch. The watch's logic runs in process: test/cmd/watch-in-process.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
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

// the watch's logic (statuses, exit codes, time-outs, the request budget, Ctrl-C, answers that
// lie, --pending) is tested in process: test/cmd/watch-in-process.test.ts. Here, what the client
// makes of the sockets and words of a real service.
describe('deposit watch', () => {
  // on a server: the real sandbox's 404 and a 401's JSON words, as the client classifies them mid-watch
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

  // on a server: a 502, a Retry-After header, a destroyed socket and a time-out, as the client meets them
  it('rides out 502, 429 with Retry-After, dropped connections and time-outs, saying so on stderr', async () => {
    const { server, env } = await scripted((_req, res, n) => {
      if (n === 2) return json(res, 502, 'bad gateway');
      if (n === 3) return json(res, 429, { message: 'slow' }, { 'retry-after': '20' });
      // dropped with no answer on a kept-alive connection: sent again at once, silently (kept-alive.test.ts)
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
    expect(retries).toHaveLength(3);
    expect(retries[0]).toContain('the service answered 502');
    expect(retries[1]).toMatch(/^retrying in 20 s: the service is rate limiting/);
    expect(r.sleeps).toContain(20_000);
    expect(server.requests).toHaveLength(7);
  });

  // on a server: the real client's own check that an answer is about the deposit it asked for
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
});

// create --watch in the embedded sandbox says how to pay (the autopay delay, its default 5 s, or
// none when it is off): test/cmd/create-in-process.test.ts
