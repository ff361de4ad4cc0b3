/**
 * The ledger's contract (store/ledger.ts), one suite run against every store: the file history
 * (test/unit/ledger-file-contract.test.ts) and PostgreSQL (test/e2e/ledger-postgres.test.ts).
 * Written in terms of the port alone: records appended, what the ledger then says.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LbrlError } from '../../src/errors.js';
import {
  type AttemptRecord,
  type CreatedRecord,
  expiredRecord,
  type HistoryEntry,
  type StoredRecord,
  statusRecord,
  unverifiedRecord,
  verifiedRecord,
} from '../../src/store/history-records.js';
import type { Ledger } from '../../src/store/ledger-port.js';

export const SERVICE = 'https://pay.example.com';
const T0 = Date.parse('2026-11-20T12:00:00.000Z');
const TXID_A = 'a'.repeat(64);
const TXID_B = 'b'.repeat(64);
const CONFIRMED_AT = '2026-11-20T12:01:00.000Z';

export function depositId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function created(n: number, over: Partial<CreatedRecord> = {}): CreatedRecord {
  return {
    v: 1,
    type: 'created',
    id: depositId(n),
    profile: 'default',
    baseUrl: SERVICE,
    at: new Date(T0 + n * 1000).toISOString(),
    amountInCents: 1000 + n,
    destinationAddress: 'lq1qqexample',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    ...over,
  };
}

const finalized = (n: number, txid: string, at = 60) =>
  statusRecord(depositId(n), 'FINALIZED', T0 + at * 1000, {
    settlement: { liquidTxid: txid },
    confirmedAt: '2026-11-20T12:01:00.000Z',
  });

async function exported(ledger: Ledger): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for await (const record of ledger.records()) out.push(record);
  return out;
}

/** The contract, run on the store `open` makes (a fresh, empty one each time). */
export function ledgerContract(name: string, open: () => Promise<Ledger>): void {
  describe(`the ledger's contract: ${name}`, () => {
    let ledger: Ledger;
    beforeEach(async () => {
      ledger = await open();
    });
    afterEach(async () => {
      await ledger.close();
    });

    it('an empty ledger holds nothing', async () => {
      expect(await ledger.count()).toBe(0);
      expect(await ledger.entries()).toEqual([]);
      expect(await ledger.recorded(depositId(1), SERVICE)).toBeUndefined();
      expect(await exported(ledger)).toEqual([]);
    });

    it('gives the deposits newest first, each with its latest status', async () => {
      await ledger.append([created(1), created(2)]);
      await ledger.append([statusRecord(depositId(1), 'PIX_CONFIRMED', T0 + 30_000)]);
      const entries = await ledger.entries();
      expect(entries.map((e) => [e.id, e.status])).toEqual([
        [depositId(2), 'WAITING_PAYMENT'],
        [depositId(1), 'PIX_CONFIRMED'],
      ]);
      expect(entries[1]).toMatchObject({
        ...created(1),
        status: 'PIX_CONFIRMED',
        statusAt: '2026-11-20T12:00:30.000Z',
      });
      expect(await ledger.count()).toBe(2);
      expect((await ledger.entries({}, { limit: 1 })).map((e) => e.id)).toEqual([depositId(2)]);
    });

    it('keeps one record per deposit per service, whatever the case of its id or how often it is recorded', async () => {
      await ledger.append([created(1)]);
      await ledger.append([created(1)]);
      await ledger.append([created(1, { id: depositId(1).toUpperCase() })]);
      expect(await ledger.count()).toBe(1);
      expect((await ledger.entries()).map((e) => e.id)).toEqual([depositId(1)]);
      expect(await ledger.recorded(depositId(1).toUpperCase(), SERVICE)).toMatchObject({ id: depositId(1) });
      expect(await ledger.recorded(depositId(1), 'https://other.example.com')).toBeUndefined();
    });

    it('refuses a create answered with the id of a deposit it holds with another creation, the whole append', async () => {
      await ledger.append([created(1)]);
      const reused = created(1, { at: '2026-11-21T09:00:00.000Z', amountInCents: 777, profile: 'till-2' });
      const refusal = await ledger.append([created(2), reused]).then(
        () => undefined,
        (error: LbrlError) => error,
      );
      expect(refusal?.type).toBe('mismatch');
      expect(refusal?.message).toBe(
        `the service answered this create with the id of deposit ${depositId(1)}, already in the ledger (created 2026-11-20T12:00:01.000Z, 1001 cents, WAITING_PAYMENT): a new charge never reuses an id. Nothing was recorded. Do not pay this charge`,
      );
      // all or nothing: the other deposit of the append is not there either
      expect((await ledger.entries()).map((e) => [e.id, e.amountInCents, e.profile])).toEqual([
        [depositId(1), 1001, 'default'],
      ]);
      // the same creation given again (a replay) is no refusal, and changes nothing
      await ledger.append([created(1)]);
      expect(await ledger.count()).toBe(1);
    });

    it('chooses by profile, service and id', async () => {
      await ledger.append([
        created(1),
        created(2, { profile: 'till-2' }),
        created(3, { baseUrl: 'https://other.example.com' }),
      ]);
      expect((await ledger.entries({ profile: 'till-2' })).map((e) => e.id)).toEqual([depositId(2)]);
      expect((await ledger.entries({ baseUrl: SERVICE })).map((e) => e.id)).toEqual([
        depositId(2),
        depositId(1),
      ]);
      expect((await ledger.entries({ id: depositId(3) })).map((e) => e.baseUrl)).toEqual([
        'https://other.example.com',
      ]);
    });

    it('a status seen again is not news: one record of it', async () => {
      await ledger.append([created(1)]);
      for (let poll = 1; poll <= 3; poll++)
        await ledger.append([statusRecord(depositId(1), 'PIX_CONFIRMED', T0 + poll * 10_000)]);
      const statuses = (await exported(ledger)).filter((r) => r.type === 'status');
      expect(statuses).toHaveLength(1);
      expect((await ledger.recorded(depositId(1), SERVICE))?.statusAt).toBe('2026-11-20T12:00:10.000Z');
    });

    it('keeps the final answer once seen: a later answer naming another settlement does not replace it', async () => {
      await ledger.append([created(1)]);
      await ledger.append([finalized(1, TXID_A)]);
      await ledger.append([finalized(1, TXID_B, 90)]);
      const entry = await ledger.recorded(depositId(1), SERVICE);
      expect(entry?.status).toBe('FINALIZED');
      expect(entry?.final).toEqual({
        settlement: { liquidTxid: TXID_A },
        confirmedAt: '2026-11-20T12:01:00.000Z',
      });
    });

    it('keeps the settlement facts once seen: a fact first seen at the same status is news, a later answer naming others changes none', async () => {
      await ledger.append([created(1)]);
      await ledger.append([statusRecord(depositId(1), 'SETTLEMENT_CREATED', T0 + 10_000)]);
      // the same status, now naming its transaction: news, kept
      const named = statusRecord(depositId(1), 'SETTLEMENT_CREATED', T0 + 20_000, {
        settlement: { liquidTxid: TXID_A },
      });
      await ledger.append([named]);
      // seen again: not news
      await ledger.append([{ ...named, at: new Date(T0 + 25_000).toISOString() }]);
      await ledger.append([finalized(1, TXID_B)]);
      const entry = await ledger.recorded(depositId(1), SERVICE);
      expect(entry).toEqual({
        ...created(1),
        status: 'FINALIZED',
        statusAt: '2026-11-20T12:01:00.000Z',
        final: { settlement: { liquidTxid: TXID_B }, confirmedAt: CONFIRMED_AT },
        facts: { 'settlement.liquidTxid': TXID_A, confirmedAt: CONFIRMED_AT },
      } satisfies HistoryEntry);
      expect((await ledger.entries())[0]).toEqual(entry);
      expect((await exported(ledger)).filter((r) => r.type === 'status').map((r) => r.at)).toEqual([
        '2026-11-20T12:00:10.000Z',
        '2026-11-20T12:00:20.000Z',
        '2026-11-20T12:01:00.000Z',
      ]);
    });

    it('gives the transaction a verification proved, and the fact it proved', async () => {
      await ledger.append([created(1), created(2)]);
      await ledger.append([verifiedRecord(depositId(1), TXID_A, T0 + 70_000)]);
      expect(await ledger.recorded(depositId(1), SERVICE)).toEqual({
        ...created(1),
        statusAt: created(1).at,
        verifiedAt: '2026-11-20T12:01:10.000Z',
        verifiedTxid: TXID_A,
        facts: { 'settlement.liquidTxid': TXID_A },
      } satisfies HistoryEntry);
      // a verification of another transaction than the facts name is no verification of this deposit
      await ledger.append([finalized(2, TXID_A), verifiedRecord(depositId(2), TXID_B, T0 + 75_000)]);
      expect(await ledger.recorded(depositId(2), SERVICE)).toEqual({
        ...created(2),
        status: 'FINALIZED',
        statusAt: '2026-11-20T12:01:00.000Z',
        final: { settlement: { liquidTxid: TXID_A }, confirmedAt: CONFIRMED_AT },
        verifiedTxid: TXID_B,
        onChain: 'mismatch',
        facts: { 'settlement.liquidTxid': TXID_A, confirmedAt: CONFIRMED_AT },
      } satisfies HistoryEntry);
    });

    it('a verification undone keeps the fact it proved, and says what undid it', async () => {
      await ledger.append([created(1)]);
      await ledger.append([verifiedRecord(depositId(1), TXID_A, T0 + 70_000)]);
      await ledger.append([unverifiedRecord(depositId(1), TXID_A, 'pending', T0 + 80_000)]);
      const entry = await ledger.recorded(depositId(1), SERVICE);
      expect(entry).toEqual({
        ...created(1),
        statusAt: created(1).at,
        onChain: 'pending',
        facts: { 'settlement.liquidTxid': TXID_A },
      } satisfies HistoryEntry);
    });

    it('never moves a deposit back: an older status, or another end after its end, changes nothing', async () => {
      await ledger.append([created(1), created(2)]);
      await ledger.append([finalized(1, TXID_A)]);
      await ledger.append([statusRecord(depositId(1), 'PIX_CONFIRMED', T0 + 70_000)]);
      await ledger.append([statusRecord(depositId(1), 'FAILED', T0 + 80_000, { settlement: null })]);
      await ledger.append([statusRecord(depositId(2), 'TX_SENT', T0 + 30_000)]);
      await ledger.append([statusRecord(depositId(2), 'PIX_CONFIRMED', T0 + 40_000)]);
      expect(await ledger.entries()).toEqual([
        { ...created(2), status: 'TX_SENT', statusAt: '2026-11-20T12:00:30.000Z' },
        {
          ...created(1),
          status: 'FINALIZED',
          statusAt: '2026-11-20T12:01:00.000Z',
          final: { settlement: { liquidTxid: TXID_A }, confirmedAt: CONFIRMED_AT },
          facts: { 'settlement.liquidTxid': TXID_A, confirmedAt: CONFIRMED_AT },
        },
      ] satisfies HistoryEntry[]);
      expect((await ledger.batchState('default', SERVICE)).done.size).toBe(0);
    });

    it('an expiry recorded again holds from the latest, until a payment moves the deposit on', async () => {
      await ledger.append([created(1)]);
      await ledger.append([expiredRecord(depositId(1), T0 + 80_000)]);
      await ledger.append([expiredRecord(depositId(1), T0 + 85_000)]);
      expect(await ledger.recorded(depositId(1), SERVICE)).toEqual({
        ...created(1),
        statusAt: created(1).at,
        expiredAt: '2026-11-20T12:01:25.000Z',
      } satisfies HistoryEntry);
    });

    it('finds a batch row again by its key: its outcome and the Idempotency-Key it was sent with', async () => {
      const attempt: AttemptRecord = {
        v: 1,
        type: 'attempt',
        profile: 'default',
        baseUrl: SERVICE,
        batchKey: 'row-key-1',
        idempotencyKey: 'idem-1',
        at: new Date(T0).toISOString(),
      };
      await ledger.append([attempt]);
      let state = await ledger.batchState('default', SERVICE);
      expect([...state.attempted]).toEqual([['row-key-1', 'idem-1']]);
      expect([...state.done]).toEqual([]);
      await ledger.append([created(1, { batchKey: 'row-key-1' })]);
      await ledger.append([created(1, { batchKey: 'row-key-1' })]);
      state = await ledger.batchState('default', SERVICE);
      expect([...state.done]).toEqual([['row-key-1', { id: depositId(1), status: 'WAITING_PAYMENT' }]]);
      expect([...(await ledger.batchState('till-2', SERVICE)).done]).toEqual([]);
    });

    it('records a verification and an expiry as the file history does', async () => {
      await ledger.append([created(1), created(2)]);
      await ledger.append([finalized(1, TXID_A), verifiedRecord(depositId(1), TXID_A, T0 + 70_000)]);
      await ledger.append([expiredRecord(depositId(2), T0 + 80_000)]);
      expect(await ledger.recorded(depositId(1), SERVICE)).toMatchObject({
        verifiedAt: '2026-11-20T12:01:10.000Z',
      });
      expect(await ledger.recorded(depositId(2), SERVICE)).toMatchObject({
        expiredAt: '2026-11-20T12:01:20.000Z',
      });
      // a payment after the expiry moves the deposit on
      await ledger.append([statusRecord(depositId(2), 'PIX_CONFIRMED', T0 + 90_000)]);
      expect((await ledger.recorded(depositId(2), SERVICE))?.expiredAt).toBeUndefined();
    });

    it('applies a status, an expiry and a verification to the deposit of its service, never to the same id on another', async () => {
      const SANDBOX = 'sandbox';
      // the sandbox and a live service handed out the same id
      await ledger.append([created(1), created(1, { baseUrl: SANDBOX, at: '2026-11-20T12:00:30.000Z' })]);
      const onSandbox = <T extends StoredRecord>(record: T): T => ({ ...record, baseUrl: SANDBOX });
      await ledger.append([onSandbox(finalized(1, TXID_A))]);
      await ledger.append([onSandbox(verifiedRecord(depositId(1), TXID_A, T0 + 70_000))]);
      await ledger.append([{ ...expiredRecord(depositId(1), T0 + 80_000), baseUrl: SERVICE }]);
      expect(await ledger.recorded(depositId(1), SANDBOX)).toMatchObject({ status: 'FINALIZED' });
      expect((await ledger.recorded(depositId(1), SANDBOX))?.verifiedAt).toBe('2026-11-20T12:01:10.000Z');
      expect((await ledger.recorded(depositId(1), SANDBOX))?.expiredAt).toBeUndefined();
      const live = await ledger.recorded(depositId(1), SERVICE);
      expect(live).toMatchObject({ status: 'WAITING_PAYMENT', expiredAt: '2026-11-20T12:01:20.000Z' });
      expect(live?.final).toBeUndefined();
      expect(live?.verifiedAt).toBeUndefined();
      // a record of an older release names no service: with its id on two, it is about neither
      await ledger.append([statusRecord(depositId(1), 'FAILED', T0 + 90_000)]);
      expect((await ledger.recorded(depositId(1), SERVICE))?.status).toBe('WAITING_PAYMENT');
      expect((await ledger.recorded(depositId(1), SANDBOX))?.status).toBe('FINALIZED');
      // with its id on one service, it is about that one's deposit
      await ledger.append([created(2)]);
      await ledger.append([statusRecord(depositId(2), 'PIX_CONFIRMED', T0 + 95_000)]);
      expect((await ledger.recorded(depositId(2), SERVICE))?.status).toBe('PIX_CONFIRMED');
    });

    it('gives every record back in the order taken, as the file history writes them', async () => {
      const records: StoredRecord[] = [
        created(1),
        created(2),
        statusRecord(depositId(1), 'PIX_CONFIRMED', T0 + 5000),
        finalized(1, TXID_A),
      ];
      await ledger.append(records.slice(0, 2));
      await ledger.append(records.slice(2));
      expect((await exported(ledger)).map((r) => JSON.stringify(r))).toEqual(
        records.map((r) => JSON.stringify(r)),
      );
    });
  });
}
