import fc from 'fast-check';
import { expect, it } from 'vitest';
import { watchDeposits } from '../../src/deposits/watch.js';
import { LbrlError } from '../../src/errors.js';
import { getAnswer } from '../helpers/fixtures.js';
import { steppingClock } from '../helpers/plain-terminal.js';
import { refusalOf, scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const _SERVICE = 'https://pay.example.com';
const NOW = Date.parse('2026-11-23T15:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const step = fc.record({
  delayMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90_000 })),
  outcome: fc.constantFrom('ok', 'ok', 'ok', '429', '404', 'net'),
});
const refusal = (x: string, now: number, status: number, retryAfter?: string) =>
  refusalOf(x, now, { status, retryAfter });

/**
 * watchDeposits' account of its last looks, whatever ends it (all done, its timeout, an error):
 * each deposit due one is looked at (an answer: change or expired; or gone) or told in the one
 * `deferred` event as left for later, never both, never neither; WatchResult.deferred says the same.
 */
it('every last look is made or told as deferred, once, however the watch ends', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        live: fc.integer({ min: 0, max: 3 }),
        due: fc.integer({ min: 1, max: 8 }),
        perMinute: fc.integer({ min: 1, max: 10 }),
        budget: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
        timeout: fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: undefined }),
        interval: fc.integer({ min: 1000, max: 10000 }),
        steps: fc.array(step, { maxLength: 40 }),
        dueStatus: fc.constantFrom('WAITING_PAYMENT', 'FINALIZED', 'PIX_CONFIRMED'),
        leaveGone: fc.boolean(),
        missing: fc.boolean(),
      }),
      async (p) => {
        // a watch that would never end is stopped and named, never left to hang the suite
        const clock = steppingClock(NOW, { monotonic: true, guard: { sleeps: 2000, reads: 200_000 } });
        const dueIds = Array.from({ length: p.due }, (_, n) => id(100 + n));
        const liveIds = Array.from({ length: p.live }, (_, n) => id(n + 1));
        let k = 0;
        const asked = new Map<string, number>();
        const api = scriptedDepositApi({
          now: clock.now,
          get: (x) => {
            const s = p.steps[k++] ?? { delayMs: 0, outcome: 'ok' };
            clock.t += s.delayMs;
            clock.m += s.delayMs;
            if (s.outcome === '429') throw refusal(x, clock.now(), 429, '2');
            if (s.outcome === '404') throw refusal(x, clock.now(), 404);
            if (s.outcome === 'net') throw new LbrlError('reset', 'network');
            asked.set(x, (asked.get(x) ?? 0) + 1);
            const isDue = dueIds.includes(x);
            let status = isDue ? p.dueStatus : 'WAITING_PAYMENT';
            if (status === 'PIX_CONFIRMED' && (asked.get(x) ?? 0) > 1) status = 'FINALIZED';
            if (!isDue && (asked.get(x) ?? 0) > 2) status = 'FINALIZED';
            return getAnswer({
              id: x,
              status,
              settlement: status === 'FINALIZED' ? { status, liquidTxid: 'cd'.repeat(32) } : null,
              confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-23T14:00:00Z',
            });
          },
        });
        const looked = new Set<string>();
        const told: string[][] = [];
        let result: Awaited<ReturnType<typeof watchDeposits>> | undefined;
        let error: unknown;
        try {
          result = await watchDeposits(
            api,
            {
              ids: [...liveIds, ...dueIds],
              lastLook: new Set(dueIds),
              lastLookBudget: p.budget,
              perMinute: p.perMinute,
              intervalMs: p.interval,
              timeoutMs: p.timeout,
              leaveGone: p.leaveGone,
              ...clock,
              now: clock.now,
              monotonic: clock.monotonic,
            },
            {
              change: (d) => looked.add(d.id),
              expired: (x) => looked.add(x),
              gone: (x) => looked.add(x),
              ...(p.missing ? { missing: () => {} } : {}),
              deferred: (ids) => told.push(ids),
              retry: () => {},
              tick: () => {},
            },
          );
        } catch (e) {
          error = e;
        }
        const msg = JSON.stringify({ p, looked: [...looked], told, result, error: String(error) });
        expect(clock.endless, `the watch did not end: ${msg}`).toBeUndefined();
        expect(told, msg).toHaveLength(1);
        const deferred = told[0]!;
        if (result) expect(result.deferred, msg).toEqual(deferred);
        for (const x of dueIds) {
          const ways = [looked.has(x), deferred.includes(x)].filter(Boolean).length;
          expect(ways, `${x} ${msg}`).toBe(1);
        }
      },
    ),
    { numRuns: 200 },
  );
}, 200_000);
