/**
 * Two things every reader of the file history does alike. A carriage return ends a line, alone
 * (an old Mac's line ends, or a tool that wrote them) as before a newline: list, report,
 * reconcile, get, export and ledger import read every record of such a file, with no warning.
 * And a get (one deposit, the other ids' lines passed over unread) says the damaged lines it
 * read, those that may be the deposit's own: a line whose id is no deposit id, a damaged line
 * before the deposit's creation, its own line damaged, each counted and named once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import { allEntries } from '../../src/store/history-forward.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const SERVICE = 'https://pay.example.com';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const created = (n: number, at = `2026-11-23T12:0${n % 10}:00.000Z`) =>
  JSON.stringify({
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl: SERVICE,
    at,
    amountInCents: 1000 + n,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  });
const status = (n: number, value: string, at = '2026-11-23T13:00:00.000Z') =>
  JSON.stringify({ v: 1, type: 'status', id: id(n), baseUrl: SERVICE, status: value, at });
const verified = (n: number) =>
  JSON.stringify({
    v: 1,
    type: 'verified',
    id: id(n),
    baseUrl: SERVICE,
    txid: 'cd'.repeat(32),
    at: '2026-11-23T14:00:00.000Z',
  });

function historyOf(text: string): { history: History; warned: string[] } {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), text, { mode: 0o600 });
  const warned: string[] = [];
  return { history: new History(dir, (line) => warned.push(line)), warned };
}

const LINES = [created(1), status(1, 'FINALIZED'), verified(1), created(2), status(2, 'FAILED'), created(3)];
const shown = (entries: HistoryEntry[]) =>
  entries
    .map((e) => [e.id, e.status, e.verifiedTxid ?? null])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/** What each command reads of the history, through the History it is given. */
function everyReader(history: History) {
  const folded: HistoryEntry[] = [];
  history.fold(
    () => true,
    () => folded,
    (acc, e) => {
      acc.push(e);
    },
  );
  return {
    list: shown(history.entries()),
    'list --limit 1': shown(history.entries(() => true, { limit: 1 })),
    'report, reconcile': shown(folded),
    get: [1, 2, 3].map((n) => history.recorded(id(n), SERVICE)?.status),
    'export, ledger import': [...history.stored()].map((r) => `${r.type} ${'id' in r ? r.id : ''}`),
    'watch --pending': shown(history.pending()),
    'create (holds)': history.holds(id(3)) && !history.holds(id(4)),
  };
}

describe('a carriage return ends a line, in every reader', () => {
  const expected = everyReader(historyOf(`${LINES.join('\n')}\n`).history);

  it.each([
    ['CR alone (an old Mac)', `${LINES.join('\r')}\r`],
    ['CR alone, no end to the last line', LINES.join('\r')],
    ['CRLF (Windows)', `${LINES.join('\r\n')}\r\n`],
    [
      'a mix of the three',
      `${LINES.slice(0, 2).join('\r')}\r\n${LINES.slice(2, 4).join('\n')}\n${LINES.slice(4).join('\r')}\r`,
    ],
  ])('%s: every record read, no warning', (_, text) => {
    const { history, warned } = historyOf(text);
    expect(everyReader(history)).toEqual(expected);
    expect(expected.list).toHaveLength(3);
    expect(expected['report, reconcile']).toContainEqual([id(1), 'FINALIZED', 'cd'.repeat(32)]);
    expect(warned).toEqual([]);
  });

  it('a CR-ended file longer than a read (1 MiB): the search from the end agrees with the total reader', () => {
    const many = Array.from({ length: 6000 }, (_, n) => created(n + 10, `2026-11-2${n % 3}T12:00:00.000Z`));
    const { history, warned } = historyOf(`${[...many, ...LINES].join('\r')}\r`);
    expect(fs.statSync(history.file).size).toBeGreaterThan(1 << 20);
    const total = allEntries(history, () => true);
    expect(history.entries(() => true, { limit: 5 }).map((e) => e.id)).toEqual(
      total.slice(0, 5).map((e) => e.id),
    );
    expect(total).toHaveLength(6003);
    expect(warned).toEqual([]);
  });
});

