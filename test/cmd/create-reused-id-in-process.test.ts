/**
 * One deposit, one record: a create whose answer names a deposit the history already holds (a
 * service that reuses ids, or lies) is refused as such, exit 1, nothing recorded and no charge
 * shown as payable; it never adopts the deposit it names. The history is a real file.
 */
import { describe, expect, it } from 'vitest';
import { runCreate } from '../../src/commands/deposit-create.js';
import { History } from '../../src/store/history.js';
import type { CreatedRecord } from '../../src/store/history-records.js';
import { createAnswer, ID, LQ } from '../helpers/fixtures.js';
import { createOptions, followInProcess } from '../helpers/follow-in-process.js';
import { seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import { tempDir } from '../helpers/temp.js';

const SERVICE = 'https://pay.example.com';

/** The deposit the history holds: the old customer's, paid. */
function paidEarlier(baseUrl = SERVICE): History {
  const history = new History(tempDir());
  const old: CreatedRecord = {
    v: 1,
    type: 'created',
    id: ID,
    profile: 'caixa1',
    baseUrl,
    at: '2026-11-21T10:00:00.000Z',
    amountInCents: 2500,
    destinationAddress: LQ,
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  };
  history.append([
    old,
    { v: 1, type: 'status', id: ID, status: 'FINALIZED', at: '2026-11-21T10:05:00.000Z' },
  ]);
  return history;
}

async function createAgainst(history: History, answer = createAnswer) {
  const clock = steppingClock();
  const api = scriptedDepositApi({
    create: (body) => answer(body),
    recorded: (id) => history.recorded(id, SERVICE),
    now: clock.now,
  });
  api.holds = (id) => history.holds(id);
  const { term, records, deps } = followInProcess({ clock, api });
  const options = createOptions(deps, { amount: '15', to: LQ, yes: true }, api, SERVICE);
  return { records, ...(await seenRun(term, () => runCreate(options))) };
}

describe('a create answered with an id the history holds', () => {
  it('is refused (exit 1) naming the deposit it reuses; nothing recorded, no QR or copy-paste shown', async () => {
    const history = paidEarlier();
    const r = await createAgainst(history);
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain(
      `the service answered this create with the id of deposit ${ID}, already in the history (created 2026-11-21T10:00:00.000Z, 2500 cents, FINALIZED): a new charge never reuses an id`,
    );
    expect(r.error?.message).toContain('Do not pay this charge');
    expect(r.stdout).toBe('');
    expect(r.records).toEqual([]);
    // the old customer's deposit is untouched: still one record, still paid
    expect(new History(history.dir).entries().map((e) => [e.id, e.status, e.amountInCents])).toEqual([
      [ID, 'FINALIZED', 2500],
    ]);
  });

  it('an id in upper case, or held for another service, is the same id', async () => {
    const upper = await createAgainst(paidEarlier(), (body) => ({
      ...createAnswer(body),
      id: ID.toUpperCase(),
    }));
    expect(upper.error?.exitCode).toBe(1);
    const elsewhere = await createAgainst(paidEarlier('sandbox'));
    expect(elsewhere.error?.message).toContain('already in the history, for another service');
    expect(elsewhere.records).toEqual([]);
  });

  it('a new id is created as ever', async () => {
    const r = await createAgainst(paidEarlier(), (body) => ({
      ...createAnswer(body),
      id: '00000000-0000-4000-8000-000000000002',
    }));
    expect(r.error).toBeUndefined();
    expect(r.records.map((rec) => rec.type)).toEqual(['created']);
  });
});
