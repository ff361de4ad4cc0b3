/**
 * The fast searches of the history (from the end back, stopping at the newest n) give exactly the
 * answer of the total reader (every line from the start, every record merged), whatever the file
 * holds: a deposit's lines anywhere (a status of an old deposit written late, a line repeated, a
 * backup appended), lines re-serialised by another tool (`jq -cS`: sorted keys; other spacing;
 * CRLF), NUL runs, damaged lines, creation times out of file order; and whatever the filters
 * (profile, service, --since/--until, --ref, --status, --verified, --limit).
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createdFilter, entryFilter, type LedgerFilter } from '../../src/deposits/ledger.js';
import { History } from '../../src/store/history.js';
import { allEntries } from '../../src/store/history-forward.js';
import type { CreatedRecord, HistoryEntry, StoredRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const SERVICES = ['sandbox', 'https://api.example.com'];
// a profile and references with quotes and words a read in place must not take for its own
const PROFILES = ['default', 'caixa2', 'caixa "3" \\ created'];
const REFS = [undefined, 'mesa 12', 'pedido 7', 'created', 'x","at":"9999-12-31T00:00:00.000Z'];
const STATUSES = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'FINALIZED', 'FAILED', 'GONE'];
const DAY0 = Date.UTC(2026, 10, 1);
const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const time = (minutes: number) => new Date(DAY0 + minutes * 60_000).toISOString();
const TXID = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

/** One record of deposit n (ids from a small pool, so a deposit's lines meet and repeat). */
const recordOf = fc
  .record({
    kind: fc.constantFrom(
      ...(['created', 'created', 'created', 'status', 'status', 'status'] as const),
      ...(['verified', 'unverified', 'expired', 'attempt'] as const),
    ),
    n: fc.integer({ min: 1, max: 24 }),
    minutes: fc.integer({ min: 0, max: 3000 }),
    service: fc.constantFrom(...SERVICES),
    profile: fc.constantFrom(...PROFILES),
    ref: fc.constantFrom(...REFS),
    status: fc.constantFrom(...STATUSES),
    cents: fc.integer({ min: 1, max: 600_000 }),
    tx: fc.integer({ min: 1, max: 3 }),
    // a later record names its service (this release), or not (an older one)
    named: fc.boolean(),
  })
  .map((r): StoredRecord => {
    const at = time(r.minutes);
    const service = r.named ? { baseUrl: r.service } : {};
    if (r.kind === 'created')
      return {
        v: 1,
        type: 'created',
        id: id(r.n),
        profile: r.profile,
        baseUrl: r.service,
        at,
        amountInCents: r.cents,
        destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
        splitAddress: null,
        splitFee: null,
        status: r.status === 'GONE' ? 'WAITING_PAYMENT' : r.status,
        ...(r.ref === undefined ? {} : { ref: r.ref }),
      };
    if (r.kind === 'status') return { v: 1, type: 'status', id: id(r.n), ...service, status: r.status, at };
    if (r.kind === 'verified')
      return { v: 1, type: 'verified', id: id(r.n), ...service, txid: TXID(r.tx), at };
    if (r.kind === 'unverified')
      return { v: 1, type: 'unverified', id: id(r.n), ...service, txid: TXID(r.tx), outcome: 'mismatch', at };
    if (r.kind === 'expired') return { v: 1, type: 'expired', id: id(r.n), ...service, at };
    return {
      v: 1,
      type: 'attempt',
      profile: r.profile,
      baseUrl: r.service,
      batchKey: `row ${r.n}`,
      idempotencyKey: `key-${r.n}`,
      at,
    };
  });

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** 1.2 MiB of batch rows attempted (of a profile no filter takes): lines every reader passes over. */
const FILLER = Array.from({ length: 1200 }, (_, n) =>
  JSON.stringify({
    v: 1,
    type: 'attempt',
    profile: 'elsewhere',
    baseUrl: 'sandbox',
    batchKey: `filler ${n}`,
    idempotencyKey: `filler-${n}`.padEnd(1000, '-'),
    at: time(0),
  }),
).join('\n');

