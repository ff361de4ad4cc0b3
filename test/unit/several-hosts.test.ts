/**
 * The parts of several hosts that need no database: the display's pushed view of the ledger (a
 * feed that says what changed, this machine's history file beside it), and LBRL_LEASE_MS, the
 * tests' lease, read strictly.
 */
import { describe, expect, it } from 'vitest';
import { leadPoster, leaseMsOf } from '../../src/commands/shared/coordination.js';
import { watchDeposits } from '../../src/deposits/watch.js';
import type { HistoryView } from '../../src/display/engine.js';
import { PushedHistory } from '../../src/display/pushed-history.js';
import type { DisplayFeed } from '../../src/store/coordination-port.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { getAnswer } from '../helpers/fixtures.js';
import { created, depositId, SERVICE } from '../helpers/ledger-contract.js';
import { steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const entry = (n: number, at: string): HistoryEntry =>
  ({ ...created(n, { at }), statusAt: at }) as HistoryEntry;

/** A clock whose sleeps end when the test says: `tick()` ends the one under way. */
function manualClock() {
  const waiting: Array<{ ms: number; end: () => void }> = [];
  const controller = new AbortController();
  return {
    clock: {
      signal: controller.signal,
      sleep: (ms: number) => new Promise<void>((end) => waiting.push({ ms, end })),
    },
    waiting,
    tick: () => waiting.shift()?.end(),
    stop: () => controller.abort(),
  };
}

function world(
  rows: HistoryEntry[],
  localRows: HistoryEntry[] = [],
  safety?: ConstructorParameters<typeof PushedHistory>[4],
) {
  const said: {
    changed?: (id: string) => void;
    cleared?: (before: string) => void;
    dropped?: () => void;
    relistens: Array<'ok' | Error>;
    relistened: number;
  } = { relistens: [], relistened: 0 };
  const feed: DisplayFeed = {
    newest: async () => [...rows].sort((a, b) => b.at.localeCompare(a.at))[0],
    recorded: async (id) => rows.find((row) => row.id === id),
    subscribe: async (changed, cleared, dropped) => {
      said.changed = changed;
      said.cleared = cleared;
      said.dropped = dropped;
    },
    relisten: async () => {
      const next = said.relistens.shift();
      if (next === undefined) return false;
      if (next instanceof Error) throw next;
      said.relistened += 1;
      return true;
    },
    lastClear: async () => '2026-11-20T11:00:00.000Z',
    clear: async () => {},
    close: async () => {},
  };
  const local: HistoryView = {
    file: '/nowhere/history.ndjson',
    entries: (filter, opts) => localRows.filter(filter).slice(0, opts.limit),
    recorded: (id, target) => localRows.find((row) => row.id === id && row.baseUrl === target),
  };
  const warnings: string[] = [];
  const pushed = new PushedHistory(
    feed,
    local,
    () => 'same',
    (line) => warnings.push(line),
    safety,
  );
  return { pushed, said, rows, warnings };
}

const settle = () => new Promise((r) => setTimeout(r, 0));
const all = () => true;

describe("the display's pushed view of a database ledger", () => {
  it('starts with the last clear and the newest charge; a charge written anywhere changes its signature and its newest', async () => {
    const w = world([entry(1, '2026-11-20T12:00:00.000Z')]);
    const withdrawn: string[] = [];
    await w.pushed.start((before) => withdrawn.push(before));
    expect(withdrawn).toEqual(['2026-11-20T11:00:00.000Z']);
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(1)]);
    const before = w.pushed.signature();
    w.rows.push(entry(2, '2026-11-20T12:05:00.000Z'));
    w.said.changed!(depositId(2));
    await settle();
    await settle();
    expect(w.pushed.signature()).not.toBe(before);
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(2)]);
    expect(w.pushed.recorded(depositId(2), SERVICE)?.id).toBe(depositId(2));
    expect(w.pushed.recorded(depositId(2), 'https://other.example')).toBeUndefined();
    w.said.cleared!('2026-11-20T13:00:00.000Z');
    expect(withdrawn).toEqual(['2026-11-20T11:00:00.000Z', '2026-11-20T13:00:00.000Z']);
  });

  it("a charge only this machine's file holds, newer than the ledger's, is the one shown; the filter is kept", async () => {
    const w = world([entry(1, '2026-11-20T12:00:00.000Z')], [entry(3, '2026-11-20T12:10:00.000Z')]);
    await w.pushed.start(() => {});
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(3)]);
    expect(w.pushed.recorded(depositId(3), SERVICE)?.id).toBe(depositId(3));
    expect(w.pushed.entries((r) => r.id === depositId(1), { limit: 1 }).map((e) => e.id)).toEqual([
      depositId(1),
    ]);
    expect(w.pushed.entries(() => false, { limit: 1 })).toEqual([]);
  });

  it('a ledger that cannot be read is one warning, and the screen keeps what it had', async () => {
    const w = world([entry(1, '2026-11-20T12:00:00.000Z')]);
    await w.pushed.start(() => {});
    (w.pushed as unknown as { feed: DisplayFeed }).feed.newest = async () => {
      throw new Error('cannot reach the ledger at postgres://till:[redacted]@db/shop: connection refused');
    };
    w.said.changed!(depositId(1));
    await settle();
    await settle();
    expect(w.warnings).toEqual([
      'display: cannot read the ledger: cannot reach the ledger at postgres://till:[redacted]@db/shop: connection refused',
    ]);
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(1)]);
  });
});

