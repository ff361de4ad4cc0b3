/**
 * A settlement fact (the transaction that paid a deposit out, when the payment was confirmed),
 * once lbrl has seen it in a checked answer or proven it on chain, is part of the deposit's
 * record: a later answer that says otherwise is refused as a lie, never recorded as a new truth.
 * The history is a real file, written as `deposit verify` and `watch` write it.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/api/client.js';
import type { GetResponse } from '../../src/api/models.js';
import { getChecked } from '../../src/deposits/answers.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { History } from '../../src/store/history.js';
import {
  type CreatedRecord,
  type StoredRecord,
  statusRecord,
  verifiedRecord,
} from '../../src/store/history-records.js';
import { createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const TX_A = 'a1'.repeat(32);
const TX_B = 'b2'.repeat(32);
const CONFIRMED = '2026-11-22T10:05:00.000Z';
const NOW = Date.parse('2026-11-22T11:00:00.000Z');

const created: CreatedRecord = (() => {
  const { id, status, amountInCents, destinationAddress, ...answer } = createAnswer({
    amountInCents: 150000,
    lbrlAddress: LQ,
  });
  return {
    v: 1,
    type: 'created',
    id,
    profile: 'default',
    baseUrl: 'sandbox',
    at: '2026-11-22T10:00:00.000Z',
    amountInCents,
    destinationAddress,
    splitAddress: null,
    splitFee: null,
    status,
    answer: {
      amount: answer.amount,
      feeAmount: answer.feeAmount,
      netAmount: answer.netAmount,
      splitPercent: answer.splitPercent,
      qrCodeText: answer.qrCodeText,
      createdAt: answer.createdAt,
    },
  };
})();

const finalized = (txid: string, confirmedAt = CONFIRMED) =>
  getAnswer({ status: 'FINALIZED', settlement: { liquidTxid: txid, status: 'FINALIZED' }, confirmedAt });

/** A service that answers each get with the next answer, and knows what the history recorded. */
function service(history: History, answers: Array<Record<string, unknown>>): DepositApi {
  let n = 0;
  return {
    createDeposit: async () => {
      throw new Error('nothing is created here');
    },
    getDeposit: async () => {
      const answer = answers[Math.min(n++, answers.length - 1)]!;
      const text = JSON.stringify(answer);
      return { value: answer, raw: JSON.parse(text), text } as ApiResult<GetResponse>;
    },
    recorded: (id) => history.recorded(id, 'sandbox'),
  };
}

function historyWith(records: StoredRecord[]): History {
  const history = new History(tempDir());
  history.append([created, ...records]);
  return history;
}

async function refusal(api: DepositApi): Promise<LbrlError> {
  const error = await getChecked(api, ID).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LbrlError);
  return error as LbrlError;
}

describe('a settlement lbrl verified on chain', () => {
  // what `deposit verify` appends: the status with the answer it read, then the verification
  const verified = () =>
    historyWith([statusRecord(ID, 'FINALIZED', NOW, finalized(TX_A)), verifiedRecord(ID, TX_A, NOW)]);

  it('an answer naming another transaction is refused, naming the one verified (exit 1), and nothing is recorded', async () => {
    const history = verified();
    const before = history.recorded(ID, 'sandbox');
    expect(before).toMatchObject({ verifiedTxid: TX_A, facts: { 'settlement.liquidTxid': TX_A } });
    const error = await refusal(service(new History(history.dir), [finalized(TX_B)]));
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(
      `settlement.liquidTxid: expected ${TX_A}, the settlement lbrl verified on chain (a settlement fact never changes), service answered ${TX_B}`,
    );
    expect(error.message).toContain('Do not pay this charge or trust its status');
    expect(new History(history.dir).recorded(ID, 'sandbox')).toEqual(before);
  });

  it('the same transaction, and the same instant of confirmation written otherwise, are the same facts', async () => {
    const history = verified();
    const api = service(history, [finalized(TX_A, '2026-11-22T07:05:00-03:00')]);
    await expect(getChecked(api, ID)).resolves.toMatchObject({ value: { status: 'FINALIZED' } });
  });

  it('a verification holds only for its transaction: one recorded after another txid was kept is no verification', () => {
    const history = historyWith([
      statusRecord(ID, 'TX_SENT', NOW, getAnswer({ status: 'TX_SENT', settlement: { liquidTxid: TX_A } })),
      verifiedRecord(ID, TX_B, NOW),
    ]);
    const entry = history.recorded(ID, 'sandbox')!;
    expect(entry.verifiedAt).toBeUndefined();
    expect(entry.onChain).toBe('mismatch');
    expect(entry.facts?.['settlement.liquidTxid']).toBe(TX_A);
  });
});

