/**
 * The history's streaming folds against a plain model that reads everything into memory: the
 * same answers over files that cross the read buffer many times, with damage in them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTerminal, STATUS_ORDER } from '../../src/domain/values.js';
import { History } from '../../src/store/history.js';
import { MAX_LINE } from '../../src/store/history-lines.js';
import type { CreatedRecord, HistoryEntry, HistoryRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const STATUSES = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'FINALIZED', 'FAILED'];

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

function id(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Records as a few processes would append them: creates, statuses (some repeated), attempts. */
function records(count: number, seed: number): HistoryRecord[] {
  const r = rng(seed);
  const out: HistoryRecord[] = [];
  let made = 0;
  for (let i = 0; i < count; i++) {
    const at = new Date(1_700_000_000_000 + i * 1000 - r(3) * 1000).toISOString();
    const roll = r(10);
    if (roll < 5 || made === 0) {
      const n = made++;
      out.push({
        v: 1,
        type: 'created',
        id: r(4) === 0 ? id(n).toUpperCase() : id(n),
        profile: r(3) === 0 ? 'work' : 'default',
        baseUrl: r(5) === 0 ? 'https://pay.example.com' : 'sandbox',
        at,
        amountInCents: 100 + r(10_000),
        destinationAddress: 'x'.repeat(1 + r(300)),
        splitAddress: null,
        splitFee: null,
        // as lbrl writes a creation: a later status is only ever a status line's
        status: 'WAITING_PAYMENT',
        ...(r(2) ? { batchKey: `row-${n}` } : {}),
      });
    } else if (roll < 9) {
      const n = r(made);
      out.push({ v: 1, type: 'status', id: r(2) ? id(n).toUpperCase() : id(n), status: STATUSES[r(5)]!, at });
    } else {
      out.push({
        v: 1,
        type: 'attempt',
        profile: 'default',
        baseUrl: 'sandbox',
        batchKey: `row-${r(made)}`,
        idempotencyKey: `key-${i}`,
        at,
      });
    }
  }
  return out;
}

/** Where a status stands on the way a deposit goes: FINALIZED and FAILED last. */
function rank(status: string): number {
  return isTerminal(status) ? 9 : STATUS_ORDER.indexOf(status);
}

/**
 * The model: everything in memory. A deposit is created once (a created line repeated says
 * nothing new), and a status counts when it moves the deposit on: the furthest wins.
 */
function model(all: HistoryRecord[], filter: (r: CreatedRecord) => boolean) {
  const created = new Map<string, HistoryEntry & { seq: number }>();
  const met = new Set<string>();
  let seq = 0;
  for (const r of all) {
    const key = r.type === 'attempt' ? '' : r.id.toLowerCase();
    if (r.type === 'created') {
      if (!met.has(key) && filter(r)) created.set(key, { ...r, id: key, statusAt: r.at, seq: seq++ });
      met.add(key);
    } else if (r.type === 'status') {
      const e = created.get(key);
      if (e && rank(r.status) > rank(e.status)) {
        e.status = r.status;
        e.statusAt = r.at;
      }
    }
  }
  return [...created.values()]
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.seq - a.seq))
    .map(({ seq: _s, ...e }) => e);
}

function write(all: HistoryRecord[], damage = ''): History {
  const dir = tempDir();
  const text = all.map((r) => `${JSON.stringify(r)}\n`).join('');
  fs.writeFileSync(path.join(dir, 'history.ndjson'), text + damage, { mode: 0o600 });
  return new History(dir);
}

