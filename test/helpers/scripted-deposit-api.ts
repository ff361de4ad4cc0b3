/**
 * The service without a socket, for commands run on narrow options: a DepositApi that answers a
 * get from a script (one answer, or one per call), read as DepositClient reads a 200 (the wire
 * model's shape, the id it answered about) and then left to the command's own checks. It may
 * lie in any way the JSON allows. A deposit it has no answer for is the client's 404 (exit 4).
 * The transport (status codes, time-outs, retries, bodies) is the socket-level tests'.
 */
import type { ApiResult } from '../../src/api/client.js';
import { describeIssues, type GetResponse, getAnswerShape } from '../../src/api/models.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import type { HistoryEntry } from '../../src/store/history.js';

export interface ScriptedDepositApi extends DepositApi {
  /** the ids asked for, in order */
  asked: string[];
}

export function scriptedDepositApi(
  /** by deposit id (lower case): its answer, or its answers one call after another (the last repeated) */
  answers: Record<string, Record<string, unknown> | Array<Record<string, unknown>>>,
  /** the history's record of a deposit, as the Session's client has it */
  recorded?: (id: string) => HistoryEntry | undefined,
): ScriptedDepositApi {
  const asked: string[] = [];
  const calls = new Map<string, number>();
  const api: ScriptedDepositApi = {
    asked,
    createDeposit: async () => {
      throw new Error('this fake service creates nothing');
    },
    async getDeposit(id: string): Promise<ApiResult<GetResponse>> {
      asked.push(id);
      const script = answers[id.toLowerCase()];
      if (script === undefined) throw new LbrlError(`deposit ${id} not found`, 'not_found');
      const n = calls.get(id) ?? 0;
      calls.set(id, n + 1);
      const answer = Array.isArray(script) ? script[Math.min(n, script.length - 1)]! : script;
      const text = JSON.stringify(answer);
      const raw: unknown = JSON.parse(text);
      const parsed = getAnswerShape.safeParse(raw, { reportInput: true });
      if (!parsed.success)
        throw new LbrlError(
          `the service's answer breaks the contract: ${describeIssues(parsed.error)}`,
          'contract',
        );
      if (parsed.data.id.toLowerCase() !== id.toLowerCase())
        throw new LbrlError(
          `asked for deposit ${id}, but the service answered with deposit ${parsed.data.id}`,
          'mismatch',
        );
      return { value: parsed.data as GetResponse, raw, text };
    },
  };
  if (recorded) api.recorded = recorded;
  return api;
}