describe('a settlement seen before it was final', () => {
  const sent = getAnswer({ status: 'TX_SENT', settlement: { liquidTxid: TX_A, status: 'SENT' } });

  it('TX_SENT with a txid, then FINALIZED with another: refused, in another process (the history kept it)', async () => {
    const history = historyWith([statusRecord(ID, 'TX_SENT', NOW, sent)]);
    const error = await refusal(service(new History(history.dir), [finalized(TX_B)]));
    expect(error.message).toContain(`settlement.liquidTxid: expected ${TX_A}, as lbrl recorded it`);
  });

  it('in the same process too, with no history at all: the facts of every answer seen are kept', async () => {
    const answers = [sent, finalized(TX_B)];
    let n = 0;
    const api: DepositApi = {
      createDeposit: async () => {
        throw new Error('no');
      },
      getDeposit: async () => {
        const answer = answers[n++]!;
        return { value: answer, raw: answer } as ApiResult<GetResponse>;
      },
    };
    await getChecked(api, ID);
    const error = await refusal(api);
    expect(error.message).toContain(`expected ${TX_A}`);
  });

  it('an answer that drops a kept fact (FAILED with no settlement after TX_SENT) contradicts it', async () => {
    const history = historyWith([statusRecord(ID, 'TX_SENT', NOW, sent)]);
    const failed = getAnswer({ status: 'FAILED', settlement: null });
    const error = await refusal(service(history, [failed]));
    expect(error.message).toContain(`settlement.liquidTxid: expected ${TX_A}`);
  });

  it('a confirmation time, once seen, never moves', async () => {
    const history = historyWith([statusRecord(ID, 'FINALIZED', NOW, finalized(TX_A))]);
    const error = await refusal(service(history, [finalized(TX_A, '2026-11-22T10:06:00.000Z')]));
    expect(error.message).toContain(`confirmedAt: expected ${CONFIRMED}`);
  });

  it('a txid first seen at SETTLEMENT_CREATED is news, recorded though the status is the same', () => {
    const history = new History(tempDir());
    history.append([created]);
    const early = getAnswer({ status: 'SETTLEMENT_CREATED', settlement: { liquidTxid: null } });
    const later = getAnswer({ status: 'SETTLEMENT_CREATED', settlement: { liquidTxid: TX_A } });
    history.append([statusRecord(ID, 'SETTLEMENT_CREATED', NOW, early)]);
    history.append([statusRecord(ID, 'SETTLEMENT_CREATED', NOW, later)]);
    history.append([statusRecord(ID, 'SETTLEMENT_CREATED', NOW, later)]);
    expect(new History(history.dir).recorded(ID, 'sandbox')?.facts).toEqual({
      'settlement.liquidTxid': TX_A,
    });
  });
});

describe('a record older than a field of the model', () => {
  it('a field the kept first answer never held is unknown, not absent: the deposit is still read', async () => {
    // as a release that kept fewer of the create answer's fields wrote it
    const { qrCodeText: _q, createdAt: _c, ...older } = created.answer!;
    const history = new History(tempDir());
    history.append([{ ...created, answer: older as never }]);
    const api = service(history, [getAnswer({ merchantReference: 'order 42' })]);
    await expect(getChecked(api, ID)).resolves.toMatchObject({ value: { id: ID } });
  });

  it('a field it held is still compared', async () => {
    const history = historyWith([]);
    const error = await refusal(service(history, [getAnswer({ feeAmount: 1, netAmount: 1499 })]));
    expect(error.message).toContain('feeAmount');
  });
});
