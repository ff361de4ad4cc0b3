/**
 * The answer rules are loaded while the request is under way, not once the answer arrived: a get
 * or a create costs the rules' loading only where the service's answer is not awaited anyway.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ApiResult } from '../../src/api/client.js';
import type { GetResponse } from '../../src/api/models.js';
import type { DepositApi } from '../../src/deposits/ports.js';

// (not the fixtures: they load the rules themselves)
const ID = '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';

const { events } = vi.hoisted(() => ({ events: [] as string[] }));
vi.mock('../../src/domain/deposit-rules.js', async (actual) => {
  events.push('rules loaded');
  return await actual();
});

/** A service whose answer comes after a few turns of the loop, as one over a socket does. */
function slowApi(): DepositApi {
  return {
    createDeposit: async () => {
      throw new Error('not asked');
    },
    getDeposit: async (id: string) => {
      events.push(`asked ${id}`);
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      events.push('answered');
      // a deposit whose amounts do not add up: only the rules can tell
      const answer = { id, status: 'WAITING_PAYMENT', amount: 10, feeAmount: 1, netAmount: 5 };
      const text = JSON.stringify(answer);
      return { value: answer, raw: JSON.parse(text), text } as ApiResult<GetResponse>;
    },
  };
}

describe('the answer rules, loaded while the service answers', () => {
  it('a get has them loaded before its answer arrives, and checks the answer with them', async () => {
    // a fresh registry: another file of this worker may have loaded the rules already
    vi.resetModules();
    const { getChecked } = await import('../../src/deposits/answers.js');
    await expect(getChecked(slowApi(), ID)).rejects.toThrow(/cannot be trusted/);
    expect(events).toEqual([`asked ${ID}`, 'rules loaded', 'answered']);
    // loaded once: a second get does not load them again
    await expect(getChecked(slowApi(), ID)).rejects.toThrow(/cannot be trusted/);
    expect(events.filter((event) => event === 'rules loaded')).toHaveLength(1);
  });
});
