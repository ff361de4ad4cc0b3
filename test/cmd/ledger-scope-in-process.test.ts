/**
 * Scope by service: a profile used with the sandbox, then logged in to a real service, has both
 * services' deposits in one history. list and report say which service they cover, count only the
 * one the profile uses now, and never add the sandbox's charges to the shop's money; every
 * service's is asked for with --all-services. The history is a real file.
 */
import { describe, expect, it } from 'vitest';
import { type ListOptions, runList } from '../../src/commands/deposit-list.js';
import { type ReportOptions, runReport } from '../../src/commands/deposit-report.js';
import { History } from '../../src/store/history.js';
import type { CreatedRecord, StoredRecord } from '../../src/store/history-records.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { tempDir } from '../helpers/temp.js';

const LIVE = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T15:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function paid(n: number, baseUrl: string, cents: number): StoredRecord[] {
  const at = new Date(NOW - (10 - n) * 3_600_000).toISOString();
  const created: CreatedRecord = {
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl,
    at,
    amountInCents: cents,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    answer: {
      amount: cents / 100,
      feeAmount: 0,
      netAmount: cents / 100,
      splitPercent: null,
      qrCodeText: 'x',
      createdAt: at,
    },
  };
  return [created, { v: 1, type: 'status', id: id(n), status: 'FINALIZED', at }];
}

/** Three sandbox charges paid (R$ 1.035,50), then one live charge of R$ 20,00, still waiting. */
function shopHistory(): History {
  const history = new History(tempDir());
  history.append([
    ...paid(1, 'sandbox', 50_000),
    ...paid(2, 'sandbox', 50_000),
    ...paid(3, 'sandbox', 3_550),
  ]);
  history.append([paid(4, LIVE, 2_000)[0]!]);
  return history;
}

async function report(flags: Partial<ReportOptions>, service: string, json = true) {
  const term = plainTerminal({ json, env: { TZ: 'UTC' }, now: () => NOW });
  const history = shopHistory();
  return seenRun(term, () =>
    runReport({
      flags: flags as ReportOptions,
      json,
      printer: term.printer,
      profileName: 'default',
      ctx: term.ctx,
      history: () => history,
      service: () => service,
    }),
  );
}

async function list(flags: Partial<ListOptions>, service: string) {
  const term = plainTerminal({ json: true, env: { TZ: 'UTC' }, now: () => NOW });
  const history = shopHistory();
  return seenRun(term, () =>
    runList({
      flags: flags as ListOptions,
      json: true,
      printer: term.printer,
      profileName: 'default',
      ctx: term.ctx,
      history: () => history,
      service: () => service,
      refresh: {
        targetKey: () => service,
        client: async () => {
          throw new Error('nothing is asked');
        },
        recorder: { record: () => {} },
        expireAfterMs: () => 86_400_000,
        paidAfterExpiry: () => {},
      },
    }),
  );
}

describe('a view covers the service the profile uses now', () => {
  it('report after logging in for real: no sandbox money counted as paid, and the JSON names the service', async () => {
    const r = await report({}, LIVE);
    const shown = JSON.parse(r.stdout);
    expect(shown).toMatchObject({ profile: 'default', service: LIVE });
    expect(shown.total).toMatchObject({
      createdCount: 1,
      finalizedCount: 0,
      grossCents: 0,
      createdCents: 2000,
    });
  });

  it('the sandbox counts only its own; --all-services counts every one and says so', async () => {
    const sandbox = JSON.parse((await report({}, 'sandbox')).stdout);
    expect(sandbox).toMatchObject({ service: 'sandbox', total: { finalizedCount: 3, grossCents: 103_550 } });
    const every = JSON.parse((await report({ allServices: true }, LIVE)).stdout);
    expect(every).toMatchObject({ service: null, total: { createdCount: 4, grossCents: 103_550 } });
  });

  it('a person is told which service a report covers, on stderr', async () => {
    const r = await report({}, LIVE, false);
    expect(r.stderr).toBe(`deposits of profile default on ${LIVE} (--all-services for every service)\n`);
    const every = await report({ allServices: true }, LIVE, false);
    expect(every.stderr).toBe('deposits of profile default, every service\n');
  });

  it('list shows this service only, unless --all-services', async () => {
    const live = JSON.parse((await list({}, LIVE)).stdout) as Array<{ id: string }>;
    expect(live.map((e) => e.id)).toEqual([id(4)]);
    const every = JSON.parse((await list({ allServices: true }, LIVE)).stdout) as Array<{ id: string }>;
    expect(every.map((e) => e.id)).toEqual([id(4), id(3), id(2), id(1)]);
  });
});
