/**
 * `deposit watch` as a function of narrow options (runWatch): a scripted service in process, a
 * clock that only sleeping moves, a printer on plain strings, no server. What a user sees is
 * asserted (stdout, stderr, the error and its exit code), and what the history is handed. What
 * the client makes of sockets (a 502, a 429 with Retry-After, a dropped connection, a time-out,
 * a 401's words) stays on servers: test/cmd/watch-wire.test.ts and test/cmd/client-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runWatch, type WatchCommandOptions, type WatchFlags } from '../../src/commands/deposit-watch.js';
import type { Context } from '../../src/context.js';
import { createChecked } from '../../src/deposits/create.js';
import type { HistoryReader } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { followInProcess } from '../helpers/follow-in-process.js';
import { type SeenRun, type SteppingClock, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import {
  type ScriptedDepositApi,
  scriptedDepositApi,
  WrittenAnswer,
} from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
const TXID = 'ab'.repeat(32);
const PAID_AT = '2026-11-22T10:00:02.000Z';
const FLOW = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'];

/** The answer of a well-behaved service at a status (settlement and confirmedAt as the interface has them). */
function at(status: string, extra: Record<string, unknown> = {}) {
  const settled = ['SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'].includes(status);
  const sent = status === 'TX_SENT' || status === 'FINALIZED';
  return getAnswer({
    status,
    settlement: settled ? { status, ...(sent ? { liquidTxid: TXID } : {}) } : null,
    confirmedAt: status === 'WAITING_PAYMENT' ? null : PAID_AT,
    ...extra,
  });
}
/** One status further at each poll, then FINALIZED. */
const flow = (_id: string, n: number) => at(FLOW[Math.min(n - 1, FLOW.length - 1)]!);

interface Watched extends SeenRun {
  api: ScriptedDepositApi;
  records: StoredRecord[];
  clock: SteppingClock;
  verifying: Array<{ trustServiceAddress?: boolean | undefined; verify: boolean | undefined }>;
}

interface Setup {
  json?: boolean;
  quiet?: boolean;
  env?: Record<string, string>;
  get?: (id: string, n: number) => unknown;
  settings?: Record<string, string>;
  history?: HistoryReader;
  expiredAt?: (id: string) => string | undefined;
  /** Ctrl-C once this much time has passed */
  interruptAfterMs?: number;
  /** the ledger's reference and note of each deposit */
  localOf?: (id: string) => { ref?: string; note?: string };
  /** what the process would end with should its stdout close (Context.whenStdoutGone) */
  whenStdoutGone?: Context['whenStdoutGone'];
}

async function watch(idTexts: string[], flags: Partial<WatchFlags> = {}, o: Setup = {}): Promise<Watched> {
  const controller = new AbortController();
  const start = Date.parse('2026-11-22T10:00:00Z');
  const clock = steppingClock(start, {
    signal: controller.signal,
    onSleep: (_ms, c) => {
      if (o.interruptAfterMs !== undefined && c.t - start > o.interruptAfterMs) controller.abort();
    },
  });
  const api = scriptedDepositApi({ get: o.get, now: clock.now });
  const { term, records, deps } = followInProcess({ ...o, clock, api });
  const verifying: Watched['verifying'] = [];
  const options: WatchCommandOptions = {
    idTexts,
    flags: flags as WatchFlags,
    ...deps,
    ctx: { ...deps.ctx, whenStdoutGone: o.whenStdoutGone },
    ...(o.localOf ? { localOf: o.localOf } : {}),
    config: { setting: (key) => o.settings?.[key] },
    history: () => o.history ?? new History(tempDir(), () => {}),
    scope: () => ({ profile: 'default', target: SERVICE }),
    expiredAt: o.expiredAt ?? (() => undefined),
    verifying: async (plan, verify, verifyFlags) => {
      verifying.push({ verify, ...verifyFlags });
      return plan;
    },
  };
  return { api, records, clock, verifying, ...(await seenRun(term, () => runWatch(options))) };
}

