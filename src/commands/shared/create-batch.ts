/**
 * `deposit create --from`: every row checked before anything is sent, then sent by the
 * batch flow (deposits/batch.ts), results printed in row order. Part of deposit create
 * (commands/deposit-create.ts), which loads it only with --from.
 */
import fs from 'node:fs';
import type { RetryInfo } from '../../api/client.js';
import { type Context, readInput } from '../../context.js';
import {
  type BatchRow,
  createBatch,
  type RowKind,
  type RowOutcome,
  type RowTurns,
  tally,
} from '../../deposits/batch.js';
import type { DepositApi, FlowClock, Recorder, RequestDefaults, Scope } from '../../deposits/ports.js';
import { scopeOnTarget } from '../../deposits/ports.js';
import { checkRequest, ROW_LABELS } from '../../deposits/request.js';
import { formatCents } from '../../domain/money.js';
import { type LocalFields, NOTE_MAX, REF_MAX, readLocalText } from '../../domain/text/reference.js';
import { decodeRowsInput, parseRows } from '../../domain/text/rows.js';
import { safeText } from '../../domain/text/safe-text.js';
import { parseWholeNumber } from '../../domain/values.js';
import { invalidValue, LbrlError, quoted, usageError } from '../../errors.js';
import type { Factory } from '../../factory/factory.js';
import { requestDefaultsOf } from '../../factory/settings.js';
import { ResumableRows, RowClaims, rowIdempotencyKey } from '../../store/claims.js';
import type { BatchState } from '../../store/history-records.js';
import type { Printer } from '../../ui/output.js';
import { mayRedraw, ProgressLine } from '../../ui/progress.js';
import { readerGoneEnd } from './reader-gone.js';

/**
 * The flags of `deposit create --from` a batch reads, as commander hands them; --from itself is
 * known to be given. deposit-create.ts, which defines the flags, checks that each is one of them.
 */
export interface BatchOptions {
  from: string;
  concurrency?: string | undefined;
  resume?: boolean | undefined;
  /** keep the base64 PNG `qrCode` in each created row's line (left out by default) */
  withQrCode?: boolean | undefined;
  split?: boolean | undefined;
  dryRun?: boolean | undefined;
}

/**
 * All `deposit create --from` needs, and nothing more (gh's Options struct): the factory's getters
 * fill it in (`batchOptionsOf`); a test hands plain objects, a fake client and clock included.
 */
export interface BatchCommandOptions {
  flags: BatchOptions;
  printer: Printer;
  globals: { json?: boolean | undefined; quiet?: boolean | undefined };
  /** stdin (--from -), and stderr with the environment for the progress line */
  ctx: Pick<Context, 'stdin' | 'stderr' | 'env' | 'whenStdoutGone'>;
  /** the settings each row is checked against (the network first) */
  requestDefaults(): RequestDefaults;
  /** this profile's deposits on the target, as the history records them */
  scope(): Scope;
  /** the client; its retries report through onRetry so a 429 pauses every row */
  client(onRetry: (info: RetryInfo) => void): Promise<DepositApi>;
  recorder: Recorder;
  clock: FlowClock;
  /** with --resume: what earlier and overlapping runs of the file did, for these row keys */
  resumable(scope: Scope, keys: string[]): RowTurns;
}

/** The factory's getters, narrowed to what `deposit create --from` uses. */
export function batchOptionsOf(flags: BatchOptions, factory: Factory): BatchCommandOptions {
  return {
    flags,
    printer: factory.printer,
    globals: factory.globals,
    ctx: factory.ctx,
    requestDefaults: () => requestDefaultsOf(factory.profile()),
    scope: () => scopeOnTarget(factory.profileName, factory.target()),
    client: (onRetry) => factory.client(undefined, { maxRetries: 6, onRetry }),
    recorder: {
      record: (records) => factory.ledger().record(records),
      ready: () => factory.ledger().ready(),
    },
    clock: factory.ctx,
    resumable: (scope, keys) =>
      factory.ledger().setting().kind === 'postgres'
        ? databaseRowsOf(factory, scope, keys)
        : new ResumableRows(
            factory.ledger().history(),
            new RowClaims(factory.config().dir, (line) => factory.printer.warn(line)),
            scope.profile,
            scope.target,
            keys,
          ),
  };
}

/**
 * --resume on a database ledger: a row created by any host (as this host's copy of the ledger
 * has it) is done; any other is claimed in the database before it is sent (the ledger link's claimRow),
 * which looks there again, so two hosts running the same file create each row once.
 */
