import { spawnSync } from 'node:child_process';
/** The customer's screen as rules and as an engine on plain objects: an injected clock, a service in memory. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { urlHostFor } from '../../src/commands/display.js';
import { checkAnswer } from '../../src/deposits/answers.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { DisplayEngine } from '../../src/display/engine.js';
import { keyMatches, startDisplayServer } from '../../src/display/server.js';
import { isUnspecifiedHost, withdrawFromDisplay, withdrawnFile } from '../../src/display/state.js';
import {
  type Focus,
  phaseOf,
  readShopName,
  type Screen,
  screenOf,
  showableBrCode,
} from '../../src/domain/display.js';
import { interrupted, LbrlError } from '../../src/errors.js';
import { History } from '../../src/store/history.js';
import type { CreatedRecord } from '../../src/store/history-records.js';
import { escapeHtml, scriptJson } from '../../src/ui/display-page.js';
import { brCode, getAnswer, ID, LQ } from '../helpers/fixtures.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const RULES = { shop: 'Loja', expireAfterMs: 24 * 3600_000, holdMs: 30_000 };

describe('display rules', () => {
  it.each([
    ['Padaria Central', true],
    ['Café São João', true],
    ['Bar <b> & "Cia"', true],
    ['', false],
    [' Loja', false],
    ['Loja  Central', false],
    ['Loja\tCentral', false],
    ['Loja\u202eatsaP', false],
    ['Loja\u200b', false],
    ['Loja\u001b[2J', false],
    ['x'.repeat(41), false],
    ['x'.repeat(40), true],
  ])('shop name %j: %s', (name, ok) => {
    expect(readShopName(name).ok).toBe(ok);
  });

  const focus = (over: Partial<Focus> = {}): Focus => ({
    amountInCents: 150_000,
    createdAt: T0,
    qrCodeText: brCode(150_000),
    status: 'WAITING_PAYMENT',
    statusAt: T0,
    chain: 'off',
    ...over,
  });

  it('waiting until paid, failed or expired; a result is held, then the shop name', () => {
    expect(phaseOf(focus(), T0 + 1000, RULES)).toBe('waiting');
    for (const status of ['PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'])
      expect(phaseOf(focus({ status, statusAt: T0 }), T0 + 29_999, RULES)).toBe('paid');
    expect(phaseOf(focus({ status: 'FINALIZED' }), T0 + 30_000, RULES)).toBe('idle');
    // the chain still being checked: "Pago!" stays
    expect(phaseOf(focus({ status: 'FINALIZED', chain: 'pending' }), T0 + 60_000, RULES)).toBe('paid');
    expect(phaseOf(focus({ status: 'FAILED' }), T0 + 1, RULES)).toBe('failed');
    expect(phaseOf(focus({ expiredAt: T0 + 5 }), T0 + 10, RULES)).toBe('expired');
    expect(phaseOf(focus(), T0 + RULES.expireAfterMs, RULES)).toBe('expired');
    expect(phaseOf(focus(), T0 + RULES.expireAfterMs + 30_000, RULES)).toBe('idle');
    expect(phaseOf(focus({ status: 'GONE' }), T0, RULES)).toBe('idle');
  });

  it('the QR code only of a well-formed BR Code of the same amount; amounts in reais as Brazil writes them', () => {
    expect(showableBrCode(brCode(150_000), 150_000)).toBe(true);
    expect(showableBrCode(brCode(150_000), 150_001)).toBe(false);
    expect(showableBrCode(`${brCode(150_000)}x`, 150_000)).toBe(false);
    expect(showableBrCode(undefined, 150_000)).toBe(false);
    const svg = () => '<svg/>';
    expect(screenOf(focus({ qrCodeText: brCode(1) }), T0, RULES, svg)).toEqual({
      phase: 'idle',
      shop: 'Loja',
    });
    expect(screenOf(focus({ amountInCents: 1, qrCodeText: brCode(1) }), T0, RULES, svg)).toMatchObject({
      phase: 'waiting',
      amount: 'R$ 0,01',
    });
    expect(screenOf(focus(), T0, RULES, svg)).toMatchObject({
      amount: 'R$ 1.500,00',
      expiresAt: T0 + 86_400_000,
    });
  });

  it('the page: text escaped for HTML, JSON that cannot close its script element; keys compared whole', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const json = scriptJson({ shop: '</script><script>alert(1)</script><!--' });
    expect(json).not.toMatch(/[<>]/);
    expect(JSON.parse(json)).toEqual({ shop: '</script><script>alert(1)</script><!--' });
    expect(keyMatches('abc', 'abc')).toBe(true);
    expect(keyMatches('abd', 'abc')).toBe(false);
    expect(keyMatches('ab', 'abc')).toBe(false);
    expect(keyMatches(null, '')).toBe(false);
  });
});

/**
 * A clock whose sleeps end only when the test moves time on: `advance` moves both clocks (sleeps
 * are durations, on the clock that does not jump); `step` moves the wall clock alone (NTP, a clock
 * set by hand).
 */