describe('the history read as a stream', () => {
  // about 3 MB: the 1 MiB read buffer is crossed at many points inside lines
  const all = records(12_000, 7);
  const history = write(all);
  const byProfile = (r: CreatedRecord) => r.profile === 'default';
  const expected = model(all, byProfile);

  it('entries: the newest n, each with its latest status, for any n', () => {
    for (const limit of [1, 30, 777, 10_000]) {
      expect(history.entries(byProfile, { limit })).toEqual(expected.slice(0, limit));
    }
  });

  it('pending: every deposit not yet ended, newest first', () => {
    const key = (r: CreatedRecord) => byProfile(r) && r.baseUrl === 'sandbox';
    const want = model(all, key).filter((e) => !isTerminal(e.status));
    expect(want.length).toBeGreaterThan(100);
    expect(new History(history.dir).pending(key)).toEqual(want);
    // a cap keeps the newest, and says it did
    const warned: string[] = [];
    expect(new History(history.dir, (l) => warned.push(l)).pending(key, { cap: 50 })).toEqual(
      want.slice(0, 50),
    );
    expect(warned).toEqual([expect.stringContaining('more than 50 deposits not yet ended')]);
  });

  it('recentIds: the last ids created, from the end of the file', () => {
    const last = all
      .filter((r): r is CreatedRecord => r.type === 'created' && byProfile(r))
      .map((r) => r.id.toLowerCase())
      .reverse();
    expect(history.recentIds(byProfile, 50)).toEqual([...new Set(last)].slice(0, 50));
  });

  it('batchState: the rows done and attempted, and a later call reads only what came since', () => {
    const state = history.batchState('default', 'sandbox');
    const done = new Map<string, { id: string; status: string }>();
    const attempted = new Map<string, string>();
    for (const r of all) {
      if (r.type === 'status' || r.profile !== 'default' || r.baseUrl !== 'sandbox' || !r.batchKey) continue;
      if (r.type === 'created') done.set(r.batchKey, { id: r.id.toLowerCase(), status: r.status });
      else attempted.set(r.batchKey, r.idempotencyKey);
    }
    expect(state.done).toEqual(done);
    expect(state.attempted).toEqual(attempted);
    expect(state.end).toBe(fs.statSync(history.file).size);
    const only = history.batchState('default', 'sandbox', new Set(['row-1', 'row-2']));
    expect([...only.done.keys(), ...only.attempted.keys()].every((k) => k === 'row-1' || k === 'row-2')).toBe(
      true,
    );
    expect(history.batchState('default', 'sandbox', undefined, state.end).done.size).toBe(0);
  });

  it('read: every record in order, ids in lower case', () => {
    expect([...history.read()]).toEqual(
      all.map((r) => (r.type === 'attempt' ? r : { ...r, id: r.id.toLowerCase() })),
    );
  });
});

describe('damage', () => {
  const good = records(300, 3);

  it('an over-long line, a torn write and a last line cut short are skipped, never the rest', () => {
    const dir = tempDir();
    const lines = good.map((r) => JSON.stringify(r));
    const text = [
      ...lines.slice(0, 100),
      // a line longer than any record (a file filled by something else), never held whole
      `{"v":1,${'x'.repeat(3 * MAX_LINE)}`,
      ...lines.slice(100, 200),
      // a write cut by a kill, followed on the same line by a whole record
      `${lines[200]!.slice(0, 40)}${lines[200]!}`,
      ...lines.slice(201),
      '{"v":1,"type":"created","id":"cut-',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'history.ndjson'), text, { mode: 0o600 });
    const warned: string[] = [];
    const h = new History(dir, (l) => warned.push(l));
    const all = (r: CreatedRecord) => r.profile !== '';
    expect(h.entries(all)).toEqual(model(good, all));
    expect(warned).toEqual([expect.stringMatching(/skipped 3 damaged line\(s\)/)]);
    // from the end as well
    expect(h.recentIds(all, 1000)).toEqual(
      [...new Set(good.filter((r) => r.type === 'created').map((r) => (r as CreatedRecord).id.toLowerCase()))]
        .reverse()
        .slice(0, 1000),
    );
  });
});

describe('verifications as read back', () => {
  const share = {
    role: 'destination',
    script: '0014' + 'ab'.repeat(20),
    outputs: [0],
    share: '1/1',
    rounded: false,
  };
  const line = (n: number, txid: string) =>
    JSON.stringify({
      v: 1,
      type: 'verified',
      id: id(n),
      txid,
      at: '2026-11-22T10:00:00.000Z',
      shares: [share],
    });

  it('a txid is read in its one form: one edited into upper case still counts its outputs as taken; one not 32 bytes of hex is no verification', () => {
    const dir = tempDir();
    const txid = 'c'.repeat(64);
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      `${[line(1, txid.toUpperCase()), line(2, 'not-a-txid'), line(3, `${txid.slice(0, 63)}g`)].join('\n')}\n`,
      { mode: 0o600 },
    );
    const h = new History(dir, () => {});
    expect(h.sharesOf(txid)).toEqual([{ id: id(1), shares: [share] }]);
    expect(h.sharesOf('not-a-txid')).toEqual([]);
    const verified = h.verifiedShares(new Set([id(1), id(2), id(3)]));
    expect([...verified]).toEqual([[id(1), { txid, shares: [share] }]]);
  });
});

