/**
 * `deposit list` as a function of narrow options (runList): the history on plain records, a
 * scripted service for --refresh (which may lie), a fixed clock, a printer on plain strings and a
 * terminal of a given width. No factory, no files, no server. What a user sees is asserted
 * (stdout, stderr, the error) and what --refresh records. Recording creates, and a history file
 * damaged on disk, stay with test/cmd/batch-history.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CreateResponse } from '../../src/api/models.js';
import { type ListOptions, runList } from '../../src/commands/deposit-list.js';
import { fixedFieldsOf } from '../../src/domain/deposit.js';
import type { LbrlError } from '../../src/errors.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { createAnswer, getAnswer, LQ } from '../helpers/fixtures.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { createdRecord, type RecordsHistory, recordsHistory } from '../helpers/records-history.js';
import { scriptedGets } from '../helpers/scripted-deposit-api.js';

const TARGET = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T12:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const DAY = 24 * 3600_000;

/** Deposit n created at `at` for `cents`, to LQ, on the live service, as `deposit create` records it. */
function created(
  n: number,
  at: string,
  cents: number,
  over: Partial<Parameters<typeof createdRecord>[1]> = {},
) {
  const answer = { ...createAnswer({ amountInCents: cents, lbrlAddress: LQ }), id: id(n), createdAt: at };
  return createdRecord(id(n), {
    at,
    amountInCents: cents,
    destinationAddress: LQ,
    baseUrl: TARGET,
    answer: fixedFieldsOf(answer as CreateResponse),
    ...over,
  });
}

function status(n: number, value: string, at: string): StoredRecord {
  return { v: 1, type: 'status', id: id(n), status: value, at };
}

/** Three deposits: 1 finalized and verified, 2 waiting, 3 failed; newest is 3. */
const THREE = (): StoredRecord[] => [
  created(1, '2026-11-20T09:00:00.000Z', 1550),
  created(2, '2026-11-21T10:00:00.000Z', 150000),
  created(3, '2026-11-22T11:00:00.000Z', 99),
  status(1, 'FINALIZED', '2026-11-20T09:05:00.000Z'),
  { v: 1, type: 'verified', id: id(1), txid: 'ab'.repeat(32), at: '2026-11-20T09:10:00.000Z' },
  status(3, 'FAILED', '2026-11-22T11:01:00.000Z'),
];

interface Seen {
  stdout: string;
  stderr: string;
  error?: LbrlError;
  asked: string[];
  /** whether --refresh made a client */
  clientMade: boolean;
  appended: StoredRecord[];
  paidAfterExpiry: string[];
}

async function list(
  flags: ListOptions,
  o: {
    history?: RecordsHistory;
    json?: boolean;
    columns?: number;
    env?: Record<string, string>;
    answers?: Parameters<typeof scriptedGets>[0];
    expireAfterMs?: number;
  } = {},
): Promise<Seen> {
  const history = o.history ?? recordsHistory(THREE());
  const term = plainTerminal({
    json: o.json,
    ...(o.columns !== undefined ? { columns: o.columns } : {}),
    env: o.env ?? {},
    now: () => NOW,
  });
  const { printer, ctx } = term;
  const api = scriptedGets(o.answers ?? {});
  let clientMade = false;
  const paidAfterExpiry: string[] = [];
  const seen = await seenRun(term, () =>
    runList({
      flags,
      printer,
      json: o.json === true,
      profileName: 'default',
      ctx,
      history: () => history,
      refresh: {
        targetKey: () => TARGET,
        client: async () => {
          clientMade = true;
          return api;
        },
        recorder: { record: (records) => history.append(records) },
        expireAfterMs: () => o.expireAfterMs ?? DAY,
        paidAfterExpiry: (x, value, expiredAt) => paidAfterExpiry.push(`${x} ${value} ${expiredAt}`),
      },
    }),
  );
  return {
    ...seen,
    asked: api.asked,
    clientMade,
    appended: history.appended,
    paidAfterExpiry,
  };
}

