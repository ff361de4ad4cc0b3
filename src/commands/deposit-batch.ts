/**
 * `deposit create --from`: every row checked before anything is sent, then sent by the
 * batch flow (deposits/batch.ts), results printed in row order.
 */
import fs from 'node:fs';
import { inCI, readInput } from '../context.js';
import { type BatchRow, createBatch } from '../deposits/batch.js';
import type { RequestDefaults } from '../deposits/ports.js';
import { checkRequest, ROW_LABELS } from '../deposits/request.js';
import { decodeRowsInput, parseRows } from '../domain/rows.js';
import { parseWholeNumber } from '../domain/values.js';
import { invalidValue, LbrlError, usageError } from '../errors.js';
import type { Session } from '../session.js';

export interface BatchOptions {
  from: string;
  concurrency?: string;
  resume?: boolean;
  split?: boolean;
  dryRun?: boolean;
}

const MAX_INPUT = 10 * 1024 * 1024;
const MAX_ROWS = 10_000;

async function readRows(from: string, session: Session): Promise<string> {
  if (from === '-') return readInput(session.ctx.stdin, MAX_INPUT, 'the input');
  try {
    const st = fs.statSync(from);
    if (!st.isFile()) throw invalidValue('--from', from, 'a CSV or NDJSON file, or - for stdin');
    if (st.size > MAX_INPUT) throw invalidValue('--from', from, `a file of at most ${MAX_INPUT} bytes`);
    // the bytes as UTF-8, refused rather than guessed at (size checked again before decoding)
    const decoded = decodeRowsInput(fs.readFileSync(from), MAX_INPUT);
    if (!decoded.ok) throw usageError(`--from ${JSON.stringify(from)} is refused: ${decoded.error}`);
    return decoded.text;
  } catch (error) {
    if (error instanceof LbrlError) throw error;
    throw invalidValue('--from', from, 'a readable CSV or NDJSON file, or - for stdin');
  }
}

export async function run(opts: BatchOptions, session: Session): Promise<void> {
  const p = session.printer;
  let concurrency = 4;
  if (opts.concurrency !== undefined) {
    const r = parseWholeNumber(opts.concurrency, 1, 16);
    if (!r.ok) throw invalidValue('--concurrency', opts.concurrency, r.expected);
    concurrency = r.value;
  }
  const source = opts.from === '-' ? 'stdin' : opts.from;
  const text = await readRows(opts.from, session);
  const format = /\.csv$/i.test(opts.from) ? 'csv' : /\.(nd)?jsonl?$/i.test(opts.from) ? 'ndjson' : 'auto';
  const parsed = parseRows(text, format);
  if (!parsed.ok) throw usageError(`${source} is refused:\n  ${parsed.errors.join('\n  ')}`);
  if (parsed.rows.length > MAX_ROWS)
    throw usageError(`the input has ${parsed.rows.length} rows; at most ${MAX_ROWS} at once`);

  // every row checked before anything is sent
  const rows: BatchRow[] = [];
  const problems: string[] = [];
  let defaults: RequestDefaults | undefined;
  for (const r of parsed.rows) {
    defaults ??= session.requestDefaults();
    const checked = checkRequest(
      { ...r.fields, ...(opts.split === false ? { split: false } : {}) },
      defaults,
      ROW_LABELS,
    );
    if (checked.body) rows.push({ row: r.row, body: checked.body });
    else for (const problem of checked.problems) problems.push(`row ${r.row} (line ${r.line}): ${problem}`);
  }
  if (problems.length > 0) {
    throw usageError(
      `${problems.length} problem(s) in ${source}; nothing was sent:\n  ${problems.join('\n  ')}`,
    );
  }

  if (opts.dryRun) {
    for (const r of rows) p.json({ row: r.row, request: r.body });
    return;
  }

  const target = session.target();
  let printed = 0;
  const progress = p.stderrIsTTY && !inCI(session.ctx.env) && !session.globals.quiet;
  try {
    await createBatch(
      rows,
      { concurrency, resume: Boolean(opts.resume) },
      {
        api: (onRetry) => session.client(target, { maxRetries: 6, onRetry }),
        history: session.history(),
        recorder: session,
        scope: session.scope(target),
        clock: session.ctx,
      },
      (outcomes, finished) => {
        while (printed < outcomes.length && outcomes[printed]) {
          p.json(outcomes[printed]!.line);
          printed += 1;
        }
        if (progress) session.ctx.stderr.write(`\rrows ${finished}/${rows.length}`);
      },
    );
  } finally {
    if (progress) session.ctx.stderr.write('\n');
  }
  p.info(`${rows.length} deposit(s) created`);
}
