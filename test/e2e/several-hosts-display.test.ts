/**
 * lbrl display on one host, charges made on another, one ledger in PostgreSQL: the newest charge
 * of the profile shows within a second of its write, pushed by the database (LISTEN/NOTIFY, no
 * look at any file), and a `display clear` on another host clears this host's screen.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { fixedFieldsOf } from '../../src/domain/deposit.js';
import { readLedgerSetting } from '../../src/domain/ledger-url.js';
import { openLedger } from '../../src/store/ledger.js';
import { runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { createAnswer, getAnswer, keepsTheRules, LQ, TOKEN } from '../helpers/fixtures.js';
import { created, depositId } from '../helpers/ledger-contract.js';
import { freshDatabase } from '../helpers/postgres.js';
import { json, startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 60_000 });

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** The page's event stream: what it has sent so far, read as it comes. */
async function screenStream(url: string) {
  const response = await fetch(url.replace('/?k=', '/events?k='));
  const reader = response.body!.getReader();
  let text = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += new TextDecoder().decode(value);
    }
  })();
  return {
    seen: () => text,
    /** ms until the stream holds `wanted` after `from` characters */
    until: async (wanted: string, from: number, ms = 5000) => {
      const began = performance.now();
      while (!text.slice(from).includes(wanted)) {
        if (performance.now() - began > ms) throw new Error(`not seen: ${wanted}; saw ${text.slice(from)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return performance.now() - began;
    },
    close: () => reader.cancel().catch(() => {}),
  };
}

describe('display on one host, charges from another', () => {
  it("shows another till's newest charge within a second, and a display clear elsewhere clears it", async () => {
    const now = new Date().toISOString();
    const service = await startServer((req, res) => {
      const id = /^\/v1\/api\/deposit\/([0-9a-f-]{36})$/.exec(req.url)?.[1];
      if (req.method !== 'GET' || !id) return json(res, 404, { error: 'not found' });
      json(res, 200, getAnswer({ id, status: 'WAITING_PAYMENT', createdAt: now }));
    });
    const ledgerUrl = await freshDatabase(inject('postgresUrl'));
    const host = () => ({
      HOME: tempDir(),
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_BASE_URL: service.url,
      LBRL_TOKEN: TOKEN,
      LBRL_LEDGER_URL: ledgerUrl,
      NO_COLOR: '1',
    });
    const counter = host();
    const office = host();
    const child = spawnBin(['display'], counter);
    children.push(child);
    const url = (await waitForOutput(child, /\n\n[\s\S]+\n$/)).split('\n')[0]!;
    const screen = await screenStream(url);
    await screen.until('"phase":"idle"', 0);

    // another till records a charge in the ledger
    const setting = readLedgerSetting(ledgerUrl);
    if (!setting.ok) throw new Error(setting.expected);
    const ledger = await openLedger(setting.value, { dir: tempDir(), warn: () => {}, env: {} });
    const answer = fixedFieldsOf(
      keepsTheRules('create', {
        ...createAnswer({ amountInCents: 150000, lbrlAddress: LQ }),
        id: depositId(1),
        createdAt: now,
      }),
    );
    const from = screen.seen().length;
    await ledger.append([
      created(1, {
        baseUrl: service.url,
        at: new Date().toISOString(),
        amountInCents: 150000,
        destinationAddress: LQ,
        answer,
      }),
    ]);
    const shownIn = await screen.until('"phase":"waiting"', from);
    expect(screen.seen().slice(from)).toContain('"amount":"R$ 1.500,00"');
    expect(shownIn).toBeLessThan(1000);

    // display clear on the office machine: this screen shows the shop's name again
    const cleared = from + screen.seen().slice(from).length;
    const clear = await runBin(['display', 'clear'], office);
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stderr).toContain(
      'the displays of profile default on other hosts sharing the ledger are clear too',
    );
    expect(await screen.until('"phase":"idle"', cleared)).toBeLessThan(1000);

    // the display reads the ledger when told, not on a tight poll: idle, it barely reads it
    const sql = new pg.Client({ connectionString: ledgerUrl });
    await sql.connect();
    const reads = async () => {
      await sql.query('select pg_stat_force_next_flush()').catch(() => {});
      await sql.query('select pg_stat_clear_snapshot()');
      const { rows } = await sql.query<{ reads: string }>(
        `select coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) as reads from pg_stat_user_tables
          where relname in ('lbrl_records', 'lbrl_deposits')`,
      );
      return Number(rows[0]!.reads);
    };
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const readsBefore = await reads();
    await new Promise((r) => setTimeout(r, 4000));
    // stats reach the view within a second of a backend going idle: one look at most in 5 s
    await new Promise((r) => setTimeout(r, 1000));
    expect((await reads()) - readsBefore).toBeLessThanOrEqual(4);

    // the connection the display listens on dropped: it listens again at once, and a charge
    // another till makes then shows within a second all the same
    const { rows: dropped } = await sql.query<{ pid: number }>(
      `select pg_terminate_backend(pid), pid from pg_stat_activity
        where datname = current_database() and application_name = 'lbrl display'`,
    );
    expect(dropped).toHaveLength(1);
    const relistened = performance.now();
    while (
      (
        await sql.query(
          `select 1 from pg_stat_activity where datname = current_database() and application_name = 'lbrl display'
              and backend_start > now() - interval '1 minute' and pid <> $1`,
          [dropped[0]!.pid],
        )
      ).rowCount === 0
    ) {
      if (performance.now() - relistened > 5000) throw new Error('the display did not listen again');
      await new Promise((r) => setTimeout(r, 20));
    }
    const again = screen.seen().length;
    await ledger.append([
      created(2, {
        baseUrl: service.url,
        at: new Date().toISOString(),
        amountInCents: 250000,
        destinationAddress: LQ,
        answer: fixedFieldsOf(
          keepsTheRules('create', {
            ...createAnswer({ amountInCents: 250000, lbrlAddress: LQ }),
            id: depositId(2),
            createdAt: now,
          }),
        ),
      }),
    ]);
    expect(await screen.until('"amount":"R$ 2.500,00"', again).catch((e) => `${e} ${stderr}`)).toBeLessThan(
      1000,
    );
    await sql.end();
    await screen.close();
    await ledger.close();
    child.kill('SIGINT');
    await service.close();
  });
});
