/**
 * The one place every deposit answer of the service passes before anything is printed or
 * recorded: create, get, watch, list --refresh, watch --pending and create --from alike.
 * The client has already read the answer into the models (api/models.ts) and checked that a
 * GET answered for the id asked; the rules that need what we know go here.
 */
import type { ApiResult } from '../api/client.js';
import type { CreateRequest, CreateResponse, Deposit, GetResponse } from '../api/models.js';
import type { Mismatch } from '../domain/verify.js';
import { LbrlError } from '../errors.js';
import type { CreatedRecord } from '../store/history.js';
import type { DepositApi } from './ports.js';

/** What we know of a deposit before its answer arrives. */
export interface Known {
  /** create: the request just sent */
  request?: CreateRequest;
  /** get: what the local history recorded when it was created, when it did */
  recorded?: CreatedRecord;
}

export type AnswerKind = 'create' | 'get';

/**
 * Every problem of an answer, empty when it can be trusted. The checks are loaded when needed
 * (they bring the address codecs), so `deposit get --json` stays light.
 */
export async function answerProblems(
  kind: AnswerKind,
  answer: Deposit,
  known: Known = {},
): Promise<Mismatch[]> {
  if (kind === 'create' && known.request) {
    const { checkCreateAnswer } = await import('../domain/verify.js');
    return checkCreateAnswer(known.request, answer);
  }
  return [];
}

/** The answer itself, or an error (exit 1) that names every problem; never a partial trust. */
export async function checkAnswer<T extends Deposit>(
  kind: AnswerKind,
  answer: ApiResult<T>,
  known: Known = {},
): Promise<ApiResult<T>> {
  const mismatches = await answerProblems(kind, answer.value, known);
  if (mismatches.length > 0) {
    const detail = mismatches
      .map((m) => `${m.field}: sent ${m.sent}, service answered ${m.received}`)
      .join('; ');
    throw new LbrlError(
      `the service's answer does not match the request for deposit ${answer.value.id}: ${detail}. Do not pay this charge`,
      'mismatch',
    );
  }
  return answer;
}

/** GET one deposit, through the choke point. */
export async function getChecked(
  api: DepositApi,
  id: string,
  known?: Known,
): Promise<ApiResult<GetResponse>> {
  return checkAnswer('get', await api.getDeposit(id), known);
}

/** POST one create, through the choke point. */
export async function createAnswer(
  api: DepositApi,
  body: CreateRequest,
  idempotencyKey: string,
): Promise<ApiResult<CreateResponse>> {
  return checkAnswer('create', await api.createDeposit(body, idempotencyKey), { request: body });
}
