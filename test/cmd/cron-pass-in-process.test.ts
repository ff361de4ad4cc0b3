/**
 * The cron pass (`deposit watch --pending`) while its clock moves: a history that takes a minute
 * to read, charges that pass `expire-after` while the pass runs, budgets spent to the last look,
 * a --timeout that comes mid-look or before the first one, 429s among the last looks. Every
 * charge due a last look ends the pass looked at (printed, recorded) or counted and named as left
 * for later, never neither. In process, on the injected clock (test/helpers/day-trade.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type DayTradeInProcess, dayTradeInProcess, HOUR, id } from '../helpers/day-trade.js';

let world: DayTradeInProcess;
beforeEach(() => {
  world = dayTradeInProcess();
  world.settings['expire-after'] = '2m';
});
const MINUTE = 60_000;
/** what watch --pending says it covers, first on stderr (not with --json) */
const SCOPE = 'deposits of profile default on https://pay.example.com';
const hoursOf = (ms: number) => ms / HOUR;
const total = (sleeps: number[]) => sleeps.reduce((a, b) => a + b, 0);

describe('a charge that passes expire-after while the pass runs', () => {
  it('passed while the history was read: its one look is its last, the pass ends 0 and names it EXPIRED', async () => {
    // created 1m30s ago; the history takes a minute to read: due 30 s before the first request
    world.write([world.created(1, hoursOf(90_000))]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true, timeout: '9m' }, { historyReadMs: MINUTE });
    expect(r.stderr).toBe(
      [
        SCOPE,
        `deposit ${id(1)}: still WAITING_PAYMENT past the profile's expire-after; recorded EXPIRED (local), so --pending leaves it from now on`,
        `deposit ${id(1)} EXPIRED: still WAITING_PAYMENT past expire-after`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(0);
    expect(world.gets(1)).toBe(1);
  });

  it('passed between two looks of the pass: its next look is its last, not a 124 at the --timeout', async () => {
    // created a minute ago: live at the first look, due a minute later
    world.write([world.created(1, hoursOf(MINUTE))]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(0);
    // its first answer, then its last look a little after it became due
    expect(JSON.parse(r.stdout)).toMatchObject({ id: id(1), status: 'WAITING_PAYMENT' });
    expect(total(r.sleeps)).toBeLessThanOrEqual(MINUTE + 3000);
    expect(r.stderr).toBe(`{"notice":{"type":"expired","depositId":"${id(1)}"}}\n`);
    const list = JSON.parse((await world.list({ status: ['EXPIRED'] }, { json: true })).stdout);
    expect(list.map((e: { id: string }) => e.id)).toEqual([id(1)]);
  });
});

/** The --json notice of the last looks a pass left for later, or undefined when it left none. */
function leftForLater(stderr: string): { count: number; ids: string[] } | undefined {
  const line = stderr.split('\n').find((l) => l.startsWith('{"notice":{"type":"last_looks_left"'));
  return line ? JSON.parse(line).notice : undefined;
}
/** Each deposit and status a --json run printed on stdout, in order. */
const seenIn = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; status: string })
    .map((d) => [d.id, d.status]);
