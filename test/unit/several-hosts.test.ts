/**
 * The parts of several hosts that need no database: the display's pushed view of the ledger (a
 * feed that says what changed, this machine's history file beside it), and LBRL_LEASE_MS, the
 * tests' lease, read strictly.
 */
import { describe, expect, it } from 'vitest';
import { leaseMsOf } from '../../src/commands/shared/coordination.js';
import type { HistoryView } from '../../src/display/engine.js';
import { PushedHistory } from '../../src/display/pushed-history.js';
import type { DisplayFeed } from '../../src/store/coordination-port.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { created, depositId, SERVICE } from '../helpers/ledger-contract.js';

const entry = (n: number, at: string): HistoryEntry =>
  ({ ...created(n, { at }), statusAt: at }) as HistoryEntry;

function world(rows: HistoryEntry[], localRows: HistoryEntry[] = []) {
  const said: { changed?: (id: string) => void; cleared?: (before: string) => void } = {};
  const feed: DisplayFeed = {
    newest: async () => [...rows].sort((a, b) => b.at.localeCompare(a.at))[0],
    recorded: async (id) => rows.find((row) => row.id === id),
    subscribe: async (changed, cleared) => {
      said.changed = changed;
      said.cleared = cleared;
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
