/**
 * The day's trade: charges that age out (expire-after), watch --pending that costs what is live,
 * list's filters and its table on a terminal, and the report's formats. Each run is the command's
 * work on narrow options (runWatch, runList, runReport, runGet, config set) against a service in
 * process whose answers the test chooses (a 429 is what the client's classify() makes of one),
 * with a history file written as lbrl writes it and a clock the test holds. No server: what the
 * client makes of sockets and headers is tested in test/cmd/watch-wire.test.ts and client-faults.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/store/history-records.js';
import { type DayTradeInProcess, dayTradeInProcess, HOUR, id, NOW, SERVICE } from '../helpers/day-trade.js';

let world: DayTradeInProcess;
beforeEach(() => {
  world = dayTradeInProcess();
});

describe('expire-after', () => {
  it('a charge past it gets one last look and is recorded EXPIRED; one in flight never is; the rest are followed', async () => {
    world.write([
      world.created(1, 25),
      world.created(2, 1),
      world.created(3, 30),
      world.status(3, 'TX_SENT', 30),
    ]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    world.statusOf.set(id(2), 'FINALIZED');
    world.statusOf.set(id(3), 'FINALIZED');
    const r = await world.watch([], { pending: true, interval: '1' });
    expect(r.code).toBe(0);
    expect(world.gets(1)).toBe(1);
    // in flight first, then the newest waiting, then the last looks
    expect(world.asked).toEqual([id(3), id(2), id(1)]);
    expect(r.stderr).toContain(`deposit ${id(1)} EXPIRED: still WAITING_PAYMENT past expire-after\n`);
    const list = JSON.parse((await world.list({ status: ['EXPIRED'] }, { json: true })).stdout);
    expect(list.map((e: { id: string }) => e.id)).toEqual([id(1)]);
    expect(list[0].status).toBe('WAITING_PAYMENT');
    // the clock moved by the spacing of three requests
    expect(Date.parse(list[0].expiredAt)).toBe(NOW + 2000);
    // the next run leaves it alone
    const again = await world.watch([], { pending: true });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(
      `deposits of profile default on ${SERVICE}\nno pending deposits in the local history\n`,
    );
    expect(world.gets(1)).toBe(1);
  });

  it('is a profile setting from 1m up, checked on set and when read', async () => {
    const bad = await world.set('expire-after', '30s');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'error: invalid value for expire-after "30s": expected a duration such as 90m, 24h, 2d or 1h30m (at least 1m, at most 366d)\n',
    );
    for (const value of ['1h 30m', '1.5h', '-5m', '0', '90', '30x', '366d1s', '9999999999999w']) {
      const refused = await world.set('expire-after', value);
      expect(refused.code, value).toBe(2);
      expect(refused.stderr).toBe(
        `error: invalid value for expire-after ${JSON.stringify(value)}: expected a duration such as 90m, 24h, 2d or 1h30m (at least 1m, at most 366d)\n`,
      );
    }
    expect((await world.set('expire-after', '1h30m')).code).toBe(0);
    world.write([world.created(1, 2)]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true }, { quiet: true });
    expect(r.code).toBe(0);
    expect(world.gets(1)).toBe(1);
  });

  it('--include-expired and a named id follow it; a late payment is said loudly, and --pending follows it again', async () => {
    world.write([world.created(1, 25), world.expired(1, 1)]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    const timed = await world.watch(
      [],
      { pending: true, includeExpired: true, timeout: '3' },
      { json: true },
    );
    expect(timed.code).toBe(124);
    const error = JSON.parse(timed.stderr.trim().split('\n').pop()!).error;
    expect(error.unfinished).toEqual([id(1)]);
    world.statusOf.set(id(1), 'PIX_CONFIRMED');
    const got = await world.get(id(1), { quiet: true });
    expect(got.code).toBe(0);
    expect(got.stdout).toBe('PIX_CONFIRMED\n');
    expect(got.stderr).toMatch(
      new RegExp(
        `WARNING: deposit ${id(1)} was recorded EXPIRED at 2026-11-23 11:00:00 -03:00, but the service now says PIX_CONFIRMED`,
      ),
    );
    world.statusOf.set(id(1), 'FINALIZED');
    const followed = await world.watch([], { pending: true }, { json: true });
    expect(followed.code).toBe(0);
    expect(JSON.parse(followed.stdout).status).toBe('FINALIZED');
  });

  it('a late payment seen by watch --json is a JSON warning on stderr beside the stream', async () => {
    world.write([world.created(1, 25), world.expired(1, 1)]);
    world.statusOf.set(id(1), 'FINALIZED');
    const r = await world.watch([id(1)], {}, { json: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stderr.trim())).toEqual({
      warning: {
        type: 'paid_after_expiry',
        depositId: id(1),
        status: 'FINALIZED',
        expiredAt: new Date(NOW - HOUR).toISOString(),
      },
    });
  });
});

describe('a charge recorded expired that the service later says FAILED', () => {
  // FAILED is an end, not a payment: no "paid after expiry" alarm, whichever command sees it
  const expiredThenFailed = (n: number) => {
    world.write([
      world.created(n, 25),
      { v: 1, type: 'expired', id: id(n), at: new Date(NOW - HOUR).toISOString() },
    ]);
    world.statusOf.set(id(n), 'FAILED');
  };

  it('deposit get: the status, recorded, and no alarm', async () => {
    expiredThenFailed(1);
    const r = await world.get(id(1), { quiet: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('FAILED\n');
    expect(r.stderr).toBe('');
    const json = await world.get(id(1), { json: true });
    expect(json.stderr).toBe('');
    const list = await world.list({}, { json: true });
    expect(JSON.parse(list.stdout)[0].status).toBe('FAILED');
  });

  it('deposit watch (human and --json): exit 5, and no alarm', async () => {
    expiredThenFailed(1);
    const human = await world.watch([id(1)], {});
    expect(human.code).toBe(5);
    expect(human.stderr).not.toMatch(/WARNING|paid after|was recorded EXPIRED/);
    expiredThenFailed(2);
    const json = await world.watch([id(2)], {}, { json: true });
    expect(json.code).toBe(5);
    expect(json.stderr).not.toContain('paid_after_expiry');
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!).error.type).toBe('failed');
  });

  it('deposit list --refresh: FAILED shown, no alarm', async () => {
    world.write([
      world.created(1, 25),
      { v: 1, type: 'expired', id: id(1), at: new Date(NOW - HOUR).toISOString() },
      { v: 1, type: 'status', id: id(1), at: new Date(NOW - HOUR).toISOString(), status: 'WAITING_PAYMENT' },
    ]);
    world.statusOf.set(id(1), 'FAILED');
    const r = await world.list({ refresh: true }, { json: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)[0].status).toBe('FAILED');
  });
});

describe('list --refresh and expiry', () => {
  it('gives a charge past expire-after its last look and records it EXPIRED', async () => {
    world.write([world.created(1, 25), world.created(2, 1)]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    world.statusOf.set(id(2), 'WAITING_PAYMENT');
    const r = await world.list({ refresh: true }, { columns: 160 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${id(1)} .* EXPIRED \\(local; service: WAITING_PAYMENT\\)`));
    expect(r.stdout).toMatch(new RegExp(`${id(2)} .* WAITING_PAYMENT `));
  });
});

describe('watch --pending costs what is live', () => {
  it('10,000 expired and 10 live: ten requests, and it ends when the ten end', async () => {
    const records: StoredRecord[] = [];
    for (let n = 1; n <= 10_000; n++)
      records.push(world.created(n, 48), {
        v: 1,
        type: 'expired',
        id: id(n),
        at: new Date(NOW - 20 * HOUR).toISOString(),
      });
    for (let n = 10_001; n <= 10_010; n++) {
      records.push(world.created(n, 1));
      world.statusOf.set(id(n), 'FINALIZED');
    }
    world.write(records);
    const r = await world.watch([], { pending: true }, { quiet: true });
    expect(r.code).toBe(0);
    expect(world.asked).toHaveLength(10);
  });

  it('a 429 shrinks the ceiling and Retry-After is honoured', async () => {
    world.write([world.created(1, 1)]);
    world.statusOf.set(id(1), 'FINALIZED');
    world.tooMany = 1;
    const r = await world.watch([], { pending: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the service asked to slow down: at most 30 request(s) a minute now');
    expect(r.sleeps.some((ms) => ms >= 2000)).toBe(true);
  });

  it('on time-out each unfinished deposit is named once', async () => {
    world.write([world.created(1, 2), world.created(2, 1)]);
    world.statusOf.set(id(1), 'WAITING_PAYMENT');
    world.statusOf.set(id(2), 'WAITING_PAYMENT');
    const r = await world.watch([], { pending: true, timeout: '4' });
    expect(r.code).toBe(124);
    for (const n of [1, 2]) expect(r.stderr.split(id(n)).length - 1).toBe(1);
    expect(r.stderr).toContain('lbrl deposit watch --pending\n');
  });
});

describe('deposit list', () => {
  beforeEach(() => {
    world.write([
      world.created(1, 24 * 10),
      world.created(2, 24 * 3, { status: 'WAITING_PAYMENT', cents: 600000 }),
      world.created(3, 2),
      { v: 1, type: 'status', id: id(3), status: 'FINALIZED', at: new Date(NOW - HOUR).toISOString() },
      { v: 1, type: 'verified', id: id(3), txid: 'cd'.repeat(32), at: new Date(NOW - HOUR).toISOString() },
      world.expired(1, 1),
    ]);
  });
  const ids = async (flags: Parameters<DayTradeInProcess['list']>[0]) =>
    JSON.parse((await world.list(flags, { json: true })).stdout).map((e: { id: string }) => e.id);

  it('filters by status (repeatable, comma lists, EXPIRED), time and verification', async () => {
    expect(await ids({ status: ['expired'] })).toEqual([id(1)]);
    expect(await ids({ status: ['FINALIZED', 'EXPIRED'] })).toEqual([id(3), id(1)]);
    expect(await ids({ status: ['WAITING_PAYMENT,FINALIZED'] })).toEqual([id(3), id(2)]);
    expect(await ids({ since: '7d' })).toEqual([id(3), id(2)]);
    expect(await ids({ until: '1d' })).toEqual([id(2), id(1)]);
    expect(await ids({ since: '2026-11-20', until: '2026-11-21' })).toEqual([id(2)]);
    expect(await ids({ verified: true })).toEqual([id(3)]);
    expect(await ids({ unverified: true })).toEqual([id(2), id(1)]);
  });

  it('refuses a bad filter with one line and exit 2', async () => {
    const r = await world.list({ status: ['PAID'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: invalid --status "PAID": expected one of WAITING_PAYMENT, PIX_CONFIRMED, SETTLEMENT_CREATED, TX_SENT, FINALIZED, FAILED, EXPIRED, GONE\n',
    );
    const since = await world.list({ since: 'yesterday' });
    expect(since.code).toBe(2);
    expect(since.stderr.split('\n')).toHaveLength(2);
    const both = await world.list({ verified: true, unverified: true });
    expect(both.code).toBe(2);
  });

  it('fits 80 columns, local times with their offset; wider, the columns line up under their headers', async () => {
    const narrow = await world.list({}, { columns: 80 });
    const lines = narrow.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID +CREATED -03:00 +R\$ +STATUS$/);
    expect(lines[1]).toMatch(new RegExp(`^${id(3)}  11-23 10:00 +1\\.500,00  FINALIZED$`));
    expect(lines[3]).toMatch(/EXPIRED\/WAITING$/);
    const split = await world.list({}, { columns: 60 });
    for (const l of split.stdout.trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(60);
    expect(split.stdout.split('\n')[0]).toMatch(/^ID +STATUS$/);
    const wide = await world.list({}, { columns: 160 });
    const [head, first, , last] = wide.stdout.split('\n');
    expect(first).toContain('2026-11-23 10:00:00 -03:00');
    expect(first!.indexOf('verified')).toBe(head!.indexOf('ON CHAIN'));
    expect(last).toContain('EXPIRED (local; service: WAITING_PAYMENT)');
  });
});

describe('deposit report: quiet days', () => {
  it('a day with no deposit between two with some is a row of zeros', async () => {
    world.write([
      world.created(1, 24 * 3, { status: 'WAITING_PAYMENT', cents: 1000 }),
      world.created(2, 1, { status: 'WAITING_PAYMENT', cents: 1000 }),
    ]);
    const report = JSON.parse((await world.report({}, { json: true })).stdout);
    expect(
      report.periods.map((p: { period: string; createdCount: number }) => [p.period, p.createdCount]),
    ).toEqual([
      ['2026-11-20', 1],
      ['2026-11-21', 0],
      ['2026-11-22', 0],
      ['2026-11-23', 1],
    ]);
  });
});

describe('deposit report', () => {
  beforeEach(() => {
    world.write([
      world.created(1, 30, { status: 'WAITING_PAYMENT', cents: 1000 }),
      world.created(2, 27, { status: 'WAITING_PAYMENT', cents: 2550 }),
      world.created(3, 2, { status: 'WAITING_PAYMENT', cents: 10000 }),
      world.created(4, 1, { status: 'WAITING_PAYMENT', cents: 700 }),
      { v: 1, type: 'status', id: id(2), status: 'FINALIZED', at: new Date(NOW - HOUR).toISOString() },
      { v: 1, type: 'status', id: id(3), status: 'FINALIZED', at: new Date(NOW - HOUR).toISOString() },
      { v: 1, type: 'verified', id: id(3), txid: 'cd'.repeat(32), at: new Date(NOW - HOUR).toISOString() },
      world.expired(1, 1),
    ]);
  });

  it('--json: the counts and the sums in integer cents, per local day and in total', async () => {
    const r = await world.report({}, { json: true });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.periods.map((p: { period: string }) => p.period)).toEqual(['2026-11-22', '2026-11-23']);
    expect(report.total).toMatchObject({
      createdCount: 4,
      finalizedCount: 2,
      failedCount: 0,
      expiredCount: 1,
      pendingCount: 1,
      createdCents: 14250,
      grossCents: 12550,
      feeCents: 25 + 100,
      netCents: 2525 + 9900,
      splitCents: 0,
      verifiedCount: 1,
      verifiedNetCents: 9900,
    });
    for (const v of Object.values(report.total)) expect(Number.isInteger(v)).toBe(true);
  });

  it('--csv is RFC 4180 with a dot decimal; --csv-br is ; with a comma decimal', async () => {
    const csv = (await world.report({ csv: true, by: 'month' })).stdout;
    expect(csv.split('\r\n')[0]).toBe(
      'month,created,finalized,failed,expired,pending,charged,gross,fees,net,split,destination,verified,verified_net,unchecked,unchecked_net,unproven,unproven_net,mismatched,mismatched_net',
    );
    expect(csv.split('\r\n')[1]).toBe(
      '2026-11,4,2,0,1,1,142.50,125.50,1.25,124.25,0.00,124.25,1,99.00,1,25.25,0,0.00,0,0.00',
    );
    expect(csv.endsWith('\r\n')).toBe(true);
    const br = (await world.report({ csvBr: true, by: 'month' })).stdout;
    expect(br.split('\r\n')[2]).toBe(
      'total;4;2;0;1;1;142,50;125,50;1,25;124,25;0,00;124,25;1;99,00;1;25,25;0;0,00;0;0,00',
    );
    const both = await world.report({ csv: true }, { json: true });
    expect(both.code).toBe(2);
  });

  it('on a terminal: a table and a bar chart of net per period', async () => {
    const r = await world.report({}, { columns: 80 });
    expect(r.stdout).toContain('Net received per day');
    expect(r.stdout).toMatch(/2026-11-23 +█+ +R\$ 99,00/);
    expect(r.stdout).toMatch(/2026-11-22 +█+[▏▎▍▌▋▊▉]? +R\$ 25,25/);
  });

  it('on chain: what the last verification found (unproven, mismatched) is counted apart from the not yet checked', async () => {
    world.write([
      world.created(5, 3, { status: 'WAITING_PAYMENT', cents: 5000 }),
      world.created(6, 3, { status: 'WAITING_PAYMENT', cents: 3000 }),
      { v: 1, type: 'status', id: id(5), status: 'FINALIZED', at: new Date(NOW - HOUR).toISOString() },
      { v: 1, type: 'status', id: id(6), status: 'FINALIZED', at: new Date(NOW - HOUR).toISOString() },
      {
        v: 1,
        type: 'unverified',
        id: id(5),
        txid: 'ab'.repeat(32),
        outcome: 'unproven',
        at: new Date(NOW - HOUR).toISOString(),
      },
      {
        v: 1,
        type: 'unverified',
        id: id(6),
        txid: 'ef'.repeat(32),
        outcome: 'mismatch',
        at: new Date(NOW - HOUR).toISOString(),
      },
      // a later verify of the verified one found its transaction gone: no longer verified
      {
        v: 1,
        type: 'unverified',
        id: id(3),
        txid: 'cd'.repeat(32),
        outcome: 'not-found',
        at: new Date(NOW).toISOString(),
      },
    ]);
    const r = await world.report({}, { json: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).total).toMatchObject({
      finalizedCount: 4,
      verifiedCount: 0,
      verifiedNetCents: 0,
      unprovenCount: 1,
      unprovenNetCents: 4950,
      mismatchCount: 1,
      mismatchNetCents: 2970,
      uncheckedCount: 2,
      uncheckedNetCents: 2525 + 9900,
    });
    const human = await world.report({});
    expect(human.stdout).toContain(
      [
        'Verified on chain  R$ 0,00 (0)',
        'Unproven           R$ 49,50 (1)',
        'Mismatched         R$ 29,70 (1)',
        'Not yet checked    R$ 124,25 (2)',
        '  lbrl deposit verify checks them',
      ].join('\n'),
    );
  });
});