describe("the display's safety look and a dropped connection", () => {
  it('reads the ledger again only every safety interval when nothing is pushed', async () => {
    const time = manualClock();
    const w = world([entry(1, '2026-11-20T12:00:00.000Z')], [], { clock: time.clock, everyMs: 10_000 });
    await w.pushed.start(() => {});
    await settle();
    expect(time.waiting.map((wait) => wait.ms)).toEqual([10_000]);
    // a charge whose notification was lost: not shown until the safety look
    w.rows.push(entry(2, '2026-11-20T12:05:00.000Z'));
    await settle();
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(1)]);
    time.tick();
    for (let i = 0; i < 5; i++) await settle();
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(2)]);
    expect(time.waiting.map((wait) => wait.ms)).toEqual([10_000]);
    time.stop();
  });

  it('listens again at once when the connection drops, reading what was written meanwhile; a ledger out of reach is one warning, tried again at each safety look', async () => {
    const time = manualClock();
    const w = world([entry(1, '2026-11-20T12:00:00.000Z')], [], { clock: time.clock, everyMs: 10_000 });
    await w.pushed.start(() => {});
    w.rows.push(entry(2, '2026-11-20T12:05:00.000Z'));
    w.said.relistens.push('ok');
    w.said.dropped!();
    for (let i = 0; i < 5; i++) await settle();
    expect(w.said.relistened).toBe(1);
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(2)]);
    expect(w.warnings).toEqual([]);
    // dropped again, and the ledger cannot be reached for two looks
    const refused = new Error(
      'cannot reach the ledger at postgres://till:[redacted]@db/shop: connection refused',
    );
    w.said.relistens.push(refused, refused, 'ok');
    w.said.dropped!();
    for (let i = 0; i < 5; i++) await settle();
    time.tick();
    for (let i = 0; i < 5; i++) await settle();
    expect(w.warnings).toEqual([
      "display: the ledger's connection dropped (cannot reach the ledger at postgres://till:[redacted]@db/shop: connection refused); trying again every 10 s",
    ]);
    w.rows.push(entry(3, '2026-11-20T12:10:00.000Z'));
    time.tick();
    for (let i = 0; i < 8; i++) await settle();
    expect(w.said.relistened).toBe(2);
    expect(w.warnings.at(-1)).toBe('display: listening to the ledger again');
    expect(w.pushed.entries(all, { limit: 1 }).map((e) => e.id)).toEqual([depositId(3)]);
    time.stop();
  });
});

