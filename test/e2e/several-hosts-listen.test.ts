/**
 * listen on two hosts sharing a ledger in PostgreSQL, as real processes with their own config
 * directories: one delivers, the other stands by (saying so once, sending nothing); kill -9 the
 * first and the standby takes over within the lease's bound (30 s by default; shortened here with
 * LBRL_LEASE_MS), sending what the first left undelivered with the same webhook-id, and what
 * happened while no one delivered. The outbox is the database's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { FileLedger } from '../../src/store/ledger-file.js';
import { BIN, runBin } from '../helpers/bin.js';
import { getAnswer, LQ, TOKEN } from '../helpers/fixtures.js';
import { created, depositId } from '../helpers/ledger-contract.js';
import { freshDatabase, sql } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { json, startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 90_000 });

const LEASE_MS = 1500;

function start(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, err: () => stderr };
}

const until = async (cond: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Charges into the shared ledger, as a till writes them: a file history imported into the database. */
async function intoLedger(
  env: Record<string, string>,
  records: Parameters<FileLedger['history']['append']>[0],
) {
  new FileLedger(env.LBRL_CONFIG_DIR!, () => {}).history.append(records);
  const imported = await runBin(['ledger', 'import'], env);
  expect(imported.code, imported.stderr).toBe(0);
}

