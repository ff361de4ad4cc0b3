/**
 * Reading the ledger is total, and one deposit is one record: every line is a well-formed
 * record or one counted, named warning; a line repeated anywhere (a backup appended to the
 * history, a created line copied after its statuses) changes nothing; no line can crash a reader.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addToSums, emptySums, type ReportSums } from '../../src/deposits/ledger.js';
import { History } from '../../src/store/history.js';
import type { CreatedRecord, StoredRecord } from '../../src/store/history-records.js';
import { readRecordLine } from '../../src/store/record-read.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 10, 20) + n * 60_000).toISOString();

function created(n: number, cents = 1000 + n): CreatedRecord {
  const fee = Math.floor(cents / 100);
  return {
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl: 'sandbox',
    at: at(n),
    amountInCents: cents,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    answer: {
      amount: cents / 100,
      feeAmount: fee / 100,
      netAmount: (cents - fee) / 100,
      splitPercent: null,
      qrCodeText: 'x',
      createdAt: at(n),
    },
  };
}
const status = (n: number, s: string, minutes = 1): StoredRecord => ({
  v: 1,
  type: 'status',
  id: id(n),
  status: s,
  at: at(n + minutes),
});

/** Deposits 1..n: every third finalized, every third failed, the rest waiting (some expired). */
function ledger(count: number): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (let n = 1; n <= count; n++) {
    out.push(created(n));
    if (n % 3 === 0) out.push(status(n, 'PIX_CONFIRMED'), status(n, 'FINALIZED', 2));
    else if (n % 3 === 1) out.push(status(n, 'FAILED'));
    else if (n % 2 === 0) out.push({ v: 1, type: 'expired', id: id(n), at: at(n + 5) });
  }
  return out;
}

const lines = (records: StoredRecord[]) => records.map((r) => JSON.stringify(r)).join('\n');

function fileOf(text: string): { history: History; warned: string[] } {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), text, { mode: 0o600 });
  const warned: string[] = [];
  return { history: new History(dir, (line) => warned.push(line)), warned };
}

const all = () => true;
function report(history: History): ReportSums {
  return history.fold(all, emptySums, addToSums);
}
/** What every reader says of the file: the fold (report), entries (list), pending (watch). */
function views(history: History) {
  return {
    report: report(history),
    entries: history.entries(all).map((e) => [e.id, e.status, e.expiredAt ?? null]),
    pending: history.pending(all).map((e) => [e.id, e.status]),
    one: history.recorded(id(3), 'sandbox')?.status,
  };
}

describe('one deposit, one record', () => {
  const base = ledger(60);
  const expected = views(fileOf(`${lines(base)}\n`).history);

  it('the report adds up as a person would: 20 paid, 20 failed', () => {
    expect(expected.report).toMatchObject({ createdCount: 60, finalizedCount: 20, failedCount: 20 });
  });

  it('a backup appended to the history changes no total and no status', () => {
    const text = `${lines(base)}\n`;
    expect(views(fileOf(text + text).history)).toEqual(expected);
    expect(views(fileOf(text + text + text).history)).toEqual(expected);
  });

  it('an older backup appended after later statuses does not take them back', () => {
    const older = base.filter((r) => r.type === 'created');
    expect(views(fileOf(`${lines(base)}\n${lines(older)}\n`).history)).toEqual(expected);
  });

  it('a created line repeated after its statuses does not reset the deposit to WAITING', () => {
    const { history } = fileOf(`${lines(base)}\n${JSON.stringify(created(3))}\n`);
    expect(history.recorded(id(3), 'sandbox')?.status).toBe('FINALIZED');
    expect(views(history)).toEqual(expected);
    // the first deposits of a long file too, past any window of recent ones
    const long = ledger(6000);
    const again = fileOf(`${lines(long)}\n${lines(long.slice(0, 20))}\n`).history;
    expect(report(again)).toEqual(report(fileOf(`${lines(long)}\n`).history));
    expect(again.entries(all, { limit: 6000 }).find((e) => e.id === id(3))?.status).toBe('FINALIZED');
    // a list of the newest few, which stops reading early, still finds the first creation
    const copied = fileOf(`${lines(long)}\n${JSON.stringify(created(3))}\n`).history;
    expect(copied.entries(all, { limit: 5 }).map((e) => [e.id, e.status])).toEqual(
      fileOf(`${lines(long)}\n`)
        .history.entries(all, { limit: 5 })
        .map((e) => [e.id, e.status]),
    );
    expect(copied.recorded(id(3), 'sandbox')?.status).toBe('FINALIZED');
  });

  it('the store never writes a second creation of an id on one service', () => {
    const { history, warned } = fileOf(`${lines(base)}\n`);
    const size = fs.statSync(history.file).size;
    history.append([{ ...created(3), amountInCents: 99 }]);
    expect(fs.statSync(history.file).size).toBe(size);
    expect(warned).toEqual([expect.stringContaining(`deposit ${id(3)} is already in`)]);
    // on another service the same id is another deposit (the sandbox and a live service may both
    // hand it out): one record per deposit per service
    history.append([{ ...created(3), baseUrl: LIVE }]);
    expect(fs.statSync(history.file).size).toBeGreaterThan(size);
    expect(history.recorded(id(3), LIVE)?.status).toBe('WAITING_PAYMENT');
    history.append([{ ...created(3), baseUrl: LIVE, amountInCents: 7 }]);
    expect(warned).toHaveLength(2);
  });
});

