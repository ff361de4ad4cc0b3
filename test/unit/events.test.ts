/**
 * The event hub on its own: a fake receiver, a clock the test moves, the outbox in a temporary
 * directory. Expiry from the ledger, compaction, back-off, damaged outbox lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GetResponse } from '../../src/api/models.js';
import type { PostOutcome } from '../../src/api/webhook-post.js';
import { backoffMs, EventHub, MAX_BACKOFF_MS } from '../../src/deposits/events.js';
import { KEEP_DELIVERED } from '../../src/deposits/outbox-compaction.js';
import { DEPOSIT_EVENTS, eventId } from '../../src/domain/webhook.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { Outbox } from '../../src/store/outbox.js';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.parse('2026-11-24T10:00:00Z');

function hub(
  o: {
    dir?: string;
    answer?: (url: string, body: string) => PostOutcome;
    verify?: boolean;
    /** a clock that does not jump, moved by sleeps alone (the test may step `now` by itself) */
    monotonic?: boolean;
    retentionMs?: number;
  } = {},
) {
  const dir = o.dir ?? tempDir();
  const clock = { now: T0, mono: 0 };
  const sent: Array<{ id: string; body: string }> = [];
  const lines: string[] = [];
  const warnings: string[] = [];
  const outbox = new Outbox(dir, 'default', (l) => warnings.push(l));
  const h = new EventHub({
    outbox,
    poster: {
      post: async (url, headers, body) => {
        sent.push({ id: headers['webhook-id']!, body });
        return o.answer?.(url, body) ?? { kind: 'answer', status: 204, ms: 1 };
      },
      close: async () => {},
    },
    clock: {
      now: () => clock.now,
      sleep: async (ms) => {
        clock.now += ms;
        clock.mono += ms;
        await new Promise((r) => setImmediate(r));
      },
      random: () => 0.5,
      signal: new AbortController().signal,
      ...(o.monotonic ? { monotonic: () => clock.mono } : {}),
    },
    ...(o.retentionMs !== undefined ? { retentionMs: o.retentionMs } : {}),
    service: 'sandbox',
    url: 'http://127.0.0.1:1/hooks',
    key: Buffer.alloc(32, 1),
    wanted: new Set(DEPOSIT_EVENTS),
    verify: o.verify ?? false,
    log: (l) => lines.push(l),
    warn: (l) => warnings.push(l),
  });
  return { h, dir, clock, sent, lines, warnings, outbox };
}

function deposit(id: string, status: string): GetResponse {
  return { id, status, amountInCents: 1000, destinationAddress: 'lq1x' } as unknown as GetResponse;
}

