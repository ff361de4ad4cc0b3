/**
 * Scope by service: a profile used with the sandbox, then logged in to a real service, has both
 * services' deposits in one history. list and report say which service they cover, count only the
 * one the profile uses now, and never add the sandbox's charges to the shop's money; every
 * service's is asked for with --all-services. The history is a real file.
 */
import { describe, expect, it } from 'vitest';
import type { ListOptions } from '../../src/commands/deposit-list.js';
import { type ReportOptions, runReport } from '../../src/commands/deposit-report.js';
import { History } from '../../src/store/history.js';
import type { CreatedRecord, StoredRecord } from '../../src/store/history-records.js';
import { listOffline } from '../helpers/list-offline.js';
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
    listOffline(term, history, { service, json: true, flags: flags as ListOptions }),
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
    // one report per service: sandbox money is never added to live money
    expect(every.service).toBeNull();
    expect(every.total).toBeUndefined();
    expect(every.periods).toBeUndefined();
    expect(every.services).toMatchObject([
      { service: LIVE, total: { createdCount: 1, finalizedCount: 0, grossCents: 0, createdCents: 2_000 } },
      { service: 'sandbox', total: { createdCount: 3, finalizedCount: 3, grossCents: 103_550 } },
    ]);
  });

  it('--all-services on a terminal: a section per service under its name, each with its own Paid', async () => {
    const r = await report({ allServices: true }, LIVE, false);
    const sections = r.stdout.split(/^Service: /m).slice(1);
    expect(sections.map((text) => text.split('\n')[0])).toEqual([LIVE, 'the sandbox (no real money)']);
    expect(sections[0]).toMatch(/^Paid \(finalized\) +R\$ 0,00$/m);
    expect(sections[1]).toMatch(/^Paid \(finalized\) +R\$ 1\.035,50$/m);
    // no line anywhere sums the two
    expect(r.stdout).not.toContain('1.055,50');
    expect(r.stdout.match(/^Paid \(finalized\)/gm)).toHaveLength(2);
  });

  it.each([
    ['csv', ',', '1035.50'],
    ['csvBr', ';', '1035,50'],
  ] as const)(
    '--all-services --%s: a service column, each service its own total row',
    async (format, sep, paidCell) => {
      const r = await report({ allServices: true, [format]: true }, LIVE, false);
      const rows = r.stdout
        .trim()
        .split(/\r?\n/)
        .map((line) => line.split(sep));
      const header = rows[0]!;
      expect(header.at(-1)).toBe('service');
      const gross = header.indexOf('gross');
      const totals = rows.filter((row) => row[0] === 'total');
      expect(totals.map((row) => [row.at(-1), row[gross]])).toEqual([
        [LIVE, sep === ',' ? '0.00' : '0,00'],
        ['sandbox', paidCell],
      ]);
      // every row names its service
      for (const row of rows.slice(1)) expect([LIVE, 'sandbox']).toContain(row.at(-1));
    },
  );

  it('a person is told which service a report covers, on stderr', async () => {
    const r = await report({}, LIVE, false);
    expect(r.stderr).toBe(`deposits of profile default on ${LIVE} (--all-services for every service)\n`);
    const every = await report({ allServices: true }, LIVE, false);
    expect(every.stderr).toBe('deposits of profile default, every service\n');
  });

  it('list shows this service only, unless --all-services', async () => {
    const live = JSON.parse((await list({}, LIVE)).stdout) as Array<{ id: string }>;
    expect(live.map((e) => e.id)).toEqual([id(4)]);
    const every = JSON.parse((await list({ allServices: true }, LIVE)).stdout) as Array<{
      id: string;
      baseUrl: string;
    }>;
    expect(every.map((e) => [e.id, e.baseUrl])).toEqual([
      [id(4), LIVE],
      [id(3), 'sandbox'],
      [id(2), 'sandbox'],
      [id(1), 'sandbox'],
    ]);
  });

  it.each([
    ['a terminal', 100],
    ['a narrow terminal', 40],
    ['a pipe', undefined],
  ] as const)("list --all-services on %s names each deposit's service", async (_where, columns) => {
    const term = plainTerminal({ json: false, env: { TZ: 'UTC' }, now: () => NOW, columns });
    const history = shopHistory();
    const r = await seenRun(term, () =>
      listOffline(term, history, { service: LIVE, json: false, flags: { allServices: true } }),
    );
    const text = r.stdout;
    for (const n of [1, 2, 3, 4]) {
      const at = text.indexOf(id(n));
      expect(at).toBeGreaterThanOrEqual(0);
      // the deposit's own service, before the next deposit's lines
      const next = Math.min(
        ...[1, 2, 3, 4].map((m) => text.indexOf(id(m), at + 1)).filter((i) => i > 0),
        text.length,
      );
      expect(text.slice(at, next)).toContain(n === 4 ? 'pay.example.com' : 'sandbox');
    }
  });
});
