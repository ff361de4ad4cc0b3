/**
 * Many creates at once (create --from): sent with bounded concurrency under one shared
 * back-off, each through createChecked, resumable from the local history.
 *
 * Rows are recognised for --resume by a key: the SHA-256 of the checked request body and
 * how many identical rows came before it in the file. So editing, adding or reordering
 * other rows does not change a row's key, and two identical rows stay two deposits.
 *
 * With --resume a row is created once however many runs of the file overlap: each row is
 * claimed (store/claims.ts), the history is read again under the claim, and the row is sent
 * with an Idempotency-Key derived from (profile, service, row key), so every run sends the
 * same key for the same row. Without --resume every row gets a fresh key: a deliberate re-run
 * makes new deposits.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RetryInfo } from '../api/client.js';
import type { CreateRequest } from '../api/models.js';
import { type LocalFields, withLocalFields } from '../domain/text/reference.js';
import { type ErrorType, interrupted, LbrlError } from '../errors.js';
import type { ClaimWaitOptions, RowTurn } from '../store/claims.js';
import type { AttemptRecord } from '../store/history-records.js';
import { createChecked } from './create.js';
import type { DepositApi, FlowClock, Recorder, Scope } from './ports.js';

/**
 * The rows' keys. A row's reference is part of it (two orders of the same amount are two
 * deposits); a row without one keeps the key an older lbrl gave it, so --resume still knows it.
 * The note is not: editing a comment does not make a new charge.
 */
export function rowKeys(bodies: CreateRequest[], refs: ReadonlyArray<string | undefined> = []): string[] {
  const seen = new Map<string, number>();
  return bodies.map((request, index) => {
    const ref = refs[index];
    const canonical = JSON.stringify([
      request.amountInCents,
      request.lbrlAddress,
      request.lbrlSplitAddress ?? null,
      request.splitFee ?? null,
      ...(ref !== undefined ? [{ ref }] : []),
    ]);
    const seenBefore = seen.get(canonical) ?? 0;
    seen.set(canonical, seenBefore + 1);
    return createHash('sha256').update(`${canonical}#${seenBefore}`).digest('hex');
  });
}

/** How a row ended: created now, created by an earlier or overlapping run (resumed), or failed. */
export type RowKind = 'created' | 'resumed' | 'failed';

/** What one row came to: the line printed for it, and its exit code when it failed. */
export interface RowOutcome {
  line: Record<string, unknown>;
  kind: RowKind;
  ok: boolean;
  exitCode: number;
  /** a failed row's error type */
  type?: ErrorType;
}

export interface BatchRow {
  /** the row's number in the input, for messages */
  row: number;
  body: CreateRequest;
  /** the row's reference and note: kept in the ledger with its deposit, never sent */
  local?: LocalFields;
}

/** The rows of one file as earlier and overlapping runs left them (store/claims.ts ResumableRows). */
export interface RowTurns {
  /** created before this run looked: report it, send nothing */
  done(rowKey: string): { id: string; status: string } | undefined;
  /** waits for the row's claim, then looks again: done, or this run's to send with the key given */
  begin(rowKey: string, wait: ClaimWaitOptions): Promise<RowTurn>;
}

export interface BatchDeps {
  /** the client; its retries report through onRetry so a 429 pauses every row */
  api(onRetry: (info: RetryInfo) => void): Promise<DepositApi>;
  recorder: Recorder;
  scope: Scope;
  clock: FlowClock;
  /** with --resume: what earlier and overlapping runs of the file did, for these row keys */
  resumable?: (keys: string[]) => RowTurns;
}

/** How long a row held by another run is waited for before it is reported failed. */
export const CLAIM_WAIT_MS = 120_000;
/** How often a held row is looked at again. */
const CLAIM_POLL_MS = 100;

function failedRow(row: number, error: LbrlError, prefix = ''): RowOutcome {
  return {
    kind: 'failed',
    ok: false,
    exitCode: error.exitCode,
    type: error.type,
    line: {
      row,
      error: { type: error.type, message: `${prefix}${error.message}`, exitCode: error.exitCode },
    },
  };
}

function resumedRow(row: number, done: { id: string; status: string }): RowOutcome {
  return { kind: 'resumed', ok: true, exitCode: 0, line: { row, deposit: done, resumed: true } };
}

/** Counts of each kind of outcome, for the summary. */
export function tally(outcomes: ReadonlyArray<RowOutcome | undefined>): Record<RowKind, number> {
  const counts: Record<RowKind, number> = { created: 0, resumed: 0, failed: 0 };
  for (const outcome of outcomes) if (outcome) counts[outcome.kind] += 1;
  return counts;
}

/**
 * Send every row; `progress` is called after each row with all outcomes known so far (in row
 * order, with holes). Throws when any row was not created, with the rows' common exit code.
 */
export async function createBatch(
  rows: BatchRow[],
  options: { concurrency: number; resume: boolean },
  deps: BatchDeps,
  progress: (outcomes: ReadonlyArray<RowOutcome | undefined>, finished: number) => void,
): Promise<RowOutcome[]> {
  const keys = rowKeys(
    rows.map((r) => r.body),
    rows.map((r) => r.local?.ref),
  );
  if (options.resume && !deps.resumable)
    throw new Error('createBatch: --resume needs the rows of earlier runs');
  const turns = options.resume ? deps.resumable!(keys) : undefined;
  const run = new BatchRun(rows, keys, deps, turns);
  await run.open();

  const outcomes: Array<RowOutcome | undefined> = new Array(rows.length);
  let finished = 0;
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const rowIndex = next++;
      outcomes[rowIndex] = await run.sendRow(rowIndex);
      finished += 1;
      progress(outcomes, finished);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, rows.length) }, worker));
  return batchResult(outcomes as RowOutcome[], run.stopAll);
}

