/**
 * lbrl listen in-process, against the embedded sandbox and a receiver on a loopback port: the
 * clock moves only when lbrl sleeps, so stories of minutes take milliseconds.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EsploraClient } from '../../src/api/esplora.js';
import { checkingReceiver as checkWith, type ListenWorld, listenWorld } from '../helpers/listen.js';

const ORDER = [
  'deposit.created',
  'deposit.pix_confirmed',
  'deposit.settlement_created',
  'deposit.tx_sent',
  'deposit.finalized',
  'deposit.failed',
  'deposit.verified',
  'deposit.mismatch',
];

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

const world = listenWorld;
const checkingReceiver = (w: ListenWorld, secret: string, answer?: Parameters<typeof checkWith>[3]) =>
  checkWith(w, secret, receivers, answer);

function inOrder(types: string[]): boolean {
  return types.every((t, i) => i === 0 || ORDER.indexOf(types[i - 1]!) < ORDER.indexOf(t));
}

describe('lbrl listen', () => {
  it("paid, failed and abandoned: each story's events reach the receiver once, in order, signed as Standard Webhooks", async () => {
    const w = world();
    const secret = await w.secret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const rx = await checkingReceiver(w, secret);
    const paid = await w.trigger('paid');
    const failed = await w.trigger('failed');
    const abandoned = await w.trigger('abandoned');
    const r = await w.listen(
      ['--forward-to', rx.url],
      () => rx.types(paid).includes('deposit.finalized') && rx.types(failed).includes('deposit.failed'),
    );
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(rx.problems).toEqual([]);

    const p = rx.types(paid);
    expect(p[0]).toBe('deposit.created');
    expect(p.at(-1)).toBe('deposit.finalized');
    expect(inOrder(p)).toBe(true);
    const f = rx.types(failed);
    expect(f[0]).toBe('deposit.created');
    expect(f.at(-1)).toBe('deposit.failed');
    expect(inOrder(f)).toBe(true);
    expect(rx.types(abandoned)).toEqual(['deposit.created']);
    // each event once (nothing failed, so nothing was sent again), each with its own id
    expect(new Set(rx.deliveries.map((d) => d.id)).size).toBe(rx.deliveries.length);

    const finalized = rx.taken().find((d) => d.type === 'deposit.finalized')!;
    const body = JSON.parse(finalized.body) as Record<string, unknown> & {
      data: { deposit: Record<string, unknown>; previousStatus: string };
    };
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.data.deposit).toMatchObject({ id: paid, status: 'FINALIZED', amountInCents: 1000 });
    expect(body.data.previousStatus).toMatch(/^(PIX_CONFIRMED|SETTLEMENT_CREATED|TX_SENT)$/);
    expect(finalized.id).toMatch(/^evt_[A-Za-z0-9_-]{27}$/);
    expect(Number(finalized.timestamp)).toBe(Math.floor(Number(finalized.timestamp)));
    expect(finalized.headers['content-type']).toBe('application/json');

    // one line per answer: time, type, deposit, status, duration, event id
    expect(r.stderr).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  deposit\\.finalized  ${paid}  --> 200 \\(\\d+ ms\\)  \\[${finalized.id}\\]$`,
        'm',
      ),
    );
    expect(r.stderr.split('\n').filter((l) => l.includes('--> '))).toHaveLength(rx.deliveries.length);
    // the secret: printed by --print-secret only
    expect(w.outputs.filter((o) => o.includes(secret))).toEqual([`${secret}\n`]);
    const outbox = path.join(w.env.LBRL_CONFIG_DIR, 'webhooks', 'default.ndjson');
    expect(fs.statSync(outbox).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(outbox)).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(outbox, 'utf8')).not.toContain(secret);
  });

  it('retries with the same webhook-id until a 2xx; a receiver stuck on one deposit holds back no other; a restart sends what is left, in order', async () => {
    const w = world();
    const secret = await w.secret();
    const stuck = await w.trigger('paid');
    const other = await w.trigger('paid');
    let stuckOn = true;
    const rx = await checkingReceiver(w, secret, (d, attempt) => {
      if (d.deposit === stuck && stuckOn) return 503;
      if (d.deposit === other && d.type === 'deposit.created' && attempt === 1) return 500;
      return 200;
    });
    const first = await w.listen(
      ['--forward-to', rx.url],
      () =>
        rx.types(other).includes('deposit.finalized') &&
        rx.deliveries.filter((d) => d.deposit === stuck).length >= 3,
    );
    expect(first.code).toBe(130);
    expect(rx.problems).toEqual([]);
    // the other deposit went on: its created after one 500, then the rest
    expect(rx.types(other)[0]).toBe('deposit.created');
    expect(rx.types(other).at(-1)).toBe('deposit.finalized');
    const otherCreated = rx.deliveries.filter((d) => d.deposit === other && d.type === 'deposit.created');
    expect(otherCreated.map((d) => d.answered)).toEqual([500, 200]);
    expect(new Set(otherCreated.map((d) => d.id)).size).toBe(1);
    // the stuck one: only its first event was tried, always with the same id
    const tried = rx.deliveries.filter((d) => d.deposit === stuck);
    expect(new Set(tried.map((d) => d.type))).toEqual(new Set(['deposit.created']));
    expect(new Set(tried.map((d) => d.id)).size).toBe(1);
    expect(first.stderr).toMatch(/deposit\.created {2}\S+ {2}--> 503 \(\d+ ms\); retrying in \d+ (ms|s)/);

    // restarted, with the receiver well again: what was left goes, in order, the same id first
    stuckOn = false;
    const second = await w.listen(['--forward-to', rx.url], () =>
      rx.types(stuck).includes('deposit.finalized'),
    );
    expect(second.code).toBe(130);
    expect(second.stderr).toMatch(/undelivered event\(s\) from before sent first/);
    const s = rx.types(stuck);
    expect(s[0]).toBe('deposit.created');
    expect(s.at(-1)).toBe('deposit.finalized');
    expect(inOrder(s)).toBe(true);
    expect(rx.taken().find((d) => d.deposit === stuck)!.id).toBe(tried[0]!.id);
    // the other deposit's events were not sent again
    expect(rx.taken().filter((d) => d.deposit === other).length).toBe(rx.types(other).length);
    expect(new Set(rx.types(other)).size).toBe(rx.types(other).length);
    expect(rx.problems).toEqual([]);
  });

  it('--events sends only the types asked for; --replay sends one event again with its id and body', async () => {
    const w = world();
    const secret = await w.secret();
    const rx = await checkingReceiver(w, secret);
    const paid = await w.trigger('paid');
    const r = await w.listen(['--forward-to', rx.url, '--events', 'deposit.finalized,deposit.failed'], () =>
      rx.types(paid).includes('deposit.finalized'),
    );
    expect(r.code).toBe(130);
    expect(rx.deliveries.map((d) => d.type)).toEqual(['deposit.finalized']);
    const sent = rx.deliveries[0]!;

    const again = await w.run(['listen', '--forward-to', rx.url, '--replay', sent.id]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      new RegExp(`deposit\\.finalized  ${paid}  --> 200 \\(\\d+ ms\\)  \\[${sent.id}\\]`),
    );
    const replayed = rx.deliveries.at(-1)!;
    expect(replayed.id).toBe(sent.id);
    expect(replayed.body).toBe(sent.body);
    expect(rx.problems).toEqual([]);

    const unknown = await w.run(['listen', '--forward-to', rx.url, '--replay', 'evt_nothing']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no event evt_nothing in the outbox of profile default');
  });

  it('wrong-settlement under --verify ends in deposit.mismatch carrying what the check found', async () => {
    const w = world();
    const secret = await w.secret();
    const rx = await checkingReceiver(w, secret);
    const wrong = await w.trigger('wrong-settlement');
    const r = await w.listen(['--forward-to', rx.url, '--verify'], () =>
      rx.types(wrong).includes('deposit.mismatch'),
    );
    expect(r.code).toBe(130);
    const t = rx.types(wrong);
    expect(t[0]).toBe('deposit.created');
    expect(t.slice(-2)).toEqual(['deposit.finalized', 'deposit.mismatch']);
    const mismatch = JSON.parse(rx.taken().find((d) => d.type === 'deposit.mismatch')!.body) as {
      data: {
        verification: { outcome: string; txid: string; checks: Array<{ what: string; outcome: string }> };
      };
    };
    expect(mismatch.data.verification.outcome).toBe('mismatch');
    expect(mismatch.data.verification.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(mismatch.data.verification.checks.some((c) => c.outcome === 'mismatch')).toBe(true);
    expect(rx.problems).toEqual([]);
  });

  it('--verify checks every settlement of the run through one explorer client, not one per check', async () => {
    const w = world();
    const rx = await checkingReceiver(w, await w.secret());
    const first = await w.trigger('wrong-settlement');
    const second = await w.trigger('wrong-settlement');
    const looked = vi.spyOn(EsploraClient.prototype, 'getTxHex');
    const closed = vi.spyOn(EsploraClient.prototype, 'close');
    try {
      const r = await w.listen(
        ['--forward-to', rx.url, '--verify'],
        () => rx.types(first).includes('deposit.mismatch') && rx.types(second).includes('deposit.mismatch'),
      );
      expect(r.code).toBe(130);
      expect(looked.mock.calls.length).toBeGreaterThanOrEqual(2);
      expect(new Set(looked.mock.contexts).size).toBe(1);
      expect(closed).toHaveBeenCalledTimes(1);
      expect(rx.problems).toEqual([]);
    } finally {
      looked.mockRestore();
      closed.mockRestore();
    }
  });

  it('paid-slowly stays in TX_SENT for minutes', async () => {
    const w = world();
    const rx = await checkingReceiver(w, await w.secret());
    const slow = await w.trigger('paid-slowly');
    const start = w.clock.now;
    const r = await w.listen(['--forward-to', rx.url], () => w.clock.now - start > 4 * 60_000);
    expect(r.code).toBe(130);
    expect(rx.types(slow).at(-1)).toBe('deposit.tx_sent');
    expect(rx.types(slow)).not.toContain('deposit.finalized');
  });

  it('a second listen on the same profile refuses while the first runs, and takes over once it is gone', async () => {
    const w = world();
    const rx = await checkingReceiver(w, await w.secret());
    const dir = path.join(w.env.LBRL_CONFIG_DIR, 'webhooks');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(dir, 'default.lock'), String(other.pid));
      const refused = await w.run(['listen', '--forward-to', rx.url]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `another lbrl listen (pid ${other.pid}) is already delivering the events of profile default`,
      );
      expect(rx.deliveries).toHaveLength(0);
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.on('exit', r));
    }
    const abandoned = await w.trigger('abandoned');
    const r = await w.listen(['--forward-to', rx.url], () => rx.types(abandoned).length > 0);
    expect(r.code).toBe(130);
    expect(rx.types(abandoned)).toEqual(['deposit.created']);
    // released on the way out
    expect(fs.existsSync(path.join(dir, 'default.lock'))).toBe(false);
  });

  it('--print-secret prints the same secret alone every time, kept in the private config file', async () => {
    const w = world();
    const one = await w.run(['listen', '--print-secret']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    expect(one.stderr).toBe('');
    const two = await w.run(['listen', '--print-secret', '--json']);
    expect(two.stdout).toBe(one.stdout);
    const file = path.join(w.env.LBRL_CONFIG_DIR, 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const secret = one.stdout.trim();
    for (const args of [
      ['config', 'list'],
      ['config', 'list', '--json'],
      ['auth', 'status'],
      ['config', 'get', 'webhook-secret'],
    ]) {
      const r = await w.run(args);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stdout + r.stderr).not.toContain(secret.slice(6, 20));
    }
  });

  it('sandbox trigger refuses a live target (exit 2), creating nothing', async () => {
    const w = world();
    const r = await w.run(['sandbox', 'trigger', 'paid'], {
      env: { ...w.env, LBRL_BASE_URL: 'https://pay.example.com', LBRL_TOKEN: 'tok_secret_ABCDEFGHIJKLMNOP' },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('sandbox trigger acts on the embedded sandbox');
    expect(fs.existsSync(path.join(w.env.LBRL_CONFIG_DIR, 'history.ndjson'))).toBe(false);
  });

  it.each([
    [['--forward-to', 'http://example.com/hooks'], '--forward-to'],
    [['--forward-to', 'ftp://127.0.0.1/x'], '--forward-to'],
    [['--forward-to', 'https://user:pw@example.com/'], '--forward-to'],
    [['--forward-to', 'not a url'], '--forward-to'],
    [['--forward-to', 'https://example.com', '--events', 'deposit.paid'], '--events'],
    [['--forward-to', 'https://example.com', '--events', ''], '--events'],
    [['--forward-to', 'https://example.com', '--interval', '0'], '--interval'],
    [['--forward-to', 'https://example.com', '--replay', '../x'], '--replay'],
    [[], 'listen needs --forward-to'],
    [['--print-secret', '--forward-to', 'https://example.com'], '--print-secret prints the secret alone'],
  ])('refuses %j with one line naming %s (exit 2), sending nothing', async (args, what) => {
    const w = world();
    const r = await w.run(['listen', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(r.stderr).toContain(what);
    expect(fs.existsSync(path.join(w.env.LBRL_CONFIG_DIR, 'webhooks'))).toBe(false);
  });
});
