/**
 * `lbrl listen` as a function of narrow options (runListen): a printer on plain strings, a clock
 * that only sleeping moves, a config file, history and outbox in a temporary directory, a scripted
 * service and a poster that opens no socket (each POST checked with the standardwebhooks package
 * as it is handed over, as a merchant's receiver would). What a user sees is asserted: stdout,
 * stderr, the error and its exit code, the files written. What the poster makes of real receivers
 * (redirects, resets, silence) and the sandbox's stories through the CLI stay on servers:
 * test/cmd/listen.test.ts and test/cmd/listen-attacks.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import type { PostOutcome, WebhookPoster } from '../../src/api/webhook-post.js';
import { type ListenCommandOptions, runListen } from '../../src/commands/listen.js';
import { createChecked } from '../../src/deposits/create.js';
import { LbrlError, usageError } from '../../src/errors.js';
import type { Target } from '../../src/session.js';
import { ConfigStore } from '../../src/store/config.js';
import { History, type StoredRecord } from '../../src/store/history.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, ID, LQ, TOKEN } from '../helpers/fixtures.js';
import { plainTerminal, steppingClock } from '../helpers/plain-terminal.js';
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
async function created(w: World, id = ID, local: { ref?: string; note?: string } = {}) {
  const api = scriptedDepositApi({
    create: (body) => ({ ...at('WAITING_PAYMENT', id), qrCode: 'x', amountInCents: body.amountInCents }),
  });
  await createChecked(
    {
      api,
      recorder: { record: (r) => w.history.append(r) },
      scope: { profile: 'default', target: SERVICE },
      now: () => START - 60_000,
    },
    { amountInCents: 150000, lbrlAddress: LQ },
    `key-${id}`,
    undefined,
    local,
  );
}

async function listen(
  w: World,
  flags: ListenCommandOptions['flags'],
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
  } = {},
) {
  const profileName = o.profileName ?? 'default';
  const controller = new AbortController();
  let after = 0;
  const posts: Post[] = [];
  const clock = steppingClock(START, {
    signal: controller.signal,
    onSleep: (_ms, c) => {
      if ((o.until?.(posts) && ++after > 3) || c.sleeps.length > 3000) controller.abort();
      if (o.forMs !== undefined && c.t - START > o.forMs) controller.abort();
    },
  });
  const term = plainTerminal({ json: o.json, now: clock.now });
  // every answer is checked against the history's record, as the Session's client has it
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
    await created(w, ID, { ref: 'pedido 1042', note: 'mesa 7' });
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