describe('deposit list on narrow options: what it shows', () => {
  it('--json: newest first, what lbrl keeps for its checks left out', async () => {
    const r = await list({}, { json: true });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    const shown = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(shown.map((e) => [e.id, e.status, e.amountInCents])).toEqual([
      [id(3), 'FAILED', 99],
      [id(2), 'WAITING_PAYMENT', 150000],
      [id(1), 'FINALIZED', 1550],
    ]);
    expect(shown[2]).toMatchObject({ verifiedAt: '2026-11-20T09:10:00.000Z', destinationAddress: LQ });
    for (const e of shown)
      for (const hidden of ['v', 'type', 'answer', 'final']) expect(e).not.toHaveProperty(hidden);
    expect(r.clientMade).toBe(false);
  });

  it('to a pipe: tab-separated, no header, full values in UTC; --limit keeps the newest', async () => {
    const r = await list({ limit: '2' }, { env: { TZ: 'America/Sao_Paulo' } });
    expect(r.stdout).toBe(
      `${id(3)}\t2026-11-22T11:00:00.000Z\t99\t${LQ}\tFAILED\n${id(2)}\t2026-11-21T10:00:00.000Z\t150000\t${LQ}\tWAITING_PAYMENT\n`,
    );
  });

  it('a hand-edited history: control characters are shown escaped, never acted on', async () => {
    const history = recordsHistory([
      created(1, '2026-11-20T09:00:00.000Z', 100),
      status(1, 'X\u001b[2J\u0007', '2026-11-20T09:01:00.000Z'),
    ]);
    const piped = await list({}, { history });
    expect(piped.stdout).not.toMatch(/[\u001b\u0007]/);
    expect(piped.stdout).toContain('X\\x1b[2J\\x07\n');
    const table = await list({}, { history, columns: 120 });
    expect(table.stdout).not.toMatch(/[\u001b\u0007]/);
  });

  it('on a terminal: a table with a header, local times, amounts in reais, ON CHAIN once something was checked', async () => {
    const r = await list({}, { columns: 120, env: { TZ: 'America/Sao_Paulo' } });
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    // every row shares the offset: said once, in the header
    expect(header).toMatch(/^ID {36}CREATED -03:00 +AMOUNT {2}STATUS +ON CHAIN {2}DESTINATION$/);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(new RegExp(`^${id(3)}  2026-11-22 08:00 +R\\$ 0,99  FAILED +lq1qq`));
    expect(rows[1]).toMatch(new RegExp(`^${id(2)}  2026-11-21 07:00  R\\$ 1.500,00  WAITING_PAYMENT +lq1qq`));
    expect(rows[2]).toMatch(
      new RegExp(`^${id(1)}  2026-11-20 06:00 +R\\$ 15,50  FINALIZED +verified  lq1qq`),
    );
    // each column under its header, amounts aligned right
    expect(rows[2]!.indexOf('verified')).toBe(header!.indexOf('ON CHAIN'));
    for (const row of rows) expect(row.indexOf('lq1qq')).toBe(header!.indexOf('DESTINATION'));
    expect(rows[0]!.indexOf('0,99') + 4).toBe(header!.indexOf('AMOUNT') + 6);
    // wide enough: seconds and the offset in each cell
    const wide = await list({}, { columns: 200, env: { TZ: 'America/Sao_Paulo' } });
    expect(wide.stdout.split('\n')[1]).toContain('2026-11-22 08:00:00 -03:00');
    // nothing checked on chain: no ON CHAIN column
    const unchecked = await list({ unverified: true }, { columns: 120 });
    expect(unchecked.stdout).not.toContain('ON CHAIN');
  });

  it.each([100, 80, 60, 50])('a terminal %i columns wide: no line wider, every id whole', async (columns) => {
    const r = await list({}, { columns });
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
    for (const n of [1, 2, 3]) expect(r.stdout).toContain(id(n));
  });

  it('narrower than an id and its status: each deposit on two lines, the id whole', async () => {
    const r = await list({}, { columns: 40 });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(id(3));
    expect(lines[1]).toBe('  R$ 0,99  FAILED');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('at 20 columns (a tmux pane): every amount whole on a line of its own, none dropped', async () => {
    const r = await list({}, { columns: 20 });
    const lines = r.stdout.trimEnd().split('\n');
    // each deposit: its id, its amount, its status; no line but the id (36 characters) wider than the pane
    const amounts = lines.filter((line) => /^\s*R\$ [\d.]+,\d\d/.test(line));
    expect(amounts).toHaveLength(3);
    for (const line of lines.filter((l) => !/^[0-9a-f-]{36}$/.test(l)))
      expect(line.length, line).toBeLessThanOrEqual(20);
  });

  it('nothing recorded: said on stderr, with the file, exit 0; with a filter, "that match"', async () => {
    const empty = await list(
      {},
      { history: recordsHistory([], { file: '/home/u/.config/lbrl/history.ndjson' }) },
    );
    expect(empty.error).toBeUndefined();
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toBe(
      'no deposits recorded for profile default in /home/u/.config/lbrl/history.ndjson\n',
    );
    const none = await list({ status: ['pix_confirmed'] });
    expect(none.stderr).toBe(
      'no deposits recorded for profile default that match in /history/history.ndjson\n',
    );
  });

  it("another profile's deposits are not shown", async () => {
    const history = recordsHistory([
      ...THREE(),
      created(4, '2026-11-22T11:30:00.000Z', 500, { profile: 'work' }),
    ]);
    const r = await list({}, { history, json: true });
    expect(JSON.parse(r.stdout).map((e: { id: string }) => e.id)).toEqual([id(3), id(2), id(1)]);
  });
});

describe('deposit list on narrow options: filters', () => {
  it('--status, repeated or comma separated, any case; EXPIRED is the local verdict', async () => {
    const history = recordsHistory([
      ...THREE(),
      created(5, '2026-11-19T09:00:00.000Z', 700),
      { v: 1, type: 'expired', id: id(5), at: '2026-11-20T09:00:00.000Z' },
    ]);
    const r = await list({ status: ['failed,expired'] }, { history, json: true });
    expect(JSON.parse(r.stdout).map((e: { id: string }) => e.id)).toEqual([id(3), id(5)]);
    const two = await list({ status: ['Finalized', 'WAITING_PAYMENT'] }, { history, json: true });
    expect(JSON.parse(two.stdout).map((e: { id: string }) => e.id)).toEqual([id(2), id(1)]);
  });

  it('--verified and --unverified', async () => {
    const verified = await list({ verified: true }, { json: true });
    expect(JSON.parse(verified.stdout).map((e: { id: string }) => e.id)).toEqual([id(1)]);
    const not = await list({ unverified: true }, { json: true });
    expect(JSON.parse(not.stdout).map((e: { id: string }) => e.id)).toEqual([id(3), id(2)]);
  });

  it('--since and --until read in the user time zone: a bare date is its local midnight', async () => {
    // 2026-11-21 in São Paulo starts at 03:00 UTC: deposit 2 (10:00 UTC on the 21st) only
    const r = await list(
      { since: '2026-11-21', until: '2026-11-22' },
      { json: true, env: { TZ: 'America/Sao_Paulo' } },
    );
    expect(JSON.parse(r.stdout).map((e: { id: string }) => e.id)).toEqual([id(2)]);
    // relative to the clock: the last 2 days from 2026-11-22T12:00Z
    const recent = await list({ since: '2d' }, { json: true });
    expect(JSON.parse(recent.stdout).map((e: { id: string }) => e.id)).toEqual([id(3), id(2)]);
  });

  it('a span back is a compound duration, as --timeout and expire-after read it', async () => {
    // 1d12h back from 2026-11-22T12:00Z is 2026-11-21T00:00Z: deposits 2 and 3; 1h30m: deposit 3 only
    const day = await list({ since: '1d12h' }, { json: true });
    expect(JSON.parse(day.stdout).map((e: { id: string }) => e.id)).toEqual([id(3), id(2)]);
    const hour = await list({ since: '1h30m', until: '0s' }, { json: true });
    expect(JSON.parse(hour.stdout).map((e: { id: string }) => e.id)).toEqual([id(3)]);
  });

  it.each([
    [{ limit: '0' }, 'invalid --limit "'],
    [{ limit: '10001' }, 'invalid --limit "'],
    [{ limit: '2.5' }, 'invalid --limit "'],
    [{ status: ['PAID'] }, 'invalid --status "'],
    [{ since: 'yesterday' }, 'invalid --since "'],
    ...['1d 12h', '1.5d', '-1d', '12h1d', '2d2d', '99999999999999w', '36526d', '7'].map((since) => [
      { since },
      `invalid --since ${JSON.stringify(since)}: expected a date (2026-11-20), a time with its offset (2026-11-20T15:00:00-03:00) or a span back from now (30m, 12h, 7d, 2w, 1d12h; at most 100 years)`,
    ]),
    [{ until: '2h 30m' }, 'invalid --until "2h 30m": expected a date'],
    [{ since: '2026-11-22', until: '2026-11-21' }, '--since 2026-11-22 is not before --until 2026-11-21'],
    [{ verified: true, unverified: true }, '--verified and --unverified cannot go together'],
  ] as Array<[ListOptions, string]>)(
    'bad input %o: exit 2, one line naming it, nothing read or asked',
    async (flags, said) => {
      let read = false;
      const history = recordsHistory(THREE());
      const spy = {
        ...history,
        entries: (...a: Parameters<RecordsHistory['entries']>) => {
          read = true;
          return history.entries(...a);
        },
      };
      const r = await list({ ...flags, refresh: true }, { history: spy as RecordsHistory });
      expect(r.error?.exitCode).toBe(2);
      expect(r.error?.message).toContain(said);
      expect(r.error?.message).not.toContain('\n');
      expect(read).toBe(false);
      expect(r.clientMade).toBe(false);
      expect(r.stdout).toBe('');
    },
  );

  it('--status names what it takes when the value is wrong', async () => {
    const r = await list({ status: ['finalised'] });
    expect(r.error?.message).toContain('WAITING_PAYMENT');
    expect(r.error?.message).toContain('EXPIRED');
  });
});

describe('deposit list --refresh on narrow options', () => {
  const finalizedAnswer = (n: number, cents: number, at: string) => {
    const { qrCode: _q, ...answer } = createAnswer({ amountInCents: cents, lbrlAddress: LQ });
    return {
      ...answer,
      id: id(n),
      createdAt: at,
      status: 'FINALIZED',
      settlement: { status: 'FINALIZED', liquidTxid: 'cd'.repeat(32) },
      confirmedAt: '2026-11-22T11:59:00Z',
    };
  };

  it('asks only for the open deposits of this service, records the answer and shows it', async () => {
    const history = recordsHistory([
      ...THREE(),
      created(6, '2026-11-22T09:00:00.000Z', 300, { baseUrl: 'https://other.example.com' }),
    ]);
    const r = await list(
      { refresh: true },
      { history, answers: { [id(2)]: finalizedAnswer(2, 150000, '2026-11-21T10:00:00.000Z') } },
    );
    expect(r.error).toBeUndefined();
    expect(r.asked).toEqual([id(2)]);
    expect(r.stderr).toBe('1 deposit(s) of another service were not refreshed\n');
    expect(r.stdout).toContain(`${id(2)}\t2026-11-21T10:00:00.000Z\t150000\t${LQ}\tFINALIZED\n`);
    expect(r.appended).toEqual([
      {
        v: 1,
        type: 'status',
        id: id(2),
        status: 'FINALIZED',
        at: new Date(NOW).toISOString(),
        final: {
          settlement: { status: 'FINALIZED', liquidTxid: 'cd'.repeat(32) },
          confirmedAt: '2026-11-22T11:59:00Z',
        },
        facts: { 'settlement.liquidTxid': 'cd'.repeat(32), confirmedAt: '2026-11-22T11:59:00Z' },
      },
    ]);
  });

  it('nothing open: no client is made, nothing asked', async () => {
    const history = recordsHistory([
      created(1, '2026-11-20T09:00:00.000Z', 1550),
      status(1, 'FINALIZED', '2026-11-20T09:05:00.000Z'),
    ]);
    const r = await list({ refresh: true }, { history, json: true });
    expect(r.clientMade).toBe(false);
    expect(r.asked).toEqual([]);
  });

  /** Deposits 2, 4 and 5 open (4 in the middle); the service answers 2 and 5 truly, 4 with `lie`. */
  async function refreshWithLie(lie: (honest: Record<string, unknown>) => Record<string, unknown>, how = {}) {
    const history = recordsHistory([
      ...THREE(),
      created(4, '2026-11-21T12:00:00.000Z', 2500),
      created(5, '2026-11-21T13:00:00.000Z', 700),
    ]);
    const honest = (n: number, cents: number, at: string) => finalizedAnswer(n, cents, at);
    return list(
      { refresh: true },
      {
        history,
        answers: {
          [id(2)]: honest(2, 150000, '2026-11-21T10:00:00.000Z'),
          [id(4)]: lie(honest(4, 2500, '2026-11-21T12:00:00.000Z')),
          [id(5)]: honest(5, 700, '2026-11-21T13:00:00.000Z'),
        },
        ...how,
      },
    );
  }

  const LIES: Array<[string, (honest: Record<string, unknown>) => Record<string, unknown>, string]> = [
    [
      'changes the amount it was created with',
      (honest) => {
        const { amount, amountInCents, feeAmount, netAmount, qrCodeText } = createAnswer({
          amountInCents: 250,
          lbrlAddress: LQ,
        });
        return { ...honest, amount, amountInCents, feeAmount, netAmount, qrCodeText };
      },
      'amountInCents',
    ],
    [
      'settles to another address than recorded',
      (honest) => ({ ...honest, destinationAddress: 'tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx' }),
      'destinationAddress',
    ],
    ['answers about another deposit', (honest) => ({ ...honest, id: id(9) }), id(9)],
    [
      'breaks the contract (a status it does not have)',
      (honest) => ({ ...honest, status: 'PAID' }),
      'status',
    ],
  ];

  it.each(LIES)(
    'a service that %s for one deposit: every deposit shown, that one marked, the lie on stderr, exit 1',
    async (_what, lie, named) => {
      const r = await refreshWithLie(lie);
      const lines = r.stdout.trim().split('\n');
      // every deposit, newest first; the others refreshed
      expect(lines.map((line) => line.split('\t')[0])).toEqual([id(3), id(5), id(4), id(2), id(1)]);
      const statusOf = (n: number) => lines.find((line) => line.startsWith(id(n)))!.split('\t')[4];
      expect(statusOf(2)).toBe('FINALIZED');
      expect(statusOf(5)).toBe('FINALIZED');
      expect(statusOf(4)).toBe('ANSWER_REFUSED');
      // what the service said, on stderr, naming the deposit
      const said = r.stderr.split('\n').find((line) => line.startsWith(`deposit ${id(4)}: answer refused: `));
      expect(said).toContain(named);
      expect(r.error?.exitCode).toBe(1);
      expect(r.error?.message).toBe(
        `1 deposit(s) answered with what lbrl refuses (shown ANSWER_REFUSED, last known status kept, nothing recorded): ${id(4)}`,
      );
      // nothing of the lie recorded; the true answers are
      expect(r.appended.map((x) => ('id' in x ? x.id : '')).sort()).toEqual([id(2), id(5)]);
    },
  );

  it('--json: every deposit, the refused one with its last known status and answerRefused', async () => {
    const r = await refreshWithLie(
      (honest) => ({ ...honest, destinationAddress: 'tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx' }),
      {
        json: true,
      },
    );
    const shown = JSON.parse(r.stdout) as Array<{ id: string; status: string; answerRefused?: string }>;
    expect(shown.map((e) => [e.id, e.status, e.answerRefused !== undefined])).toEqual([
      [id(3), 'FAILED', false],
      [id(5), 'FINALIZED', false],
      [id(4), 'WAITING_PAYMENT', true],
      [id(2), 'FINALIZED', false],
      [id(1), 'FINALIZED', false],
    ]);
    expect(shown[2]!.answerRefused).toContain('destinationAddress');
    expect(r.error?.exitCode).toBe(1);
  });

  it.each([120, 44])(
    'on a terminal %i wide: the refused one is marked in its status cell',
    async (columns) => {
      const r = await refreshWithLie((honest) => ({ ...honest, status: 'PAID' }), { columns });
      const row = r.stdout.split('\n').find((line) => line.includes(id(4)));
      const next = r.stdout.split('\n')[r.stdout.split('\n').indexOf(row!) + 1]!;
      expect(`${row}\n${next}`).toMatch(/ANSWER_REFUSED \(last known: WAITING_PAYMENT\)|REFUSED\/WAITING/);
      for (const n of [1, 2, 3, 5]) expect(r.stdout).toContain(id(n));
      expect(r.error?.exitCode).toBe(1);
    },
  );

  it('a deposit the service does not know: a warning, the others still refreshed', async () => {
    const history = recordsHistory([...THREE(), created(7, '2026-11-22T10:00:00.000Z', 250)]);
    const r = await list(
      { refresh: true },
      { history, json: true, answers: { [id(2)]: finalizedAnswer(2, 150000, '2026-11-21T10:00:00.000Z') } },
    );
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(`warning: the service does not know deposit ${id(7)}\n`);
    expect(r.appended.map((x) => [x.type, 'id' in x ? x.id : ''])).toEqual([['status', id(2)]]);
  });

  it('still waiting past expire-after: recorded expired (local) and shown EXPIRED', async () => {
    const waiting = getAnswer({ id: id(2), amountInCents: 150000, createdAt: '2026-11-21T10:00:00.000Z' });
    const r = await list({ refresh: true }, { answers: { [id(2)]: waiting }, expireAfterMs: 3600_000 });
    expect(r.error).toBeUndefined();
    expect(r.appended.map((x) => x.type)).toEqual(['status', 'expired']);
    expect(r.stdout).toContain(`${id(2)}\t2026-11-21T10:00:00.000Z\t150000\t${LQ}\tEXPIRED\n`);
  });

  it('a deposit recorded expired and found paid: said, recorded, no longer EXPIRED', async () => {
    const history = recordsHistory([
      ...THREE(),
      { v: 1, type: 'expired', id: id(2), at: '2026-11-22T10:00:00.000Z' },
    ]);
    const r = await list(
      { refresh: true },
      { history, json: true, answers: { [id(2)]: finalizedAnswer(2, 150000, '2026-11-21T10:00:00.000Z') } },
    );
    expect(r.error).toBeUndefined();
    expect(r.paidAfterExpiry).toEqual([`${id(2)} FINALIZED 2026-11-22T10:00:00.000Z`]);
    const shown = JSON.parse(r.stdout).find((e: { id: string }) => e.id === id(2));
    expect(shown.status).toBe('FINALIZED');
    expect(shown.expiredAt).toBeUndefined();
  });
});

describe('deposit list: references', () => {
  const WITH_REFS = (): StoredRecord[] => [
    created(1, '2026-11-20T09:00:00.000Z', 1550, { ref: 'pedido 1', note: 'n' }),
    created(2, '2026-11-21T10:00:00.000Z', 150000, { ref: '=HYPERLINK("x")\u001b[2J' }),
    created(3, '2026-11-22T11:00:00.000Z', 99),
    created(4, '2026-11-22T11:30:00.000Z', 500, { ref: 'pedido 1' }),
  ];

  it('--ref keeps those created with exactly that reference; --json carries ref and note', async () => {
    const r = await list({ ref: 'pedido 1' }, { json: true, history: recordsHistory(WITH_REFS()) });
    const shown = JSON.parse(r.stdout) as Array<{ id: string; ref?: string; note?: string }>;
    expect(shown.map((e) => [e.id, e.ref, e.note])).toEqual([
      [id(4), 'pedido 1', undefined],
      [id(1), 'pedido 1', 'n'],
    ]);
    const none = await list({ ref: 'pedido' }, { history: recordsHistory(WITH_REFS()) });
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('that match');
  });

  it('a terminal with room shows a REF column, the reference as text', async () => {
    const r = await list({}, { columns: 200, env: { TZ: 'UTC' }, history: recordsHistory(WITH_REFS()) });
    const [head, ...rows] = r.stdout.trimEnd().split('\n');
    expect(head).toMatch(/STATUS +REF +DESTINATION$/);
    expect(rows[0]).toContain('  pedido 1  ');
    expect(rows[2]).toContain('  =HYPERLINK("x")\\x1b[2J  ');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('a narrow terminal drops the REF column before the id, the time or the status', async () => {
    const r = await list({}, { columns: 80, env: { TZ: 'UTC' }, history: recordsHistory(WITH_REFS()) });
    const head = r.stdout.split('\n')[0]!;
    expect(head).toContain('ID');
    expect(head).toContain('STATUS');
    for (const line of r.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('a pipe: the reference as a sixth field when there is one, escaped', async () => {
    const r = await list({}, { history: recordsHistory(WITH_REFS()) });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]!.split('\t')).toHaveLength(6);
    expect(lines[1]!.split('\t')).toHaveLength(5);
    expect(lines[2]!.split('\t')[5]).toBe('=HYPERLINK("x")\\x1b[2J');
  });

  it('--ref with a control character: exit 2, nothing read', async () => {
    const r = await list({ ref: 'a\u0007' }, { history: recordsHistory(WITH_REFS()) });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('invalid --ref "a\\u0007"');
  });
});