const CR_ALONE = '<no newline>';
/** How a line was written: as lbrl writes it, or as another tool (or a crash) left it. */
const FORMS = [
  'lbrl',
  'lbrl',
  'lbrl',
  'jq -cS',
  'spaced',
  'crlf',
  'cr alone',
  'torn',
  'nul run',
  'upper id',
  'id twice',
  'at twice',
  'type twice',
  'bom',
  'escaped type',
] as const;
function written(record: StoredRecord, form: (typeof FORMS)[number]): string {
  const text = JSON.stringify(record);
  switch (form) {
    case 'jq -cS':
      return JSON.stringify(sortedKeys(record));
    case 'spaced':
      return text.replaceAll('","', '", "').replaceAll('":', '": ');
    case 'crlf':
      return `${text}\r`;
    // an old Mac's line end: the newline the history's join adds is taken off (CR_ALONE)
    case 'cr alone':
      return `${text}\r${CR_ALONE}`;
    case 'torn':
      return text.slice(0, Math.floor(text.length / 2));
    case 'nul run':
      return `${'\0'.repeat(40)}${text}`;
    case 'upper id':
      return record.type === 'attempt' ? text : text.replace(record.id, record.id.toUpperCase());
    // a key given twice (by hand, or by a tool that merged two records): JSON.parse keeps the
    // last, a reader of the line in place the first
    case 'id twice':
      return `${text.slice(0, -1)},"id":"${id(1 + (text.length % 24))}"}`;
    case 'at twice':
      return `${text.slice(0, -1)},"at":"${time(3001 + (text.length % 100))}"}`;
    // a byte-order mark a text editor saved; the type spelled with an escape
    case 'bom':
      return `\uFEFF${text}`;
    case 'escaped type':
      return text.replace(`"type":"${record.type}"`, `"type":"${record.type.replace('e', '\\u0065')}"`);
    case 'type twice':
      return `${text.slice(0, -1)},"type":"${record.type === 'created' ? 'status' : 'created'}"}`;
    default:
      return text;
  }
}

const historyText = fc
  .record({
    lines: fc.array(fc.tuple(recordOf, fc.constantFrom(...FORMS)), { minLength: 8, maxLength: 60 }),
    // a backup appended: a slice of the lines copied to the end (by a tool that wrote them its way)
    backup: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...FORMS)), { freq: 2 }),
    // the backup first, then the history: its lines re-serialised before lbrl's own
    restoredFirst: fc.boolean(),
    // where a stretch of other lines goes, longer than a read from the end reads at once (1 MiB):
    // what comes before it is met only by the look at the lines before where that read stopped
    filler: fc.option(fc.nat(), { freq: 2 }),
  })
  .map(({ lines, backup, restoredFirst, filler }) => {
    const texts = lines.map(([record, form]) => written(record, form));
    if (backup) {
      const [a, b] = [backup[0] % (lines.length + 1), backup[1] % (lines.length + 1)].sort((x, y) => x - y);
      const copy = lines.slice(a!, b!).map(([record]) => written(record, backup[2]));
      if (restoredFirst) texts.unshift(...copy);
      else texts.push(...copy);
    }
    if (filler !== null) texts.splice(filler % (texts.length + 1), 0, FILLER);
    return texts.map((t) => (t.endsWith(CR_ALONE) ? t.slice(0, -CR_ALONE.length) : `${t}\n`)).join('');
  });

const filterOf = fc.record({
  profile: fc.constantFrom(...PROFILES),
  baseUrl: fc.constantFrom(undefined, ...SERVICES),
  since: fc.option(fc.integer({ min: 0, max: 3000 }), { freq: 4 }),
  until: fc.option(fc.integer({ min: 0, max: 3000 }), { freq: 4 }),
  ref: fc.option(fc.constantFrom('mesa 12', 'pedido 7'), { freq: 5 }),
  statuses: fc.option(fc.subarray([...STATUSES, 'EXPIRED'], { minLength: 1 }), { freq: 3 }),
  verified: fc.option(fc.boolean(), { freq: 4 }),
  limit: fc.integer({ min: 1, max: 8 }),
});