describe('listen on two hosts at once', () => {
  it('one delivers, the other stands by; kill -9 the first: the standby takes over in time, nothing lost, same webhook-ids', async () => {
    const now = new Date().toISOString();
    const service = await startServer((req, res) => {
      const id = /^\/v1\/api\/deposit\/([0-9a-f-]{36})$/.exec(req.url)?.[1];
      if (req.method !== 'GET' || !id) return json(res, 404, { error: 'not found' });
      json(res, 200, getAnswer({ id, status: 'WAITING_PAYMENT', createdAt: now }));
    });
    const charge = (n: number, at = now) =>
      created(n, { baseUrl: service.url, at, amountInCents: 150000, destinationAddress: LQ });
    // the second deposit's first event is refused while the first host delivers
    let firstAlive = true;
    const receiver = await startReceiver((d) => (firstAlive && d.deposit === depositId(2) ? 500 : 200));
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const hosts = [tempDir(), tempDir()].map((dir) => ({
      HOME: tempDir(),
      LBRL_CONFIG_DIR: dir,
      LBRL_BASE_URL: service.url,
      LBRL_TOKEN: TOKEN,
      LBRL_LEDGER_URL: ledgerUrl,
      LBRL_LEASE_MS: String(LEASE_MS),
      NO_COLOR: '1',
    }));
    const [first, second] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
    // one signing secret for the profile on both hosts, as an operator copies it
    expect((await runBin(['listen', '--print-secret'], first)).code).toBe(0);
    fs.copyFileSync(
      path.join(first.LBRL_CONFIG_DIR, 'config.json'),
      path.join(second.LBRL_CONFIG_DIR, 'config.json'),
    );
    await intoLedger(first, [charge(1), charge(2)]);

    const args = ['listen', '--forward-to', `${receiver.url}/hooks`, '--interval', '1'];
    const a = start(args, first);
    await until(() => /listening: /.test(a.err()));
    const b = start(args, second);
    await until(() => /^standby: /m.test(b.err()));
    await until(() => receiver.deliveries.filter((d) => d.deposit === depositId(2)).length >= 2);
    expect(receiver.deliveries.every((d) => d.answered === 200 || d.deposit === depositId(2))).toBe(true);
    const refusedId = receiver.deliveries.find((d) => d.deposit === depositId(2))!.id;

    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();
    firstAlive = false;
    // a charge made while no host delivers
    await intoLedger(second, [charge(3, new Date().toISOString())]);
    await until(() => /listening: /.test(b.err()));
    const tookOver = Date.now() - killedAt;
    // the lease's bound: a standby looks three times a lease, so within 4/3 of it (plus a loaded machine's slack)
    expect(tookOver).toBeLessThan((LEASE_MS * 4) / 3 + 3000);
    await until(() =>
      [1, 2, 3].every((n) =>
        receiver.deliveries.some((d) => d.deposit === depositId(n) && d.answered === 200),
      ),
    );
    // the refused event is the one delivered after the takeover: same id
    expect(
      receiver.deliveries.filter((d) => d.deposit === depositId(2) && d.answered === 200).map((d) => d.id),
    ).toEqual([refusedId]);
    // the standby said so once, and sent nothing before it took over
    expect(b.err().match(/^standby: /gm)).toHaveLength(1);
    expect(b.err()).toMatch(
      /^standby: \S+ pid \d+ \S+ delivers the events of profile default \(http:\/\/127\.0\.0\.1:\d+\); this listen sends nothing, and takes over within 2 s of it stopping$/m,
    );
    // one deposit.created per deposit delivered: each webhook-id once with a 2xx
    const delivered = receiver.deliveries.filter((d) => d.answered === 200).map((d) => d.id);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(
      await sql(ledgerUrl, 'select count(*)::int as n from lbrl_outbox where line like \'%"type":"event"%\''),
    ).toEqual([{ n: 3 }]);
    b.child.kill('SIGINT');
    expect(await b.exited).toBe(130);
    // --replay on the host that was killed finds the event in the database's outbox
    const replayed = await runBin([...args.slice(0, 3), '--replay', refusedId], first);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(receiver.deliveries.at(-1)).toMatchObject({ id: refusedId, answered: 200 });
    await receiver.close();
    await service.close();
  });

  it("the delivering host's connection to the database cut: it stops with one line and exit 6, and the standby takes over", async () => {
    const service = await startServer((_req, res) => json(res, 404, { error: 'not found' }));
    const receiver = await startReceiver();
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const hosts = ['till_a', 'till_b'].map((name) => ({
      HOME: tempDir(),
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_BASE_URL: service.url,
      LBRL_TOKEN: TOKEN,
      LBRL_LEDGER_URL: `${ledgerUrl}?application_name=${name}`,
      LBRL_LEASE_MS: String(LEASE_MS),
      NO_COLOR: '1',
    }));
    const [first, second] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
    expect((await runBin(['listen', '--print-secret'], first)).code).toBe(0);
    fs.copyFileSync(
      path.join(first.LBRL_CONFIG_DIR, 'config.json'),
      path.join(second.LBRL_CONFIG_DIR, 'config.json'),
    );
    const args = ['listen', '--forward-to', `${receiver.url}/hooks`, '--interval', '1'];
    const a = start(args, first);
    await until(() => /listening: /.test(a.err()));
    const b = start(args, second);
    await until(() => /^standby: /m.test(b.err()));
    // a pulled cable, as the server sees it: the first host's connections end
    await sql(
      ledgerUrl,
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'till_a'",
    );
    expect(await a.exited).toBe(6);
    const last = a.err().trim().split('\n').pop()!;
    expect(last).toMatch(
      /^error: (listen lost the lead on the events of profile default|the connection to the ledger at postgres:\/\/lbrl:\[redacted\]@)/,
    );
    expect(a.err()).not.toMatch(/^\s+at /m);
    expect(a.err()).not.toContain(new URL(ledgerUrl).password);
    await until(() => /listening: /.test(b.err()));
    b.child.kill('SIGINT');
    expect(await b.exited).toBe(130);
    await receiver.close();
    await service.close();
  });

  it('the delivering host stalled past its lease (stopped, suspended): when it comes back it sends nothing more, and says so with exit 6', async () => {
    const now = new Date().toISOString();
    const service = await startServer((req, res) => {
      const id = /^\/v1\/api\/deposit\/([0-9a-f-]{36})$/.exec(req.url)?.[1];
      if (req.method !== 'GET' || !id) return json(res, 404, { error: 'not found' });
      json(res, 200, getAnswer({ id, status: 'WAITING_PAYMENT', createdAt: now }));
    });
    // each host forwards to a receiver of its own, so what each sent is told apart; the first's
    // refuses, so it keeps retrying the event, each retry on a timer
    const sentByFirst: number[] = [];
    const first = await startReceiver(() => {
      sentByFirst.push(Date.now());
      return 500;
    });
    const second = await startReceiver();
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const hosts = [tempDir(), tempDir()].map((dir) => ({
      HOME: tempDir(),
      LBRL_CONFIG_DIR: dir,
      LBRL_BASE_URL: service.url,
      LBRL_TOKEN: TOKEN,
      LBRL_LEDGER_URL: ledgerUrl,
      LBRL_LEASE_MS: String(LEASE_MS),
      NO_COLOR: '1',
    }));
    expect((await runBin(['listen', '--print-secret'], hosts[0]!)).code).toBe(0);
    fs.copyFileSync(
      path.join(hosts[0]!.LBRL_CONFIG_DIR, 'config.json'),
      path.join(hosts[1]!.LBRL_CONFIG_DIR, 'config.json'),
    );
    await intoLedger(hosts[0]!, [
      created(1, { baseUrl: service.url, at: now, amountInCents: 150000, destinationAddress: LQ }),
    ]);
    const a = start(['listen', '--forward-to', `${first.url}/hooks`, '--interval', '1'], hosts[0]!);
    await until(() => /listening: /.test(a.err()));
    const b = start(['listen', '--forward-to', `${second.url}/hooks`, '--interval', '1'], hosts[1]!);
    await until(() => /^standby: /m.test(b.err()));
    await until(() => sentByFirst.length >= 2);
    // the first host stalls (SIGSTOP: as a suspended machine or a process that hangs) past its lease
    a.child.kill('SIGSTOP');
    await until(() => /listening: /.test(b.err()));
    await until(() => second.deliveries.some((d) => d.deposit === depositId(1) && d.answered === 200));
    // its retries fell due while it was stopped: it comes back to find the lead gone
    await new Promise((r) => setTimeout(r, 3000));
    const resumedAt = Date.now();
    a.child.kill('SIGCONT');
    expect(await a.exited).toBe(6);
    expect(a.err(), a.err()).toMatch(
      /^error: listen lost the lead on the events of profile default \(.*\); it stops sending: start it again to stand by$/m,
    );
    // the error is its last word: no warning of the ledger's connection after it
    expect(a.err().trim().split('\n').pop(), a.err()).toMatch(/^error: listen lost the lead/);
    expect(sentByFirst.filter((at) => at >= resumedAt)).toEqual([]);
    b.child.kill('SIGINT');
    expect(await b.exited).toBe(130);
    await first.close();
    await second.close();
    await service.close();
  });
});