function databaseRowsOf(factory: Factory, scope: Scope, keys: string[]): RowTurns {
  const wanted = new Set(keys);
  let state: BatchState | undefined;
  return {
    done: (rowKey) =>
      (state ??= factory.ledger().history().batchState(scope.profile, scope.target, wanted)).done.get(rowKey),
    begin: (rowKey, wait) =>
      factory.ledger().claimRow(
        {
          profile: scope.profile,
          baseUrl: scope.target,
          batchKey: rowKey,
          idempotencyKey: rowIdempotencyKey(scope.profile, scope.target, rowKey),
          at: new Date(factory.ctx.now()).toISOString(),
        },
        wait,
      ),
  };
}

const MAX_INPUT = 10 * 1024 * 1024;
const MAX_ROWS = 10_000;

async function readRows(from: string, stdin: Context['stdin']): Promise<string> {
  if (from === '-') return readInput(stdin, MAX_INPUT, 'the input');
  try {
    const stats = fs.statSync(from);
    if (!stats.isFile()) throw invalidValue('--from', from, 'a CSV or NDJSON file, or - for stdin');
    if (stats.size > MAX_INPUT) throw invalidValue('--from', from, `a file of at most ${MAX_INPUT} bytes`);
    // the bytes as UTF-8, refused rather than guessed at (size checked again before decoding)
    const decoded = decodeRowsInput(fs.readFileSync(from), MAX_INPUT);
    if (!decoded.ok) throw usageError(`--from ${quoted(from)} is refused: ${decoded.error}`);
    return decoded.text;
  } catch (error) {
    if (error instanceof LbrlError) throw error;
    throw invalidValue('--from', from, 'a readable CSV or NDJSON file, or - for stdin');
  }
}

/** A row's ref and note columns, checked as --ref and --note are; each problem named by its column. */
function rowLocal(
  ref: string | undefined,
  note: string | undefined,
): { fields: LocalFields; problems: string[] } {
  const fields: LocalFields = {};
  const problems: string[] = [];
  for (const [column, given, max] of [
    ['ref', ref, REF_MAX],
    ['note', note, NOTE_MAX],
  ] as const) {
    if (given === undefined) continue;
    const read = readLocalText(given, max);
    if (read.ok) fields[column] = read.value;
    else problems.push(invalidValue(column, given, read.expected).message);
  }
  return { fields, problems };
}

/**
 * A row's line without the deposit's `qrCode`: a base64 PNG of 15 to 20 kB that a script does not
 * need (the copy-paste `qrCodeText` draws the same code), so a batch of 1,000 rows is not 20 MB.
 */
function withoutQrPng(line: Record<string, unknown>): Record<string, unknown> {
  const deposit = line.deposit;
  if (deposit === null || typeof deposit !== 'object' || !('qrCode' in deposit)) return line;
  const { qrCode: _png, ...rest } = deposit as Record<string, unknown>;
  return { ...line, deposit: rest };
}

/** Every row checked before anything is sent, then sent; the results printed in row order. */
export async function runBatch(options: BatchCommandOptions): Promise<void> {
  const { flags: opts, printer, globals } = options;
  let concurrency = 4;
  if (opts.concurrency !== undefined) {
    const count = parseWholeNumber(opts.concurrency, 1, 16);
    if (!count.ok) throw invalidValue('--concurrency', opts.concurrency, count.expected);
    concurrency = count.value;
  }
  const source = opts.from === '-' ? 'stdin' : opts.from;
  const text = await readRows(opts.from, options.ctx.stdin);
  const format = /\.csv$/i.test(opts.from) ? 'csv' : /\.(nd)?jsonl?$/i.test(opts.from) ? 'ndjson' : 'auto';
  const parsed = parseRows(text, format);
  if (!parsed.ok) throw usageError(`${source} is refused:\n  ${parsed.errors.join('\n  ')}`);
  if (parsed.rows.length > MAX_ROWS)
    throw usageError(`the input has ${parsed.rows.length} rows; at most ${MAX_ROWS} at once`);

  // every row checked before anything is sent
  const rows = checkedRows(parsed.rows, options, source);

  if (opts.dryRun) {
    for (const r of rows) printer.json({ row: r.row, request: r.body, ...r.local });
    return;
  }

  const scope = options.scope();
  // a terminal of a known size gets a progress line, cleared before each line of the table
  const progress =
    mayRedraw(options.ctx) && !globals.quiet ? new ProgressLine(options.ctx.stderr) : undefined;
  // a person at a terminal reads a table; a pipe or --json gets one NDJSON line per row
  const table = printer.stdoutIsTTY && !globals.json ? new RowTable(rows) : undefined;
  let printed = 0;
  let seen: ReadonlyArray<RowOutcome | undefined> = [];
  let failure: unknown;
  // a reader gone (| head) stops the run: rows not yet sent are not, and it never ends 0 for that
  options.ctx.whenStdoutGone?.(() =>
    readerGoneEnd(
      options,
      `the batch ended: ${printed} of ${rows.length} row(s) printed; lbrl deposit create --from ${quoted(opts.from)} --resume creates the rest, none twice`,
    ),
  );
  try {
    await createBatch(
      rows,
      { concurrency, resume: Boolean(opts.resume) },
      {
        api: (onRetry) => options.client(onRetry),
        recorder: options.recorder,
        scope,
        clock: options.clock,
        resumable: (keys) => options.resumable(scope, keys),
      },
      (outcomes, finished) => {
        seen = outcomes;
        while (printed < outcomes.length && outcomes[printed]) {
          const outcome = outcomes[printed]!;
          const line = () =>
            table
              ? printer.out(table.line(printed, outcome))
              : printer.json(opts.withQrCode ? outcome.line : withoutQrPng(outcome.line));
          if (progress) progress.above(line);
          else line();
          printed += 1;
        }
        progress?.show(`rows ${finished}/${rows.length}`);
      },
    );
  } catch (error) {
    failure = error;
  } finally {
    progress?.clear();
  }
  options.ctx.whenStdoutGone?.(undefined);
  if (printed > 0) printer.info(summary(tally(seen), rows.length));
  if (failure !== undefined) throw failure;
}

