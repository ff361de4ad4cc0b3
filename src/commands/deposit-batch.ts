/**
 * `deposit create --from`: every row checked before anything is sent, then sent with
 * bounded concurrency under one shared back-off, results printed in row order.
 *
 * Rows are recognised for --resume by a key: the SHA-256 of the checked request body and
 * how many identical rows came before it in the file. So editing, adding or reordering
 * other rows does not change a row's key, and two identical rows stay two deposits.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { CreateRequest } from '../api/models.js';
import { inCI, readInput } from '../context.js';
import { parseRows } from '../domain/rows.js';
import { parseWholeNumber } from '../domain/values.js';
import { EXIT, interrupted, invalidValue, LbrlError, usageError } from '../errors.js';
import { Session } from '../session.js';
import type { AttemptRecord } from '../store/history.js';
import { checkRequest, createChecked, type Labels } from './deposit-create.js';

export interface BatchOptions {
  from: string;
  concurrency?: string;
  resume?: boolean;
  split?: boolean;
  dryRun?: boolean;
}

const ROW_LABELS: Labels = {
  amount: 'amount',
  amountCents: 'amountCents',
  to: 'to',
  splitTo: 'splitTo',
  splitFee: 'splitFee',
  both: 'give either amount (reais) or amountCents, not both',
  missingAmount: 'missing amount: give amount or amountCents',
  missingTo: 'missing to, and the profile has no default-address',
  feeNeedsTo: 'splitFee needs splitTo',
  toNeedsFee: 'splitTo needs splitFee',
};

const MAX_INPUT = 10 * 1024 * 1024;
const MAX_ROWS = 10_000;

async function readRows(from: string, session: Session): Promise<string> {
  if (from === '-') return readInput(session.ctx.stdin, MAX_INPUT, 'the input');
  try {
    const st = fs.statSync(from);
    if (!st.isFile()) throw invalidValue('--from', from, 'a CSV or NDJSON file, or - for stdin');
    if (st.size > MAX_INPUT) throw invalidValue('--from', from, `a file of at most ${MAX_INPUT} bytes`);
    return fs.readFileSync(from, 'utf8');
  } catch (error) {
    if (error instanceof LbrlError) throw error;
    throw invalidValue('--from', from, 'a readable CSV or NDJSON file, or - for stdin');
  }
}

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

interface Outcome {
  line: Record<string, unknown>;
  ok: boolean;
  exitCode: number;
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
  const bodies: CreateRequest[] = [];
  const problems: string[] = [];
  for (const r of parsed.rows) {
    const checked = checkRequest(
      { ...r.fields, ...(opts.split === false ? { split: false } : {}) },
      session,
      ROW_LABELS,
    );
    if (checked.body) bodies.push(checked.body);
    else for (const problem of checked.problems) problems.push(`row ${r.row} (line ${r.line}): ${problem}`);
  }
  if (problems.length > 0) {
    throw usageError(
      `${problems.length} problem(s) in ${source}; nothing was sent:\n  ${problems.join('\n  ')}`,
    );
  }
  const keys = rowKeys(bodies);

  if (opts.dryRun) {
    for (const [i, b] of bodies.entries()) p.json({ row: parsed.rows[i]!.row, request: b });
    return;
  }

  const target = session.target();
  const key = Session.targetKey(target);
  const done = new Map<string, { id: string; status: string }>();
  const attempted = new Map<string, string>();
  if (opts.resume) {
    for (const r of session.history().read()) {
      if (r.type === 'created' && r.batchKey && r.profile === session.profileName && r.baseUrl === key) {
        done.set(r.batchKey, { id: r.id, status: r.status });
      }
      if (r.type === 'attempt' && r.profile === session.profileName && r.baseUrl === key) {
        attempted.set(r.batchKey, r.idempotencyKey);
      }
    }
  }

  // one shared gate: a 429 seen by any request pauses them all
  let pauseUntil = 0;
  const client = await session.client(target, {
    maxRetries: 6,
    onRetry: (info) => {
      if (info.status === 429) pauseUntil = Math.max(pauseUntil, session.ctx.now() + info.delayMs);
    },
  });

  const outcomes: Array<Outcome | undefined> = new Array(bodies.length);
  let printed = 0;
  let finished = 0;
  let stopAll: LbrlError | undefined;
  const progress = p.stderrIsTTY && !inCI(session.ctx.env) && !session.globals.quiet;
  const flush = () => {
    while (printed < outcomes.length && outcomes[printed]) {
      p.json(outcomes[printed]!.line);
      printed += 1;
    }
    if (progress) session.ctx.stderr.write(`\rrows ${finished}/${bodies.length}`);
  };

  const sendRow = async (i: number): Promise<Outcome> => {
    const row = parsed.rows[i]!.row;
    const body = bodies[i]!;
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
        line: {
          row,
          error: { type: stopAll.type, message: `not sent: ${stopAll.message}`, exitCode: stopAll.exitCode },
        },
      };
    }
    const wait = pauseUntil - session.ctx.now();
    if (wait > 0) {
      try {
        await session.ctx.sleep(wait, session.ctx.signal);
      } catch {
        stopAll = interrupted();
        return sendRow(i);
      }
    }
    const idempotencyKey = attempted.get(batchKey) ?? randomUUID();
    const attempt: AttemptRecord = {
      v: 1,
      type: 'attempt',
      profile: session.profileName,
      baseUrl: key,
      batchKey,
      idempotencyKey,
      at: new Date(session.ctx.now()).toISOString(),
    };
    session.record([attempt]);
    try {
      const { raw } = await createChecked(client, body, idempotencyKey, session, target, batchKey);
      return { ok: true, exitCode: 0, line: { row, deposit: raw } };
    } catch (error) {
      if (!(error instanceof LbrlError)) throw error;
      if (error.type === 'auth' || error.type === 'interrupted') stopAll = error;
      return {
        ok: false,
        exitCode: error.exitCode,
        line: { row, error: { type: error.type, message: error.message, exitCode: error.exitCode } },
      };
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      outcomes[i] = await sendRow(i);
      finished += 1;
      flush();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
  } finally {
    if (progress) session.ctx.stderr.write('\n');
  }

  const failed = outcomes.filter((o) => o && !o.ok) as Outcome[];
  if (stopAll?.type === 'interrupted') throw stopAll;
  if (failed.length > 0) {
    const codes = new Set(failed.map((f) => f.exitCode));
    const exitCode = codes.size === 1 ? [...codes][0]! : EXIT.failure;
    throw new LbrlError(
      `${failed.length} of ${bodies.length} row(s) were not created (rows ${failed.map((f) => f.line.row).join(', ')}); re-run with --resume to retry only those`,
      'service',
      exitCode,
    );
  }
  p.info(`${bodies.length} deposit(s) created`);
}
