/** Create one deposit: send, check the answer against the request, record it, then hand it back. */
import type { ApiResult } from '../api/client.js';
import type { CreateRequest, CreateResponse } from '../api/models.js';
import { fixedFieldsOf } from '../domain/deposit.js';
import type { LocalFields } from '../domain/text/reference.js';
import type { CreatedRecord } from '../store/history-records.js';
import { createAnswer } from './answers.js';
import type { DepositApi, Recorder, Scope } from './ports.js';

export interface CreateDeps {
  api: DepositApi;
  recorder: Recorder;
  scope: Scope;
  now: () => number;
  /** the Idempotency-Key was made for this create (never sent before): its answer is dated now */
  keyIsNew?: boolean;
}

/**
 * Send one create, check the answer (money safety) and record the deposit in the local
 * history before anything is printed. Shared by create and create --from. `local` (the
 * merchant's reference and note) is recorded with it and never sent.
 */
export async function createChecked(
  deps: CreateDeps,
  body: CreateRequest,
  idempotencyKey: string,
  batchKey?: string,
  local: LocalFields = {},
): Promise<ApiResult<CreateResponse>> {
  deps.recorder.ready?.();
  const answer = await createAnswer(deps.api, body, idempotencyKey, {
    now: deps.now,
    keyIsNew: deps.keyIsNew,
  });
  const { value } = answer;
  const record: CreatedRecord = {
    v: 1,
    type: 'created',
    id: value.id,
    profile: deps.scope.profile,
    baseUrl: deps.scope.target,
    at: new Date(deps.now()).toISOString(),
    amountInCents: body.amountInCents,
    destinationAddress: body.lbrlAddress,
    splitAddress: body.lbrlSplitAddress ?? null,
    splitFee: body.splitFee ?? null,
    status: value.status,
    answer: fixedFieldsOf(value),
  };
  if (batchKey) record.batchKey = batchKey;
  if (local.ref !== undefined) record.ref = local.ref;
  if (local.note !== undefined) record.note = local.note;
  await deps.recorder.record([record]);
  return answer;
}