const LIVE = 'https://pay.example.com';

describe('one id on two services is two deposits: a status moves only its own', () => {
  const named = (n: number, s: string, baseUrl: string): StoredRecord => ({ ...status(n, s), baseUrl });
  const views2 = (history: History) => ({
    sandbox: history.recorded(id(3), 'sandbox')?.status,
    live: history.recorded(id(3), LIVE)?.status,
    list: history
      .entries(all, { limit: 100 })
      .filter((e) => e.id === id(3))
      .map((e) => [e.baseUrl, e.status]),
    report: history
      .fold(
        all,
        () => [] as string[],
        (acc, e) => {
          if (e.id === id(3)) acc.push(`${e.baseUrl} ${e.status}`);
        },
      )
      .sort(),
    pending: history
      .pending(all)
      .filter((e) => e.id === id(3))
      .map((e) => e.baseUrl),
  });

  it("a status naming its service is that deposit's alone, in every reader", () => {
    const text = lines([created(3), { ...created(3), baseUrl: LIVE }, named(3, 'FINALIZED', LIVE)]);
    const { history } = fileOf(`${text}\n`);
    expect(views2(history)).toEqual({
      sandbox: 'WAITING_PAYMENT',
      live: 'FINALIZED',
      // newest first: created at the same time, the later line first
      list: [
        [LIVE, 'FINALIZED'],
        ['sandbox', 'WAITING_PAYMENT'],
      ],
      report: [`${LIVE} FINALIZED`, 'sandbox WAITING_PAYMENT'],
      pending: ['sandbox'],
    });
  });

  it('a status of an older release (no service) is of the deposit created before it when its id is on one service; of none on two', () => {
    // written by the previous release: the id on the sandbox only, its status without a service
    const old = lines([created(3), status(3, 'FINALIZED')]);
    const { history } = fileOf(`${old}\n`);
    expect(history.recorded(id(3), 'sandbox')?.status).toBe('FINALIZED');
    // then the same id on a live service: the old status stays the sandbox's
    history.append([{ ...created(3), baseUrl: LIVE }]);
    expect(views2(history)).toMatchObject({ sandbox: 'FINALIZED', live: 'WAITING_PAYMENT' });
    // a status without a service after both creations is of neither
    history.append([status(3, 'FAILED', 3)]);
    expect(views2(history)).toMatchObject({ sandbox: 'FINALIZED', live: 'WAITING_PAYMENT' });
  });

  it("the status lbrl now writes names its service, and a second service's same status is still news", () => {
    const { history } = fileOf(`${lines([created(3), named(3, 'FINALIZED', 'sandbox')])}\n`);
    history.append([{ ...created(3), baseUrl: LIVE }]);
    history.append([named(3, 'FINALIZED', LIVE)]);
    expect(views2(history)).toMatchObject({ sandbox: 'FINALIZED', live: 'FINALIZED' });
    const written = fs
      .readFileSync(history.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(written.filter((r) => r.type === 'status').map((r) => r.baseUrl)).toEqual(['sandbox', LIVE]);
  });
});

describe('every line is a record or a named warning', () => {
  it('said once per command: a reader that reads the file three times warns once, and again when the damage changes', () => {
    const good = [created(1), created(2), status(2, 'FINALIZED')];
    const { history, warned } = fileOf(`${lines(good)}\n{"v":1,"type":"status",\n`);
    for (let i = 0; i < 3; i++) {
      history.recorded(id(1), 'sandbox');
      [...history.read()];
    }
    expect(warned).toEqual([
      expect.stringMatching(/^warning: skipped 1 damaged line\(s\) in .* \(1 not a JSON record\)$/),
    ]);
    fs.appendFileSync(history.file, 'garbage\n');
    [...history.read()];
    expect(warned).toHaveLength(2);
    expect(warned[1]).toMatch(/skipped 2 damaged line\(s\)/);
  });

  const sortedKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortedKeys)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
          )
        : value;

  it('records re-serialised with sorted keys (jq -S), spaces, CRLF or without a version read as written', () => {
    const base = ledger(30);
    const expected = views(fileOf(`${lines(base)}\n`).history);
    const forms = [
      (r: StoredRecord) => JSON.stringify(sortedKeys(r)),
      (r: StoredRecord) =>
        `{ ${JSON.stringify(r).slice(1, -1).replace(/":/g, '": ').replace(/,"/g, ', "')} }`,
      (r: StoredRecord) => `  ${JSON.stringify(r)}\r`,
      (r: StoredRecord) => {
        const { v: _v, ...old } = r;
        return JSON.stringify(old);
      },
    ];
    for (const form of forms) {
      const { history, warned } = fileOf(`${base.map(form).join('\n')}\n`);
      expect(views(history)).toEqual(expected);
      expect(warned).toEqual([]);
    }
  });

  it('absurd dates, amounts and versions are named, counted, and left out of every sum', () => {
    const good = ledger(9);
    const bad = [
      { ...created(101), at: '+275760-09-13T00:00:00.000Z' },
      { ...created(102), at: '-000001-01-01T00:00:00.000Z' },
      { ...created(103), at: 'yesterday' },
      { ...created(104), amountInCents: -500 },
      { ...created(105), answer: { ...created(105).answer!, feeAmount: -5, netAmount: 15.5 } },
      { ...created(106), answer: { ...created(106).answer!, netAmount: 1e300 } },
      { ...created(107), v: 7 },
      { ...status(3, 'FINALIZED'), at: '275760-09-13T00:00:00.000Z' },
      '{"v":1,"type":"created"',
      '[1,2,3]',
      '{"v":1,"type":"refund","id":"x"}',
    ].map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
    const { history, warned } = fileOf(`${lines(good)}\n${bad.join('\n')}\n`);
    expect(report(history)).toEqual(report(fileOf(`${lines(good)}\n`).history));
    expect(warned).toEqual([
      expect.stringMatching(
        /skipped 11 damaged line\(s\) in .*\(2 not a JSON record, 1 of an unknown type, 1 written by a newer lbrl, 4 with a time no clock wrote, 3 with amounts that do not add up\)$/,
      ),
    ]);
  });

  it('the year 9999 is a time: read, listed and summed', () => {
    const { history, warned } = fileOf(
      `${JSON.stringify({ ...created(1), at: '9999-12-31T09:00:00.000Z' })}\n`,
    );
    expect(history.entries(all).map((e) => e.at)).toEqual(['9999-12-31T09:00:00.000Z']);
    expect(report(history).createdCount).toBe(1);
    expect(warned).toEqual([]);
  });

  it('a run of NUL bytes longer than the read buffer (a crash) swallows no record after it', () => {
    const base = ledger(12);
    const text = `${lines(base.slice(0, 10))}\n${'\0'.repeat(3 << 20)}${lines(base.slice(10))}\n`;
    const { history, warned } = fileOf(text);
    expect(views(history)).toEqual(views(fileOf(`${lines(base)}\n`).history));
    expect([...history.read()].length).toBe(base.filter((r) => r.type !== 'expired').length);
    expect(warned).toEqual([]);
  });
});

