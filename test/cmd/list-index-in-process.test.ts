/**
 * `deposit list` over a history file with its creation index (store/history-index.ts): the index
 * answers for the lines before the page only while the file is provably the one it was made from.
 * Each test makes the index, changes the file as a user or a crash can (an edit of the same size
 * with its mtime put back, a backup appended, a truncation, a file replaced, a copied directory, a
 * write not followed by the index's update), and asserts list's stdout is what the same bytes give
 * with no index at all, and what they say (the deposit whose creation is newest comes first).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateResponse } from '../../src/api/models.js';
import { runList } from '../../src/commands/deposit-list.js';
import { fixedFieldsOf } from '../../src/domain/deposit.js';
import { History } from '../../src/store/history.js';
import { keyOfFile, noteAppend } from '../../src/store/history-index.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { createAnswer, LQ } from '../helpers/fixtures.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { createdRecord } from '../helpers/records-history.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const TARGET = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T12:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** Deposit n's time: one minute apart, in file order. */
const timeOf = (n: number) => new Date(Date.parse('2026-11-01T00:00:00.000Z') + n * 60_000).toISOString();
/** A time later than every deposit's, of the same length. */
const LATEST = '2026-11-21T23:59:00.000Z';

afterEach(removeTempDirs);

function created(n: number, at = timeOf(n)): StoredRecord {
  const answer = { ...createAnswer({ amountInCents: 100 + n, lbrlAddress: LQ }), id: id(n), createdAt: at };
  const record = createdRecord(id(n), {
    at,
    amountInCents: 100 + n,
    destinationAddress: LQ,
    baseUrl: TARGET,
    answer: fixedFieldsOf(answer as CreateResponse),
  });
  // its keys in the order `deposit create` writes them (the index holds lines written so)
  const { v, type, id: own, profile, baseUrl, at: time, ...rest } = record;
  return { v, type, id: own, profile, baseUrl, at: time, ...rest } as StoredRecord;
}