function historyOf(text: string): History {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), text, { mode: 0o600 });
  return new History(dir);
}

/** What a reader says of an entry, every field of it. */
const shown = (entries: HistoryEntry[]) => entries.map((e) => JSON.parse(JSON.stringify(e)));

describe('the fast searches agree with the total reader', () => {
  it('entries (list): the newest n that match, each with all the history says of it', () => {
    fc.assert(
      fc.property(historyText, filterOf, (text, f) => {
        const filter: LedgerFilter = {
          profile: f.profile,
          baseUrl: f.baseUrl,
          since: f.since === null ? undefined : DAY0 + f.since * 60_000,
          until: f.until === null ? undefined : DAY0 + f.until * 60_000,
          ref: f.ref ?? undefined,
          statuses: f.statuses === null ? undefined : new Set(f.statuses),
          verified: f.verified ?? undefined,
        };
        const history = historyOf(text);
        const where = entryFilter(filter);
        const fast = history.entries(createdFilter(filter), { limit: f.limit, where });
        const total = allEntries(history, createdFilter(filter))
          .filter((e) => !where || where(e))
          .slice(0, f.limit);
        expect(shown(fast)).toEqual(shown(total));
      }),
      { numRuns: 40 },
    );
  });

  it('fold (report): every deposit once, as the total reader merges it', () => {
    fc.assert(
      fc.property(historyText, fc.constantFrom(...PROFILES), (text, profile) => {
        const history = historyOf(text);
        const filter = (r: { profile: string }) => r.profile === profile;
        const folded = history.fold(
          filter,
          () => [] as HistoryEntry[],
          (acc, e) => {
            acc.push(e);
          },
        );
        const byId = (a: HistoryEntry, b: HistoryEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
        expect(shown(folded.sort(byId))).toEqual(shown(allEntries(history, filter).sort(byId)));
      }),
      { numRuns: 40 },
    );
  });

  it('recorded (get, watch): one deposit on one service, as the total reader has it', () => {
    fc.assert(
      fc.property(
        historyText,
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom(...SERVICES),
        (text, n, service) => {
          const history = historyOf(text);
          const total = allEntries(history, (r) => r.id === id(n) && r.baseUrl === service);
          expect(shown([history.recorded(id(n), service)].filter((e) => e !== undefined))).toEqual(
            shown(total),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('what a read from the end leaves before where it stopped still counts', () => {
  const deposit = (n: number, minutes: number, extra: Partial<CreatedRecord> = {}): CreatedRecord => ({
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl: 'sandbox',
    at: time(minutes),
    amountInCents: 1000 + n,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    ...extra,
  });
  const newest = (text: string, limit: number) => {
    const history = historyOf(text);
    const fast = history.entries(() => true, { limit });
    return { fast: shown(fast), total: shown(allEntries(history, () => true).slice(0, limit)) };
  };
  const paid = (n: number, minutes: number) =>
    JSON.stringify({ v: 1, type: 'status', id: id(n), status: 'FINALIZED', at: time(minutes) });

  it('a creation re-serialised by jq -S far back (then the deposit appended again) is its first', () => {
    const text = [
      JSON.stringify(sortedKeys(deposit(1, 10, { ref: 'first' }))),
      paid(1, 11),
      FILLER,
      JSON.stringify(deposit(1, 10, { ref: 'appended again' })),
      JSON.stringify(deposit(2, 20)),
    ].join('\n');
    const { fast, total } = newest(`${text}\n`, 2);
    expect(total.map((e) => [e.id, e.ref, e.status])).toEqual([
      [id(2), undefined, 'WAITING_PAYMENT'],
      [id(1), 'first', 'FINALIZED'],
    ]);
    expect(fast).toEqual(total);
  });

  it('a deposit far back created later by its clock (another writer) is among the newest', () => {
    const text = [JSON.stringify(deposit(1, 500)), FILLER, JSON.stringify(deposit(2, 20))].join('\n');
    const { fast, total } = newest(`${text}\n`, 1);
    expect(total.map((e) => e.id)).toEqual([id(1)]);
    expect(fast).toEqual(total);
  });

  it('a creation with a key given twice, far back, is no record to either reader', () => {
    // JSON.parse keeps the last of the two, a read of the line in place the first: neither is believed
    const twice = (n: number, extra: string) =>
      `${JSON.stringify(deposit(n, 5, { ref: 'twice' })).slice(0, -1)},${extra}}`;
    for (const line of [
      twice(3, `"at":"${time(900)}"`),
      twice(3, `"id":"${id(4)}"`),
      twice(1, `"id" : "${id(4)}"`),
      twice(3, `"type":"status"`),
      twice(3, `"\\u0061t":"${time(900)}"`),
    ]) {
      const text = [
        line,
        paid(1, 11),
        FILLER,
        JSON.stringify(deposit(1, 10)),
        JSON.stringify(deposit(2, 20)),
      ];
      const warnings: string[] = [];
      const history = historyOf(`${text.join('\n')}\n`);
      const fast = shown(history.entries(() => true, { limit: 2 }));
      const source = { file: history.file, warn: (w: string) => warnings.push(w) };
      expect(fast).toEqual(shown(allEntries(source, () => true).slice(0, 2)));
      expect(fast.map((e) => [e.id, e.ref, e.status])).toEqual([
        [id(2), undefined, 'WAITING_PAYMENT'],
        [id(1), undefined, 'WAITING_PAYMENT'],
      ]);
      // paid(1) stands before deposit 1's creation: damage too, to the read from the start
      expect(warnings).toEqual([
        `warning: skipped 2 damaged line(s) in ${history.file} (1 with a key given twice, 1 before its deposit's creation)`,
      ]);
    }
  });

  it('a creation a torn write ran into, far back, is the deposit first created', () => {
    const torn = `${JSON.stringify(deposit(3, 5)).slice(0, 60)}${JSON.stringify(deposit(1, 10, { ref: 'first' }))}`;
    const text = [torn, paid(1, 11), FILLER, JSON.stringify(deposit(1, 10)), JSON.stringify(deposit(2, 20))];
    const { fast, total } = newest(`${text.join('\n')}\n`, 2);
    expect(total.map((e) => [e.id, e.ref, e.status])).toEqual([
      [id(2), undefined, 'WAITING_PAYMENT'],
      [id(1), 'first', 'FINALIZED'],
    ]);
    expect(fast).toEqual(total);
  });
});

describe('a creation states only what a creation says', () => {
  it('a created line holding a verification, a final answer, facts or an expiry (written by hand) proves none of them', () => {
    const created = {
      v: 1,
      type: 'created',
      id: id(1),
      profile: 'default',
      baseUrl: 'sandbox',
      at: time(10),
      amountInCents: 1000,
      destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
      splitAddress: null,
      splitFee: null,
      status: 'WAITING_PAYMENT',
      verifiedAt: time(20),
      verifiedTxid: TXID(1),
      facts: { 'settlement.liquidTxid': TXID(1) },
      final: { settlement: { status: 'FINALIZED', liquidTxid: TXID(1) }, confirmedAt: time(15) },
      onChain: 'mismatch',
      expiredAt: time(30),
      statusAt: time(40),
    };
    const history = historyOf(`${JSON.stringify(created)}\n`);
    const plain = {
      ...Object.fromEntries(Object.entries(created).slice(0, 11)),
      statusAt: time(10),
    };
    expect(shown(history.entries())).toEqual([plain]);
    expect(shown(allEntries(history, () => true))).toEqual([plain]);
    expect(shown([history.recorded(id(1), 'sandbox')!])).toEqual([plain]);
    expect(history.entries(() => true, { where: (e) => Boolean(e.verifiedAt) })).toEqual([]);
  });
});
