/**
 * A deposit's status lines written (or moved: a file reversed with `tac`, two tills' histories
 * concatenated newest first) before its created line. Read in order they are about no deposit yet:
 * they are not counted, and the readers that meet them say so in one named warning ("every line
 * either a well-formed record or one counted, named warning"), never in silence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import type { CreatedRecord, StatusRecord } from '../../src/store/history-records.js';
import { LQ } from '../helpers/fixtures.js';
import { createdRecord } from '../helpers/records-history.js';
import { tempDir } from '../helpers/temp.js';

const ids = [1, 2, 3].map((n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);

function created(id: string, n: number): CreatedRecord {
  return createdRecord(id, {
    baseUrl: 'sandbox',
    at: `2026-11-20T10:0${n}:00.000Z`,
    amountInCents: 1000 * (n + 1),
    destinationAddress: LQ,
  });
}

function finalized(id: string, n: number): StatusRecord {
  return {
    v: 1,
    type: 'status',
    id,
    status: 'FINALIZED',
    at: `2026-11-20T11:0${n}:00.000Z`,
    final: {
      settlement: { liquidTxid: String(n).repeat(64), status: 'FINALIZED' },
      confirmedAt: `2026-11-20T10:3${n}:00.000Z`,
    },
    baseUrl: 'sandbox',
  } as StatusRecord;
}

function historyOf(lines: object[]): { history: History; warnings: string[] } {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.map((r) => JSON.stringify(r)).join('\n')}\n`, {
    mode: 0o600,
  });
  const warnings: string[] = [];
  return { history: new History(dir, (line) => warnings.push(line)), warnings };
}

/** What the report's reader (a fold over every deposit) reads of each deposit's status. */
function statuses(history: History): string[] {
  return history.fold(
    () => true,
    () => [] as string[],
    (acc, entry) => acc.push(entry.status),
  );
}

describe('status lines before their created line', () => {
  it('are not counted, and every reader says so in one warning, each line counted as damage', () => {
    const { history, warnings } = historyOf([...ids.map(finalized), ...ids.map(created)]);
    expect(statuses(history)).toEqual(['WAITING_PAYMENT', 'WAITING_PAYMENT', 'WAITING_PAYMENT']);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^warning: skipped 3 damaged line\(s\) in .*history\.ndjson \(3 before its deposit's creation\)$/,
      ),
    ]);
    // the report's reader and the list's say the same, once per command
    expect(history.entries().map((entry) => entry.status)).toEqual([
      'WAITING_PAYMENT',
      'WAITING_PAYMENT',
      'WAITING_PAYMENT',
    ]);
    expect(warnings).toHaveLength(1);
  });

  it("a deposit never created here (a verify of another machine's deposit) is no such line", () => {
    const { history, warnings } = historyOf([finalized(ids[0]!, 1), created(ids[1]!, 2)]);
    expect(statuses(history)).toEqual(['WAITING_PAYMENT']);
    expect(warnings).toEqual([]);
  });

  it('in file order, the same lines are counted and nothing is said', () => {
    const { history, warnings } = historyOf(
      ids.flatMap((id, n) => [created(id, n + 1), finalized(id, n + 1)]),
    );
    expect(statuses(history)).toEqual(['FINALIZED', 'FINALIZED', 'FINALIZED']);
    expect(warnings).toEqual([]);
  });
});