function lineOf(record: StoredRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** A history of deposits 1..n, each appended by lbrl (the index follows its appends). */
function historyOf(n: number): { dir: string; file: string } {
  const dir = tempDir();
  const history = new History(dir);
  for (let i = 1; i <= n; i++) history.append([created(i)]);
  return { dir, file: history.file };
}

async function listIn(dir: string): Promise<{ stdout: string; stderr: string }> {
  const term = plainTerminal({ json: true, env: {}, now: () => NOW });
  const history = new History(dir, (line) => term.printer.err(line));
  const seen = await seenRun(term, () =>
    runList({
      flags: {},
      printer: term.printer,
      json: true,
      profileName: 'default',
      ctx: term.ctx,
      history: () => history,
      refresh: {
        targetKey: () => TARGET,
        client: async () => {
          throw new Error('no client in these tests');
        },
        recorder: { record: (records) => history.append(records) },
        expireAfterMs: () => 86_400_000,
        paidAfterExpiry: () => {},
      },
    }),
  );
  expect(seen.error).toBeUndefined();
  return { stdout: seen.stdout, stderr: seen.stderr };
}

/** What list says of the same bytes in a directory with no index. */
async function listWithoutIndex(file: string): Promise<string> {
  const dir = tempDir();
  fs.copyFileSync(file, path.join(dir, 'history.ndjson'));
  return (await listIn(dir)).stdout;
}

/** The file's mtime set back to `mtimeNs` to the nanosecond, as `touch -d` does. */
function touchBack(file: string, mtimeNs: bigint): void {
  const ns = String(mtimeNs % 1_000_000_000n).padStart(9, '0');
  execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${ns}`, file]);
  expect(fs.statSync(file, { bigint: true }).mtimeNs).toBe(mtimeNs);
}

const idsShown = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((e) => e.id);

/** Deposit 5's creation (before the page of 30 of 40) made the newest, the file's size unchanged. */
function deposit5Newest(text: string): string {
  const edited = text.replace(lineOf(created(5)), lineOf(created(5, LATEST)));
  expect(edited.length).toBe(text.length);
  expect(edited).not.toBe(text);
  return edited;
}

async function indexed(): Promise<{ dir: string; file: string; index: string }> {
  const made = historyOf(40);
  const first = await listIn(made.dir);
  expect(idsShown(first.stdout)[0]).toBe(id(40));
  expect(idsShown(first.stdout)).toHaveLength(30);
  const index = `${made.file}.index`;
  expect(fs.statSync(index).mode & 0o777).toBe(0o600);
  return { ...made, index };
}

describe('deposit list never answers from an index of another file', () => {
  it('an edit of the same size, its mtime put back (touch -d): read again, the edited deposit first', async () => {
    const { dir, file } = await indexed();
    const stat = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, deposit5Newest(fs.readFileSync(file, 'latin1')), 0, 'latin1');
    fs.closeSync(fd);
    touchBack(file, stat.mtimeNs);
    expect(fs.statSync(file, { bigint: true }).size).toBe(stat.size);
    const after = await listIn(dir);
    expect(idsShown(after.stdout)[0]).toBe(id(5));
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('a file replaced by one of the same size and mtime (a new inode): read again', async () => {
    const { dir, file } = await indexed();
    const stat = fs.statSync(file, { bigint: true });
    const temp = `${file}.new`;
    fs.writeFileSync(temp, deposit5Newest(fs.readFileSync(file, 'latin1')), {
      encoding: 'latin1',
      mode: 0o600,
    });
    touchBack(temp, stat.mtimeNs);
    fs.renameSync(temp, file);
    const after = await listIn(dir);
    expect(idsShown(after.stdout)[0]).toBe(id(5));
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('a file truncated and written again with other lines: read again', async () => {
    const { dir, file } = await indexed();
    // the first 10 deposits kept, then 40 others, one of them (before the page) the newest
    const lines = [...Array(10).keys()].map((i) => lineOf(created(i + 1)));
    for (let n = 41; n <= 80; n++) lines.push(lineOf(created(n, n === 43 ? LATEST : timeOf(n))));
    fs.truncateSync(file, lines.slice(0, 10).join('').length);
    fs.appendFileSync(file, lines.slice(10).join(''));
    const after = await listIn(dir);
    expect(idsShown(after.stdout)[0]).toBe(id(43));
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('a backup appended (cat backup >> history): each deposit once, as with no index', async () => {
    const { dir, file } = await indexed();
    const before = (await listIn(dir)).stdout;
    fs.appendFileSync(file, fs.readFileSync(file));
    const after = await listIn(dir);
    expect(after.stdout).toBe(before);
    expect(new Set(idsShown(after.stdout)).size).toBe(30);
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('a write the index never followed (a crash between the append and its update): read again', async () => {
    const { dir, file } = await indexed();
    // what an append killed before its index update leaves: the line written, the old key
    fs.appendFileSync(file, lineOf(created(41)));
    const text = fs.readFileSync(file, 'latin1');
    // and the file then edited in place (same size) before list runs
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, deposit5Newest(text), 0, 'latin1');
    fs.closeSync(fd);
    const after = await listIn(dir);
    expect(idsShown(after.stdout).slice(0, 2)).toEqual([id(5), id(41)]);
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('a config directory copied with its index (cp -p): the copy is read again', async () => {
    const { dir, file } = await indexed();
    const copy = tempDir();
    for (const name of fs.readdirSync(dir)) {
      const from = path.join(dir, name);
      const to = path.join(copy, name);
      const stat = fs.statSync(from);
      fs.copyFileSync(from, to);
      fs.utimesSync(to, stat.atime, stat.mtime);
    }
    const copied = path.join(copy, 'history.ndjson');
    const fd = fs.openSync(copied, 'r+');
    fs.writeSync(fd, deposit5Newest(fs.readFileSync(file, 'latin1')), 0, 'latin1');
    fs.closeSync(fd);
    expect(idsShown((await listIn(copy)).stdout)[0]).toBe(id(5));
  });

  it("an edit of the same size, then lbrl's own append: the append does not adopt the edited file", async () => {
    const { dir, file } = await indexed();
    const stat = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, deposit5Newest(fs.readFileSync(file, 'latin1')), 0, 'latin1');
    fs.closeSync(fd);
    touchBack(file, stat.mtimeNs);
    new History(dir).append([created(41)]);
    const after = await listIn(dir);
    expect(idsShown(after.stdout).slice(0, 2)).toEqual([id(5), id(41)]);
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('another writer between the key before an append and the key after: the index is dropped', async () => {
    const { dir, file, index } = await indexed();
    const before = keyOfFile(file)!;
    // another process's line (deposit 99, the newest) lands before lbrl's own
    fs.appendFileSync(file, lineOf(created(99, LATEST)));
    const own = Buffer.from(lineOf(created(41)));
    fs.appendFileSync(file, own);
    noteAppend(file, before, keyOfFile(file)!, own);
    expect(fs.existsSync(index)).toBe(false);
    // 30 more: that line is now before the page
    const history = new History(dir);
    for (let n = 42; n <= 71; n++) history.append([created(n)]);
    const after = await listIn(dir);
    expect(idsShown(after.stdout)[0]).toBe(id(99));
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it("lbrl's own appends keep the index: it grows in place, and list shows what was appended", async () => {
    const { dir, file, index } = await indexed();
    const inode = fs.statSync(index).ino;
    const size = fs.statSync(index).size;
    const history = new History(dir);
    history.append([created(41), created(42, LATEST)]);
    history.append([{ v: 1, type: 'status', id: id(41), status: 'FINALIZED', at: LATEST }]);
    expect(fs.statSync(index).ino).toBe(inode);
    expect(fs.statSync(index).size).toBe(size + 2 * 32);
    const after = await listIn(dir);
    expect(idsShown(after.stdout).slice(0, 2)).toEqual([id(42), id(41)]);
    expect(fs.statSync(index).ino).toBe(inode);
    expect(after.stdout).toBe(await listWithoutIndex(file));
  });

  it('a creation whose time is in another form: the index stops before it, and list still sees it', async () => {
    const dir = tempDir();
    const history = new History(dir);
    for (let n = 1; n <= 40; n++) history.append([created(n, n === 5 ? '2026-11-21T23:59:00Z' : timeOf(n))]);
    history.append([created(41, '2026-11-21T23:58:00.000Z')]);
    const shown = idsShown((await listIn(dir)).stdout);
    expect(shown.slice(0, 2)).toEqual([id(5), id(41)]);
    expect((await listIn(dir)).stdout).toBe(await listWithoutIndex(history.file));
  });

  it('an index damaged or planted as a link is not read, and is made again', async () => {
    const { dir, file, index } = await indexed();
    const expected = (await listIn(dir)).stdout;
    fs.truncateSync(index, 100);
    expect((await listIn(dir)).stdout).toBe(expected);
    expect(fs.statSync(index).size).toBeGreaterThan(100);
    const elsewhere = path.join(tempDir(), 'target');
    fs.copyFileSync(index, elsewhere);
    fs.rmSync(index);
    fs.symlinkSync(elsewhere, index);
    fs.writeFileSync(file, deposit5Newest(fs.readFileSync(file, 'latin1')), 'latin1');
    expect(idsShown((await listIn(dir)).stdout)[0]).toBe(id(5));
    expect(fs.lstatSync(index).isSymbolicLink()).toBe(false);
  });
});