const statuses = (r: Watched) => r.records.map((x) => `${x.type} ${(x as { status?: string }).status ?? ''}`);

describe('deposit watch: the reference lbrl keeps', () => {
  const localOf = (id: string) => (id === ID ? { ref: 'mesa\u001b[2J 12', note: 'n' } : {});

  it('each line and the paid moment name it, as text; --json lines carry ref and note', async () => {
    const r = await watch([ID], {}, { env: { TZ: 'UTC' }, get: flow, localOf });
    expect(r.error).toBeUndefined();
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(`2026-11-22T10:00:00Z  ${ID}  WAITING_PAYMENT  ref mesa\\x1b[2J 12`);
    expect(r.stderr).toContain(`(deposit ${ID}, ref mesa\\x1b[2J 12)\n`);
    expect(r.stdout + r.stderr).not.toContain('\u001b');
    const json = await watch([ID], {}, { json: true, get: flow, localOf });
    const objects = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objects.map((x) => [x.ref, x.note])).toEqual(FLOW.map(() => ['mesa\u001b[2J 12', 'n']));
    expect(json.stdout).not.toContain('\u001b');
  });
});

describe('deposit watch, in process with a scripted service', () => {
  it('--json: one NDJSON line per observed status until FINALIZED, each recorded, nothing on stderr', async () => {
    const r = await watch([ID], { interval: '1' }, { json: true, get: flow });
    expect(r.error).toBeUndefined();
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status)).toEqual(FLOW);
    expect(lines[4]).toMatchObject({ id: ID, settlement: { liquidTxid: TXID } });
    expect(r.stderr).toBe('');
    expect(statuses(r)).toEqual(FLOW.map((s) => `status ${s}`));
    expect(new Set(r.clock.sleeps)).toEqual(new Set([1000]));
  });

  it('times with a lowercase t and z (RFC 3339 5.6), or another offset, are the same instants: followed to the end, shown alike', async () => {
    const env = { TZ: 'America/Sao_Paulo' };
    const upper = await watch([ID], {}, { env, get: flow });
    expect(upper.error).toBeUndefined();
    for (const [createdAt, confirmedAt] of [
      ['2026-11-22t10:00:00.000z', '2026-11-22t10:00:02.000z'],
      ['2026-11-22t07:00:00-03:00', '2026-11-22t07:00:02-0300'],
      // one answer in each form: the same instant, never "changed since it was first answered"
      ['2026-11-22T10:00:00Z', '2026-11-22t10:00:02z'],
    ]) {
      let n = 0;
      const lower = (_id: string, polls: number) => {
        n++;
        const answer = at(FLOW[Math.min(polls - 1, FLOW.length - 1)]!, {
          createdAt: n % 2 ? createdAt : '2026-11-22T10:00:00.000Z',
        });
        return answer.confirmedAt ? { ...answer, confirmedAt: n % 2 ? confirmedAt : PAID_AT } : answer;
      };
      const r = await watch([ID], {}, { env, get: lower });
      expect(r.error, `${createdAt} ${confirmedAt}`).toBeUndefined();
      expect(r.stdout).toBe(upper.stdout);
      expect(r.stderr).toBe(upper.stderr);
      expect(statuses(r)).toEqual(FLOW.map((status) => `status ${status}`));
    }
  });

  it('without a TTY: one plain timestamped line per transition, no colour; the paid moment in local time', async () => {
    const r = await watch([ID], {}, { env: { TZ: 'America/Sao_Paulo' }, get: flow });
    expect(r.error).toBeUndefined();
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(`2026-11-22T10:00:00Z  ${ID}  WAITING_PAYMENT`);
    expect(lines.at(-1)).toBe(`2026-11-22T10:00:12Z  ${ID}  TX_SENT -> FINALIZED  txid ${TXID}`);
    expect(r.stdout + r.stderr).not.toMatch(/\u001b\[/);
    // for a person, on stderr: the paid moment in local time, the settlement, how it ended
    expect(r.stderr).toBe(
      `Paid      R$ 1.500,00 at 2026-11-22 07:00:02 -03:00  (deposit ${ID})\n` +
        `Txid      ${TXID}\n` +
        `Explorer  https://blockstream.info/liquid/tx/${TXID}\n` +
        `deposit ${ID} FINALIZED\n`,
    );
    // polled every 3 s by default
    expect(new Set(r.clock.sleeps)).toEqual(new Set([3000]));
  });

  it('several deposits: each Txid note names its deposit, as their notes interleave', async () => {
    const other = ID.replace(/^./, 'f');
    const txidOf = (id: string) => (id === ID ? TXID : 'cd'.repeat(32));
    const get = (id: string, n: number) => {
      const a = flow(id, n) as { settlement?: { liquidTxid?: string } | null };
      const settlement = a.settlement?.liquidTxid
        ? { ...a.settlement, liquidTxid: txidOf(id) }
        : a.settlement;
      return { ...a, id, settlement };
    };
    const r = await watch([ID, other], {}, { env: { TZ: 'UTC' }, get });
    expect(r.error).toBeUndefined();
    for (const id of [ID, other]) expect(r.stderr).toContain(`Txid      ${txidOf(id)}  (deposit ${id})\n`);
    const one = await watch([ID], {}, { env: { TZ: 'UTC' }, get: flow });
    expect(one.stderr).toContain(`Txid      ${TXID}\n`);
  });

  it('a deposit that fails exits 5, its FAILED recorded', async () => {
    const r = await watch([ID], {}, { get: (_id, n) => (n < 3 ? at('WAITING_PAYMENT') : at('FAILED')) });
    expect(r.error?.exitCode).toBe(5);
    expect(r.error?.type).toBe('failed');
    expect(r.error?.message).toBe(`deposit ${ID} ended FAILED`);
    expect(statuses(r)).toEqual(['status WAITING_PAYMENT', 'status FAILED']);
    expect(r.stderr).toContain(`deposit ${ID} FAILED\n`);
  });

  it('--timeout ends the watch with 124 at exactly that time, naming what is unfinished', async () => {
    const r = await watch([ID], { timeout: '10s' }, { get: () => at('WAITING_PAYMENT') });
    expect(r.error?.exitCode).toBe(124);
    expect(r.error?.message).toBe('timed out after 10 s with 1 deposit(s) not yet FINALIZED or FAILED');
    expect(r.error?.details).toEqual({ unfinished: [ID] });
    expect(r.clock.t - Date.parse('2026-11-22T10:00:00Z')).toBe(10_000);
    expect(r.stderr).toContain(`deposit ${ID} timed out at WAITING_PAYMENT\n`);
    expect(r.stderr).toContain(`  lbrl deposit watch ${ID}\n`);
  });

  it.each([
    ['1h30m', 5400],
    ['2m30s', 150],
    ['2h3m4s', 7384],
    ['90', 90],
  ])(
    '--timeout %s is a compound duration, as Go and gh read it: 124 after %i s',
    async (timeout, seconds) => {
      const r = await watch([ID], { timeout, interval: '60' }, { get: () => at('WAITING_PAYMENT') });
      expect(r.error?.exitCode).toBe(124);
      expect(r.error?.message).toBe(
        `timed out after ${seconds} s with 1 deposit(s) not yet FINALIZED or FAILED`,
      );
      expect(r.clock.t - Date.parse('2026-11-22T10:00:00Z')).toBe(seconds * 1000);
    },
  );

  it('a reader gone (stdout closed: | head) while a deposit waits ends the run 141, never 0, saying how it was left', async () => {
    let end: (() => number) | undefined;
    let code: number | undefined;
    const r = await watch(
      [ID],
      { interval: '1' },
      {
        whenStdoutGone: (given) => {
          end = given;
        },
        get: (_id, n) => {
          // the reader goes after the second answer: the process ends with what `end` says
          if (n === 3 && end) code = end();
          return n < 5 ? at('WAITING_PAYMENT') : at('FINALIZED');
        },
      },
    );
    expect(code).toBe(141);
    // what it says then; in process the run goes on, and ends as the watch does
    expect(r.stderr).toContain(
      `deposit ${ID} left at WAITING_PAYMENT: stdout closed\n` +
        'the charge is still open: stopping the watch cancels nothing. Follow it again with:\n' +
        `  lbrl deposit watch ${ID}\n` +
        'error: stdout closed (its reader went away) before the watch ended: the deposits it left are not known to be done\n',
    );
    // done: a reader gone from now on ends the run as the watch did, 0
    expect(end).toBeUndefined();
    expect(r.error).toBeUndefined();
  });

  it('an unknown id exits 4 at once; a refused token in the middle of a watch exits 3, not retried', async () => {
    const unknown = await watch([ID]);
    expect(unknown.error?.exitCode).toBe(4);
    expect(unknown.api.gets()).toHaveLength(1);
    const refused = await watch(
      [ID],
      {},
      {
        get: (_id, n) => {
          if (n < 3) return at('WAITING_PAYMENT');
          throw new LbrlError('the service refused the token (401): expired', 'auth');
        },
      },
    );
    expect(refused.error?.exitCode).toBe(3);
    expect(refused.error?.message).toBe('the service refused the token (401): expired');
    expect(refused.api.gets()).toHaveLength(3);
  });

  it('rides out a 5xx, a 429 with its Retry-After, a refused connection and a time-out, saying so on stderr', async () => {
    const limited = new LbrlError('the service is rate limiting (429): slow', 'rate_limited');
    limited.retryAfterMs = 20_000;
    const r = await watch(
      [ID],
      {},
      {
        json: true,
        get: (_id, n) => {
          if (n === 2) throw new LbrlError('the service answered 502: bad gateway', 'service');
          if (n === 3) throw limited;
          if (n === 4) throw new LbrlError('the connection was reset', 'network');
          if (n === 5) throw new LbrlError('no answer within 0.2 s', 'timeout');
          return n < 7 ? at('WAITING_PAYMENT') : at('FINALIZED');
        },
      },
    );
    expect(r.error).toBeUndefined();
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).status),
    ).toEqual(['WAITING_PAYMENT', 'FINALIZED']);
    const retries = r.stderr.split('\n').filter((l) => l.startsWith('retrying in'));
    expect(retries).toHaveLength(4);
    expect(retries[0]).toContain('the service answered 502');
    expect(retries[1]).toBe('retrying in 20 s: the service is rate limiting (429): slow');
    expect(retries[2]).toContain('the connection was reset');
    expect(retries[3]).toContain('no answer within 0.2 s');
    expect(r.clock.sleeps).toContain(20_000);
    expect(r.api.gets()).toHaveLength(7);
  });

  it('a service that stays unreachable ends the watch with 6 after the documented limit, with few requests', async () => {
    const r = await watch(
      [ID],
      {},
      {
        get: () => {
          throw new LbrlError('could not connect to the service: ECONNREFUSED', 'network');
        },
      },
    );
    expect(r.error?.exitCode).toBe(6);
    expect(r.error?.message).toMatch(/^gave up after \d+ s of failures/);
    const waited = r.clock.t - Date.parse('2026-11-22T10:00:00Z');
    expect(waited).toBeGreaterThanOrEqual(5 * 60 * 1000);
    expect(waited).toBeLessThan(7 * 60 * 1000);
    // back-off keeps the count of requests low
    expect(r.api.gets().length).toBeLessThan(25);
  });

  it('many deposits share one budget: at most 60 requests a minute, one per deposit per interval', async () => {
    const ids = [1, 2, 3, 4, 5].map((i) => `${ID.slice(0, -1)}${i}`);
    const r = await watch(
      ids,
      { interval: '1', timeout: '2m' },
      { get: (id) => at('WAITING_PAYMENT', { id }) },
    );
    expect(r.error?.exitCode).toBe(124);
    const seen = r.api.gets().map((c) => c.at);
    for (let i = 0; i < seen.length; i++) {
      const window = seen.filter((t) => t >= seen[i]! && t < seen[i]! + 60_000);
      expect(window.length).toBeLessThanOrEqual(60);
    }
    expect(seen.length).toBeGreaterThan(100);
    // each deposit asked in turn, none starved
    for (const id of ids) expect(r.api.gets().filter((c) => c.id === id).length).toBeGreaterThan(20);
  });

  it("the profile's requests-per-minute lowers the ceiling; a damaged one stops the watch before any request", async () => {
    const r = await watch(
      [ID],
      { interval: '1', timeout: '2m' },
      {
        get: () => at('WAITING_PAYMENT'),
        settings: { 'requests-per-minute': '10' },
      },
    );
    expect(r.error?.exitCode).toBe(124);
    expect(r.api.gets().length).toBeLessThanOrEqual(21);
    const bad = await watch(
      [ID],
      {},
      { get: () => at('WAITING_PAYMENT'), settings: { 'requests-per-minute': 'lots' } },
    );
    expect(bad.error?.type).toBe('config');
    expect(bad.error?.exitCode).toBe(1);
    expect(bad.error?.message).toContain(`the profile's requests-per-minute "lots" is not`);
    expect(bad.api.calls).toEqual([]);
  });

  it('Ctrl-C exits 130, cancels nothing, and says how to follow it again', async () => {
    const r = await watch([ID], {}, { get: () => at('WAITING_PAYMENT'), interruptAfterMs: 9000 });
    expect(r.error?.exitCode).toBe(130);
    expect(r.error?.type).toBe('interrupted');
    expect(r.stderr).not.toContain('error');
    expect(r.stderr).toBe(
      `deposit ${ID} interrupted at WAITING_PAYMENT\n` +
        'the charge is still open: stopping the watch cancels nothing. Follow it again with:\n' +
        `  lbrl deposit watch ${ID}\n`,
    );
  });
});

