/**
 * A Deposit service in process, for the commands that run on narrow options: each call answered
 * by the test's script, no socket. An answer is read as the client reads one (its JSON text, then
 * the field types of the model: api/models.ts), so a lying answer reaches the same checks as
 * through HTTP; a script may throw an LbrlError for what the client would make of a failure (a
 * 401, a 404, a refused connection). The transport itself is tested on real servers
 * (test/cmd/client-faults.test.ts, test/cmd/faults.test.ts).
 */
import { classify } from '../../src/api/classify.js';
import { type AnswerSchema, type ApiResult, readAnswerText } from '../../src/api/client.js';
import type { CreateRequest, CreateResponse, GetResponse } from '../../src/api/models.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { createdDepositShape, depositShape } from '../../src/domain/deposit.js';
import { LbrlError } from '../../src/errors.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { createAnswer } from './fixtures.js';

/** An answer as the service wrote it, byte for byte (numbers as written, a key given twice). */
export class WrittenAnswer {
  constructor(readonly text: string) {}
}

export interface DepositScript {
  /** the answer to the n-th create (1-based), or a promise of it; by default a well-behaved one (fixtures' createAnswer) */
  create?: (body: CreateRequest, n: number) => unknown;
  /** the answer to the n-th get (1-based, across ids), or a promise of it; by default the service knows nothing */
  get?: (id: string, n: number) => unknown;
  /** what the local history recorded of a deposit (the factory's client has it) */
  recorded?: (id: string) => HistoryEntry | undefined;
  /** the clock the calls are stamped with */
  now?: () => number;
}

export interface ScriptedCall {
  kind: 'create' | 'get';
  /** the deposit asked for (get) */
  id?: string;
  /** the request sent (create), as the client would serialise it */
  body?: CreateRequest;
  idempotencyKey?: string;
  /** when, by the script's clock */
  at: number;
}

export interface ScriptedDepositApi extends DepositApi {
  /** every call, in order */
  calls: ScriptedCall[];
  creates(): ScriptedCall[];
  gets(): ScriptedCall[];
}

/** The script's answer, read as the client reads an answer's text (readAnswerText). */
function read<T>(answer: unknown, shape: typeof createdDepositShape | typeof depositShape): ApiResult<T> {
  const text = answer instanceof WrittenAnswer ? answer.text : JSON.stringify(answer);
  return readAnswerText(text, shape as unknown as AnswerSchema<T>);
}

export function scriptedDepositApi(script: DepositScript = {}): ScriptedDepositApi {
  const calls: ScriptedCall[] = [];
  const now = script.now ?? (() => 0);
  let creates = 0;
  let gets = 0;
  const api: ScriptedDepositApi = {
    calls,
    creates: () => calls.filter((c) => c.kind === 'create'),
    gets: () => calls.filter((c) => c.kind === 'get'),
    async createDeposit(body, idempotencyKey) {
      // what would go on the wire: a copy, so a later change to the object is not seen
      calls.push({ kind: 'create', body: JSON.parse(JSON.stringify(body)), idempotencyKey, at: now() });
      creates += 1;
      const answer = await (script.create ? script.create(body, creates) : createAnswer(body));
      return read<CreateResponse>(answer, createdDepositShape);
    },
    async getDeposit(id) {
      calls.push({ kind: 'get', id, at: now() });
      gets += 1;
      if (!script.get) throw new LbrlError(`deposit ${id} not found`, 'not_found');
      return read<GetResponse>(await script.get(id, gets), depositShape);
    },
  };
  if (script.recorded) api.recorded = script.recorded;
  return api;
}

/**
 * A service that only answers gets, by deposit id (lower case): one answer, or one per call (the
 * last repeated). As DepositClient, it refuses an answer about another deposit; a deposit it has
 * no answer for is the client's 404 (exit 4). It creates nothing.
 */
export function scriptedGets(
  answers: Record<string, Record<string, unknown> | Array<Record<string, unknown>>>,
  recorded?: (id: string) => HistoryEntry | undefined,
): ScriptedDepositApi & { asked: string[] } {
  const perId = new Map<string, number>();
  const asked: string[] = [];
  const api = scriptedDepositApi({
    create: () => {
      throw new Error('this fake service creates nothing');
    },
    get: (id) => {
      asked.push(id);
      const script = answers[id.toLowerCase()];
      if (script === undefined) throw new LbrlError(`deposit ${id} not found`, 'not_found');
      const n = perId.get(id) ?? 0;
      perId.set(id, n + 1);
      const answer = Array.isArray(script) ? script[Math.min(n, script.length - 1)]! : script;
      const answeredId = (answer as { id?: unknown }).id;
      if (typeof answeredId === 'string' && answeredId.toLowerCase() !== id.toLowerCase())
        throw new LbrlError(
          `asked for deposit ${id}, but the service answered with deposit ${answeredId}`,
          'mismatch',
        );
      return answer;
    },
    ...(recorded ? { recorded } : {}),
  });
  return Object.assign(api, { asked });
}

/**
 * What the client makes of a refusal of a GET of `depositId` by the service at
 * https://pay.example.com (a 429 with its Retry-After, a 404): its own classify(), as on the wire.
 */
export function refusalOf(
  depositId: string,
  now: number,
  answer: { status: number; body?: string; retryAfter?: string | undefined },
): LbrlError {
  const verdict = classify(
    {
      method: 'GET',
      baseUrl: 'https://pay.example.com',
      host: 'pay.example.com',
      timeoutMs: 2000,
      maxRetryAfterMs: 60_000,
      depositId,
    },
    { kind: 'answer', status: answer.status, body: answer.body ?? '{}', retryAfter: answer.retryAfter },
    now,
  );
  if (verdict.ok) throw new Error(`${answer.status} is not a refusal`);
  return verdict.error;
}