describe('appending', () => {
  it('a status already known is not appended again; a change is', () => {
    const dir = tempDir();
    const h = new History(dir);
    const created: CreatedRecord = {
      v: 1,
      type: 'created',
      id: 'ABCDEF00-0000-4000-8000-000000000001',
      profile: 'default',
      baseUrl: 'sandbox',
      at: '2026-11-22T10:00:00.000Z',
      amountInCents: 1,
      destinationAddress: 'x',
      splitAddress: null,
      splitFee: null,
      status: 'WAITING_PAYMENT',
    };
    h.append([created]);
    const status = (s: string) => ({
      v: 1 as const,
      type: 'status' as const,
      id: created.id,
      status: s,
      at: '2026-11-22T10:00:01.000Z',
    });
    // another process, which has read nothing yet, looks the status up before appending
    const other = new History(dir);
    other.append([status('WAITING_PAYMENT')]);
    other.append([status('PIX_CONFIRMED'), status('PIX_CONFIRMED')]);
    h.append([status('PIX_CONFIRMED')]);
    const lines = fs
      .readFileSync(h.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.id, l.status])).toEqual([
      ['created', 'abcdef00-0000-4000-8000-000000000001', 'WAITING_PAYMENT'],
      ['status', 'abcdef00-0000-4000-8000-000000000001', 'PIX_CONFIRMED'],
    ]);
  });
});

describe('recorded: what the history knows of one deposit, for checking its answers', () => {
  it('is the same entry whether read alone or after pending(), and follows statuses appended since', () => {
    const all = records(400, 7);
    const fresh = new History(tempDir());
    fresh.append(all);
    const alone = new History(fresh.dir);
    const after = new History(fresh.dir);
    const pending = after.pending();
    expect(pending.length).toBeGreaterThan(0);
    for (const e of pending.slice(0, 20)) {
      expect(after.recorded(e.id.toUpperCase(), e.baseUrl)).toEqual(alone.recorded(e.id, e.baseUrl));
      expect(after.recorded(e.id, e.baseUrl === 'sandbox' ? 'https://pay.example.com' : 'sandbox')).toBe(
        undefined,
      );
    }
    const e = pending[0]!;
    after.append([
      {
        v: 1,
        type: 'status',
        id: e.id,
        status: 'FINALIZED',
        at: new Date().toISOString(),
        final: { settlement: { liquidTxid: 'ab'.repeat(32), status: 'FINALIZED' }, confirmedAt: null },
      },
    ]);
    expect(after.recorded(e.id, e.baseUrl)).toMatchObject({
      status: 'FINALIZED',
      final: { settlement: { liquidTxid: 'ab'.repeat(32) } },
    });
  });
});

describe('the reference and note of a created record', () => {
  it('are read back; a record without them (an older lbrl) reads as before; a non-text one is dropped', () => {
    const dir = tempDir();
    const base = (n: number) =>
      `{"v":1,"type":"created","id":"${id(n)}","profile":"default","baseUrl":"sandbox","at":"2026-11-0${n}T10:00:00.000Z","amountInCents":100,"destinationAddress":"x","splitAddress":null,"splitFee":null,"status":"WAITING_PAYMENT"`;
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      [
        `${base(1)}}`,
        `${base(2)},"ref":"pedido 2","note":"mesa 4"}`,
        `${base(3)},"ref":{"toString":"x"},"note":12}`,
        '',
      ].join('\n'),
    );
    const entries = new History(dir).entries();
    const shown = entries.map((e) => [e.id, e.ref, e.note, 'ref' in e, 'note' in e]);
    expect(shown).toEqual([
      [id(3), undefined, undefined, false, false],
      [id(2), 'pedido 2', 'mesa 4', true, true],
      [id(1), undefined, undefined, false, false],
    ]);
  });
});
