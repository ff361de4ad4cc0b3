/**
 * watch --pending on several hosts sharing a ledger in PostgreSQL: real processes, each with its
 * own config directory (and its own token, so the counting service tells them apart), against one
 * database. Each deposit is followed by one host at a time (a lease per deposit), and the hosts
 * together keep within the profile's requests-per-minute (a budget in the database).
 */
import { describe, expect, inject, it, vi } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { FileLedger } from '../../src/store/ledger-file.js';
import { runBin } from '../helpers/bin.js';
import { getAnswer, LQ, TOKEN } from '../helpers/fixtures.js';
import { created, depositId } from '../helpers/ledger-contract.js';
import { freshDatabase } from '../helpers/postgres.js';
import { json, startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 90_000 });

const DEPOSITS = 12;
const PER_MINUTE = 300;

/** A service that counts GETs by token, with the time each arrived, and keeps every deposit waiting. */
async function countingService(startedAt: string) {
  const gets: Array<{ token: string; id: string; at: number }> = [];
  const server = await startServer((req, res) => {
    const id = /^\/v1\/api\/deposit\/([0-9a-f-]{36})$/.exec(req.url)?.[1];
    if (req.method !== 'GET' || !id) return json(res, 404, { error: 'not found' });
    gets.push({ token: String(req.headers.authorization), id, at: performance.now() });
    json(res, 200, getAnswer({ id, status: 'WAITING_PAYMENT', createdAt: startedAt }));
  });
  return { server, gets };
}

async function host(n: number, ledgerUrl: string, serviceUrl: string, records: ReturnType<typeof created>[]) {
  const env = {
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    LBRL_BASE_URL: serviceUrl,
    LBRL_TOKEN: `${TOKEN}${tokenOf(n)}`,
    LBRL_LEDGER_URL: ledgerUrl,
    NO_COLOR: '1',
  };
  expect((await runBin(['config', 'set', 'requests-per-minute', String(PER_MINUTE)], env)).code).toBe(0);
  // the charges in the ledger, as the till that made them wrote them: imported from a file
  // history (each host imports the same; the database takes each record once)
  new FileLedger(env.LBRL_CONFIG_DIR, () => {}).history.append(records);
  const imported = await runBin(['ledger', 'import'], env);
  expect(imported.code, imported.stderr).toBe(0);
  return env;
}

const charge = (n: number, serviceUrl: string, at: string) =>
  created(n, { baseUrl: serviceUrl, at, amountInCents: 150000, destinationAddress: LQ });

const tokenOf = (n: number) => `_host${n}`;

describe('watch --pending on several hosts at once', () => {
  it('the same pending deposits on three hosts: each is asked about by one host only', async () => {
    const now = new Date().toISOString();
    const { server, gets } = await countingService(now);
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const records = Array.from({ length: DEPOSITS }, (_, i) => charge(i + 1, server.url, now));
    const hosts = await Promise.all([1, 2, 3].map((n) => host(n, ledgerUrl, server.url, records)));
    // the budget spaces the requests 0.2 s apart whoever sends them: time for every deposit once
    const runs = await Promise.all(
      hosts.map((env) =>
        runBin(['deposit', 'watch', '--pending', '--interval', '1', '--timeout', '8s'], env),
      ),
    );
    const byHost = [1, 2, 3].map(
      (n) => new Set(gets.filter((get) => get.token.endsWith(tokenOf(n))).map((get) => get.id)),
    );
    expect(byHost.flatMap((ids) => [...ids]).sort()).toEqual(records.map((r) => r.id).sort());
    for (const [n, run] of runs.entries()) {
      const mine = byHost[n]!.size;
      if (mine === 0) {
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(
          `no pending deposits for this watch: another host follows the ${DEPOSITS} pending`,
        );
      } else {
        expect(run.code, run.stderr).toBe(EXIT.watchTimeout);
        if (mine < DEPOSITS)
          expect(run.stderr).toContain(`${DEPOSITS - mine} pending deposit(s) followed by another host`);
      }
    }
    await server.close();
  });

  it('three hosts, each with its own pending deposits: together at most requests-per-minute', async () => {
    const now = new Date().toISOString();
    const { server, gets } = await countingService(now);
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    // four each, asked about every second: 240 a minute each, 720 together, alone under 300
    const hosts = await Promise.all(
      [0, 1, 2].map((h) =>
        host(
          h + 1,
          ledgerUrl,
          server.url,
          [1, 2, 3, 4].map((i) => charge(h * 4 + i, server.url, now)),
        ),
      ),
    );
    // each host follows its own four by id (with --pending on one ledger, the first host to start
    // would lease all twelve): the budget is the profile's, shared whatever each host follows
    const runs = await Promise.all(
      hosts.map((env, h) =>
        runBin(
          [
            'deposit',
            'watch',
            ...[1, 2, 3, 4].map((i) => depositId(h * 4 + i)),
            '--interval',
            '1',
            '--timeout',
            '4s',
          ],
          env,
        ),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(EXIT.watchTimeout);
    for (const n of [1, 2, 3]) expect(gets.some((get) => get.token.endsWith(tokenOf(n)))).toBe(true);
    // one request per 60/PER_MINUTE s, whichever host sends it
    const times = gets.map((get) => get.at).sort((a, b) => a - b);
    const span = times[times.length - 1]! - times[0]!;
    expect(times.length).toBeGreaterThan(8);
    // the slots are the database's; what arrives here is a process's moment later, so a request
    // or two may arrive late and shorten the span seen (without the shared budget: 48 here)
    expect(times.length).toBeLessThanOrEqual(Math.floor(span / (60_000 / PER_MINUTE)) + 3);
    await server.close();
  });

  it('a host killed mid-pass: its deposits are free again once its leases expire, for the next pass anywhere', async () => {
    const now = new Date().toISOString();
    const { server, gets } = await countingService(now);
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const records = [charge(1, server.url, now)];
    const [first, second] = await Promise.all([1, 2].map((n) => host(n, ledgerUrl, server.url, records)));
    const lease = { LBRL_LEASE_MS: '3000' };
    const { spawnBin } = await import('../helpers/bin.js');
    const holder = spawnBin(['deposit', 'watch', '--pending', '--interval', '1'], { ...first!, ...lease });
    while (!gets.some((get) => get.token.endsWith('_host1'))) await new Promise((r) => setTimeout(r, 20));
    // while the first follows it, the second finds nothing to do
    const meanwhile = await runBin(['deposit', 'watch', '--pending', '--timeout', '2s'], {
      ...second!,
      ...lease,
    });
    expect(meanwhile.code, meanwhile.stderr).toBe(0);
    expect(meanwhile.stderr).toContain(
      'no pending deposits for this watch: another host follows the 1 pending',
    );
    holder.kill('SIGKILL');
    await new Promise((r) => holder.on('exit', r));
    await new Promise((r) => setTimeout(r, 3200));
    const after = await runBin(['deposit', 'watch', '--pending', '--interval', '1', '--timeout', '2s'], {
      ...second!,
      ...lease,
    });
    expect(after.code, after.stderr).toBe(EXIT.watchTimeout);
    expect(gets.some((get) => get.token.endsWith('_host2') && get.id === depositId(1))).toBe(true);
    await server.close();
  });
});