describe('deposit watch, in process: an answer that lies ends the watch (exit 1), nothing of it recorded', () => {
  const other = '00000000-0000-4000-8000-000000000000';
  it.each([
    [
      'about another deposit',
      (_id: string, n: number) => (n < 2 ? at('WAITING_PAYMENT') : at('WAITING_PAYMENT', { id: other })),
      `id: expected ${ID}, the deposit asked for, service answered ${other}. Do not pay this charge`,
    ],
    [
      'with a status that goes back',
      (_id: string, n: number) => (n < 2 ? at('PIX_CONFIRMED') : at('WAITING_PAYMENT')),
      'status: expected PIX_CONFIRMED or a later status (a status never goes back), service answered WAITING_PAYMENT',
    ],
    [
      'with a destination other than its first answer',
      (_id: string, n: number) =>
        n < 2
          ? at('WAITING_PAYMENT')
          : at('PIX_CONFIRMED', { destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn' }),
      `destinationAddress: expected ${LQ}, as first answered (it never changes)`,
    ],
    [
      'with an amount written as a float',
      (_id: string, n: number) =>
        n < 2
          ? at('WAITING_PAYMENT')
          : new WrittenAnswer(
              JSON.stringify(at('PIX_CONFIRMED')).replace('"amountInCents":150000', '"amountInCents":1.5e5'),
            ),
      'amountInCents: expected an integer written as one',
    ],
    [
      'with a FINALIZED that has no transaction',
      (_id: string, n: number) =>
        n < 2
          ? at('WAITING_PAYMENT')
          : at('FINALIZED', { settlement: { status: 'FINALIZED', liquidTxid: null } }),
      'settlement.liquidTxid: expected a Liquid transaction id at FINALIZED',
    ],
  ])('%s', async (_what, get, message) => {
    const r = await watch([ID], {}, { get });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain(message);
    // only what the first, honest answer said
    const first = (get(ID, 1) as { status: string }).status;
    expect(statuses(r)).toEqual([`status ${first}`]);
    expect(r.stderr).not.toContain('FINALIZED\n');
  });
});

describe('deposit watch, in process: its input', () => {
  it.each<[Partial<WatchFlags>, string]>([
    [{ interval: '0' }, 'invalid --interval "0": expected a whole number of seconds from 1 to 3600'],
    [{ interval: '1.5' }, 'invalid --interval "1.5"'],
    [
      { timeout: '10d' },
      'invalid --timeout "10d": expected a duration such as 90, 90s, 10m, 1h or 1h30m (at least 1s, at most 7d)',
    ],
    ...['1h 30m', '1.5h', '-5m', '0', '0s', '30x', '30m1h', '1h1h', '1H', '1e3', '9999999999999s', ' 1h'].map(
      (timeout) =>
        [
          { timeout },
          `invalid --timeout ${JSON.stringify(timeout)}: expected a duration such as 90, 90s, 10m, 1h or 1h30m (at least 1s, at most 7d)`,
        ] as [Partial<WatchFlags>, string],
    ),
  ])('refuses %j before any request (exit 2)', async (flags, message) => {
    const r = await watch([ID], flags, { get: () => at('WAITING_PAYMENT') });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain(message);
    expect(r.api.calls).toEqual([]);
  });

  it('refuses a bad id among good ones before any request; the same id twice is followed once', async () => {
    const bad = await watch([ID, '../../etc'], {}, { get: () => at('WAITING_PAYMENT') });
    expect(bad.error?.exitCode).toBe(2);
    expect(bad.error?.message).toContain('deposit id');
    expect(bad.api.calls).toEqual([]);
    const twice = await watch(
      [ID, ID.toUpperCase()],
      {},
      { json: true, get: (_id, n) => (n < 2 ? at('WAITING_PAYMENT') : at('FINALIZED')) },
    );
    expect(twice.error).toBeUndefined();
    expect(twice.api.gets().map((c) => c.id)).toEqual([ID, ID]);
  });

  it('refuses flags that go with others, and no ids at all, before any request', async () => {
    const expired = await watch([ID], { includeExpired: true });
    expect(expired.error?.exitCode).toBe(2);
    expect(expired.error?.message).toBe(
      '--include-expired goes with --pending (a deposit named is followed, expired or not)',
    );
    const trust = await watch([ID], { trustServiceAddress: true });
    expect(trust.error?.exitCode).toBe(2);
    expect(trust.error?.message).toBe(
      "--trust-service-address goes with --verify (or the profile's verify on)",
    );
    const none = await watch([]);
    expect(none.error?.exitCode).toBe(2);
    expect(none.error?.message).toBe('watch needs at least one deposit id, or --pending');
    for (const r of [expired, trust, none]) expect(r.api.calls).toEqual([]);
    // with the profile's verify on, --trust-service-address is handed to the verification
    const on = await watch(
      [ID],
      { trustServiceAddress: true },
      {
        json: true,
        get: () => at('FINALIZED'),
        settings: { verify: 'on' },
      },
    );
    expect(on.error).toBeUndefined();
    expect(on.verifying).toEqual([{ verify: undefined, trustServiceAddress: true }]);
  });
});

describe('deposit watch --pending, in process with a real history file', () => {
  async function historyWith(ids: string[], statusOf: Record<string, string> = {}): Promise<History> {
    const history = new History(tempDir(), () => {});
    const recorder = { record: (r: StoredRecord[]) => history.append(r) };
    for (const id of ids) {
      const api = scriptedDepositApi({
        create: (body) => ({
          ...at('WAITING_PAYMENT', { id }),
          qrCode: 'x',
          amountInCents: body.amountInCents,
        }),
      });
      await createChecked(
        {
          api,
          recorder,
          scope: { profile: 'default', target: SERVICE },
          now: () => Date.parse('2026-11-22T09:59:00Z'),
        },
        { amountInCents: 150000, lbrlAddress: LQ },
        `key-${id}`,
      );
      const status = statusOf[id];
      if (status)
        history.append([
          { v: 1, type: 'status', id, status, at: '2026-11-22T09:59:30.000Z' } as StoredRecord,
        ]);
    }
    return history;
  }
  const A = `${ID.slice(0, -1)}a`;
  const B = `${ID.slice(0, -1)}b`;

  it('with nothing pending, says so and asks nothing (exit 0)', async () => {
    const r = await watch([], { pending: true }, { history: await historyWith([A], { [A]: 'FINALIZED' }) });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(
      `deposits of profile default on ${SERVICE}\nno pending deposits in the local history\n`,
    );
    expect(r.api.calls).toEqual([]);
  });

  it('says which service it follows on stderr, as list and report do; not with -q, nor with --json', async () => {
    const history = await historyWith([A]);
    const get = (id: string) => at('FINALIZED', { id });
    const plain = await watch([], { pending: true }, { history, get });
    expect(plain.stderr.split('\n')[0]).toBe(`deposits of profile default on ${SERVICE}`);
    const quiet = await watch([], { pending: true }, { history: await historyWith([A]), get, quiet: true });
    expect(quiet.stderr).not.toContain('deposits of');
    const json = await watch([], { pending: true }, { history: await historyWith([A]), get, json: true });
    expect(json.stderr).not.toContain('deposits of');
    expect(json.stdout).not.toContain('deposits of');
  });

  it('follows what is open, and a deposit the service answers 404 for is reported (exit 4), nothing recorded of it', async () => {
    const history = await historyWith([A, B]);
    const r = await watch(
      [],
      { pending: true },
      {
        history,
        get: (id) => {
          if (id === B) throw new LbrlError(`deposit ${B} not found`, 'not_found');
          return at('FINALIZED', { id });
        },
      },
    );
    expect(r.error?.exitCode).toBe(4);
    expect(r.error?.message).toBe(
      `the service does not know deposit ${B} (404); nothing is recorded, so a pending deposit stays pending and the next --pending asks again`,
    );
    expect(statuses(r).sort()).toEqual(['status FINALIZED']);
    expect(r.stderr).toContain(`deposit ${A} FINALIZED\n`);
    expect(r.stderr).toContain(
      `deposit ${B} unknown to the service (404): asked again by the next --pending\n`,
    );
  });

  it('a deposit recorded expired and paid after all is said loudly, even with -q; with --json as a JSON line on stderr', async () => {
    const expiredAt = '2026-11-21T10:00:00.000Z';
    const get = (_id: string, n: number) => (n < 2 ? at('PIX_CONFIRMED') : at('FINALIZED'));
    const quiet = await watch([ID], {}, { quiet: true, get, expiredAt: () => expiredAt });
    expect(quiet.error).toBeUndefined();
    expect(quiet.stderr).toContain(
      `WARNING: deposit ${ID} was recorded EXPIRED at 2026-11-21 10:00:00 +00:00, but the service now says PIX_CONFIRMED: it was paid after lbrl stopped waiting.`,
    );
    const json = await watch([ID], {}, { json: true, get, expiredAt: () => expiredAt });
    expect(JSON.parse(json.stderr)).toEqual({
      warning: { type: 'paid_after_expiry', depositId: ID, status: 'PIX_CONFIRMED', expiredAt },
    });
    // said once, not at every later answer
    const once = await watch([ID], {}, { get, expiredAt: () => expiredAt });
    expect(once.stderr.match(/WARNING/g)).toHaveLength(1);
  });
});
