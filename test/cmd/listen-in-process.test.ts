/**
 * `lbrl listen` as a function of narrow options (runListen): a printer on plain strings, a clock
 * that only sleeping moves, a config file, history and outbox in a temporary directory, a scripted
 * service and a poster that opens no socket (each POST checked with the standardwebhooks package
 * as it is handed over, as a merchant's receiver would). What a user sees is asserted: stdout,
 * stderr, the error and its exit code, the files written. What the poster makes of real receivers
 * (redirects, resets, silence) and the sandbox's stories through the CLI stay on servers:
 * test/cmd/listen.test.ts and test/cmd/listen-attacks.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import type { PostOutcome, WebhookPoster } from '../../src/api/webhook-post.js';
import { type ListenCommandOptions, runListen } from '../../src/commands/listen.js';
import { createChecked } from '../../src/deposits/create.js';
import type { Target } from '../../src/deposits/ports.js';
import { LbrlError, usageError } from '../../src/errors.js';
import { ConfigStore } from '../../src/store/config.js';
import { History } from '../../src/store/history.js';
import { type StoredRecord, statusRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, ID, LQ, TOKEN } from '../helpers/fixtures.js';
import { plainTerminal, type SteppingClock, steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
const RECEIVER = 'http://127.0.0.1:4242/webhooks';
const START = Date.parse('2026-11-22T10:00:00Z');
const TXID = 'ab'.repeat(32);
const LIVE: Target = {
  mode: 'live',
  baseUrl: SERVICE,
  token: TOKEN,
  baseUrlFrom: '--base-url',
  tokenFrom: 'LBRL_TOKEN',
};
const FLOW = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'];

/** The answer of a well-behaved service at a status. */
function at(status: string, id = ID) {
  const settled = ['SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'].includes(status);
  const sent = status === 'TX_SENT' || status === 'FINALIZED';
  return getAnswer({
    id,
    status,
    settlement: settled ? { status, ...(sent ? { liquidTxid: TXID } : {}) } : null,
    confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-22T10:00:02.000Z',
  });
}

interface Post {
  url: string;
  headers: Record<string, string>;
  body: string;
  id: string;
  type: string;
  /** what standardwebhooks said of the signature, when it arrived */
  problem?: string;
}

/** One profile's config directory: its config file, history and outbox. */
function world() {
  const dir = path.join(tempDir(), 'cfg');
  const store = new ConfigStore(dir);
  const history = new History(dir, () => {});
  return { dir, store, history, file: store.file };
}
type World = ReturnType<typeof world>;

/** A deposit created through the service and recorded, as deposit create records it. */
async function created(
  w: World,
  id = ID,
  when = START - 60_000,
  local: { ref?: string; note?: string } = {},
) {
  const api = scriptedDepositApi({
    create: (body) => ({ ...at('WAITING_PAYMENT', id), qrCode: 'x', amountInCents: body.amountInCents }),
  });
  await createChecked(
    {
      api,
      recorder: { record: (r) => w.history.append(r) },
      scope: { profile: 'default', target: SERVICE },
      now: () => when,
    },
    { amountInCents: 150000, lbrlAddress: LQ },
    `key-${id}`,
    undefined,
    local,
  );
}