function entry(id: string, status: string, extra: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    v: 1,
    type: 'created',
    id,
    profile: 'default',
    baseUrl: 'sandbox',
    at: new Date(T0).toISOString(),
    amountInCents: 1000,
    destinationAddress: 'lq1x',
    splitAddress: null,
    splitFee: null,
    status,
    statusAt: new Date(T0).toISOString(),
    ...extra,
  };
}

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('the event hub', () => {
  it('a deposit the ledger expired gets deposit.expired once (after its created), and is still followed', async () => {
    const { h, sent } = hub();
    const id = ID(1);
    expect(h.covered([entry(id, 'WAITING_PAYMENT')])).toEqual([id]);
    h.observe(deposit(id, 'WAITING_PAYMENT'));
    const expired = entry(id, 'WAITING_PAYMENT', { expiredAt: new Date(T0 + 86_400_000).toISOString() });
    expect(h.covered([expired])).toEqual([id]);
    expect(h.covered([expired])).toEqual([id]);
    await h.drained();
    const types = sent.map((s) => (JSON.parse(s.body) as { type: string }).type);
    expect(types).toEqual(['deposit.created', 'deposit.expired']);
    const body = JSON.parse(sent[1]!.body) as {
      data: { deposit: { expiredAt: string }; previousStatus: string };
    };
    expect(body.data.previousStatus).toBe('WAITING_PAYMENT');
    expect(body.data.deposit.expiredAt).toBe(expired.expiredAt);
    expect(sent[1]!.id).toBe(eventId('sandbox', id, 'deposit.expired'));
  });

  it('an expired deposit never seen gets its created first; a restart does not send expired again', async () => {
    const dir = tempDir();
    const first = hub({ dir });
    const id = ID(2);
    first.h.covered([entry(id, 'WAITING_PAYMENT', { expiredAt: new Date(T0).toISOString() })]);
    await first.h.drained();
    expect(first.sent.map((s) => (JSON.parse(s.body) as { type: string }).type)).toEqual([
      'deposit.created',
      'deposit.expired',
    ]);
    const again = hub({ dir });
    again.h.start();
    again.h.covered([entry(id, 'WAITING_PAYMENT', { expiredAt: new Date(T0).toISOString() })]);
    await again.h.drained();
    expect(again.sent).toEqual([]);
  });

  it('what it covers: open deposits (GONE ones too), and final ones only when created after the first look', () => {
    const { h } = hub();
    const before = new Date(T0 - 1000).toISOString();
    const entries = [
      entry(ID(1), 'WAITING_PAYMENT', { at: before }),
      entry(ID(2), 'FINALIZED', { at: before }),
      entry(ID(4), 'GONE'),
    ];
    // ended before listen first looked: no events; the service lost one for a while: still followed
    expect(h.covered(entries)).toEqual([ID(1), ID(4)]);
    const later = [...entries, entry(ID(3), 'FINALIZED', { at: new Date(T0 + 1000).toISOString() })];
    expect(h.covered(later)).toEqual([ID(1), ID(4), ID(3)]);
    h.observe(deposit(ID(3), 'FINALIZED'));
    expect(h.covered(later)).toEqual([ID(1), ID(4)]);
  });

  it('with --verify a FINALIZED deposit stays open until its check on chain', async () => {
    const { h, sent } = hub({ verify: true });
    h.observe(deposit(ID(5), 'FINALIZED'));
    expect(h.covered([entry(ID(5), 'FINALIZED')])).toEqual([ID(5)]);
    h.verification(deposit(ID(5), 'FINALIZED'), {
      id: ID(5),
      deposit: deposit(ID(5), 'FINALIZED'),
      outcome: 'verified',
      txid: 'ab'.repeat(32),
      report: null,
      settledWith: [],
    });
    expect(h.covered([entry(ID(5), 'FINALIZED')])).toEqual([]);
    await h.drained();
    expect(sent.map((s) => (JSON.parse(s.body) as { type: string }).type)).toEqual([
      'deposit.created',
      'deposit.pix_confirmed',
      'deposit.settlement_created',
      'deposit.tx_sent',
      'deposit.finalized',
      'deposit.verified',
    ]);
  });

  it('the outbox stays small after many delivered events, and loads fast', async () => {
    const { h, dir, outbox, clock } = hub();
    const n = 3000;
    for (let i = 0; i < n; i++) {
      h.observe(deposit(ID(i), 'WAITING_PAYMENT'));
      h.observe(deposit(ID(i), 'FINALIZED'));
      if (i % 500 === 0) await h.drained();
    }
    await h.drained();
    h.compact(false);
    const state = outbox.load();
    const delivered = [...state.events.values()].filter((e) => e.state === 'done');
    expect(delivered.length).toBe(KEEP_DELIVERED);
    expect([...state.events.values()].filter((e) => e.state === 'pending')).toHaveLength(0);
    // the last delivered are the ones kept, for --replay
    expect(state.events.has(eventId('sandbox', ID(n - 1), 'deposit.finalized'))).toBe(true);
    expect(state.events.has(eventId('sandbox', ID(0), 'deposit.created'))).toBe(false);
    expect(state.seen.size).toBe(n);
    // once listen has looked at the history well after they ended, it forgets the deposits it is done with
    clock.now += 2 * 3600_000;
    h.covered([entry(ID(n + 5), 'WAITING_PAYMENT', { at: new Date(clock.now).toISOString() })]);
    h.compact(true);
    const later = outbox.load();
    expect(later.seen.size).toBe(0);
    // listen's first look at the history: the newest deposit it held then
    expect(later.since).toBe(new Date(clock.now).toISOString());
    expect([...later.events.values()].filter((e) => e.state === 'done')).toHaveLength(KEEP_DELIVERED);
    expect(h.covered([entry(ID(1), 'FINALIZED')])).toEqual([]);
    const file = path.join(dir, 'webhooks', 'default.ndjson');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a rewrite cut short by a kill leaves a file the next lock holder removes', async () => {
    const dir = tempDir();
    const outbox = new Outbox(dir, 'default');
    fs.mkdirSync(path.join(dir, 'webhooks'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'webhooks', '.default.ndjson.99999.tmp'), 'half');
    fs.writeFileSync(path.join(dir, 'webhooks', '.other.ndjson.99999.tmp'), 'not ours');
    const release = await outbox.lock();
    expect(fs.readdirSync(path.join(dir, 'webhooks')).sort()).toEqual([
      '.other.ndjson.99999.tmp',
      'default.lock',
    ]);
    release();
    expect(fs.readdirSync(path.join(dir, 'webhooks'))).toEqual(['.other.ndjson.99999.tmp']);
  });

  it('a torn last line (a write cut by kill -9) is skipped with a warning, the rest kept', async () => {
    const dir = tempDir();
    const first = hub({ dir, answer: () => ({ kind: 'failure', reason: 'connection refused', ms: 0 }) });
    first.h.observe(deposit(ID(7), 'WAITING_PAYMENT'));
    await first.h.stop();
    fs.appendFileSync(
      path.join(dir, 'webhooks', 'default.ndjson'),
      '{"v":1,"type":"event","id":"evt_x","dep',
    );
    const again = hub({ dir });
    expect(again.warnings.join('\n')).toContain('skipped 1 damaged line(s)');
    again.h.start();
    await again.h.drained();
    expect(again.sent.map((s) => s.id)).toEqual([eventId('sandbox', ID(7), 'deposit.created')]);
  });

  it('back-off doubles from 1 s, jittered down by up to half, capped at 10 minutes', () => {
    expect(backoffMs(0, 1)).toBe(1000);
    expect(backoffMs(0, 0)).toBe(500);
    expect(backoffMs(3, 1)).toBe(8000);
    expect(backoffMs(40, 1)).toBe(MAX_BACKOFF_MS);
    expect(backoffMs(40, 0)).toBe(MAX_BACKOFF_MS / 2);
  });

  it('an event is given up after the retention period, with a line saying so, and the next one goes', async () => {
    let refuse = true;
    const { h, sent, lines, clock } = hub({
      answer: () =>
        refuse ? { kind: 'answer', status: 500, ms: 3 } : { kind: 'answer', status: 200, ms: 3 },
    });
    h.observe(deposit(ID(8), 'WAITING_PAYMENT'));
    const worker = h.drained();
    while (!lines.some((l) => l.includes('given up'))) await new Promise((r) => setImmediate(r));
    expect(clock.now - T0).toBe(3 * 86_400_000);
    refuse = false;
    h.observe(deposit(ID(8), 'FINALIZED'));
    await worker;
    await h.drained();
    expect(lines.some((l) => /given up after \d+ attempt\(s\)/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/deposit\.finalized .* --> 200 \(3 ms\)/);
    const refused = sent.filter((s) => (JSON.parse(s.body) as { type: string }).type === 'deposit.created');
    expect(refused.length).toBeGreaterThan(1);
    expect(new Set(refused.map((s) => s.id)).size).toBe(1);
  });

  it('the retry window is tried time on the clock that does not jump, summed over restarts: a wall clock set back or ahead changes nothing', async () => {
    const dir = tempDir();
    const refuse = () => ({ kind: 'answer', status: 503, ms: 1 }) as PostOutcome;
    const first = hub({ dir, answer: refuse, monotonic: true, retentionMs: 120_000 });
    first.h.observe(deposit(ID(9), 'WAITING_PAYMENT'));
    first.h.flush();
    while (first.clock.mono < 40_000) await new Promise((r) => setImmediate(r));
    await first.h.stop();
    const triedBefore = first.sent.length;
    expect(first.lines.some((l) => l.includes('given up'))).toBe(false);
    // the next run, its wall clock set back a day: the event is given up once its tried time,
    // this run's added to the first's, reaches the window
    const second = hub({ dir, answer: refuse, monotonic: true, retentionMs: 120_000 });
    second.clock.now -= 86_400_000;
    second.h.start();
    const worker = second.h.drained();
    for (let spins = 0; spins < 100_000 && !second.lines.some((l) => l.includes('given up')); spins++)
      await new Promise((r) => setImmediate(r));
    expect(second.lines.at(-1)).toMatch(
      new RegExp(`given up after ${triedBefore + second.sent.length} attempt\\(s\\) over 2 min`),
    );
    await worker;
    // less than a whole window in this run: the first run's tried time counted
    expect(second.clock.mono).toBeGreaterThan(0);
    expect(second.clock.mono).toBeLessThan(110_000);
  });
});