function manualClock() {
  const controller = new AbortController();
  const timers: Array<{ at: number; resolve: () => void }> = [];
  const c = {
    t: T0,
    m: 0,
    now: () => c.t,
    monotonic: () => c.m,
    random: () => 0.5,
    signal: controller.signal,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        timers.push({ at: c.m + ms, resolve });
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
    async advance(ms: number) {
      const end = c.m + ms;
      while (true) {
        await settle();
        const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers.splice(timers.indexOf(due), 1);
        const to = Math.max(c.m, due.at);
        c.t += to - c.m;
        c.m = to;
        due.resolve();
      }
      c.t += end - c.m;
      c.m = end;
      await settle();
    },
    step(ms: number) {
      c.t += ms;
    },
    stop: () => controller.abort(),
  };
  return c;
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

function created(over: Partial<CreatedRecord> = {}): CreatedRecord {
  return {
    v: 1,
    type: 'created',
    id: ID,
    profile: 'default',
    baseUrl: 'sandbox',
    at: new Date(T0).toISOString(),
    amountInCents: 150_000,
    destinationAddress: LQ,
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    answer: {
      amount: 1500,
      feeAmount: 15,
      netAmount: 1485,
      splitPercent: null,
      qrCodeText: brCode(150_000),
      createdAt: '2026-11-22T10:00:00.000Z',
    },
    ...over,
  };
}

function setup(
  o: {
    statuses?: string[];
    settled?: (n: number) => boolean | Error;
    rules?: typeof RULES;
    answer?: Record<string, unknown>;
    dir?: string;
    rulesNow?: () => typeof RULES;
    /** the n-th GET (0-based) fails so: the watch ends, and the engine starts it again later */
    failing?: (n: number) => Error | undefined;
  } = {},
) {
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-display-'));
  const history = new History(dir);
  const clock = manualClock();
  let asked = 0;
  const api: DepositApi = {
    createDeposit: async () => {
      throw new Error('no create here');
    },
    getDeposit: async (id) => {
      // as the factory's client: a request made once Ctrl-C was pressed is refused at once
      if (clock.signal.aborted) throw interrupted();
      const n = asked++;
      const failure = o.failing?.(n);
      if (failure) throw failure;
      const status = o.statuses?.[Math.min(n, o.statuses.length - 1)] ?? 'WAITING_PAYMENT';
      const done =
        status === 'FINALIZED'
          ? {
              settlement: { liquidTxid: 'ab'.repeat(32), status: 'FINALIZED' },
              confirmedAt: '2026-11-22T10:05:00.000Z',
            }
          : {};
      const raw = getAnswer({ id, status, ...done, ...o.answer });
      return { value: raw as never, raw };
    },
    // as the factory's client: every answer is checked against what the history recorded
    recorded: (id) => history.recorded(id, 'sandbox'),
  };
  const warnings: string[] = [];
  let checks = 0;
  const settled = o.settled;
  const engine = new DisplayEngine({
    history,
    scope: { profile: 'default', target: 'sandbox' },
    api,
    recorder: { record: (r) => history.append(r) },
    clock,
    notes: { info: () => {}, warn: (line) => warnings.push(line) },
    rules: o.rules ?? RULES,
    pollMs: 1000,
    historyPollMs: 250,
    settled:
      settled &&
      (async () => {
        const r = settled(checks++);
        if (r instanceof Error) throw r;
        return r;
      }),
    qrSvg: async (text) => `<svg data-text="${text.length}"/>`,
    withdrawnFile: withdrawnFile(dir, 'default'),
    ...(o.rulesNow ? { rulesNow: o.rulesNow } : {}),
  });
  const screens: Screen[] = [];
  engine.subscribe((s) => screens.push(s));
  const running = engine.run();
  return { history, clock, engine, screens, warnings, running, asked: () => asked, dir };
}

describe('the history of an expired charge', () => {
  it('an expiry record reaches the entries and the record of the deposit, and nothing else', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-display-'));
    const warnings: string[] = [];
    const history = new History(dir, (line) => warnings.push(line));
    const other = '4f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
    history.append([created(), created({ id: other })]);
    fs.appendFileSync(
      history.file,
      `${JSON.stringify({ v: 1, type: 'expired', id: ID.toUpperCase(), at: '2026-11-23T10:00:00.000Z' })}\n`,
    );
    const byId = (entries: { id: string; expiredAt?: string }[]) =>
      Object.fromEntries(entries.map((e) => [e.id, e.expiredAt]));
    expect(byId(history.entries())).toEqual({ [ID]: '2026-11-23T10:00:00.000Z', [other]: undefined });
    expect(history.recorded(ID, 'sandbox')?.expiredAt).toBe('2026-11-23T10:00:00.000Z');
    expect([...history.read()].map((r) => r.type)).toEqual(['created', 'created']);
    // an expired charge is left by watch --pending, unless asked for: a late payment is still followed then
    expect(history.pending().map((e) => e.id)).toEqual([other]);
    expect(
      history
        .pending(undefined, { includeExpired: true })
        .map((e) => e.id)
        .sort(),
    ).toEqual([ID, other].sort());
    expect(warnings).toEqual([]);
  });
});