/** The flags as a test writes them: --forward-to and --events once (a string) or repeated (an array). */
type TestFlags = Omit<ListenCommandOptions['flags'], 'forwardTo' | 'events'> & {
  forwardTo?: string | string[];
  events?: string | string[];
};
const asList = (value: string | string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

async function listen(
  w: World,
  written: TestFlags,
  o: {
    profileName?: string;
    get?: (id: string, n: number) => unknown;
    /** Ctrl-C once this much clock time has passed */
    forMs?: number;
    answer?: (post: Post, n: number) => PostOutcome;
    /** Ctrl-C a few sleeps after this holds */
    until?: (posts: Post[]) => boolean;
    target?: () => Target;
    json?: boolean;
    /** the wall clock at the start (default START) */
    start?: number;
    /** at each sleep, after the clocks moved: the test may step the wall clock (clock.t) alone */
    onSleep?: (clock: SteppingClock) => void;
  } = {},
) {
  const { forwardTo, events, ...rest } = written;
  const flags: ListenCommandOptions['flags'] = { ...rest };
  if (forwardTo !== undefined) flags.forwardTo = asList(forwardTo);
  if (events !== undefined) flags.events = asList(events);
  const profileName = o.profileName ?? 'default';
  const controller = new AbortController();
  let after = 0;
  const posts: Post[] = [];
  const start = o.start ?? START;
  const clock = steppingClock(start, {
    signal: controller.signal,
    monotonic: true,
    onSleep: (_ms, c) => {
      o.onSleep?.(c);
      if ((o.until?.(posts) && ++after > 3) || c.sleeps.length > 3000) controller.abort();
      if (o.forMs !== undefined && c.m > o.forMs) controller.abort();
    },
  });
  const term = plainTerminal({ json: o.json, now: clock.now });
  // every answer is checked against the history's record, as the factory's client has it
  const api = scriptedDepositApi({
    get: o.get,
    now: clock.now,
    recorded: (id) => w.history.recorded(id, SERVICE),
  });
  const records: StoredRecord[] = [];
  let postersMade = 0;
  let closed = 0;
  const asked = { target: 0, client: 0 };
  const poster: WebhookPoster = {
    async post(url, headers, body) {
      const event = JSON.parse(body) as { type: string };
      const post: Post = { url, headers, body, id: headers['webhook-id']!, type: event.type };
      const secret = w.store.rawProfile(profileName)['webhook-secret'] as string;
      const spy = vi.spyOn(Date, 'now').mockReturnValue(clock.now());
      try {
        new Webhook(secret).verify(body, headers);
      } catch (error) {
        post.problem = (error as Error).message;
      } finally {
        spy.mockRestore();
      }
      posts.push(post);
      return o.answer?.(post, posts.length) ?? { kind: 'answer', status: 200, ms: 5 };
    },
    async close() {
      closed++;
    },
  };
  let error: unknown;
  try {
    await runListen({
      flags,
      printer: term.printer,
      clock,
      profileName,
      configFile: w.store.file,
      configDir: w.dir,
      savedSecret: () => w.store.rawProfile(profileName)['webhook-secret'],
      updateProfile: (change) => w.store.updateProfile(profileName, change),
      poster: () => {
        postersMade++;
        return poster;
      },
      target: () => {
        asked.target++;
        return (o.target ?? (() => LIVE))();
      },
      scope: (target) => ({
        profile: profileName,
        target: target.mode === 'live' ? target.baseUrl : 'sandbox',
      }),
      verifyOn: () => false,
      verifySetup: async () => {
        throw new Error('no --verify in these tests');
      },
      recordVerified: () => {},
      client: async () => {
        asked.client++;
        return api;
      },
      history: () => w.history,
      recorder: {
        record: (r) => {
          records.push(...r);
          w.history.append(r);
        },
      },
    });
  } catch (e) {
    error = e;
    if (e instanceof LbrlError) term.printer.error(e);
  }
  const code = error === undefined ? 0 : error instanceof LbrlError ? error.exitCode : -1;
  return {
    stdout: term.stdout,
    stderr: term.stderr,
    error,
    code,
    posts,
    records,
    asked,
    api,
    postersMade,
    closed: () => closed,
  };
}

const secretOf = (w: World) => w.store.rawProfile('default')['webhook-secret'];
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('listen --print-secret, in process', () => {
  it('makes the secret once, keeps it in the private config file, and prints it alone every time', async () => {
    const w = world();
    const one = await listen(w, { printSecret: true });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    expect(one.stderr).toBe('');
    expect(JSON.parse(fs.readFileSync(w.file, 'utf8'))).toEqual({
      profiles: { default: { 'webhook-secret': one.stdout.trim() } },
    });
    expect(mode(w.file)).toBe(0o600);
    const two = await listen(w, { printSecret: true }, { json: true });
    expect(two.stdout).toBe(one.stdout);
    // nothing else is asked or made: no service, no poster, no outbox
    expect(one.asked).toEqual({ target: 0, client: 0 });
    expect(one.postersMade).toBe(0);
    expect(fs.existsSync(path.join(w.dir, 'webhooks'))).toBe(false);
  });

  it.each([
    ['default', ''],
    ['work', ' --profile work'],
  ])(
    'a damaged secret (profile %s) is a config error naming the repair; nothing is made or printed',
    async (profileName, flag) => {
      const w = world();
      await w.store.updateProfile(profileName, (p) => {
        p['webhook-secret'] = 'whsec_c2hvcnQ=';
      });
      const before = fs.readFileSync(w.file, 'utf8');
      const r = await listen(w, { printSecret: true }, { profileName });
      expect((r.error as LbrlError).type).toBe('config');
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `error: the webhook secret of profile ${profileName} in ${w.file} is damaged; remove it with lbrl config unset webhook-secret${flag} to make a new one (receivers must then be given the new secret)\n`,
      );
      expect(fs.readFileSync(w.file, 'utf8')).toBe(before);
    },
  );
});

