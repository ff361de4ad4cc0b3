/**
 * Many creates at once (create --from): sent with bounded concurrency under one shared
 * back-off, each through createChecked, resumable from the local history.
 *
 * Rows are recognised for --resume by a key: the SHA-256 of the checked request body and
 * how many identical rows came before it in the file. So editing, adding or reordering
 * other rows does not change a row's key, and two identical rows stay two deposits.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RetryInfo } from '../api/client.js';
import type { CreateRequest } from '../api/models.js';
import { type ErrorType, interrupted, LbrlError } from '../errors.js';
import type { AttemptRecord } from '../store/history.js';
import { createChecked } from './create.js';
import type { Clock, DepositApi, HistoryReader, Recorder, Scope } from './ports.js';

export function rowKeys(bodies: CreateRequest[]): string[] {
  const seen = new Map<string, number>();
  return bodies.map((b) => {
    const canonical = JSON.stringify([
      b.amountInCents,
      b.lbrlAddress,
      b.lbrlSplitAddress ?? null,
      b.splitFee ?? null,
    ]);
    const n = seen.get(canonical) ?? 0;
    seen.set(canonical, n + 1);
    return createHash('sha256').update(`${canonical}#${n}`).digest('hex');
  });
}

/** What one row came to: the line printed for it, and its exit code when it failed. */
export interface RowOutcome {
  line: Record<string, unknown>;
  ok: boolean;
  exitCode: number;
  /** a failed row's error type */
  type?: ErrorType;
}

export interface BatchRow {
  /** the row's number in the input, for messages */
  row: number;
  body: CreateRequest;
}

export interface BatchDeps {
  /** the client; its retries report through onRetry so a 429 pauses every row */
  api(onRetry: (info: RetryInfo) => void): Promise<DepositApi>;
  history: HistoryReader;
  recorder: Recorder;
  scope: Scope;
  clock: Clock;
}

/** What earlier runs of the scope did: rows created, and idempotency keys already tried. */
function earlierRuns(history: HistoryReader, scope: Scope) {
  const done = new Map<string, { id: string; status: string }>();
  const attempted = new Map<string, string>();
  for (const r of history.read()) {
    if (r.type === 'status' || r.profile !== scope.profile || r.baseUrl !== scope.target) continue;
    if (r.type === 'created' && r.batchKey) done.set(r.batchKey, { id: r.id, status: r.status });
    if (r.type === 'attempt') attempted.set(r.batchKey, r.idempotencyKey);
  }
  return { done, attempted };
}

/**
 * Send every row; `progress` is called after each row with all outcomes known so far (in row
 * order, with holes). Throws when any row was not created, with the rows' common exit code.
 */
export async function createBatch(
  rows: BatchRow[],
  o: { concurrency: number; resume: boolean },
  deps: BatchDeps,
  progress: (outcomes: ReadonlyArray<RowOutcome | undefined>, finished: number) => void,
): Promise<RowOutcome[]> {
  const { clock, scope } = deps;
  const keys = rowKeys(rows.map((r) => r.body));
  const { done, attempted } = o.resume
    ? earlierRuns(deps.history, scope)
    : { done: new Map<string, { id: string; status: string }>(), attempted: new Map<string, string>() };

  // one shared gate: a 429 seen by any request pauses them all
  let pauseUntil = 0;
  const api = await deps.api((info) => {
    if (info.status === 429) pauseUntil = Math.max(pauseUntil, clock.now() + info.delayMs);
  });

  const outcomes: Array<RowOutcome | undefined> = new Array(rows.length);
  let finished = 0;
  let stopAll: LbrlError | undefined;

  const sendRow = async (i: number): Promise<RowOutcome> => {
    const { row, body } = rows[i]!;
    const batchKey = keys[i]!;
    const prior = done.get(batchKey);
    if (prior)
      return {
        ok: true,
        exitCode: 0,
        line: { row, deposit: { id: prior.id, status: prior.status }, resumed: true },
      };
    if (stopAll) {
      return {
        ok: false,
        exitCode: stopAll.exitCode,
        type: stopAll.type,
        line: {
          row,
          error: { type: stopAll.type, message: `not sent: ${stopAll.message}`, exitCode: stopAll.exitCode },
        },
      };
    }
    const wait = pauseUntil - clock.now();
    if (wait > 0) {
      try {
        await clock.sleep(wait, clock.signal);
      } catch {
        stopAll = interrupted();
        return sendRow(i);
      }
    }
    const idempotencyKey = attempted.get(batchKey) ?? randomUUID();
    const attempt: AttemptRecord = {
      v: 1,
      type: 'attempt',
      profile: scope.profile,
      baseUrl: scope.target,
      batchKey,
      idempotencyKey,
      at: new Date(clock.now()).toISOString(),
    };
    deps.recorder.record([attempt]);
    try {
      const { raw } = await createChecked(
        { api, recorder: deps.recorder, scope, now: clock.now },
        body,
        idempotencyKey,
        batchKey,
      );
      return { ok: true, exitCode: 0, line: { row, deposit: raw } };
    } catch (error) {
      if (!(error instanceof LbrlError)) throw error;
      if (error.type === 'auth' || error.type === 'interrupted') stopAll = error;
      return {
        ok: false,
        exitCode: error.exitCode,
        type: error.type,
        line: { row, error: { type: error.type, message: error.message, exitCode: error.exitCode } },
      };
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      outcomes[i] = await sendRow(i);
      finished += 1;
      progress(outcomes, finished);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, rows.length) }, worker));

  const all = outcomes as RowOutcome[];
  const failed = all.filter((x) => !x.ok);
  if (stopAll?.type === 'interrupted') throw stopAll;
  if (failed.length > 0) {
    // the rows' own exit code when they share one, else 1
    const codes = new Set(failed.map((f) => f.exitCode));
    const type = (codes.size === 1 ? failed[0]!.type : undefined) ?? 'service';
    throw new LbrlError(
      `${failed.length} of ${rows.length} row(s) were not created (rows ${failed.map((f) => f.line.row).join(', ')}); re-run with --resume to retry only those`,
      type,
    );
  }
  return all;
}