describe("listen's poster held to its lead", () => {
  it('sends while the lead is held, and nothing once it is not (a process back from a stall)', async () => {
    const sent: string[] = [];
    const poster = {
      post: async (url: string, _headers: Record<string, string>, body: string) => {
        sent.push(`${url} ${body}`);
        return { kind: 'answer' as const, status: 200, ms: 1 };
      },
      close: async () => {},
    };
    let held = true;
    const lead = { release: async () => {}, lost: new AbortController().signal, holds: () => held };
    const guarded = leadPoster(poster, lead);
    expect(await guarded.post('https://r.example/hooks', {}, 'one')).toMatchObject({ status: 200 });
    held = false;
    expect(await guarded.post('https://r.example/hooks', {}, 'two')).toEqual({
      kind: 'failure',
      reason: 'this listen lost the lead: not sent',
      ms: 0,
    });
    expect(sent).toEqual(['https://r.example/hooks one']);
    // the file ledger's lead is never taken from a running process: the poster as it is
    expect(leadPoster(poster, { release: async () => {}, lost: lead.lost })).toBe(poster);
  });
});

describe('a watch sharing its deposits with other hosts', () => {
  it('what it gives up is never asked about again, what it is handed is followed to its end, and each that ended is handed in once', async () => {
    const clock = steppingClock(Date.parse('2026-11-23T15:00:00Z'), { monotonic: true });
    const asked: string[] = [];
    const api = scriptedDepositApi({
      now: clock.now,
      get: (id) => {
        asked.push(id);
        // each deposit ends at its second look
        const status = asked.filter((x) => x === id).length >= 2 ? 'FINALIZED' : 'WAITING_PAYMENT';
        return getAnswer({
          id,
          status,
          settlement: status === 'FINALIZED' ? { status, liquidTxid: 'cd'.repeat(32) } : null,
          confirmedAt: status === 'FINALIZED' ? '2026-11-23T14:00:00Z' : null,
        });
      },
    });
    const handedIn: string[][] = [];
    const share = {
      rebalance: async (ended: string[]) => {
        handedIn.push(ended);
        // another host came: the third is its from now; once the first ended, a dead host's fourth is this one's
        if (handedIn.length === 1) return { add: [], drop: [depositId(3)] };
        if (ended.includes(depositId(1))) return { add: [depositId(4)], drop: [] };
        return { add: [], drop: [] };
      },
    };
    const result = await watchDeposits(
      api,
      {
        ids: [depositId(1), depositId(2), depositId(3)],
        intervalMs: 1000,
        perMinute: 60,
        share,
        ...clock,
        now: clock.now,
        monotonic: clock.monotonic,
      },
      { change: () => {}, retry: () => {}, tick: () => {} },
    );
    expect(asked).not.toContain(depositId(3));
    for (const n of [1, 2, 4]) expect(asked.filter((x) => x === depositId(n))).toHaveLength(2);
    expect(handedIn.flat().sort()).toEqual([depositId(1), depositId(2), depositId(4)]);
    expect([...result.states]).toEqual([
      [depositId(1), 'FINALIZED'],
      [depositId(2), 'FINALIZED'],
      [depositId(4), 'FINALIZED'],
    ]);
  });
});

describe('LBRL_LEASE_MS (tests only)', () => {
  it.each([
    ['1500', 1500],
    ['50', 50],
    ['600000', 600_000],
    ['49', undefined],
    ['600001', undefined],
    ['1e3', undefined],
    ['-5', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s -> %s', (text, ms) => {
    expect(leaseMsOf({ LBRL_LEASE_MS: text })).toBe(ms);
  });
});

describe('the default leases', () => {
  it("a listen's standby takes over within 30 s of the holder dying (it looks three times a lease)", async () => {
    const { LISTEN_LEASE_MS } = await import('../../src/store/coordination.js');
    expect((LISTEN_LEASE_MS * 4) / 3).toBeLessThanOrEqual(30_000);
  });
});