describe('listen refusals, in process', () => {
  it.each([
    [
      { forwardTo: 'http://example.com/hooks' },
      /^error: invalid --forward-to "http:\/\/example\.com\/hooks"/,
    ],
    [
      { forwardTo: 'https://user:hunter2@example.com/' },
      /^error: invalid --forward-to "https:\/\/\[redacted\]@example\.com\/"/,
    ],
    [{ forwardTo: RECEIVER, events: 'deposit.paid' }, /^error: invalid --events "deposit\.paid"/],
    [{ forwardTo: RECEIVER, interval: '0' }, /^error: invalid --interval "0"/],
    [
      { forwardTo: RECEIVER, replay: '../x' },
      /^error: invalid --replay "\.\.\/x": expected an event id as listen logs it/,
    ],
    [{}, /^error: listen needs --forward-to <url> \(or --print-secret\)\n$/],
  ])('%j: one error line (exit 2); no secret made, no service asked, no outbox', async (flags, message) => {
    const w = world();
    const r = await listen(w, flags);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('hunter2');
    expect(r.asked).toEqual({ target: 0, client: 0 });
    expect(r.postersMade).toBe(0);
    expect(fs.existsSync(w.dir)).toBe(false);
  });

  it('a target configured by half is refused before the secret is made or the outbox written', async () => {
    const w = world();
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        target: () => {
          throw usageError('a token is set (LBRL_TOKEN) but no base URL: pass --base-url');
        },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: a token is set (LBRL_TOKEN) but no base URL: pass --base-url\n');
    expect(fs.existsSync(w.dir)).toBe(false);
    expect(r.postersMade).toBe(0);
  });
});

describe('listen: the merchant reference in every event', () => {
  it("each event's data carries the deposit's ref and note from the ledger; the deposit object stays the service's", async () => {
    const w = world();
    await created(w, ID, START - 60_000, { ref: 'pedido 1042', note: 'mesa 7' });
    const other = '00000000-0000-4000-8000-000000000002';
    await created(w, other);
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        get: (id, n) => at(FLOW[Math.min(n - 1, FLOW.length - 1)]!, id),
        until: (posts) => posts.filter((p) => p.type === 'deposit.finalized').length === 2,
      },
    );
    expect(r.code).toBe(130);
    const data = r.posts.map((p) => JSON.parse(p.body).data);
    const mine = data.filter((d) => d.deposit.id === ID);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const d of mine) {
      expect([d.ref, d.note]).toEqual(['pedido 1042', 'mesa 7']);
      expect(d.deposit.ref).toBeUndefined();
    }
    const theirs = data.filter((d) => d.deposit.id === other);
    expect(theirs.length).toBeGreaterThanOrEqual(2);
    for (const d of theirs) expect(Object.keys(d)).not.toContain('ref');
    expect(r.posts.map((p) => p.problem)).toEqual(r.posts.map(() => undefined));
  });
});

