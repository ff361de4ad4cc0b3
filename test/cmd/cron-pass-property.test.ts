/**
 * The cron pass's promise as a property, over clock schedules (a history that takes long to read,
 * answers that take long to come, a wall clock stepped mid-pass), history sizes (charges due their
 * last look, charges live, charges that pass expire-after while the pass runs), budgets
 * (requests-per-minute), --timeout and --interval, and failures (429 with Retry-After, refused
 * connections): every pass ends (within its --timeout, when it has one); every charge due a last
 * look ends the pass in exactly one of looked at (its answer printed, or named EXPIRED, and
 * recorded) or counted and named as left for a later pass; a live one is printed or named
 * unfinished. Never neither, never both. In process, on the injected clock; a pass that would run
 * on without end is stopped by the clock's guard and fails with its schedule, never hangs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runWatch } from '../../src/commands/deposit-watch.js';
import { LbrlError } from '../../src/errors.js';
import { History } from '../../src/store/history.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, LQ } from '../helpers/fixtures.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { createdRecord } from '../helpers/records-history.js';
import { refusalOf, scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import { SERVICE, watchPassOptions } from '../helpers/watch-pass.js';

const NOW = Date.parse('2026-11-23T15:00:00Z');
const EXPIRE_AFTER_MS = 120_000;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** What the service does with one request: how long it takes on the clock, and how it ends. */
const request = fc.record({
  takesMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90_000 })),
  outcome: fc.constantFrom('answer', 'answer', 'answer', 'answer', 'too-many', 'refused'),
});

const pass = fc.record({
  /** created so long before expire-after ends (negative: already past it) */
  ages: fc.array(fc.integer({ min: -3 * EXPIRE_AFTER_MS, max: 2 * EXPIRE_AFTER_MS }), {
    minLength: 1,
    maxLength: 9,
  }),
  /** what the service says of each charge at its first look, by the charge's index */
  statuses: fc.array(fc.constantFrom('WAITING_PAYMENT', 'WAITING_PAYMENT', 'PIX_CONFIRMED', 'FINALIZED'), {
    minLength: 9,
    maxLength: 9,
  }),
  /** a charge still waiting is paid at its n-th look (0: never) */
  paidAtLook: fc.integer({ min: 0, max: 4 }),
  perMinute: fc.integer({ min: 1, max: 8 }),
  timeoutS: fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
  intervalS: fc.integer({ min: 1, max: 20 }),
  historyReadMs: fc.integer({ min: 0, max: 300_000 }),
  requests: fc.array(request, { maxLength: 30 }),
  /** the wall clock stepped at the second request (monotonic stays) */
  stepMs: fc.integer({ min: -600_000, max: 600_000 }),
  /** from the second request on, the wall clock stands still (monotonic goes on) */
  wallStalls: fc.boolean(),
});

type Pass = typeof pass extends fc.Arbitrary<infer T> ? T : never;

/**
 * A pass is endless past this many waits or reads of the clock, or requests: the longest of those
 * that end make under twenty of each (a live charge followed to its expire-after, 429s, refusals
 * ridden out for five minutes), so an endless one is named within a second.
 */
const ENDLESS = { sleeps: 1000, reads: 100_000 };
const ENDLESS_REQUESTS = 1000;

