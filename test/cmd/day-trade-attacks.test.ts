/**
 * The day's trade under attack: histories written by two processes at once, dates that do not
 * exist, narrow terminals. Each run is the command's work on narrow options (runWatch, runList,
 * runReport) against a service in process whose answers the test chooses (a 429 with Retry-After
 * is what the client's classify() makes of one), with a history file written as lbrl writes it and
 * a clock the test holds. No server: what the client makes of sockets is tested in
 * test/cmd/watch-wire.test.ts and client-faults.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/store/history-records.js';
import { type DayTradeInProcess, dayTradeInProcess, id, NOW, SERVICE } from '../helpers/day-trade.js';

let world: DayTradeInProcess;
/** The --json notice of the last looks a pass left for later: its line of stderr, whole. */
function lastLooksLeft(stderr: string): { count: number; ids: string[] } {
  const line = stderr.split('\n').find((l) => l.startsWith('{"notice":{"type":"last_looks_left"'));
  expect(line).toBeDefined();
  const { notice } = JSON.parse(line!);
  expect(Object.keys(notice)).toEqual(['type', 'count', 'ids']);
  return notice;
}
beforeEach(() => {
  world = dayTradeInProcess();
});

describe('an expiry written after another process saw the payment', () => {
  // process A's last look saw WAITING_PAYMENT; process B then recorded PIX_CONFIRMED; A's
  // expired record lands after it. Money in motion is never expired, whatever the order.
  beforeEach(() => {
    world.write([
      world.created(1, 30),
      world.status(1, 'PIX_CONFIRMED', 1),
      world.expired(1, 1),
      world.created(2, 30),
      world.expired(2, 1),
    ]);
    world.statusOf.set(id(1), 'PIX_CONFIRMED');
    world.statusOf.set(id(2), 'WAITING_PAYMENT');
  });

  it('list shows it PIX_CONFIRMED, not EXPIRED, in the table and in --json', async () => {
    const table = await world.list({}, { columns: 160 });
    const row = table.stdout.split('\n').find((l) => l.startsWith(id(1)))!;
    expect(row).toContain('PIX_CONFIRMED');
    expect(row).not.toContain('EXPIRED');
    const list = JSON.parse((await world.list({}, { json: true })).stdout) as Array<Record<string, unknown>>;
    expect(list.find((e) => e.id === id(1))).not.toHaveProperty('expiredAt');
    expect(list.find((e) => e.id === id(2))).toHaveProperty('expiredAt');
    const only = await world.list({ status: ['EXPIRED'] }, { json: true });
    expect((JSON.parse(only.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual([id(2)]);
  });

  it('watch --pending still follows it; report counts it open, not expired', async () => {
    const r = await world.watch([], { pending: true, timeout: '3' }, { json: true });
    expect(world.gets(1)).toBeGreaterThan(0);
    expect(world.gets(2)).toBe(0);
    expect(r.code).toBe(124);
    const report = JSON.parse((await world.report({}, { json: true })).stdout);
    expect(report.total.expiredCount).toBe(1);
    expect(report.total.pendingCount).toBe(1);
  });
});

describe('--since and --until: times that do not exist', () => {
  it.each([
    '2026-02-30T10:00:00-03:00',
    '2026-02-29T10:00Z',
    '2026-11-20T24:00:00Z',
    '2026-04-31T00:00:00+00:00',
  ])('%s is refused with exit 2 and one line, for list and report', async (when) => {
    world.write([world.created(1, 1)]);
    for (const run of [world.list, world.report]) {
      const r = await run({ since: when });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('--since');
    }
  });
});

describe('deposit report on a narrow terminal', () => {
  it.each([80, 60, 40])(
    'at %i columns every line fits, the period and NET stay, with large sums',
    async (columns) => {
      // 45 charges of the largest amount on each of two days (a larger one in a line is no
      // record: see the reader's tests)
      const day = (from: number, hoursAgo: number) =>
        Array.from({ length: 45 }, (_, i) => [
          world.created(from + i, hoursAgo, { cents: 600_000 }),
          world.status(from + i, 'FINALIZED', hoursAgo - 1),
        ]).flat();
      world.write([
        ...day(1, 50),
        ...day(101, 26),
        world.created(301, 2, { cents: 12_345 }),
        world.expired(301, 1),
      ]);
      const r = await world.report({}, { columns });
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/^DAY .* NET$/);
      expect(r.stdout).toMatch(/^total .*R\$ 534\.600,00$/m);
      expect(r.stdout).toMatch(/^Not yet checked +R\$ 534\.600,00 \(90\)$/m);
      expect(r.stdout).toMatch(/^2026-11-22 +█+[▏▎▍▌▋▊▉]? +R\$ 267\.300,00$/m);
    },
  );
});

describe('deposit list on a pane narrower than an id and its status', () => {
  it('each deposit takes two lines that fit: the id whole, then its amount and status', async () => {
    world.write([
      world.created(1, 30),
      world.expired(1, 1),
      world.created(2, 2),
      world.status(2, 'FINALIZED', 1),
    ]);
    const r = await world.list({}, { columns: 40 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(lines).toEqual([id(2), '  R$ 1.500,00  FINALIZED', id(1), '  R$ 1.500,00  EXPIRED/WAITING']);
  });
});

describe('deposit list over a hand-edited history', () => {
  it.each([160, 100, 80])(
    'at %i columns: hostile values escaped once, every line within the width',
    async (columns) => {
      const evil = {
        ...(world.created(1, 3) as unknown as Record<string, unknown>),
        destinationAddress: `\u001b[31m\u202eRED${'x'.repeat(10_000)}`,
      } as StoredRecord;
      // a status no service answers is no record: said in the warning, never shown
      const noStatus = {
        ...(world.created(3, 2) as unknown as Record<string, unknown>),
        status: 'WAITING_PAYMENT\u001b[2J\u202e',
      } as StoredRecord;
      world.write([world.created(2, 5), world.status(2, 'FINALIZED\u001b]0;pwn\u0007', 4), evil, noStatus]);
      const r = await world.list({}, { columns });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).not.toContain('\u202e');
      if (columns >= 160) expect(r.stdout).toContain('\\x1b[31m\\u202eRED');
      expect(r.stdout).not.toContain('pwn');
      expect(r.stderr).toContain('skipped 2 damaged line(s)');
      expect(r.stderr).toContain('2 with a field missing or malformed');
      for (const l of r.stdout.trimEnd().split('\n')) expect(l.length, l).toBeLessThanOrEqual(columns);
    },
  );
});

describe('expiry when lbrl recorded the create with a clock that was ahead', () => {
  const at = (record: StoredRecord, createdAt: string, serviceCreatedAt: string) => {
    const r = record as unknown as { id: string; at: string; answer: { createdAt: string } };
    r.at = createdAt;
    r.answer.createdAt = serviceCreatedAt;
    world.createdAtOf.set(r.id, serviceCreatedAt);
    return record;
  };
  it('counts from the service createdAt when it is in the past; never from a service clock alone when lbrl placed it', async () => {
    world.write([
      // lbrl's clock was years ahead; the service says three days ago: due its last look
      at(world.created(1, 0), '2031-01-01T00:00:00.000Z', '2026-11-20T15:00:00.000Z'),
      // both later than now (the test's clock): nothing to count from, not due
      at(world.created(2, 0), '2031-01-01T00:00:00.000Z', '2026-11-23T20:00:00.000Z'),
      // lbrl recorded it an hour ago; the service's clock says three days: lbrl's own record counts
      at(world.created(3, 0), '2026-11-23T14:00:00.000Z', '2026-11-20T15:00:00.000Z'),
    ]);
    for (const n of [1, 2, 3]) world.statusOf.set(id(n), 'WAITING_PAYMENT');
    const r = await world.list({ refresh: true }, { json: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ id: string; expiredAt?: string }>;
    expect(list.filter((e) => e.expiredAt).map((e) => e.id)).toEqual([id(1)]);
  });
});

describe('watch --pending with many charges past expire-after not yet given their last look', () => {
  it('a pass makes at most a minute of last looks: the live deposit is asked again within it, and ends; the rest wait for the next passes', async () => {
    const records: StoredRecord[] = [];
    for (let n = 100; n < 400; n++) {
      records.push(world.created(n, 72));
      world.statusOf.set(id(n), 'WAITING_PAYMENT');
    }
    records.push(world.created(1, 0.1));
    world.write(records);
    world.statusOf.set(id(1), 'PIX_CONFIRMED');
    world.laterOf.set(id(1), [1, 'FINALIZED']);
    const r = await world.watch([], { pending: true }, { json: true });
    expect(r.code).toBe(0);
    const order = world.asked;
    const asked = order.map((x, i) => [x, i] as const).filter(([x]) => x === id(1));
    expect(asked).toHaveLength(2);
    // between its two looks: at most one minute's requests (60) of last looks
    expect(asked[1]![1] - asked[0]![1] - 1).toBeLessThanOrEqual(60);
    // the pass's budget of last looks: 60; the other 240 are left for the next passes
    expect(order).toHaveLength(62);
    // --json: the count is a line of its own on stderr
    const notice = lastLooksLeft(r.stderr);
    expect(notice.count).toBe(240);
    // named as well: the charges this pass did not look at, none of those it did
    expect(new Set(notice.ids).size).toBe(240);
    for (const left of notice.ids) expect(order).not.toContain(left);
    // each pass after it makes 60 more, exit 0, until none is left
    for (const left of [180, 120, 60, 0]) {
      const pass = await world.watch([], { pending: true }, { quiet: true });
      expect(pass.code).toBe(0);
      expect(pass.stderr).toBe('');
      expect(world.asked.length).toBe(62 + 240 - left);
    }
    const list = JSON.parse(
      (await world.list({ status: ['EXPIRED'], limit: '1000' }, { json: true })).stdout,
    );
    expect(list).toHaveLength(300);
    expect((await world.watch([], { pending: true })).stderr).toBe(
      `deposits of profile default on ${SERVICE}\nno pending deposits in the local history\n`,
    );
  });
});

describe('the cron pass: 1,000 charges due their last look and 3 live ones, --timeout 9m', () => {
  const live = [1, 2, 3];
  beforeEach(() => {
    const records: StoredRecord[] = [];
    for (let n = 100; n < 1100; n++) {
      records.push(world.created(n, 72));
      world.statusOf.set(id(n), 'WAITING_PAYMENT');
    }
    for (const n of live) {
      records.push(world.created(n, 0.1));
      world.statusOf.set(id(n), 'WAITING_PAYMENT');
    }
    world.write(records);
  });
  const lastLooks = () => world.asked.filter((x) => !live.map(id).includes(x)).length;
  const elapsed = (sleeps: number[]) => sleeps.reduce((a, b) => a + b, 0);

  it('ends when the live ones end, after its budget of last looks, and exits 0 saying how many are left', async () => {
    // paid on their third look
    for (const n of live) world.laterOf.set(id(n), [2, 'FINALIZED']);
    const r = await world.watch([], { pending: true, timeout: '9m' });
    expect(r.code).toBe(0);
    expect(lastLooks()).toBe(60);
    // three rounds of the live ones, the first with the minute of last looks: well inside 9m
    expect(elapsed(r.sleeps)).toBeLessThanOrEqual(90_000);
    expect(r.stderr).toContain(
      '940 charge(s) past expire-after left for their last look in a later pass (lbrl deposit watch --pending)',
    );
    for (const n of live) expect(r.stderr).toContain(`deposit ${id(n)} FINALIZED\n`);
    // a charge left for later is not an unfinished deposit: no end line, no time-out
    const ended = r.stderr.split('\n').filter((line) => /^deposit \S+ [A-Z]/.test(line));
    expect(ended).toHaveLength(63);
    expect(
      ended.filter((line) => line.endsWith(' EXPIRED: still WAITING_PAYMENT past expire-after')),
    ).toHaveLength(60);
    expect(r.stderr).not.toMatch(/timed out|still open/);
    // -q: the cron line says nothing and exits 0
    const quiet = await world.watch([], { pending: true, timeout: '9m' }, { quiet: true });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(lastLooks()).toBe(120);
  });

  it('a live one that does not end times out (124) alone: the last looks are never named unfinished', async () => {
    for (const n of [1, 2]) world.laterOf.set(id(n), [0, 'FINALIZED']);
    const r = await world.watch([], { pending: true, timeout: '9m' }, { json: true });
    expect(r.code).toBe(124);
    expect(elapsed(r.sleeps)).toBeLessThanOrEqual(9 * 60_000);
    const error = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    expect(error.unfinished).toEqual([id(3)]);
    expect(error.message).toContain('with 1 deposit(s) not yet FINALIZED or FAILED');
    expect(lastLooks()).toBe(60);
    const notice = lastLooksLeft(r.stderr);
    expect(notice.count).toBe(940);
    expect(new Set(notice.ids).size).toBe(940);
    for (const left of notice.ids) expect(world.asked).not.toContain(left);
  });

  it('with nothing live, a pass makes its minute of last looks and ends 0; a late payment found by one is followed', async () => {
    world.write(live.map((n) => world.status(n, 'FINALIZED', 0.05)));
    world.statusOf.set(id(1099), 'PIX_CONFIRMED');
    world.laterOf.set(id(1099), [1, 'FINALIZED']);
    const r = await world.watch([], { pending: true, timeout: '9m' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`deposit ${id(1099)} FINALIZED\n`);
    expect(elapsed(r.sleeps)).toBeLessThanOrEqual(80_000);
    expect(r.stderr).toContain('940 charge(s) past expire-after left');
    // a --timeout shorter than the minute of looks: what is not looked at is left, exit 0
    const short = await world.watch([], { pending: true, timeout: '20' });
    expect(short.code).toBe(0);
    expect(elapsed(short.sleeps)).toBeLessThanOrEqual(20_000);
    expect(short.stderr).toMatch(/9[0-9]{2} charge\(s\) past expire-after left for their last look/);
  });
});

describe('watch --pending told to wait past its --timeout', () => {
  it.each([
    ['an HTTP date ten minutes on', () => new Date(NOW + 600_000).toUTCString()],
    ['600 seconds', () => '600'],
  ])(
    'Retry-After as %s: ends at the --timeout (124), each deposit named once, --json lists them',
    async (_what, header) => {
      world.write([world.created(1, 2), world.created(2, 1)]);
      world.retryAfter = header();
      const r = await world.watch([], { pending: true, timeout: '30' }, { json: true });
      expect(r.code).toBe(124);
      expect(r.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30_000);
      const error = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
      expect(error.type).toBe('watch_timeout');
      expect([...error.unfinished].sort()).toEqual([id(1), id(2)]);
      for (const n of [1, 2]) expect(r.stderr.split(id(n)).length - 1).toBe(1);
    },
  );
});