/** A line as a tool that sorts keys writes it (jq -S): not as lbrl writes it, read whole. */
const sortedKeys = (line: string) =>
  JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(line)).sort(([a], [b]) => a.localeCompare(b))));
const BOM = '\uFEFF';

describe('a byte order mark (a file saved by Notepad) is no part of the first record', () => {
  const expected = everyReader(historyOf(`${LINES.join('\n')}\n`).history);

  it.each([
    ['BOM, LF', `${BOM}${LINES.join('\n')}\n`],
    ['BOM, CRLF, no end to the last line (Notepad)', `${BOM}${LINES.join('\r\n')}`],
    ['BOM before a line in sorted keys', `${BOM}${[sortedKeys(LINES[0]!), ...LINES.slice(1)].join('\n')}\n`],
    ['BOM before every line (files joined)', `${LINES.map((line) => BOM + line).join('\r\n')}\r\n`],
  ])('%s: every record read, no warning', (_, text) => {
    const { history, warned } = historyOf(text);
    expect(everyReader(history)).toEqual(expected);
    expect(warned).toEqual([]);
  });

  it.each([
    ['LF', `${BOM}${LINES.join('\n')}`],
    ['CRLF', `${BOM}${LINES.join('\r\n')}`],
    ['CRLF, sorted keys', `${BOM}${[...LINES.slice(0, 5), sortedKeys(LINES[5]!)].join('\r\n')}`],
  ])('a record appended to a file whose last line has no end (%s) runs into nothing', (_, text) => {
    const { history, warned } = historyOf(text);
    history.append([JSON.parse(created(4))]);
    history.append([JSON.parse(created(5))]);
    const after = new History(history.dir, (line) => warned.push(line));
    expect(after.entries().map((e) => e.id)).toEqual([id(5), id(4), id(3), id(2), id(1)]);
    expect(after.recorded(id(3), SERVICE)?.status).toBe('WAITING_PAYMENT');
    expect(after.recorded(id(1), SERVICE)?.status).toBe('FINALIZED');
    expect(warned).toEqual([]);
    // lbrl's own lines end in LF; the file's earlier line ends are left as they were
    expect(fs.readFileSync(history.file, 'utf8').endsWith(`${created(4)}\n${created(5)}\n`)).toBe(true);
  });
});

describe("deposit get says the damaged lines that may be the deposit's own", () => {
  const cases: Array<[string, string[], string]> = [
    [
      'its status line with a time no clock wrote',
      [created(1), status(1, 'FINALIZED', 'soon'), created(2)],
      '1 with a time no clock wrote',
    ],
    // the id is no deposit id: read whole, whoever's it was
    [
      'its status line with the id damaged',
      [created(1), status(1, 'FINALIZED').replace(id(1), `${id(1).slice(0, 35)}Z`), created(2)],
      '1 with a field missing or malformed',
    ],
    [
      'its status line with the id cut',
      [created(1), status(1, 'FINALIZED').replace(id(1), id(1).slice(0, 30)), created(2)],
      '1 with a field missing or malformed',
    ],
    // before where the read from the end stopped: a damaged creation may be this deposit's first
    [
      'a damaged creation before its own',
      [`${created(1).slice(0, 60)}`, created(1), status(1, 'FINALIZED')],
      '1 not a JSON record',
    ],
    [
      'a creation with an escape before its own, damaged',
      [
        created(1).replace('"created"', '"cr\\u0065ated"').replace('"at":"', '"at":"x'),
        created(1),
        created(2),
      ],
      '1 with a time no clock wrote',
    ],
  ];
  it.each(cases)('%s: one warning, counted and named', (_, lines, named) => {
    const { history, warned } = historyOf(`${lines.join('\n')}\n`);
    expect(history.recorded(id(1), SERVICE)?.id).toBe(id(1));
    history.recorded(id(1), SERVICE);
    expect(warned).toEqual([`warning: skipped 1 damaged line(s) in ${history.file} (${named})`]);
  });

  it("another deposit's damaged line, its id whole, is not read: no warning", () => {
    const { history, warned } = historyOf(
      `${[created(1), status(2, 'FINALIZED', 'soon'), created(2)].join('\n')}\n`,
    );
    expect(history.recorded(id(1), SERVICE)?.status).toBe('WAITING_PAYMENT');
    expect(warned).toEqual([]);
  });
});
