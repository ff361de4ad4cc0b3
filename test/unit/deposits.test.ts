import { createHash } from 'node:crypto';
/** The deposit flows on plain objects: no commander, no HTTP, no files. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CreateRequest } from '../../src/api/models.js';
import { checkAnswer } from '../../src/deposits/answers.js';
import { createBatch, rowKeys } from '../../src/deposits/batch.js';
import { createChecked } from '../../src/deposits/create.js';
import { listEntries, pendingWork, refreshEntries } from '../../src/deposits/history.js';
import type { DepositApi, FlowClock, HistoryReader } from '../../src/deposits/ports.js';
import { buildRequest, checkRequest, ROW_LABELS } from '../../src/deposits/request.js';
import { follow } from '../../src/deposits/watch.js';
import { LbrlError } from '../../src/errors.js';
import { ResumableRows, RowClaims, rowIdempotencyKey } from '../../src/store/claims.js';
import { History } from '../../src/store/history.js';
import { expiredRecord, type HistoryRecord, statusRecord } from '../../src/store/history-records.js';
import { createAnswer, getAnswer, ID, LQ, TEX, VJL } from '../helpers/fixtures.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');

function clock(): FlowClock & { t: number } {
  const c = {
    t: T0,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.t += ms;
    },
    random: () => 0.5,
    signal: new AbortController().signal,
  };
  return c;
}

function recorder() {
  const records: HistoryRecord[] = [];
  return { records, record: (r: HistoryRecord[]) => records.push(...r) };
}

/** The n-th deposit id a service in memory hands out (the first is the fixtures' ID). */
const idOf = (n: number) => `3f2b8c1e-9a4d-4c6b-8e21-${n.toString(16).padStart(12, '0')}`;

/** A service in memory: creates answer well unless told otherwise, gets walk through `statuses`. */
function fakeApi(o: { statuses?: string[]; create?: (b: CreateRequest) => object } = {}) {
  const sent: Array<{ body: CreateRequest; key: string }> = [];
  let n = 0;
  const api: DepositApi = {
    createDeposit: async (body, key) => {
      sent.push({ body, key });
      // an honest service answers each create with a new id
      const raw = {
        ...(o.create ?? createAnswer)(body),
        ...(sent.length > 1 ? { id: idOf(sent.length) } : {}),
      };
      return { value: raw as never, raw };
    },
    getDeposit: async (id) => {
      const status = o.statuses?.[Math.min(n++, (o.statuses?.length ?? 1) - 1)] ?? 'WAITING_PAYMENT';
      // an honest service: a FINALIZED deposit carries its settlement and confirmedAt
      const done =
        status === 'FINALIZED'
          ? {
              settlement: { liquidTxid: 'ab'.repeat(32), status: 'FINALIZED' },
              confirmedAt: '2026-11-22T10:05:00.000Z',
            }
          : {};
      const raw = getAnswer({ id, status, ...done });
      return { value: raw as never, raw };
    },
  };
  return { api, sent };
}

const defaults = { network: 'liquid' as const };
const scope = { profile: 'default', target: 'sandbox' };

describe('request', () => {
  it('takes the destination and the split from the profile', () => {
    expect(
      buildRequest(
        { amount: '15,50' },
        { ...defaults, defaultAddress: LQ, splitAddress: VJL, splitFee: '2.99' },
      ),
    ).toEqual({ amountInCents: 1550, lbrlAddress: LQ, lbrlSplitAddress: VJL, splitFee: '2.99%' });
  });

  it('names every problem of a row with the row labels', () => {
    const r = checkRequest({ amount: '1', amountCents: '100', to: TEX }, defaults, ROW_LABELS);
    expect(r.body).toBeUndefined();
    expect(r.problems[0]).toBe('give either amount (reais) or amountCents, not both');
    expect(r.problems[1]).toMatch(/^invalid to "tex1.*": expected a Liquid address on liquid/);
  });

  it('refuses a split to the destination itself', () => {
    expect(() => buildRequest({ amountCents: '100', to: LQ, splitTo: LQ, splitFee: '1%' }, defaults)).toThrow(
      'the split address is the same as the destination; pass --no-split or another split address',
    );
  });
});

