/**
 * A host's copy of a database ledger (store/ledger-mirror.ts), on a scripted log: what the copy's
 * file holds after each catch-up, how many pages were asked, and that an up-to-date copy is left
 * as it is without its claim (a run catching up on this host meanwhile is not waited for).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimFile, RowClaim } from '../../src/store/claims.js';
import { LedgerMirror } from '../../src/store/ledger-mirror.js';
import { tempDir } from '../helpers/temp.js';

const WHERE = 'postgres://till@db.example.com/ledger';

function scriptedLog(lines: string[], identity = '16384.16412') {
  const asked: number[] = [];
  return {
    asked,
    lines,
    identity: async () => identity,
    logAfter: async (after: number, limit: number) => {
      asked.push(after);
      return lines.slice(after, after + limit).map((line, index) => ({ seq: after + index + 1, line }));
    },
  };
}

/** A clock whose sleeps pass at once, each a minute: the mirror's 120 s wait for a claim ends in a few looks. */
function fastClock() {
  let now = 0;
  return {
    now: () => now,
    sleep: async () => {
      now += 60_000;
    },
  };
}

const line = (n: number) =>
  JSON.stringify({ v: 1, type: 'status', id: `d-${n}`, status: 'FINALIZED', at: 'x' });

describe("a host's copy of the ledger", () => {
  it('takes what is new, and leaves an up-to-date copy as it is without waiting for its claim', async () => {
    const dir = tempDir();
    const mirror = new LedgerMirror(dir, WHERE, () => {});
    const log = scriptedLog([line(1), line(2)]);
    expect(await mirror.catchUp(log, fastClock())).toBe(2);
    expect(fs.readFileSync(mirror.file, 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
    // another run on this host holds the copy's claim: an up-to-date copy needs none
    const held = claimFile(path.join(mirror.dir, 'lock'), 'ledger copy', () => {});
    expect(held).toBeInstanceOf(RowClaim);
    log.asked.length = 0;
    expect(await mirror.catchUp(log, fastClock())).toBe(0);
    expect(log.asked).toEqual([2]);
    // news: taken under the claim, so this run waits for the holder (and says so after 120 s)
    log.lines.push(line(3));
    await expect(mirror.catchUp(log, fastClock())).rejects.toThrow(/held by another lbrl run/);
    (held as RowClaim).release();
    log.asked.length = 0;
    expect(await mirror.catchUp(log, fastClock())).toBe(1);
    // the page asked first was used, not asked again under the claim
    expect(log.asked).toEqual([2]);
    expect(fs.readFileSync(mirror.file, 'utf8')).toBe(`${line(1)}\n${line(2)}\n${line(3)}\n`);
  });

  it('cuts back what a run killed before saving its position left, though the log has nothing new', async () => {
    const dir = tempDir();
    const mirror = new LedgerMirror(dir, WHERE, () => {});
    const log = scriptedLog([line(1)]);
    await mirror.catchUp(log, fastClock());
    fs.appendFileSync(mirror.file, `${line(2)}\n{"v":1,"ty`);
    expect(await mirror.catchUp(log, fastClock())).toBe(0);
    expect(fs.readFileSync(mirror.file, 'utf8')).toBe(`${line(1)}\n`);
  });

  it('reads a copy cut short by hand, or of another database, again whole', async () => {
    const dir = tempDir();
    const mirror = new LedgerMirror(dir, WHERE, () => {});
    await mirror.catchUp(scriptedLog([line(1), line(2)]), fastClock());
    fs.writeFileSync(mirror.file, `${line(1)}\n`);
    expect(await mirror.catchUp(scriptedLog([line(1), line(2)]), fastClock())).toBe(2);
    expect(fs.readFileSync(mirror.file, 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
    expect(await mirror.catchUp(scriptedLog([line(7)], 'another.1'), fastClock())).toBe(1);
    expect(fs.readFileSync(mirror.file, 'utf8')).toBe(`${line(7)}\n`);
  });
});