describe('no line can crash a reader (fast-check)', () => {
  const valid = ledger(12).map((r) => JSON.stringify(r));
  /** A line: a valid record bent (a field dropped, changed, retyped, cut), or any text at all. */
  const line = fc.oneof(
    fc.constantFrom(...valid),
    fc.tuple(fc.constantFrom(...valid), fc.nat(), fc.anything()).map(([text, n, value]) => {
      const record = JSON.parse(text) as Record<string, unknown>;
      const keys = Object.keys(record);
      record[keys[n % keys.length]!] = value;
      return JSON.stringify(record) ?? 'undefined';
    }),
    fc.tuple(fc.constantFrom(...valid), fc.nat()).map(([text, n]) => text.slice(0, n % text.length)),
    fc.string({ unit: 'binary' }),
    fc.json(),
  );

  it('every reader returns, and every line not a record is counted once', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (texts) => {
        const body = texts.map((t) => t.replace(/\n/g, ' ')).join('\n');
        const { history, warned } = fileOf(body);
        views(history);
        history.batchState('default', 'sandbox');
        history.sharesOf('ab'.repeat(32));
        history.recentIds(all, 5);
        // one forward read of a fresh reader (one History says a warning once): the warning
        // counts exactly the lines that are not records
        warned.length = 0;
        const read = [...new History(history.dir, (l) => warned.push(l)).read()].length;
        const damaged = /skipped (\d+) damaged/.exec(warned.join('\n'))?.[1] ?? '0';
        const lineTexts = body.split(/[\n\0]/).filter((t) => t.trim() !== '');
        const records = lineTexts.filter((t) => readRecordLine(t.trim()).ok);
        const others = records.filter((t) => /"type":\s*"(verified|unverified|expired)"/.test(t)).length;
        expect(Number(damaged)).toBeGreaterThanOrEqual(lineTexts.length - records.length);
        expect(read).toBeLessThanOrEqual(records.length - others + Number(damaged));
      }),
      { numRuns: 60 },
    );
  });
});