describe('answers', () => {
  it('refuses a create answer that differs from the request, naming the field', async () => {
    const body = { amountInCents: 1550, lbrlAddress: LQ };
    const raw = { ...createAnswer(body), amountInCents: 1551 };
    const e = await checkAnswer('create', { value: raw as never, raw }, { request: body }).then(
      () => undefined,
      (error: LbrlError) => error,
    );
    expect(e).toBeInstanceOf(LbrlError);
    expect(e?.exitCode).toBe(1);
    expect(e?.message).toMatch(/amountInCents: sent 1550, service answered 1551\. Do not pay this charge$/);
  });
});

describe('create', () => {
  it('records the deposit, with its scope and time, before handing it back', async () => {
    const { api, sent } = fakeApi();
    const rec = recorder();
    const body = { amountInCents: 1550, lbrlAddress: LQ };
    const { value } = await createChecked({ api, recorder: rec, scope, now: () => T0 }, body, 'key-1');
    expect(value.id).toBe(ID);
    expect(sent).toEqual([{ body, key: 'key-1' }]);
    expect(rec.records).toEqual([
      {
        v: 1,
        type: 'created',
        id: ID,
        profile: 'default',
        baseUrl: 'sandbox',
        at: '2026-11-22T10:00:00.000Z',
        amountInCents: 1550,
        destinationAddress: LQ,
        splitAddress: null,
        splitFee: null,
        status: 'WAITING_PAYMENT',
        // the create answer's fixed fields: later answers, in any process, must say the same
        answer: {
          amount: 15.5,
          feeAmount: 0.15,
          netAmount: 15.35,
          splitPercent: null,
          qrCodeText: createAnswer(body).qrCodeText,
          createdAt: '2026-11-22T10:00:00.000Z',
        },
      },
    ]);
  });

  it('records nothing when the answer does not match', async () => {
    const { api } = fakeApi({ create: (b) => ({ ...createAnswer(b), destinationAddress: VJL }) });
    const rec = recorder();
    await expect(
      createChecked(
        { api, recorder: rec, scope, now: () => T0 },
        { amountInCents: 1550, lbrlAddress: LQ },
        'k',
      ),
    ).rejects.toThrow(/destinationAddress: sent lq1/);
    expect(rec.records).toEqual([]);
  });
});

