/**
 * The day's trade under attack: histories written by two processes at once, dates that do not
 * exist, narrow terminals. Against a local service whose answers the test chooses, with a clock
 * the test holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { History, type StoredRecord } from '../../src/store/history.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { brCode, getAnswer, LQ } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const NOW = Date.parse('2026-11-23T15:00:00Z');
const HOUR = 3600_000;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let server: TestServer;
let env: Record<string, string>;
const statusOf = new Map<string, string>();
/** the service's createdAt of a deposit, when not the fixture's */
const createdAtOf = new Map<string, string>();
/** a deposit whose status becomes this once it was asked about that many times */
const laterOf = new Map<string, [number, string]>();
/** answers 429 with this Retry-After while set */
let retryAfter: string | undefined;

beforeEach(async () => {
  statusOf.clear();
  createdAtOf.clear();
  laterOf.clear();
  retryAfter = undefined;
  server = await startServer((req, res) => {
    if (retryAfter !== undefined)
      return json(res, 429, { message: 'slow down' }, { 'retry-after': retryAfter });
    const depositId = req.url.split('/').pop()!;
    const later = laterOf.get(depositId);
    if (later && server.requests.filter((q) => q.url === req.url).length > later[0])
      statusOf.set(depositId, later[1]);
    const status = statusOf.get(depositId);
    if (!status) return json(res, 404, { message: 'not found' });
    json(
      res,
      200,
      getAnswer({
        id: depositId,
        status,
        settlement:
          status === 'FINALIZED' || status === 'TX_SENT' ? { status, liquidTxid: 'cd'.repeat(32) } : null,
        confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-23T14:00:00Z',
        ...(createdAtOf.has(depositId) ? { createdAt: createdAtOf.get(depositId) } : {}),
      }),
    );
  });
  env = liveEnv(server.url, undefined, { TZ: 'America/Sao_Paulo' });
});
afterEach(() => server.close());

function created(n: number, hoursAgo: number, cents = 150000): StoredRecord {
  return {
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl: server.url,
    at: new Date(NOW - hoursAgo * HOUR).toISOString(),
    amountInCents: cents,
    destinationAddress: LQ,
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    answer: {
      amount: cents / 100,
      feeAmount: Math.floor(cents / 100) / 100,
      netAmount: (cents - Math.floor(cents / 100)) / 100,
      splitPercent: null,
      qrCodeText: brCode(cents),
      createdAt: '2026-11-22T10:00:00.000Z',
    },
  } as StoredRecord;
}
const status = (n: number, s: string, hoursAgo: number): StoredRecord =>
  ({
    v: 1,
    type: 'status',
    id: id(n),
    status: s,
    at: new Date(NOW - hoursAgo * HOUR).toISOString(),
  }) as StoredRecord;
const expired = (n: number, hoursAgo: number): StoredRecord =>
  ({ v: 1, type: 'expired', id: id(n), at: new Date(NOW - hoursAgo * HOUR).toISOString() }) as StoredRecord;

const write = (records: StoredRecord[]) => new History(env.LBRL_CONFIG_DIR!).append(records);
const run = (args: string[], extra: Parameters<typeof runCli>[1] = {}) =>
  runCli(args, { env, clock: { now: NOW }, ...extra });

