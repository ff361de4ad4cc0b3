/**
 * A cron pass that starts just before a batch of unpaid charges passes expire-after, with one live
 * charge that is paid: the charges that age out while a round runs are last looks from then on
 * (within the pass's minute of them), not asked as live, so the paid charge is seen within a
 * request or two of its payment and the pass ends, leaving the rest for the next. Asked as live,
 * a round of 80 at 30 requests a minute held the paid charge back 160 s and the pass ran its
 * whole --timeout. In process, on the injected clock.
 */
import { expect, it } from 'vitest';
import { runWatch } from '../../src/commands/deposit-watch.js';
import { History } from '../../src/store/history.js';
import { tempDir } from '../helpers/cli.js';
import { getAnswer, LQ } from '../helpers/fixtures.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { createdRecord } from '../helpers/records-history.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import { SERVICE, watchPassOptions } from '../helpers/watch-pass.js';

const NOW = Date.parse('2026-11-23T15:00:00Z');
const EXPIRE_AFTER_MS = 600_000;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

it('charges that age out during a round are last looks from then on: the paid one is seen, the pass ends', async () => {
  const dir = tempDir();
  const history = new History(dir);
  const live = id(1);
  // 20 charges due their last look 5 s into the pass; the live one created just now
  const ageing = Array.from({ length: 20 }, (_, n) => id(100 + n));
  const created = (depositId: string, at: number) =>
    createdRecord(depositId, {
      at: new Date(at).toISOString(),
      amountInCents: 150000,
      destinationAddress: LQ,
    });
  history.append([...ageing.map((x) => created(x, NOW - EXPIRE_AFTER_MS + 5_000)), created(live, NOW)]);
  const clock = steppingClock(NOW, { monotonic: true, guard: { sleeps: 1000, reads: 100_000 } });
  const term = plainTerminal({ now: clock.now, json: true });
  let liveLooks = 0;
  const api = scriptedDepositApi({
    now: clock.now,
    recorded: (depositId) => history.recorded(depositId, SERVICE),
    get: (depositId) => {
      // the live charge is paid at its second look
      const paid = depositId === live && ++liveLooks >= 2;
      const status = paid ? 'FINALIZED' : 'WAITING_PAYMENT';
      return getAnswer({
        id: depositId,
        status,
        settlement: paid ? { status, liquidTxid: 'cd'.repeat(32) } : null,
        confirmedAt: paid ? '2026-11-23T15:00:30Z' : null,
      });
    },
  });
  const options = watchPassOptions({
    flags: { pending: true, interval: '2', timeout: '30m' },
    term,
    globals: { json: true },
    api,
    clock,
    history,
    settings: { 'requests-per-minute': '6', 'expire-after': '10m' },
  });
  const run = await seenRun(term, () => runWatch(options));
  expect(clock.endless).toBeUndefined();
  expect(run.error).toBeUndefined();
  const last = new Map<string, string>();
  for (const line of run.stdout.split('\n').filter(Boolean)) {
    const deposit = JSON.parse(line);
    last.set(deposit.id, deposit.status);
  }
  expect(last.get(live)).toBe('FINALIZED');
  // 6 requests a minute: the live charge, a minute's worth (6) of last looks, the live one again;
  // never the 20 asked as live first (over 3 minutes)
  expect(clock.m).toBeLessThanOrEqual(90_000);
  const notices = term.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  const left = notices.find((n) => n.notice?.type === 'last_looks_left')?.notice.count ?? 0;
  const expired = notices.filter((n) => n.notice?.type === 'expired').length;
  expect(expired + left).toBe(ageing.length);
  expect(expired).toBeLessThanOrEqual(6);
});