/** Every row checked before anything is sent: all of them good, or every problem named and nothing sent. */
function checkedRows(
  parsedRows: Extract<ReturnType<typeof parseRows>, { ok: true }>['rows'],
  options: BatchCommandOptions,
  source: string,
): BatchRow[] {
  const rows: BatchRow[] = [];
  const problems: string[] = [];
  let defaults: RequestDefaults | undefined;
  for (const row of parsedRows) {
    defaults ??= options.requestDefaults();
    const { ref, note, ...values } = row.fields;
    const checked = checkRequest(
      { ...values, ...(options.flags.split === false ? { split: false } : {}) },
      defaults,
      ROW_LABELS,
    );
    const local = rowLocal(ref, note);
    const rowProblems = [...(checked.body ? [] : checked.problems), ...local.problems];
    if (checked.body && rowProblems.length === 0)
      rows.push({ row: row.row, body: checked.body, local: local.fields });
    else for (const problem of rowProblems) problems.push(`row ${row.row} (line ${row.line}): ${problem}`);
  }
  if (problems.length > 0) {
    throw usageError(
      `${problems.length} problem(s) in ${source}; nothing was sent:\n  ${problems.join('\n  ')}`,
    );
  }
  return rows;
}

/** `5 row(s): 3 created, 1 resumed (created by an earlier run), 1 failed`. */
export function summary(counts: Record<RowKind, number>, total: number): string {
  const parts = [`${counts.created} created`];
  if (counts.resumed > 0) parts.push(`${counts.resumed} resumed (created by an earlier run)`);
  parts.push(`${counts.failed} failed`);
  const left = total - counts.created - counts.resumed - counts.failed;
  if (left > 0) parts.push(`${left} not reached`);
  return `${total} row(s): ${parts.join(', ')}`;
}

/** The rows as a table for a terminal: row, id, amount, and the status or the error. */
class RowTable {
  private readonly rowWidth: number;
  private readonly amountWidth: number;
  private readonly amounts: string[];
  private headed = false;

  constructor(private readonly rows: BatchRow[]) {
    this.amounts = rows.map((r) => formatCents(r.body.amountInCents));
    this.rowWidth = Math.max(3, ...rows.map((r) => String(r.row).length));
    this.amountWidth = Math.max(6, ...this.amounts.map((a) => a.length));
  }

  line(index: number, outcome: RowOutcome): string {
    const { row } = this.rows[index]!;
    const deposit = outcome.line.deposit as { id?: unknown; status?: unknown } | undefined;
    const error = outcome.line.error as { message?: unknown } | undefined;
    const id = typeof deposit?.id === 'string' ? deposit.id : '-';
    const what =
      outcome.kind === 'failed'
        ? `error: ${String(error?.message ?? '')}`
        : outcome.kind === 'resumed'
          ? `${String(deposit?.status ?? '')} (resumed: created by an earlier run)`
          : String(deposit?.status ?? '');
    const cells = [
      String(row).padStart(this.rowWidth),
      id.padEnd(36),
      this.amounts[index]!.padStart(this.amountWidth),
      what,
    ];
    const text = safeText(cells.join('  '));
    if (this.headed) return text;
    this.headed = true;
    const head = [
      'row'.padStart(this.rowWidth),
      'id'.padEnd(36),
      'amount'.padStart(this.amountWidth),
      'status',
    ];
    return `${head.join('  ')}\n${text}`;
  }
}