async function runPass(p: Pass) {
  const dir = tempDir();
  const history = new History(dir);
  const ids = p.ages.map((_, n) => id(n + 1));
  history.append(
    p.ages.map((age, n) =>
      createdRecord(ids[n]!, {
        at: new Date(NOW - EXPIRE_AFTER_MS + age).toISOString(),
        amountInCents: 150000,
        destinationAddress: LQ,
      }),
    ),
  );
  let stalled = false;
  const clock = steppingClock(NOW, {
    monotonic: true,
    guard: ENDLESS,
    // a wall clock that stands still: what a sleep moved, it takes back
    onSleep: (ms, c) => {
      if (stalled) c.t -= Math.max(0, ms);
    },
  });
  const move = (ms: number) => {
    if (!stalled) clock.t += ms;
    clock.m += ms;
  };
  const term = plainTerminal({ now: clock.now, json: true });
  const answered = new Map<string, number>();
  let sent = 0;
  const api = scriptedDepositApi({
    now: clock.now,
    recorded: (depositId) => history.recorded(depositId, SERVICE),
    get: (depositId) => {
      const r = p.requests[sent] ?? { takesMs: 0, outcome: 'answer' };
      sent += 1;
      if (sent > ENDLESS_REQUESTS) clock.giveUp(`${ENDLESS_REQUESTS} requests without the pass ending`);
      move(r.takesMs);
      if (sent === 2) {
        clock.t += p.stepMs;
        stalled = p.wallStalls;
      }
      if (r.outcome === 'refused') throw new LbrlError('connection refused', 'network');
      if (r.outcome === 'too-many') throw refusalOf(depositId, clock.now(), { status: 429, retryAfter: '2' });

      const looks = (answered.get(depositId) ?? 0) + 1;
      answered.set(depositId, looks);
      let status = p.statuses[ids.indexOf(depositId)]!;
      if (status === 'PIX_CONFIRMED' && looks > 1) status = 'FINALIZED';
      if (status === 'WAITING_PAYMENT' && p.paidAtLook > 0 && looks >= p.paidAtLook) status = 'FINALIZED';
      return getAnswer({
        id: depositId,
        status,
        settlement: status === 'FINALIZED' ? { status, liquidTxid: 'cd'.repeat(32) } : null,
        confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-23T14:00:00Z',
      });
    },
  });
  // reading the history takes this long on the clock: what is due is told once it is read
  const read = history.pending.bind(history);
  history.pending = (filter, opts) => {
    const entries = read(filter, opts);
    move(p.historyReadMs);
    return entries;
  };
  const options = watchPassOptions({
    flags: {
      pending: true,
      interval: String(p.intervalS),
      ...(p.timeoutS !== undefined ? { timeout: String(p.timeoutS) } : {}),
    },
    term,
    globals: { json: true },
    api,
    clock,
    history,
    settings: { 'requests-per-minute': String(p.perMinute), 'expire-after': '2m' },
  });
  const run = await seenRun(term, () => runWatch(options));
  if (clock.endless)
    throw new Error(
      `the pass did not end: ${clock.endless} (${sent} requests, ${Math.round(clock.m / 60_000)} min on the clock); its schedule: ${JSON.stringify(p)}\n${term.stderr.slice(-2000)}`,
    );
  if (run.error) term.printer.error(run.error);
  // the run's length on the clock that does not jump, from its start (the history read included)
  const ranMs = clock.m;
  // what the file says, as the next process reads it
  return { ids, run: { ...run, stderr: term.stderr }, answered, history: new History(dir), ranMs };
}

const WAITING = Array.from({ length: 9 }, () => 'WAITING_PAYMENT' as const);
const quiet = { paidAtLook: 0, intervalS: 1, historyReadMs: 0, requests: [], stepMs: 0, wallStalls: false };
/** The schedules that made passes run on without end (and one that gave up), tried first on every run. */
const FOUND: Pass[] = [
  // never paid, and created 1 ms later than the pass's clock (a clock set back since): it was
  // never due its last look, and a pass without --timeout followed it for ever
  { ...quiet, ages: [EXPIRE_AFTER_MS + 1, 0], statuses: WAITING, perMinute: 1, timeoutS: undefined },
  // never paid, due 1 ms into the pass, and the wall clock set back a minute at the second
  // request and standing still from then on: by the wall clock it never came due
  {
    ...quiet,
    ages: [1, 0],
    statuses: WAITING,
    perMinute: 1,
    timeoutS: undefined,
    stepMs: -60_000,
    wallStalls: true,
  },
  // a charge paid (in flight: never expired), then the service refuses or rate-limits every
  // request for five minutes: the pass gives up (6), naming the live one as a time-out would
  {
    ...quiet,
    ages: [0, EXPIRE_AFTER_MS],
    statuses: ['WAITING_PAYMENT', 'PIX_CONFIRMED', ...WAITING.slice(2)],
    perMinute: 7,
    timeoutS: undefined,
    requests: [
      { takesMs: 0, outcome: 'answer' },
      { takesMs: 0, outcome: 'too-many' },
      { takesMs: 0, outcome: 'too-many' },
      { takesMs: 0, outcome: 'refused' },
      { takesMs: 0, outcome: 'too-many' },
      { takesMs: 48107, outcome: 'too-many' },
      { takesMs: 40277, outcome: 'too-many' },
      { takesMs: 31396, outcome: 'refused' },
      ...Array.from({ length: 20 }, () => ({ takesMs: 30_000, outcome: 'refused' as const })),
    ],
  },
];