describe('an expiry written after another process saw the payment', () => {
  // process A's last look saw WAITING_PAYMENT; process B then recorded PIX_CONFIRMED; A's
  // expired record lands after it. Money in motion is never expired, whatever the order.
  beforeEach(() => {
    write([created(1, 30), status(1, 'PIX_CONFIRMED', 1), expired(1, 1), created(2, 30), expired(2, 1)]);
    statusOf.set(id(1), 'PIX_CONFIRMED');
    statusOf.set(id(2), 'WAITING_PAYMENT');
  });

  it('list shows it PIX_CONFIRMED, not EXPIRED, in the table and in --json', async () => {
    const table = await run(['deposit', 'list'], { stdoutTTY: true, columns: 160 });
    const row = table.stdout.split('\n').find((l) => l.startsWith(id(1)))!;
    expect(row).toContain('PIX_CONFIRMED');
    expect(row).not.toContain('EXPIRED');
    const list = JSON.parse((await run(['deposit', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(list.find((e) => e.id === id(1))).not.toHaveProperty('expiredAt');
    expect(list.find((e) => e.id === id(2))).toHaveProperty('expiredAt');
    const only = await run(['deposit', 'list', '--status', 'EXPIRED', '--json']);
    expect((JSON.parse(only.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual([id(2)]);
  });

  it('watch --pending still follows it; report counts it open, not expired', async () => {
    const r = await run(['deposit', 'watch', '--pending', '--timeout', '3', '--json']);
    expect(server.requests.filter((q) => q.url.endsWith(id(1))).length).toBeGreaterThan(0);
    expect(server.requests.filter((q) => q.url.endsWith(id(2))).length).toBe(0);
    expect(r.code).toBe(124);
    const report = JSON.parse((await run(['deposit', 'report', '--json'])).stdout);
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
    write([created(1, 1)]);
    for (const cmd of [
      ['deposit', 'list'],
      ['deposit', 'report'],
    ]) {
      const r = await run([...cmd, '--since', when]);
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
      write([
        created(1, 50, 500_000_000),
        status(1, 'FINALIZED', 49),
        created(2, 26, 700_000_000),
        status(2, 'FINALIZED', 25),
        created(3, 2, 12_345),
        expired(3, 1),
      ]);
      const r = await run(['deposit', 'report'], {
        env: { ...env, NO_COLOR: '1' },
        stdoutTTY: true,
        columns,
      });
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/^DAY .* NET$/);
      expect(r.stdout).toMatch(/^total .*R\$ 11\.880\.000,00$/m);
      expect(r.stdout).toMatch(/^Not yet checked +R\$ 11\.880\.000,00 \(2\)$/m);
      expect(r.stdout).toMatch(/^2026-11-22 +█+[▏▎▍▌▋▊▉]? +R\$ 6\.930\.000,00$/m);
    },
  );
});

describe('deposit list on a pane narrower than an id and its status', () => {
  it('each deposit takes two lines that fit: the id whole, then its amount and status', async () => {
    write([created(1, 30), expired(1, 1), created(2, 2), status(2, 'FINALIZED', 1)]);
    const r = await run(['deposit', 'list'], {
      env: { ...env, NO_COLOR: '1' },
      stdoutTTY: true,
      columns: 40,
    });
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
        ...(created(1, 3) as unknown as Record<string, unknown>),
        destinationAddress: `\u001b[31m\u202eRED${'x'.repeat(10_000)}`,
        status: 'WAITING_PAYMENT\u001b[2J\u202e',
      } as StoredRecord;
      write([created(2, 5), status(2, 'FINALIZED\u001b]0;pwn\u0007', 4), evil]);
      const r = await run(['deposit', 'list'], { env: { ...env, NO_COLOR: '1' }, stdoutTTY: true, columns });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).not.toContain('\u202e');
      expect(r.stdout).toContain('WAITING_PAYMENT\\x1b[2J\\u202e');
      expect(r.stdout).toContain('FINALIZED\\x1b]0;pwn\\x07');
      for (const l of r.stdout.trimEnd().split('\n')) expect(l.length, l).toBeLessThanOrEqual(columns);
    },
  );
});

describe('expiry when lbrl recorded the create with a clock that was ahead', () => {
  const at = (record: StoredRecord, createdAt: string, serviceCreatedAt: string) => {
    const r = record as unknown as { id: string; at: string; answer: { createdAt: string } };
    r.at = createdAt;
    r.answer.createdAt = serviceCreatedAt;
    createdAtOf.set(r.id, serviceCreatedAt);
    return record;
  };
  it('counts from the service createdAt when it is in the past; never from a service clock alone when lbrl placed it', async () => {
    write([
      // lbrl's clock was years ahead; the service says three days ago: due its last look
      at(created(1, 0), '2031-01-01T00:00:00.000Z', '2026-11-20T15:00:00.000Z'),
      // both later than now (the test's clock): nothing to count from, not due
      at(created(2, 0), '2031-01-01T00:00:00.000Z', '2026-11-23T20:00:00.000Z'),
      // lbrl recorded it an hour ago; the service's clock says three days: lbrl's own record counts
      at(created(3, 0), '2026-11-23T14:00:00.000Z', '2026-11-20T15:00:00.000Z'),
    ]);
    for (const n of [1, 2, 3]) statusOf.set(id(n), 'WAITING_PAYMENT');
    const r = await run(['deposit', 'list', '--refresh', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ id: string; expiredAt?: string }>;
    expect(list.filter((e) => e.expiredAt).map((e) => e.id)).toEqual([id(1)]);
  });
});

describe('watch --pending with many charges past expire-after not yet given their last look', () => {
  it('a round takes at most a minute of last looks: the live deposit is asked again within it, and ends', async () => {
    const records: StoredRecord[] = [];
    for (let n = 100; n < 400; n++) {
      records.push(created(n, 72));
      statusOf.set(id(n), 'WAITING_PAYMENT');
    }
    records.push(created(1, 0.1));
    write(records);
    statusOf.set(id(1), 'PIX_CONFIRMED');
    laterOf.set(id(1), [1, 'FINALIZED']);
    const r = await run(['deposit', 'watch', '--pending', '--json']);
    expect(r.code).toBe(0);
    const order = server.requests.map((q) => q.url.split('/').pop());
    const asked = order.map((x, i) => [x, i] as const).filter(([x]) => x === id(1));
    expect(asked).toHaveLength(2);
    // between its two looks: at most one minute's requests (60) of last looks
    expect(asked[1]![1] - asked[0]![1] - 1).toBeLessThanOrEqual(60);
    // every charge past expire-after got its one last look, and is recorded expired
    expect(order).toHaveLength(302);
    const list = JSON.parse(
      (await run(['deposit', 'list', '--status', 'EXPIRED', '--limit', '1000', '--json'])).stdout,
    );
    expect(list).toHaveLength(300);
  });
});

describe('watch --pending told to wait past its --timeout', () => {
  it.each([
    ['an HTTP date ten minutes on', () => new Date(NOW + 600_000).toUTCString()],
    ['600 seconds', () => '600'],
  ])(
    'Retry-After as %s: ends at the --timeout (124), each deposit named once, --json lists them',
    async (_what, header) => {
      write([created(1, 2), created(2, 1)]);
      retryAfter = header();
      const r = await run(['deposit', 'watch', '--pending', '--timeout', '30', '--json']);
      expect(r.code).toBe(124);
      expect(r.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30_000);
      const error = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
      expect(error.type).toBe('watch_timeout');
      expect([...error.unfinished].sort()).toEqual([id(1), id(2)]);
      for (const n of [1, 2]) expect(r.stderr.split(id(n)).length - 1).toBe(1);
    },
  );
});
