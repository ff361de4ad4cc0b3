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

/**
 * A service that counts GETs by token, with the time each arrived. Each deposit waits for payment
 * until it was asked about `finishAfter` times, by whichever hosts (then FINALIZED); by default
 * it waits for good. With `hosts`, nothing is paid, and no request counts towards it, before that
 * many hosts have asked: a host slow to start on a loaded machine still finds work to share.
 */
async function countingService(startedAt: string, finishAfter = Number.POSITIVE_INFINITY, hosts = 1) {
  const gets: Array<{ token: string; id: string; at: number; counted: boolean }> = [];
  const server = await startServer((req, res) => {
    const id = /^\/v1\/api\/deposit\/([0-9a-f-]{36})$/.exec(req.url)?.[1];
    if (req.method !== 'GET' || !id) return json(res, 404, { error: 'not found' });
    const token = String(req.headers.authorization);
    const counted = new Set([...gets.map((get) => get.token), token]).size >= hosts;
    gets.push({ token, id, at: performance.now(), counted });
    const asked = gets.filter((get) => get.id === id && get.counted).length;
    if (asked < finishAfter)
      return json(res, 200, getAnswer({ id, status: 'WAITING_PAYMENT', createdAt: startedAt }));
    json(
      res,
      200,
      getAnswer({
        id,
        status: 'FINALIZED',
        createdAt: startedAt,
        confirmedAt: startedAt,
        settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
      }),
    );
  });
  return { server, gets };
}

/** Waits (20 ms at a time) until `seen` holds, failing after `ms`. */
async function until(seen: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!seen()) {
    if (performance.now() > deadline) throw new Error(`waited ${ms} ms in vain for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const hostOf = (token: string) => Number(/_host(\d)$/.exec(token)?.[1]);

/**
 * Each deposit asked about by one host at a time: the hosts that asked about it, in the order of
 * their requests, never come back to one that handed it on (1 1 2 2, never 1 2 1).
 */
function oneHostAtATime(gets: Array<{ token: string; id: string; at: number }>): Map<string, number[]> {
  const handsOf = new Map<string, number[]>();
  for (const get of [...gets].sort((a, b) => a.at - b.at)) {
    const hands = handsOf.get(get.id) ?? [];
    const host = hostOf(get.token);
    if (hands[hands.length - 1] !== host) {
      expect(hands, `deposit ${get.id} asked about by host ${host} again after another`).not.toContain(host);
      hands.push(host);
    }
    handsOf.set(get.id, hands);
  }
  return handsOf;
}

/** The requests arrived at most one per 60/perMinute s, give or take a late arrival or two. */
function withinBudget(gets: Array<{ at: number }>, perMinute: number): void {
  const times = gets.map((get) => get.at).sort((a, b) => a - b);
  const span = times[times.length - 1]! - times[0]!;
  // the slots are the database's; what arrives here is a process's moment later, so a request
  // or two may arrive late and shorten the span seen
  expect(times.length).toBeLessThanOrEqual(Math.floor(span / (60_000 / perMinute)) + 3);
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
  it('the same pending deposits on three hosts: shared out, each followed by one host at a time to its end', async () => {
    const now = new Date().toISOString();
    const finishAfter = 3;
    const { server, gets } = await countingService(now, finishAfter, 3);
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const records = Array.from({ length: DEPOSITS }, (_, i) => charge(i + 1, server.url, now));
    const hosts = await Promise.all([1, 2, 3].map((n) => host(n, ledgerUrl, server.url, records)));
    const watch = (env: Record<string, string>) =>
      runBin(['deposit', 'watch', '--pending', '--interval', '1', '--timeout', '60s'], env);
    // the first host alone takes every deposit; the two that come after it while it follows them
    // take their share from it between its rounds
    const first = watch(hosts[0]!);
    await until(() => gets.length > 0, 'the first host to ask');
    const runs = await Promise.all([first, ...hosts.slice(1).map(watch)]);
    for (const run of runs) expect(run.code, run.stderr).toBe(EXIT.ok);
    // every deposit followed to its end, asked about (once all three hosts had come) exactly as
    // often as it took to end: none twice in a round by two hosts, none again once it ended
    for (const record of records)
      expect(gets.filter((get) => get.id === record.id && get.counted).length, record.id).toBe(finishAfter);
    const hands = oneHostAtATime(gets);
    expect([...hands.keys()].sort()).toEqual(records.map((r) => r.id).sort());
    // fair-ish: each host followed some of them to their end
    for (const n of [1, 2, 3]) {
      const ended = [...hands.values()].filter((h) => h[h.length - 1] === n).length;
      expect(ended, `deposits host ${n} saw end`).toBeGreaterThanOrEqual(2);
      // in a pipe, a line per change: those it saw end (`WAITING_PAYMENT -> FINALIZED`, or only
      // `FINALIZED` for one it took over at its last look)
      const finalized = runs[n - 1]!.stdout.split('\n').filter((line) => / FINALIZED {2}txid /.test(line));
      expect(finalized.length, runs[n - 1]!.stdout).toBe(ended);
    }
    withinBudget(gets, PER_MINUTE);
    await server.close();
  });

  it('a host killed mid-pass: the others take its deposits once its leases expire, and end them', async () => {
    const now = new Date().toISOString();
    const finishAfter = 6;
    // nothing paid before all three hosts asked: hosts 1 and 2, slow to start on a loaded machine,
    // found every deposit ended by hosts 3 and 1, and host 2 never asked (its share was none)
    const { server, gets } = await countingService(now, finishAfter, 3);
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const records = Array.from({ length: DEPOSITS }, (_, i) => charge(i + 1, server.url, now));
    const hosts = await Promise.all([1, 2, 3].map((n) => host(n, ledgerUrl, server.url, records)));
    const lease = { LBRL_LEASE_MS: '2000' };
    const args = ['deposit', 'watch', '--pending', '--interval', '1', '--timeout', '60s'];
    const { spawnBin } = await import('../helpers/bin.js');
    const doomed = spawnBin(args, { ...hosts[2]!, ...lease });
    await until(() => gets.some((get) => hostOf(get.token) === 3), 'host 3 to ask');
    const others = Promise.all(hosts.slice(0, 2).map((env) => runBin(args, { ...env, ...lease })));
    // host 3 killed once the others took their share from it
    await until(() => gets.some((get) => hostOf(get.token) === 2), 'host 2 to take its share');
    doomed.kill('SIGKILL');
    await new Promise((r) => doomed.on('exit', r));
    const killedAt = performance.now();
    const left = new Set(gets.filter((get) => hostOf(get.token) === 3).map((get) => get.id));
    for (const run of await others) expect(run.code, run.stderr).toBe(EXIT.ok);
    // what host 3 followed went on with another host, and every deposit ended
    const hands = oneHostAtATime(gets);
    for (const id of left) {
      const after = gets.filter((get) => get.id === id && get.at > killedAt);
      expect(after.length, id).toBeGreaterThan(0);
      expect(after.every((get) => hostOf(get.token) !== 3)).toBe(true);
    }
    for (const record of records) {
      const asked = gets.filter((get) => get.id === record.id && get.counted).length;
      // a request of host 3's under way when it died may have gone unanswered to it
      expect(asked, record.id).toBeGreaterThanOrEqual(finishAfter);
      expect(asked, record.id).toBeLessThanOrEqual(finishAfter + 1);
      expect(hands.get(record.id)!.at(-1)).not.toBe(3);
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