/** The deposits a --json run named expired on stderr. */
const expiredIn = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{"notice":{"type":"expired"'))
    .map((l) => JSON.parse(l).notice.depositId);

describe('every charge due a last look ends the pass looked at or named as left, never neither', () => {
  it('--json: a last look that finds the charge still waiting says so on stderr (it was silent)', async () => {
    world.write([world.created(100, 1)]);
    world.statusOf.set(id(100), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true }, { json: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`{"notice":{"type":"expired","depositId":"${id(100)}"}}\n`);
    // -q: the cron line says nothing
    world.write([world.created(101, 1)]);
    world.statusOf.set(id(101), 'WAITING_PAYMENT');
    const quiet = await world.watch([], { pending: true }, { json: true, quiet: true });
    expect(quiet.stderr).toBe('');
    expect(world.gets(101)).toBe(1);
  });

  it('the budget spent to the last look, and a live charge then passing expire-after: it is named among those left', async () => {
    // one request a minute: one last look a pass
    world.settings['requests-per-minute'] = '1';
    world.write([world.created(100, 1), world.created(1, hoursOf(MINUTE))]);
    for (const n of [1, 100]) world.statusOf.set(id(n), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(0);
    expect(world.gets(100)).toBe(1);
    expect(expiredIn(r.stderr)).toEqual([id(100)]);
    // live at its first look, due at the next: no look left, so it is left for the next pass
    expect(leftForLater(r.stderr)).toEqual({ type: 'last_looks_left', count: 1, ids: [id(1)] });
    expect(r.stderr).not.toContain('watch_timeout');
    // the next pass makes it
    const next = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(next.code).toBe(0);
    expect(expiredIn(next.stderr)).toEqual([id(1)]);
    expect(leftForLater(next.stderr)).toBeUndefined();
  });

  it('a --timeout hit in the middle of a last look: that charge and those after it are left, the live one times out alone', async () => {
    world.write([world.created(100, 2), world.created(101, 1), world.created(1, hoursOf(10_000))]);
    for (const n of [1, 100, 101]) world.statusOf.set(id(n), 'WAITING_PAYMENT');
    // the newest last look is asked first; its answer never comes, and the --timeout passes
    world.hangOf.set(id(101), 10 * MINUTE);
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(124);
    const error = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    expect(error.unfinished).toEqual([id(1)]);
    expect(leftForLater(r.stderr)).toEqual({
      type: 'last_looks_left',
      count: 2,
      ids: [id(101), id(100)],
    });
    expect(world.gets(100)).toBe(0);
  });

  it('the same with nothing live: the pass ends 0, both left for the next', async () => {
    world.write([world.created(100, 2), world.created(101, 1)]);
    for (const n of [100, 101]) world.statusOf.set(id(n), 'WAITING_PAYMENT');
    world.hangOf.set(id(101), 10 * MINUTE);
    const r = await world.watch([], { pending: true, timeout: '9m' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `${SCOPE}\n` +
        "2 charge(s) past expire-after left for their last look in a later pass (lbrl deposit watch --pending): each pass makes at most a minute's worth of requests of them\n",
    );
  });

  it('a --timeout shorter than the spacing of two looks: the first is made, the rest left, exit 0', async () => {
    // two requests a minute: 30 s between two looks, and 20 s to make them in
    world.settings['requests-per-minute'] = '2';
    world.write([world.created(100, 3), world.created(101, 2), world.created(102, 1)]);
    for (const n of [100, 101, 102]) world.statusOf.set(id(n), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true, timeout: '20' }, { json: true });
    expect(r.code).toBe(0);
    expect(total(r.sleeps)).toBeLessThanOrEqual(20_000);
    expect(expiredIn(r.stderr)).toEqual([id(102)]);
    expect(leftForLater(r.stderr)).toEqual({ type: 'last_looks_left', count: 2, ids: [id(101), id(100)] });
  });

  it('a 429 with Retry-After on a last look: asked again while the budget lasts, the rest named as left, each once', async () => {
    world.settings['requests-per-minute'] = '2';
    world.write([world.created(100, 3), world.created(101, 2), world.created(102, 1)]);
    for (const n of [100, 101, 102]) world.statusOf.set(id(n), 'WAITING_PAYMENT');
    world.tooMany = 1;
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(0);
    // the 429 was one of the pass's two requests of last looks: the next makes the look it refused
    expect(world.asked).toEqual([id(102), id(102)]);
    expect(expiredIn(r.stderr)).toEqual([id(102)]);
    expect(leftForLater(r.stderr)).toEqual({ type: 'last_looks_left', count: 2, ids: [id(101), id(100)] });
  });

  it('a last look that finds the charge paid: followed to its end as a live one, neither expired nor left', async () => {
    world.write([world.created(100, 3), world.created(101, 2)]);
    world.statusOf.set(id(100), 'WAITING_PAYMENT');
    world.statusOf.set(id(101), 'PIX_CONFIRMED');
    world.laterOf.set(id(101), [1, 'FINALIZED']);
    world.settings['requests-per-minute'] = '1';
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(0);
    const seen = seenIn(r.stdout);
    expect(seen).toEqual([
      [id(101), 'PIX_CONFIRMED'],
      [id(101), 'FINALIZED'],
    ]);
    expect(expiredIn(r.stderr)).toEqual([]);
    expect(leftForLater(r.stderr)).toEqual({ type: 'last_looks_left', count: 1, ids: [id(100)] });
  });
});

describe('a last look that finds the charge FAILED', () => {
  it('ends the pass with 5 as any FAILED does, after the live ones end and the other looks are made; the next pass exits 0', async () => {
    world.write([world.created(100, 3), world.created(101, 2), world.created(1, 0.01)]);
    world.statusOf.set(id(100), 'WAITING_PAYMENT');
    world.statusOf.set(id(101), 'FAILED');
    world.statusOf.set(id(1), 'PIX_CONFIRMED');
    world.laterOf.set(id(1), [1, 'FINALIZED']);
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(5);
    const seen = seenIn(r.stdout);
    expect(seen).toEqual([
      [id(1), 'PIX_CONFIRMED'],
      [id(101), 'FAILED'],
      [id(1), 'FINALIZED'],
    ]);
    expect(expiredIn(r.stderr)).toEqual([id(100)]);
    const error = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    expect(error).toMatchObject({ type: 'failed', exitCode: 5 });
    expect(error.message).toBe(`deposit ${id(101)} ended FAILED`);
    // recorded: the next pass follows neither
    const next = await world.watch([], { pending: true, timeout: '9m' });
    expect(next.code).toBe(0);
    expect(next.stderr).toBe(`${SCOPE}\nno pending deposits in the local history\n`);
  });
});