describe('watch', () => {
  it('follows to FINALIZED, recording each status once', async () => {
    const { api } = fakeApi({ statuses: ['WAITING_PAYMENT', 'WAITING_PAYMENT', 'FINALIZED'] });
    const rec = recorder();
    const seen: string[] = [];
    const c = clock();
    await follow(
      api,
      [ID],
      { intervalMs: 3000 },
      { clock: c, recorder: rec, statusRecord, expiredRecord },
      { change: (d, _raw, prev) => seen.push(`${prev ?? '-'}>${d.status}`), retry: () => {}, tick: () => {} },
    );
    expect(seen).toEqual(['->WAITING_PAYMENT', 'WAITING_PAYMENT>FINALIZED']);
    expect(rec.records.map((r) => (r.type === 'status' ? r.status : r.type))).toEqual([
      'WAITING_PAYMENT',
      'FINALIZED',
    ]);
    expect(c.t - T0).toBe(6000);
  });

  it('--timeout ends the watch on time against an unreachable service, its back-off included', async () => {
    const c = clock();
    const api: DepositApi = {
      createDeposit: async () => {
        throw new Error('not used');
      },
      // refused at once, every time: only the back-off between attempts takes time
      getDeposit: async () => {
        throw new LbrlError('could not reach the service', 'network');
      },
    };
    const retries: number[] = [];
    const quiet = {
      change: () => {},
      retry: (_r: string, delay: number) => retries.push(delay),
      tick: () => {},
    };
    for (const timeoutMs of [2000, 5000, 20_000]) {
      c.t = T0;
      await expect(
        follow(
          api,
          [ID],
          { intervalMs: 3000, timeoutMs },
          { clock: c, recorder: recorder(), statusRecord, expiredRecord },
          quiet,
        ),
      ).rejects.toMatchObject({ type: 'watch_timeout', exitCode: 124 });
      expect(c.t - T0).toBeLessThanOrEqual(timeoutMs);
      expect(c.t - T0).toBeGreaterThanOrEqual(timeoutMs - 1000);
    }
    expect(retries.length).toBeGreaterThan(0);
  });

  it('--timeout ends the watch while a request hangs', async () => {
    const api: DepositApi = {
      createDeposit: async () => {
        throw new Error('not used');
      },
      getDeposit: () => new Promise(() => {}),
    };
    const quiet = { change: () => {}, retry: () => {}, tick: () => {} };
    const started = Date.now();
    await expect(
      follow(
        api,
        [ID],
        { intervalMs: 1000, timeoutMs: 50 },
        { clock: clock(), recorder: recorder(), statusRecord, expiredRecord },
        quiet,
      ),
    ).rejects.toMatchObject({ type: 'watch_timeout' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('ends FAILED with exit 5', async () => {
    const { api } = fakeApi({ statuses: ['FAILED'] });
    const quiet = { change: () => {}, retry: () => {}, tick: () => {} };
    await expect(
      follow(
        api,
        [ID],
        { intervalMs: 1000 },
        { clock: clock(), recorder: recorder(), statusRecord, expiredRecord },
        quiet,
      ),
    ).rejects.toMatchObject({ message: `deposit ${ID} ended FAILED`, exitCode: 5 });
  });

  it('leaveGone: a deposit the service answers 404 for is reported, nothing recorded of it, and the others are followed (exit 4)', async () => {
    const OTHER = '00000000-0000-4000-8000-000000000001';
    const calls: string[] = [];
    const api = {
      createDeposit: async () => {
        throw new Error('not used');
      },
      getDeposit: async (id: string) => {
        calls.push(id);
        if (id === OTHER) throw new LbrlError(`deposit ${OTHER} not found`, 'not_found');
        return (await fakeApi({ statuses: ['FINALIZED'] }).api.getDeposit(id)) as never;
      },
    };
    const rec = recorder();
    const gone: string[] = [];
    await expect(
      follow(
        api as never,
        [OTHER, ID],
        { intervalMs: 1000, leaveGone: true },
        { clock: clock(), recorder: rec, statusRecord, expiredRecord },
        {
          change: () => {},
          retry: () => {},
          tick: () => {},
          gone: (id) => gone.push(id),
        },
      ),
    ).rejects.toMatchObject({ type: 'not_found', exitCode: 4 });
    expect(gone).toEqual([OTHER]);
    expect(calls.filter((c) => c === OTHER)).toHaveLength(1);
    expect(
      rec.records.filter((r) => r.type === 'status').map((r) => [r.id, (r as { status: string }).status]),
    ).toEqual([[ID, 'FINALIZED']]);
  });
});

/** A real history file holding `records`, in a directory of its own. */
function historyOf(records: HistoryRecord[]): HistoryReader {
  const h = new History(fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-history-')));
  if (records.length > 0) h.append(records);
  return h;
}

const dirOf = (h: HistoryReader) => (h as History).dir;

function created(id: string, status: string, baseUrl = 'sandbox', profile = 'default'): HistoryRecord {
  return {
    v: 1,
    type: 'created',
    id,
    profile,
    baseUrl,
    at: '2026-11-22T10:00:00.000Z',
    // what the fake service answers for every deposit
    amountInCents: 150000,
    destinationAddress: LQ,
    splitAddress: null,
    splitFee: null,
    status,
  };
}

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';

describe('history', () => {
  const history = historyOf([
    created(A, 'WAITING_PAYMENT'),
    created(B, 'WAITING_PAYMENT'),
    // paid as lbrl records a payment: a status line (a creation proves no more than waiting)
    { v: 1, type: 'status', id: B, baseUrl: 'sandbox', status: 'FINALIZED', at: '2026-11-22T10:01:00.000Z' },
    created(C, 'WAITING_PAYMENT', 'https://pay.example.com'),
  ]);

  it('lists pending ids of the scope only, after the ones given', () => {
    expect(pendingWork(history, scope, [B], { now: () => T0, expireAfterMs: 86_400_000 }).ids).toEqual([
      B,
      A,
    ]);
  });

  it('refreshes only the target, notes the others, records what it got', async () => {
    const { api } = fakeApi({ statuses: ['FINALIZED'] });
    const rec = recorder();
    const notes: string[] = [];
    const entries = listEntries(history, 'default', 30);
    await refreshEntries(entries, {
      api: async () => api,
      target: 'sandbox',
      recorder: rec,
      now: () => T0,
      notes: { info: (l) => notes.push(l), warn: (l) => notes.push(l) },
    });
    expect(notes).toEqual(['1 deposit(s) of another service were not refreshed']);
    expect(entries.find((e) => e.id === A)?.status).toBe('FINALIZED');
    expect(rec.records).toEqual([
      {
        v: 1,
        type: 'status',
        id: A,
        status: 'FINALIZED',
        at: '2026-11-22T10:00:00.000Z',
        // what a final answer said, so no later answer may say otherwise
        final: {
          settlement: { liquidTxid: 'ab'.repeat(32), status: 'FINALIZED' },
          confirmedAt: '2026-11-22T10:05:00.000Z',
        },
        // the settlement's facts, kept once seen whatever the status
        facts: { 'settlement.liquidTxid': 'ab'.repeat(32), confirmedAt: '2026-11-22T10:05:00.000Z' },
      },
    ]);
  });
});

describe('batch', () => {
  const bodies = [
    { amountInCents: 100, lbrlAddress: LQ },
    { amountInCents: 100, lbrlAddress: LQ },
  ];

  it('keeps two identical rows apart, and --resume reuses an earlier idempotency key', async () => {
    const keys = rowKeys(bodies);
    expect(keys[0]).not.toBe(keys[1]);
    const { api, sent } = fakeApi();
    const rec = recorder();
    const history = historyOf([
      {
        v: 1,
        type: 'attempt',
        profile: 'default',
        baseUrl: 'sandbox',
        batchKey: keys[1]!,
        idempotencyKey: 'earlier',
        at: '',
      },
    ]);
    const lines: unknown[] = [];
    await createBatch(
      bodies.map((body, i) => ({ row: i + 1, body })),
      { concurrency: 1, resume: true },
      {
        api: async () => api,
        recorder: rec,
        scope,
        clock: clock(),
        resumable: (keys) =>
          new ResumableRows(history as History, new RowClaims(dirOf(history)), 'default', 'sandbox', keys),
      },
      (outcomes, finished) => lines.push([finished, outcomes.filter(Boolean).length]),
    );
    expect(sent[1]?.key).toBe('earlier');
    // a row never sent before gets the key derived from it, the same in every run
    expect(sent[0]?.key).toBe(rowIdempotencyKey('default', 'sandbox', keys[0]!));
    expect(lines).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(rec.records.map((r) => r.type)).toEqual(['attempt', 'created', 'attempt', 'created']);
  });

  it('fails with the rows not created and their common exit code', async () => {
    const { api } = fakeApi({ create: (b) => ({ ...createAnswer(b), amountInCents: 1 }) });
    await expect(
      createBatch(
        bodies.map((body, i) => ({ row: i + 1, body })),
        { concurrency: 2, resume: false },
        { api: async () => api, recorder: recorder(), scope, clock: clock() },
        () => {},
      ),
    ).rejects.toMatchObject({
      message: '2 of 2 row(s) were not created (rows 1, 2); re-run with --resume to retry only those',
      exitCode: 1,
    });
  });
});

describe('rowKeys and a row reference', () => {
  const body: CreateRequest = { amountInCents: 1550, lbrlAddress: LQ };
  it('a row without a reference keeps the key an older lbrl gave it; a reference makes another row', () => {
    const [plain] = rowKeys([body]);
    expect(rowKeys([body], [undefined])[0]).toBe(plain);
    // the key as lbrl wrote it before references were kept
    const older = createHash('sha256')
      .update(`${JSON.stringify([1550, LQ, null, null])}#0`)
      .digest('hex');
    expect(plain).toBe(older);
    const [first, second] = rowKeys([body, body], ['pedido 1', 'pedido 2']);
    expect(new Set([plain, first, second]).size).toBe(3);
    expect(rowKeys([body], ['pedido 1'])[0]).toBe(first);
  });
});
