/**
 * The times of an answer are judged against lbrl's clock: a create answered with a deposit dated
 * in the past (years, a day, two hours) is a lie, refused (exit 1) saying a deposit may exist with
 * its Idempotency-Key, nothing recorded, no charge shown as payable; within the hour the service's
 * clock may stand behind is accepted. Before PIX existed, no answer (create or get) is believed.
 */
import { describe, expect, it } from 'vitest';
import { runCreate } from '../../src/commands/deposit-create.js';
import { getChecked } from '../../src/deposits/answers.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { createOptions, followInProcess } from '../helpers/follow-in-process.js';
import { seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;

async function createAnswered(createdAt: string) {
  const clock = steppingClock(NOW);
  const api = scriptedDepositApi({
    create: (body) => ({ ...createAnswer(body), createdAt }),
    now: clock.now,
  });
  const { term, records, deps } = followInProcess({ clock, api });
  const options = createOptions(deps, { amount: '15', to: LQ, yes: true }, api, SERVICE);
  return { records, ...(await seenRun(term, () => runCreate(options))) };
}

describe('a create answer dated in the past', () => {
  it.each([
    ['years before', '2019-03-01T12:00:00.000Z'],
    ['a day before', new Date(NOW - 24 * HOUR).toISOString()],
    ['two hours before', new Date(NOW - 2 * HOUR).toISOString()],
    ['before PIX existed', '2001-01-01T00:00:00Z'],
  ])(
    '%s: refused as a lie (exit 1), the deposit may exist, nothing recorded or shown',
    async (_, createdAt) => {
      const r = await createAnswered(createdAt);
      expect(r.error?.exitCode).toBe(1);
      expect(r.error?.message).toMatch(
        new RegExp(
          `^the service's answer does not match the request for deposit ${ID}: createdAt: sent not before .*, service answered ${createdAt}\\. A deposit may exist \\(Idempotency-Key [0-9a-f-]{36}\\); nothing was recorded\\. Do not pay this charge$`,
        ),
      );
      expect(r.records).toEqual([]);
      expect(r.stdout).toBe('');
    },
  );

  it.each([
    ['now', new Date(NOW).toISOString()],
    ['59 minutes before (a service clock behind)', new Date(NOW - 59 * 60_000).toISOString()],
    ['30 minutes ahead', new Date(NOW + 30 * 60_000).toISOString()],
  ])('%s: accepted and recorded', async (_, createdAt) => {
    const r = await createAnswered(createdAt);
    expect(r.error).toBeUndefined();
    expect(r.records).toMatchObject([{ type: 'created', id: ID, answer: { createdAt } }]);
  });
});

describe('a get answer dated before PIX existed', () => {
  it.each([
    ['createdAt', { createdAt: '2019-12-31T23:59:59.000Z' }],
    [
      'confirmedAt',
      {
        createdAt: '2019-01-01T00:00:00.000Z',
        status: 'PIX_CONFIRMED',
        confirmedAt: '2019-01-02T00:00:00.000Z',
      },
    ],
  ])('%s: refused, not to be trusted', async (field, fields) => {
    const api = scriptedDepositApi({ get: () => getAnswer(fields) });
    const refused = await getChecked(api, ID, { recorded: undefined }).catch((error: Error) => error);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `cannot be trusted: .*${field}: expected not before 2020-11-16T00:00:00.000Z \\(PIX did not exist\\)`,
      ),
    );
  });
});