describe('the display engine', () => {
  // the answer checks load their rules lazily, in real time: loaded once here, the clock alone moves the tests
  beforeAll(async () => {
    const raw = getAnswer();
    await checkAnswer('get', { value: raw as never, raw }, {});
  });

  it('shows a charge created by another process, "paid" as soon as the service says so, then the shop name', async () => {
    const s = setup({ statuses: ['WAITING_PAYMENT', 'WAITING_PAYMENT', 'PIX_CONFIRMED'] });
    await s.clock.advance(250);
    expect(s.engine.current()).toEqual({ phase: 'idle', shop: 'Loja' });
    s.history.append([created()]);
    await s.clock.advance(250);
    expect(s.engine.current()).toMatchObject({
      phase: 'waiting',
      amount: 'R$ 1.500,00',
      qrCodeText: brCode(150_000),
    });
    await s.clock.advance(3000);
    expect(s.engine.current()).toEqual({ phase: 'paid', shop: 'Loja', amount: 'R$ 1.500,00', chain: 'off' });
    // what the display saw is in the history, for every other lbrl process
    expect(s.history.entries()[0]!.status).toBe('PIX_CONFIRMED');
    // held 30 s from when the payment was seen (the third answer, 2.5 s after the charge showed)
    await s.clock.advance(28_000);
    expect(s.engine.current().phase).toBe('paid');
    await s.clock.advance(1000);
    expect(s.engine.current()).toEqual({ phase: 'idle', shop: 'Loja' });
    expect(s.screens.map((x) => x.phase)).toEqual(['waiting', 'paid', 'idle']);
    s.clock.stop();
    await s.running;
  });

  it('an expiry recorded in the history, or the profile expire-after run out, shows "expired"', async () => {
    const s = setup({ rules: { ...RULES, expireAfterMs: 60_000 } });
    s.history.append([created()]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    await s.clock.advance(60_000);
    expect(s.engine.current()).toEqual({ phase: 'expired', shop: 'Loja', amount: 'R$ 1.500,00' });
    await s.clock.advance(30_000);
    expect(s.engine.current().phase).toBe('idle');
    // no more questions to the service about a charge nobody sees
    const asked = s.asked();
    await s.clock.advance(10_000);
    expect(s.asked()).toBe(asked);

    const other = '4f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
    s.history.append([created({ id: other, at: new Date(s.clock.now()).toISOString() })]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    fs.appendFileSync(
      s.history.file,
      `${JSON.stringify({ v: 1, type: 'expired', id: other, at: new Date(s.clock.now()).toISOString() })}\n`,
    );
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('expired');
    s.clock.stop();
    await s.running;
  });

  it('a deposit of another profile or service is never shown; a QR code of another amount never drawn', async () => {
    const s = setup();
    s.history.append([
      created({ profile: 'other' }),
      created({ id: '5f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', baseUrl: 'https://x.example' }),
    ]);
    await s.clock.advance(500);
    expect(s.engine.current().phase).toBe('idle');
    expect(s.engine.show(ID)).toBe(false);
    const bad = created({ id: '6f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d' });
    bad.answer!.qrCodeText = brCode(1);
    s.history.append([bad]);
    await s.clock.advance(500);
    expect(s.engine.current().phase).toBe('idle');
    s.clock.stop();
    await s.running;
  });

  it('a service that changes the copy-paste string: the charge is no longer offered, and plainly so', async () => {
    const s = setup({
      answer: { qrCodeText: brCode(150_000).replace('pix.example.invalid', 'pix.example.evil') },
    });
    s.history.append([created()]);
    await s.clock.advance(300);
    expect(s.engine.current().phase).toBe('failed');
    expect(s.warnings.join('\n')).toContain('is no longer offered');
    const asked = s.asked();
    await s.clock.advance(20_000);
    expect(s.asked()).toBe(asked);
    await s.clock.advance(15_000);
    expect(s.engine.current().phase).toBe('idle');
    s.clock.stop();
    await s.running;
  });

  it('--verify: "confirmed" only once the settlement is proven; a settlement that is not: never', async () => {
    const s = setup({ statuses: ['FINALIZED'], settled: (n) => n >= 2 });
    s.history.append([created()]);
    await s.clock.advance(300);
    expect(s.engine.current()).toMatchObject({ phase: 'paid', chain: 'pending' });
    await s.clock.advance(1000);
    expect(s.engine.current()).toMatchObject({ phase: 'paid', chain: 'pending' });
    await s.clock.advance(2000);
    expect(s.engine.current()).toMatchObject({ phase: 'paid', chain: 'verified' });
    s.clock.stop();
    await s.running;

    const f = setup({
      statuses: ['FINALIZED'],
      settled: () => new LbrlError('the settlement pays 1 cent less', 'mismatch'),
    });
    f.history.append([created()]);
    await f.clock.advance(1300);
    expect(f.engine.current()).toMatchObject({ phase: 'paid', chain: 'failed' });
    expect(f.warnings.join('\n')).toContain('the settlement pays 1 cent less');
    f.clock.stop();
    await f.running;
  });
});

describe('the display server', () => {
  it('an event stream whose reader stops reading is closed, not buffered for without end', async () => {
    const listeners = new Set<(screen: Screen) => void>();
    const server = await startDisplayServer(
      {
        key: 'k'.repeat(22),
        secret: 's'.repeat(43),
        lang: 'pt',
        current: () => ({ phase: 'idle', shop: 'Bar' }),
        subscribe: (l) => {
          listeners.add(l);
          return () => listeners.delete(l);
        },
        show: () => false,
        now: () => 0,
        maxStreams: 1,
      },
      '127.0.0.1',
      0,
    );
    try {
      const { port } = new URL(server.baseUrl);
      const events = `${server.baseUrl}/events?k=${'k'.repeat(22)}`;
      // a reader that never reads: it holds the one stream allowed
      const stuck = net.connect(Number(port), '127.0.0.1');
      stuck.on('error', () => {});
      await new Promise<void>((r) => stuck.once('connect', () => r()));
      stuck.write(`GET /events?k=${'k'.repeat(22)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      stuck.pause();
      const busy = await fetch(events);
      expect(busy.status).toBe(503);
      await busy.text();
      // 64 MB of screens: more than any socket buffer holds
      const big = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 64; i++) for (const l of listeners) l({ phase: 'idle', shop: `${i}${big}` });
      await vi.waitFor(() => expect(listeners.size).toBe(0), { timeout: 5000, interval: 20 });
      const next = new AbortController();
      const again = await fetch(events, { signal: next.signal });
      expect(again.status).toBe(200);
      next.abort();
      stuck.destroy();
    } finally {
      await server.close();
    }
  });

  it('a connection that never sends a byte is closed, so silent sockets cannot hold every slot', async () => {
    const server = await startDisplayServer(
      {
        key: 'k'.repeat(22),
        secret: 's'.repeat(43),
        lang: 'pt',
        current: () => ({ phase: 'idle', shop: 'Bar' }),
        subscribe: () => () => {},
        show: () => false,
        now: () => 0,
        firstByteMs: 200,
      },
      '127.0.0.1',
      0,
    );
    try {
      const { port } = new URL(server.baseUrl);
      const silent = net.connect(Number(port), '127.0.0.1');
      silent.on('error', () => {});
      const closedAfter = await new Promise<number>((resolve) => {
        const t0 = Date.now();
        silent.once('close', () => resolve(Date.now() - t0));
      });
      expect(closedAfter).toBeGreaterThanOrEqual(150);
      expect(closedAfter).toBeLessThan(5000);
      // one that asks in time is answered
      const r = await fetch(`${server.baseUrl}/?k=${'k'.repeat(22)}`);
      expect(r.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('the display never offers a charge the shop gave up on', () => {
  beforeAll(async () => {
    const raw = getAnswer();
    await checkAnswer('get', { value: raw as never, raw }, {});
  });

  it('withdrawn by id (an interrupted create): the shop name within a second, asked no more; a display started later never opens on it', async () => {
    const s = setup();
    s.history.append([created()]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    withdrawFromDisplay(s.dir, 'default', { id: ID.toUpperCase() });
    await s.clock.advance(250);
    expect(s.engine.current()).toEqual({ phase: 'idle', shop: 'Loja' });
    const asked = s.asked();
    await s.clock.advance(10_000);
    expect(s.asked()).toBe(asked);
    s.clock.stop();
    await s.running;
    const fresh = setup({ dir: s.dir });
    await fresh.clock.advance(500);
    expect(fresh.engine.current()).toEqual({ phase: 'idle', shop: 'Loja' });
    expect(fresh.screens.every((screen) => screen.phase === 'idle')).toBe(true);
    // and a create --display of it is refused: it stays off the screen
    expect(fresh.engine.show(ID)).toBe(false);
    fresh.clock.stop();
    await fresh.running;
  });

  it('the create --watch that followed it is gone (its terminal closed, kill -9) while it waits: withdrawn; paid before, its result stays', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const s = setup();
    s.history.append([created()]);
    withdrawFromDisplay(s.dir, 'default', { id: ID, follower: process.pid });
    await s.clock.advance(250);
    // its follower runs: offered
    expect(s.engine.current().phase).toBe('waiting');
    withdrawFromDisplay(s.dir, 'default', { id: ID, follower: dead });
    await s.clock.advance(250);
    expect(s.engine.current()).toEqual({ phase: 'idle', shop: 'Loja' });
    s.clock.stop();
    await s.running;
    // one whose payment was seen is never hidden: its result shows
    const paid = '4f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
    const p = setup({ statuses: ['PIX_CONFIRMED'] });
    p.history.append([
      created({ id: paid }),
      { v: 1, type: 'status', id: paid, status: 'PIX_CONFIRMED', at: new Date(p.clock.now()).toISOString() },
    ]);
    withdrawFromDisplay(p.dir, 'default', { id: paid, follower: dead });
    await p.clock.advance(1500);
    expect(p.engine.current().phase).toBe('paid');
    p.clock.stop();
    await p.running;
  });

  it('display clear: every charge created until then, for this display and the next; a charge created after shows', async () => {
    const s = setup();
    s.history.append([created()]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    withdrawFromDisplay(s.dir, 'default', { before: new Date(s.clock.now()).toISOString() });
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('idle');
    const later = '4f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
    s.history.append([created({ id: later, at: new Date(s.clock.now()).toISOString() })]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    s.clock.stop();
    await s.running;
    const fresh = setup({ dir: s.dir });
    await fresh.clock.advance(250);
    expect(fresh.engine.current().phase).toBe('waiting');
    fresh.clock.stop();
    await fresh.running;
  });

  it('settings read again while it runs: a shorter expire-after ends the offer, a new shop name shows', async () => {
    let rules = RULES;
    const s = setup({ rulesNow: () => rules });
    s.history.append([created()]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    await s.clock.advance(2 * 60_000);
    expect(s.engine.current().phase).toBe('waiting');
    // expire-after set to 2m: the charge made 2 minutes ago is no longer offered
    rules = { ...RULES, expireAfterMs: 2 * 60_000, shop: 'Padaria' };
    await s.clock.advance(250);
    expect(s.engine.current().phase).not.toBe('waiting');
    await s.clock.advance(RULES.holdMs);
    expect(s.engine.current()).toEqual({ phase: 'idle', shop: 'Padaria' });
    s.clock.stop();
    await s.running;
  });

  it('a charge of another service (create with LBRL_BASE_URL) is shown from the history, not asked of its own service', async () => {
    const s = setup();
    const service = 'http://127.0.0.1:4010';
    s.history.append([created({ baseUrl: service })]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('idle');
    expect(s.engine.show(ID, service)).toBe(true);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('waiting');
    await s.clock.advance(5000);
    expect(s.asked()).toBe(0);
    // its create --watch records the payment: the screen says so
    s.history.append([
      { v: 1, type: 'status', id: ID, status: 'PIX_CONFIRMED', at: new Date(s.clock.now()).toISOString() },
    ]);
    await s.clock.advance(250);
    expect(s.engine.current().phase).toBe('paid');
    s.clock.stop();
    await s.running;
  });

  it('a wall clock stepped back an hour holds back neither the next look at the charge shown nor the start again after a failure', async () => {
    // the answer checks load their rules lazily, in real time: loaded before the clock moves
    const raw = getAnswer();
    await checkAnswer('get', { value: raw as never, raw }, {});
    // the second GET is refused (a token revoked a moment): the watch ends, and starts again 10 s later
    const s = setup({ failing: (n) => (n === 1 ? new LbrlError('token refused', 'auth') : undefined) });
    await s.clock.advance(250);
    s.history.append([created()]);
    await s.clock.advance(250);
    expect(s.asked()).toBe(1);
    s.clock.step(-3600_000);
    // a look a second (pollMs): the next one a second on, however the wall clock moved
    await s.clock.advance(1000);
    expect(s.asked()).toBe(2);
    expect(s.warnings).toEqual([`display: following deposit ${ID}: token refused; trying again in 10 s`]);
    s.clock.step(-3600_000);
    await s.clock.advance(9000);
    expect(s.asked()).toBe(2);
    await s.clock.advance(1500);
    expect(s.asked()).toBe(3);
    // and stepped forward a day: the looks go on a second apart, not at once
    s.clock.step(86_400_000);
    await s.clock.advance(3000);
    expect(s.asked()).toBeLessThanOrEqual(6);
    expect(s.engine.current().phase).toBe('waiting');
    s.clock.stop();
    await s.running;
  });

  it('Ctrl-C while it follows a charge: nothing said about trying again', async () => {
    const s = setup();
    s.history.append([created()]);
    await s.clock.advance(1500);
    s.clock.stop();
    await s.running;
    await settle();
    expect(s.warnings.filter((line) => /trying again|asking again/.test(line))).toEqual([]);
  });
});

describe('an unspecified --host', () => {
  const lan = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
    eth0: [
      { address: 'fe80::1', family: 'IPv6', internal: false },
      { address: '2001:db8::5', family: 'IPv6', internal: false },
      { address: '192.168.0.12', family: 'IPv4', internal: false },
    ],
  } as unknown as ReturnType<typeof os.networkInterfaces>;
  it.each(['0', '0.0', '0x0', '0.0.0.0', '00.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0', '[::]', '0::0'])(
    '%s is every interface: the URL names the machine on the network',
    (host) => {
      expect(isUnspecifiedHost(host)).toBe(true);
      expect(urlHostFor(host, lan)).toBe('192.168.0.12');
    },
  );
  it('a machine with only IPv6 on its network: its global address for an IPv6 listener, never fe80::', () => {
    const v6 = { eth0: [lan.eth0![0]!, lan.eth0![1]!] } as unknown as ReturnType<typeof os.networkInterfaces>;
    expect(urlHostFor('::', v6)).toBe('2001:db8::5');
    expect(urlHostFor('0.0.0.0', v6)).toBe('127.0.0.1');
  });
  it.each(['127.0.0.1', '192.168.0.12', '::1', 'localhost', '0.0.0.1'])('%s is itself', (host) => {
    expect(isUnspecifiedHost(host)).toBe(false);
    expect(urlHostFor(host, lan)).toBe(host);
  });
});