describe('listen, in process with a scripted service and a poster', () => {
  it("a deposit's events are sent once each, in order, signed; one line per answer; Ctrl-C ends it (130)", async () => {
    const w = world();
    await created(w);
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        get: (id, n) => at(FLOW[Math.min(n - 1, FLOW.length - 1)]!, id),
        until: (posts) => posts.some((p) => p.type === 'deposit.finalized'),
      },
    );
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    const types = r.posts.map((p) => p.type);
    expect(types[0]).toBe('deposit.created');
    expect(types.at(-1)).toBe('deposit.finalized');
    expect(new Set(types).size).toBe(types.length);
    expect(new Set(r.posts.map((p) => p.id)).size).toBe(r.posts.length);
    expect(r.posts.map((p) => p.problem)).toEqual(r.posts.map(() => undefined));
    expect(r.posts.every((p) => p.url === RECEIVER)).toBe(true);
    const finalized = r.posts.at(-1)!;
    expect(JSON.parse(finalized.body).data.deposit).toMatchObject({
      id: ID,
      status: 'FINALIZED',
      settlement: { liquidTxid: TXID },
    });
    expect(finalized.id).toMatch(/^evt_[A-Za-z0-9_-]{27}$/);
    expect(r.stderr).toContain(
      `listening: events of profile default (${SERVICE}) to ${RECEIVER}. Signing secret: lbrl listen --print-secret. Ctrl-C to stop\n`,
    );
    expect(r.stderr).toMatch(
      new RegExp(
        `^2026-11-22T\\d\\d:\\d\\d:\\d\\dZ  deposit\\.finalized  ${ID}  --> 200 \\(5 ms\\)  \\[${finalized.id}\\]$`,
        'm',
      ),
    );
    // each status seen recorded in the history, as watch records them
    expect(r.records.map((x) => (x as { status?: string }).status)).toContain('FINALIZED');
    // the secret was made for this run, and the poster closed on the way out
    expect(secretOf(w)).toMatch(/^whsec_/);
    expect(r.closed()).toBe(1);
    expect(fs.existsSync(path.join(w.dir, 'webhooks', 'default.lock'))).toBe(false);
  });

  it('--events: only the types asked for are sent; then --replay sends one again, same id and body, signed now', async () => {
    const w = world();
    await created(w);
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.finalized,deposit.failed' },
      {
        get: (id, n) => at(FLOW[Math.min(n - 1, FLOW.length - 1)]!, id),
        until: (posts) => posts.length > 0,
      },
    );
    expect(r.posts.map((p) => p.type)).toEqual(['deposit.finalized']);
    const sent = r.posts[0]!;

    const again = await listen(w, { forwardTo: RECEIVER, replay: sent.id });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `2026-11-22T10:00:00Z  deposit.finalized  ${ID}  --> 200 (5 ms)  [${sent.id}]\n`,
    );
    expect(again.posts).toHaveLength(1);
    expect(again.posts[0]).toMatchObject({ id: sent.id, body: sent.body, url: RECEIVER });
    expect(again.posts[0]!.problem).toBeUndefined();
    // --replay asks no service
    expect(again.asked).toEqual({ target: 0, client: 0 });

    const refused = await listen(
      w,
      { forwardTo: RECEIVER, replay: sent.id },
      { answer: () => ({ kind: 'answer', status: 500, ms: 5 }) },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: the receiver at ${RECEIVER} answered 500, not 2xx\n`);
    const gone = await listen(
      w,
      { forwardTo: RECEIVER, replay: sent.id },
      { answer: () => ({ kind: 'failure', reason: 'connection refused', ms: 1 }) },
    );
    expect((gone.error as LbrlError).type).toBe('network');
    expect(gone.stderr).toContain(
      `error: the receiver at ${RECEIVER} could not be reached: connection refused\n`,
    );

    const unknown = await listen(w, { forwardTo: RECEIVER, replay: 'evt_nothing' });
    expect((unknown.error as LbrlError).type).toBe('not_found');
    expect(unknown.stderr).toBe(
      'error: no event evt_nothing in the outbox of profile default (it keeps every event not yet delivered and the last 1000 delivered)\n',
    );
    expect(unknown.posts).toEqual([]);
  });

  it('a receiver refusing: the same event is sent again with the same id until a 2xx', async () => {
    const w = world();
    await created(w);
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.created' },
      {
        get: (id) => at('WAITING_PAYMENT', id),
        answer: (_p, n) =>
          n < 3 ? { kind: 'answer', status: 503, ms: 5 } : { kind: 'answer', status: 204, ms: 5 },
        until: (posts) => posts.length >= 3,
      },
    );
    expect(r.posts.map((p) => p.type)).toEqual(['deposit.created', 'deposit.created', 'deposit.created']);
    expect(new Set(r.posts.map((p) => p.id)).size).toBe(1);
    expect(r.posts.map((p) => p.problem)).toEqual([undefined, undefined, undefined]);
    expect(r.stderr.split('\n').filter((l) => l.includes('--> 503'))).toHaveLength(2);
    expect(r.stderr.split('\n').filter((l) => l.includes('--> 204'))).toHaveLength(1);
  });

  it('a service that lies about one deposit: its answers refused with one warning, no event made of them; the other goes on; honest again, its events follow', async () => {
    const w = world();
    const liar = `${ID.slice(0, -1)}a`;
    const honest = `${ID.slice(0, -1)}b`;
    await created(w, liar);
    await created(w, honest);
    const status = new Map<string, string>([
      [liar, 'WAITING_PAYMENT'],
      [honest, 'WAITING_PAYMENT'],
    ]);
    const lying = new Set<string>();
    const get = (id: string) => {
      const answer = at(status.get(id)!, id) as Record<string, unknown>;
      if (lying.has(id)) answer.qrCodeText = (answer.qrCodeText as string).replace('5802BR', '5802US');
      return answer;
    };
    const types = (posts: Post[], id: string) =>
      posts.filter((p) => JSON.parse(p.body).data.deposit.id === id).map((p) => p.type);
    const first = await listen(w, { forwardTo: RECEIVER }, { get, until: (posts) => posts.length >= 2 });
    expect(types(first.posts, liar)).toEqual(['deposit.created']);
    expect(types(first.posts, honest)).toEqual(['deposit.created']);

    lying.add(liar);
    status.set(liar, 'PIX_CONFIRMED');
    status.set(honest, 'PIX_CONFIRMED');
    const r = await listen(w, { forwardTo: RECEIVER }, { get, forMs: 60_000 });
    expect(r.code).toBe(130);
    expect(types(r.posts, honest)).toEqual(['deposit.pix_confirmed']);
    expect(types(r.posts, liar)).toEqual([]);
    const warnings = r.stderr.split('\n').filter((l) => l.includes(`deposit ${liar} cannot be trusted`));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: the service's answer about deposit .* no event is sent from that answer, and listen goes on$/,
    );
    // asked about again and again all the same: listen did not stop following it
    expect(r.api.gets().filter((c) => c.id === liar).length).toBeGreaterThan(2);

    lying.delete(liar);
    const again = await listen(
      w,
      { forwardTo: RECEIVER },
      { get, until: (posts) => types(posts, liar).length >= 1 },
    );
    expect(again.code).toBe(130);
    expect(types(again.posts, liar)).toEqual(['deposit.pix_confirmed']);
    expect([...first.posts, ...r.posts, ...again.posts].map((p) => p.problem).filter(Boolean)).toEqual([]);
  });
});

describe('events a receiver can rely on: a status shorter than a poll is inferred, each event carries the deposit at its status', () => {
  const bodyOf = (p: Post) =>
    JSON.parse(p.body) as {
      type: string;
      data: { deposit: Record<string, unknown>; previousStatus: string | null; inferred: boolean };
    };
  /** what the receiver was told, event by event: type, the deposit's status, previousStatus, inferred */
  const told = (posts: Post[]) =>
    posts.map((p) => {
      const { type, data } = bodyOf(p);
      return [type, data.deposit.status, data.previousStatus, data.inferred];
    });

  it('WAITING_PAYMENT then FINALIZED at the next poll: pix_confirmed, settlement_created and tx_sent are sent, inferred, in order', async () => {
    const w = world();
    await created(w);
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        get: (id, n) => at(n === 1 ? 'WAITING_PAYMENT' : 'FINALIZED', id),
        until: (posts) => posts.some((p) => p.type === 'deposit.finalized'),
      },
    );
    expect(told(r.posts)).toEqual([
      ['deposit.created', 'WAITING_PAYMENT', null, false],
      ['deposit.pix_confirmed', 'PIX_CONFIRMED', 'WAITING_PAYMENT', true],
      ['deposit.settlement_created', 'SETTLEMENT_CREATED', 'PIX_CONFIRMED', true],
      ['deposit.tx_sent', 'TX_SENT', 'SETTLEMENT_CREATED', true],
      ['deposit.finalized', 'FINALIZED', 'TX_SENT', false],
    ]);
    expect(r.posts.map((p) => p.problem)).toEqual(r.posts.map(() => undefined));
    const [, paid, settling, sent, finalized] = r.posts.map((p) => bodyOf(p).data.deposit);
    // each as it was at its status: paid but not yet settled, settled but not yet sent
    expect(paid).toMatchObject({
      status: 'PIX_CONFIRMED',
      settlement: null,
      confirmedAt: '2026-11-22T10:00:02.000Z',
    });
    expect(settling!.settlement).toEqual({ status: 'SETTLEMENT_CREATED' });
    expect(sent!.settlement).toEqual({ status: 'TX_SENT', liquidTxid: TXID });
    expect(finalized!.settlement).toEqual({ status: 'FINALIZED', liquidTxid: TXID });
  });

  it('first seen FINALIZED: deposit.created carries the deposit waiting for payment, never the finalized one', async () => {
    const w = world();
    await created(w);
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        get: (id) => at('FINALIZED', id),
        until: (posts) => posts.some((p) => p.type === 'deposit.finalized'),
      },
    );
    expect(told(r.posts)).toEqual([
      ['deposit.created', 'WAITING_PAYMENT', null, true],
      ['deposit.pix_confirmed', 'PIX_CONFIRMED', 'WAITING_PAYMENT', true],
      ['deposit.settlement_created', 'SETTLEMENT_CREATED', 'PIX_CONFIRMED', true],
      ['deposit.tx_sent', 'TX_SENT', 'SETTLEMENT_CREATED', true],
      ['deposit.finalized', 'FINALIZED', 'TX_SENT', false],
    ]);
    const createdBody = bodyOf(r.posts[0]!).data.deposit;
    expect(createdBody).toMatchObject({ status: 'WAITING_PAYMENT', settlement: null, confirmedAt: null });
  });

  it('--events deposit.pix_confirmed alone: sent whenever the deposit was paid, whatever the polls saw (FINALIZED, or FAILED with confirmedAt)', async () => {
    const w = world();
    const quick = `${ID.slice(0, -1)}a`;
    const failedPaid = `${ID.slice(0, -1)}b`;
    const failedUnpaid = `${ID.slice(0, -1)}c`;
    for (const id of [quick, failedPaid, failedUnpaid]) await created(w, id);
    const get = (id: string, n: number) => {
      if (n === 1) return at('WAITING_PAYMENT', id);
      if (id === quick) return at('FINALIZED', id);
      const failed = at('FAILED', id) as Record<string, unknown>;
      // paid, its settlement made, then failed; or failed before anyone paid
      if (id === failedPaid) failed.settlement = { status: 'FAILED' };
      else failed.confirmedAt = null;
      return failed;
    };
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.pix_confirmed' },
      { get, forMs: 120_000 },
    );
    const paidIds = r.posts.map((p) => bodyOf(p).data.deposit.id).sort();
    expect(paidIds).toEqual([quick, failedPaid]);
    expect(r.posts.every((p) => p.type === 'deposit.pix_confirmed' && bodyOf(p).data.inferred)).toBe(true);
    expect(r.posts.map((p) => p.problem)).toEqual([undefined, undefined]);
  });
});

describe('a payment nobody hears about: listen never gives up on a deposit lbrl created', () => {
  const typesOf = (posts: Post[], id: string) =>
    posts.filter((p) => JSON.parse(p.body).data.deposit.id === id).map((p) => p.type);

  it('404s for a deposit lbrl created (a replica behind): asked again less and less often, never recorded GONE; paid later, its events are sent', async () => {
    const w = world();
    await created(w);
    let known = false;
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        get: (id) => {
          if (!known) throw new LbrlError(`deposit ${id} not found`, 'not_found');
          return at('FINALIZED', id);
        },
        // the service finds it again after 20 minutes
        onSleep: (c) => {
          if (c.m > 20 * 60_000) known = true;
        },
        until: (posts) => posts.some((p) => p.type === 'deposit.finalized'),
      },
    );
    expect(typesOf(r.posts, ID)).toEqual([
      'deposit.created',
      'deposit.pix_confirmed',
      'deposit.settlement_created',
      'deposit.tx_sent',
      'deposit.finalized',
    ]);
    const said = r.stderr.split('\n').filter((l) => l.includes('does not know deposit'));
    expect(said).toEqual([
      `warning: the service does not know deposit ${ID} (yet); listen asks again in 6 s, then less often (at least every 10 min), and never gives up on it`,
    ]);
    expect(r.records.map((x) => (x as { status?: string }).status)).not.toContain('GONE');
    // bounded back-off: 20 minutes of 404s cost a handful of requests, not one every 3 s
    const during = r.api.gets().filter((g) => g.at - START <= 20 * 60_000);
    expect(during.length).toBeGreaterThan(3);
    expect(during.length).toBeLessThan(12);
  });

  it("a 404 that is not the service's JSON (a proxy's page during a deploy): asked again, never an end of listen; paid later, its events are sent", async () => {
    const w = world();
    await created(w);
    let known = false;
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.finalized' },
      {
        get: (id) => {
          if (!known)
            throw new LbrlError(
              "GET https://pay.example/v1/api/... answered 404 with an HTML page: the URL is not the Deposit service's endpoint (is the base URL right?)",
              'endpoint',
            );
          return at('FINALIZED', id);
        },
        onSleep: (c) => {
          if (c.m > 5 * 60_000) known = true;
        },
        until: (posts) => posts.some((p) => p.type === 'deposit.finalized'),
      },
    );
    expect(typesOf(r.posts, ID)).toEqual(['deposit.finalized']);
    const said = r.stderr.split('\n').filter((l) => l.includes('without the service'));
    expect(said).toEqual([
      `warning: the service's address answered 404 without the service's JSON for deposit ${ID} (a proxy or a deploy?); listen asks again in 6 s, then less often (at least every 10 min), and never gives up on it`,
    ]);
  });

  it('a deposit an earlier version closed as GONE is followed again, and its payment sent', async () => {
    const w = world();
    await created(w);
    const dir = path.join(w.dir, 'webhooks');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const since = { v: 1, type: 'since', at: '2026-11-22T09:00:00.000Z' };
    const gone = {
      v: 1,
      type: 'seen',
      deposit: ID,
      status: 'GONE',
      at: '2026-11-22T09:59:00.000Z',
      closed: true,
    };
    fs.writeFileSync(
      path.join(dir, 'default.ndjson'),
      `${JSON.stringify(since)}\n${JSON.stringify(gone)}\n`,
      {
        mode: 0o600,
      },
    );
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.finalized' },
      { get: (id) => at('FINALIZED', id), until: (posts) => posts.length > 0 },
    );
    expect(typesOf(r.posts, ID)).toEqual(['deposit.finalized']);
  });

  it('an event retried while the wall clock steps 4 days ahead (NTP) is not given up: retried until taken', async () => {
    const w = world();
    await created(w);
    let stepped = false;
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.created' },
      {
        get: (id) => at('WAITING_PAYMENT', id),
        answer: (_p, n) => {
          if (n === 1) stepped = true;
          return n < 4 ? { kind: 'answer', status: 503, ms: 5 } : { kind: 'answer', status: 200, ms: 5 };
        },
        onSleep: (c) => {
          if (stepped && c.t < START + 86_400_000) c.t += 4 * 86_400_000;
        },
        until: (posts) => posts.length >= 4,
      },
    );
    expect(r.stderr).not.toContain('given up');
    expect(r.posts.map((p) => p.type)).toEqual(Array(4).fill('deposit.created'));
    expect(r.stderr.split('\n').filter((l) => l.includes('--> 200'))).toHaveLength(1);
  });

  it('a first run with the clock a day fast, then set right: a deposit created later and paid while listen was stopped still gets its events', async () => {
    const w = world();
    await created(w);
    const fast = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        start: START + 86_400_000,
        get: (id) => at('WAITING_PAYMENT', id),
        until: (posts) => posts.length > 0,
      },
    );
    expect(fast.posts.map((p) => p.type)).toEqual(['deposit.created']);
    // the clock set right; a charge made and paid while listen was stopped, its end recorded by a watch
    const later = `${ID.slice(0, -1)}f`;
    await created(w, later, START + 3600_000);
    w.history.append([statusRecord(later, 'FINALIZED', START + 3700_000, at('FINALIZED', later) as never)]);
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        start: START + 7200_000,
        get: (id) => at(id === later ? 'FINALIZED' : 'WAITING_PAYMENT', id),
        until: (posts) => typesOf(posts, later).includes('deposit.finalized'),
      },
    );
    expect(typesOf(r.posts, later)).toEqual([
      'deposit.created',
      'deposit.pix_confirmed',
      'deposit.settlement_created',
      'deposit.tx_sent',
      'deposit.finalized',
    ]);
  });

  it('charges open when listen first ran, stopped before it asked about some, paid meanwhile and recorded FINALIZED by another run: each gets deposit.finalized after the restart', async () => {
    const w = world();
    const ids = [1, 2, 3, 4, 5, 6].map((n) => `${ID.slice(0, -1)}${n}`);
    for (const id of ids) await created(w, id);
    const first = await listen(
      w,
      { forwardTo: RECEIVER },
      { get: (id) => at('WAITING_PAYMENT', id), forMs: 2500 },
    );
    // stopped before it had asked about all six
    expect(new Set(first.api.gets().map((g) => g.id)).size).toBeLessThan(6);
    for (const id of ids)
      w.history.append([statusRecord(id, 'FINALIZED', START + 600_000, at('FINALIZED', id) as never)]);
    const r = await listen(
      w,
      { forwardTo: RECEIVER, events: 'deposit.finalized' },
      {
        start: START + 900_000,
        get: (id) => at('FINALIZED', id),
        until: (posts) => posts.filter((p) => p.type === 'deposit.finalized').length >= 6,
      },
    );
    const finalized = r.posts.filter((p) => p.type === 'deposit.finalized');
    expect(finalized.map((p) => JSON.parse(p.body).data.deposit.id).sort(), r.stderr).toEqual(ids);
  });
});

describe('a lock nobody can take back: the lock of a killed listen, after the host name changed', () => {
  const lockFile = (w: World) => path.join(w.dir, 'webhooks', 'default.lock');
  const here = () => ({
    boot: fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    pidns: fs.readlinkSync('/proc/self/ns/pid'),
  });
  function leaveLock(w: World, holder: Record<string, unknown>) {
    fs.mkdirSync(path.dirname(lockFile(w)), { recursive: true, mode: 0o700 });
    const claim = {
      start: '',
      since: '2026-11-22T09:00:00.000Z',
      nonce: 'a'.repeat(24),
      beat: 41,
      ...holder,
    };
    fs.writeFileSync(lockFile(w), JSON.stringify(claim), { mode: 0o600 });
  }
  const deadPid = () => spawnSync('true').pid!;

  it('a container restarted (new host name, new pid namespace): the dead one stops beating, so its lock is taken over after the lease, and events flow', async () => {
    const w = world();
    await created(w);
    // its pid means a live process here (this one): only the heartbeat can tell
    leaveLock(w, { pid: process.pid, host: 'c0ffee123456', boot: here().boot, pidns: 'pid:[4026532999]' });
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      { get: (id) => at('WAITING_PAYMENT', id), until: (posts) => posts.length > 0 },
    );
    expect(r.posts.map((p) => p.type)).toEqual(['deposit.created']);
    expect(r.stderr).toContain(
      `the listen lock ${lockFile(w)} names pid ${process.pid} on host c0ffee123456, which this machine cannot ask (a container restarted, or another machine): waiting 15 s for its heartbeat\n`,
    );
    expect(fs.existsSync(lockFile(w))).toBe(false);
  });

  it('the same kernel boot and pid namespace under another host name: a dead pid is taken over at once', async () => {
    const w = world();
    await created(w);
    leaveLock(w, { pid: deadPid(), host: 'renamed-host', ...here() });
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      { get: (id) => at('WAITING_PAYMENT', id), until: (posts) => posts.length > 0 },
    );
    expect(r.posts.map((p) => p.type)).toEqual(['deposit.created']);
    expect(r.stderr).not.toContain('waiting');
  });

  it('a holder on another machine that beats keeps its lock: exit 2 naming it, nothing sent', async () => {
    const w = world();
    await created(w);
    leaveLock(w, { pid: 4242, host: 'other-machine', boot: 'f'.repeat(36), pidns: 'pid:[1]' });
    let beat = 41;
    const r = await listen(
      w,
      { forwardTo: RECEIVER },
      {
        get: (id) => at('WAITING_PAYMENT', id),
        forMs: 60_000,
        onSleep: () => {
          const claim = JSON.parse(fs.readFileSync(lockFile(w), 'utf8'));
          fs.writeFileSync(lockFile(w), JSON.stringify({ ...claim, beat: ++beat }));
        },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'error: another lbrl listen (pid 4242) is already delivering the events of profile default',
    );
    expect(r.posts).toEqual([]);
  });
});

describe('several receivers, in process', () => {
  it('an --events written before any --forward-to filters every receiver without its own; the listening line says each filter', async () => {
    const w = world();
    await created(w);
    const other = 'http://127.0.0.1:4343/all';
    const r = await listen(
      w,
      {
        forwardTo: [RECEIVER, other],
        events: ['deposit.finalized', 'deposit.created'],
        eventsPlaces: [0, 2],
      },
      {
        get: (id, n) => at(n === 1 ? 'WAITING_PAYMENT' : 'FINALIZED', id),
        until: (posts) => posts.length >= 2,
      },
    );
    expect(r.stderr).toContain(`to ${RECEIVER} (deposit.finalized), ${other} (deposit.created).`);
    const to = (url: string) => r.posts.filter((p) => p.url === url).map((p) => p.type);
    expect(to(RECEIVER)).toEqual(['deposit.finalized']);
    expect(to(other)).toEqual(['deposit.created']);
    expect(r.posts.map((p) => p.problem)).toEqual([undefined, undefined]);
  });
});