FOUND.push({
  // a history that takes a minute to read and a --timeout of a minute: the run ends then, not a
  // minute of retries later
  ...quiet,
  ages: [EXPIRE_AFTER_MS],
  statuses: WAITING,
  perMinute: 60,
  timeoutS: 60,
  historyReadMs: 60_000,
  requests: Array.from({ length: 10 }, () => ({ takesMs: 0, outcome: 'refused' as const })),
});

/** The exit codes a pass may end with: 0; 124 naming what is live; 6 or 1 once the service failed for the limit. */
const ENDS = [0, 124, 6, 1];

describe('the cron pass, whatever the clock does', () => {
  it('every charge due a last look is looked at or named as left; every other one is printed or named unfinished', async () => {
    await fc.assert(
      fc.asyncProperty(pass, async (p) => {
        const { ids, run, answered, history, ranMs } = await runPass(p);
        const lines = run.stderr.split('\n').filter((l) => l.startsWith('{'));
        const notices = lines.map((l) => JSON.parse(l));
        const expired = notices.filter((n) => n.notice?.type === 'expired').map((n) => n.notice.depositId);
        const left: string[] = notices.find((n) => n.notice?.type === 'last_looks_left')?.notice.ids ?? [];
        const count = notices.find((n) => n.notice?.type === 'last_looks_left')?.notice.count ?? 0;
        const unfinished: string[] = notices.find((n) => n.error)?.error.unfinished ?? [];
        const last = new Map<string, string>();
        for (const line of run.stdout.split('\n').filter(Boolean)) {
          const deposit = JSON.parse(line);
          last.set(deposit.id, deposit.status);
        }
        const seen = `${JSON.stringify(p)}\n${run.stdout}${run.stderr}`;
        expect(count, seen).toBe(left.length);
        // the pass ends 0, or 124 naming what is live, or as the service gave up after failing for
        // five minutes (naming what is live too); nothing else
        expect(ENDS, seen).toContain(run.error?.exitCode ?? 0);
        if (run.error && run.error.type !== 'watch_timeout')
          expect(run.error.message, seen).toMatch(/^gave up after (\d{3,}) s of failures/);
        if (run.error?.type === 'watch_timeout') expect(unfinished.length, seen).toBeGreaterThan(0);
        // within its --timeout, the history read included: only what cannot be cut off overruns
        // it (a read longer than the --timeout, one scripted request)
        if (p.timeoutS !== undefined)
          expect(ranMs, seen).toBeLessThanOrEqual(
            Math.max(p.timeoutS * 1000, p.historyReadMs) + Math.max(0, ...p.requests.map((r) => r.takesMs)),
          );
        for (const depositId of ids) {
          const ends = {
            ended: last.get(depositId) === 'FINALIZED' || last.get(depositId) === 'FAILED',
            expired: expired.includes(depositId),
            left: left.includes(depositId),
            unfinished: unfinished.includes(depositId),
          };
          // exactly one end for every charge: never dropped, never said twice
          expect(
            Object.values(ends).filter(Boolean).length,
            `${depositId} ${JSON.stringify(ends)}\n${seen}`,
          ).toBe(1);
          const entry = history.recorded(depositId, SERVICE)!;
          // what the pass said is what the next pass reads
          if (ends.expired) expect(entry.expiredAt, seen).toBeDefined();
          else expect(entry.expiredAt, seen).toBeUndefined();
          if (ends.ended) expect(entry.status, seen).toBe(last.get(depositId));
          // an end is said only from an answer of the service
          if (ends.ended || ends.expired) expect(answered.has(depositId), seen).toBe(true);
        }
      }),
      // a seed of fast-check's own each run (it prints it on failure); FC_SEED replays one
      {
        numRuns: 100,
        examples: FOUND.map((p) => [p] as [Pass]),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    );
  }, 120_000);
});