/** Every row's outcome, or the error that says which rows were not created (and the rows' exit code when they share one). */
function batchResult(all: RowOutcome[], stopAll: LbrlError | undefined): RowOutcome[] {
  const failed = all.filter((x) => !x.ok);
  if (stopAll?.type === 'interrupted') throw stopAll;
  if (failed.length > 0) {
    // the rows' own exit code when they share one, else 1
    const codes = new Set(failed.map((f) => f.exitCode));
    const type = (codes.size === 1 ? failed[0]!.type : undefined) ?? 'service';
    throw new LbrlError(
      `${failed.length} of ${all.length} row(s) were not created (rows ${failed.map((f) => f.line.row).join(', ')}); re-run with --resume to retry only those`,
      type,
    );
  }
  return all;
}

/** One run of a batch: the rows, their keys, the client, and what every row's sending shares. */
class BatchRun {
  /** one shared gate: a 429 seen by any request pauses them all */
  private pauseUntil = 0;
  /** an error that stops every row not yet sent (a refused token, an interrupt) */
  stopAll: LbrlError | undefined;
  private api: DepositApi | undefined;

  constructor(
    private readonly rows: BatchRow[],
    private readonly keys: string[],
    private readonly deps: BatchDeps,
    private readonly turns: RowTurns | undefined,
  ) {}

  async open(): Promise<void> {
    const { clock } = this.deps;
    this.api = await this.deps.api((info) => {
      if (info.status === 429) this.pauseUntil = Math.max(this.pauseUntil, clock.now() + info.delayMs);
    });
  }

  /** A row: reported when done before, else sent once the pause and its claim allow. */
  async sendRow(index: number): Promise<RowOutcome> {
    const { clock } = this.deps;
    const { row, body, local } = this.rows[index]!;
    const batchKey = this.keys[index]!;
    const prior = this.turns?.done(batchKey);
    if (prior) return resumedRow(row, prior);
    if (this.stopAll) return failedRow(row, this.stopAll, 'not sent: ');
    const wait = this.pauseUntil - clock.now();
    if (wait > 0) {
      try {
        await clock.sleep(wait, clock.signal);
      } catch {
        this.stopAll = interrupted();
        return this.sendRow(index);
      }
    }
    if (!this.turns) return this.send(row, body, batchKey, randomUUID(), local, true);
    return this.sendInTurn(this.turns, row, body, batchKey, local);
  }

  /** With --resume: the row's claim first (another run may hold it), then sent with the claim's key. */
  private async sendInTurn(
    turns: RowTurns,
    row: number,
    body: CreateRequest,
    batchKey: string,
    local: LocalFields | undefined,
  ): Promise<RowOutcome> {
    const { clock } = this.deps;
    let turn: RowTurn;
    try {
      turn = await turns.begin(batchKey, {
        sleep: clock.sleep,
        now: clock.now,
        signal: clock.signal,
        pollMs: CLAIM_POLL_MS,
        timeoutMs: CLAIM_WAIT_MS,
      });
    } catch (error) {
      const claimProblem = claimError(error);
      if (claimProblem.type === 'interrupted') this.stopAll = claimProblem;
      return failedRow(row, claimProblem, claimProblem.type === 'interrupted' ? 'not sent: ' : '');
    }
    if ('done' in turn) return resumedRow(row, turn.done);
    try {
      return await this.send(row, body, batchKey, turn.idempotencyKey, local);
    } finally {
      turn.claim.release();
    }
  }

  /** Record the attempt, send, check, record the deposit. */
  private async send(
    row: number,
    body: CreateRequest,
    batchKey: string,
    idempotencyKey: string,
    local: LocalFields = {},
    keyIsNew = false,
  ): Promise<RowOutcome> {
    const { clock, scope, recorder } = this.deps;
    const attempt: AttemptRecord = {
      v: 1,
      type: 'attempt',
      profile: scope.profile,
      baseUrl: scope.target,
      batchKey,
      idempotencyKey,
      at: new Date(clock.now()).toISOString(),
    };
    await recorder.record([attempt]);
    try {
      const { raw } = await createChecked(
        { api: this.api!, recorder, scope, now: clock.now, keyIsNew },
        body,
        idempotencyKey,
        batchKey,
        local,
      );
      return {
        kind: 'created',
        ok: true,
        exitCode: 0,
        line: { row, deposit: withLocalFields(raw, local) },
      } satisfies RowOutcome;
    } catch (error) {
      if (!(error instanceof LbrlError)) throw error;
      if (error.type === 'auth' || error.type === 'interrupted') this.stopAll = error;
      return failedRow(row, error);
    }
  }
}

/** A claim that could not be made (the claims directory unusable, say), as a row's error. */
function claimError(error: unknown): LbrlError {
  if (error instanceof LbrlError) return error;
  const fsError = error as NodeJS.ErrnoException;
  return new LbrlError(
    `could not claim the row for this run (${fsError.code ?? fsError.message}${fsError.path ? ` on ${fsError.path}` : ''}): --resume needs a writable claims directory to keep overlapping runs apart; nothing was sent`,
    'config',
  );
}
