/**
 * `deposit verify` as a function of narrow options (runVerify): a scripted service that may lie,
 * an explorer without a socket serving real Liquid transactions (lwk's testnet settlement, and
 * the sandbox chain's builder), the history on plain records, a printer on plain strings. No
 * factory, no server, no sleep. What a user sees is asserted (stdout, stderr, the error and its
 * exit code) and what is recorded. The explorer's transport (HTML, garbage, time-outs, an
 * unreachable host) stays with test/cmd/verify.test.ts and verify-attacks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runVerify, type VerifyFlags } from '../../src/commands/deposit-verify.js';
import type { LbrlError } from '../../src/errors.js';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { BlindingKeyEntry } from '../../src/store/config.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { plainVerifySources, type ScriptedChain } from '../helpers/fake-explorer.js';
import { createAnswer } from '../helpers/fixtures.js';
import {
  LWK_ADDRESS,
  LWK_ASSET,
  LWK_BLOCK,
  LWK_CONFIRMED,
  LWK_HEX,
  LWK_MASTER,
  LWK_REGISTRY,
  LWK_TXID,
} from '../helpers/lwk-settlement.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { createdRecord, type RecordsHistory, recordsHistory } from '../helpers/records-history.js';
import { scriptedGets } from '../helpers/scripted-deposit-api.js';
import { CONFIRMED, DEST, finalizedAnswer, id, payTx, SPLIT, units } from '../helpers/settled-deposits.js';
import { sbrlChain, sbrlWorld } from '../helpers/verify-world.js';

const TARGET = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T12:00:00Z');

/** A FINALIZED answer settled by `txid`: R$ 5.05 (net 5.00) to the lwk address by default. */
function finalized(n: number, txid: string, over: Record<string, unknown> = {}) {
  const { qrCode: _q, ...answer } = createAnswer({ amountInCents: 505, lbrlAddress: LWK_ADDRESS });
  return {
    ...answer,
    id: id(n),
    status: 'FINALIZED',
    createdAt: '2024-03-15T17:30:00.000Z',
    settlement: { status: 'FINALIZED', liquidTxid: txid },
    confirmedAt: '2024-03-15T18:33:05Z',
    ...over,
  };
}

const LWK_CHAIN = (): ScriptedChain => ({
  txs: new Map([[LWK_TXID, { hex: LWK_HEX, status: { ...LWK_CONFIRMED } }]]),
  tip: LWK_BLOCK + 1,
  assets: { [LWK_ASSET]: LWK_REGISTRY },
});

/** liquidtestnet, the lwk address as default-address, the explorer and the asset pinned. */
const LWK_SETTINGS = {
  network: 'liquidtestnet',
  'esplora-url': 'https://explorer.example/api',
  'asset-id': LWK_ASSET,
  'default-address': LWK_ADDRESS,
};

interface Seen {
  stdout: string;
  stderr: string;
  error?: LbrlError;
  /** the ids the service was asked for */
  asked: string[];
  /** what was asked of each explorer made (one per run) */
  explorers: Array<{ baseUrl: string; calls: string[]; closed: boolean }>;
  /** what the run appended to the history */
  appended: StoredRecord[];
}

async function verify(
  idTexts: string[],
  world: {
    answers: Record<string, Record<string, unknown> | Array<Record<string, unknown>>>;
    chain: ScriptedChain;
    settings?: Record<string, string>;
    keys?: BlindingKeyEntry[];
    history?: RecordsHistory;
    /** the target is the embedded sandbox */
    sandbox?: boolean;
  },
  o: { json?: boolean; quiet?: boolean; flags?: VerifyFlags } = {},
): Promise<Seen> {
  const history = world.history ?? recordsHistory([]);
  const before = history.appended.length;
  const term = plainTerminal({ json: o.json, quiet: o.quiet });
  const { printer } = term;
  const api = scriptedGets(world.answers, (x) => history.recorded(x, TARGET));
  const sources = plainVerifySources({
    settings: world.settings ?? LWK_SETTINGS,
    keys: world.keys ?? [],
    chain: world.chain,
    history,
    sandbox: world.sandbox === true,
  });
  const seen = await seenRun(term, () =>
    runVerify({
      idTexts,
      flags: o.flags ?? ({} as VerifyFlags),
      printer,
      json: o.json === true,
      quiet: o.quiet === true,
      client: async () => api,
      sources,
      recorder: {
        now: () => NOW,
        history: () => history,
        recorded: (x) => history.recorded(x, TARGET),
        warn: (line) => printer.warn(line),
      },
    }),
  );
  return {
    ...seen,
    asked: api.asked,
    explorers: sources.made.map((e) => ({ baseUrl: e.baseUrl, calls: e.calls, closed: e.closed })),
    appended: history.appended.slice(before),
  };
}

describe('deposit verify on narrow options: a real confidential settlement (lwk testnet)', () => {
  it("with the wallet's master blinding key: verified (exit 0), recorded once with its share, no key shown", async () => {
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      keys: [{ key: `slip77(${LWK_MASTER})` }],
    });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`deposit ${id(1)} (FINALIZED): verified: every check below was proven`);
    expect(r.stdout).toContain('the destination address received 5.000, as due');
    expect(r.stdout).toContain('2 confirmations (2 required)');
    expect(r.stdout).toContain(`the asset is TEST (${LWK_ASSET}), the profile's asset-id`);
    expect(r.stdout + r.stderr).not.toContain(LWK_MASTER);
    expect(r.asked).toEqual([id(1)]);
    // one explorer for the run, at the profile's URL, closed at the end
    expect(r.explorers).toHaveLength(1);
    expect(r.explorers[0]!.baseUrl).toBe('https://explorer.example/api');
    expect(r.explorers[0]!.closed).toBe(true);
    expect(r.appended).toEqual([
      // the status with the answer it was read from: the settlement verified is kept as a fact
      {
        v: 1,
        type: 'status',
        id: id(1),
        status: 'FINALIZED',
        at: new Date(NOW).toISOString(),
        final: {
          settlement: { liquidTxid: LWK_TXID, status: 'FINALIZED' },
          confirmedAt: '2024-03-15T18:33:05Z',
        },
        facts: { 'settlement.liquidTxid': LWK_TXID, confirmedAt: '2024-03-15T18:33:05Z' },
      },
      {
        v: 1,
        type: 'verified',
        id: id(1),
        txid: LWK_TXID,
        at: new Date(NOW).toISOString(),
        shares: [expect.objectContaining({ role: 'destination', outputs: [0], share: '5/1' })],
      },
    ]);
  });

  it('--json: one object per deposit, the opened output, no blinding factor; --quiet: id and outcome', async () => {
    const world = {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      keys: [{ key: LWK_MASTER }],
    };
    const r = await verify([id(1)], world, { json: true });
    expect(r.error).toBeUndefined();
    const doc = JSON.parse(r.stdout) as {
      deposits: Array<{
        id: string;
        status: string;
        outcome: string;
        txid: string;
        report: { outputs: unknown[] };
      }>;
    };
    expect(doc.deposits).toHaveLength(1);
    expect(doc.deposits[0]).toMatchObject({
      id: id(1),
      status: 'FINALIZED',
      outcome: 'verified',
      txid: LWK_TXID,
    });
    expect(doc.deposits[0]!.report.outputs).toEqual([
      {
        role: 'destination',
        address: LWK_ADDRESS,
        index: 0,
        confidential: true,
        opened: 'unblinded',
        assetId: LWK_ASSET,
        value: '5000',
      },
    ]);
    expect(r.stdout).not.toMatch(/blinded=|BlindingFactor|ab9a4205/i);
    expect(r.stdout).not.toContain(LWK_MASTER);
    const quiet = await verify([id(1)], world, { quiet: true });
    expect(quiet.stdout).toBe(`${id(1)}\tverified\n`);
  });

  it('without a key: unproven (exit 7), says what to add, and the first verdict is recorded', async () => {
    const r = await verify([id(1)], { answers: { [id(1)]: finalized(1, LWK_TXID) }, chain: LWK_CHAIN() });
    expect(r.error?.type).toBe('unproven');
    expect(r.error?.exitCode).toBe(7);
    expect(r.stdout).toMatch(
      /not proven +output 0 to the destination address is confidential and no blinding key was given/,
    );
    expect(r.stdout).not.toMatch(/: verified/);
    expect(`${r.error?.message} ${r.error?.suggestion}`).toContain('lbrl config set-blinding-key');
    expect(r.appended.map((x) => x.type)).toEqual(['status', 'unverified']);
    expect(r.appended[1]).toMatchObject({ outcome: 'unproven', txid: LWK_TXID });
  });

  it('a service that says 5.06 for what paid 5.00 net: a mismatch showing both values (exit 1)', async () => {
    const { amount, amountInCents, feeAmount, netAmount, qrCodeText } = createAnswer({
      amountInCents: 506,
      lbrlAddress: LWK_ADDRESS,
    });
    const r = await verify([id(1)], {
      answers: {
        [id(1)]: finalized(1, LWK_TXID, { amount, amountInCents, feeAmount, netAmount, qrCodeText }),
      },
      chain: LWK_CHAIN(),
      keys: [{ key: LWK_MASTER }],
    });
    expect(r.error?.type).toBe('mismatch');
    expect(r.error?.exitCode).toBe(1);
    expect(r.stdout).toContain('the destination address received 5.000, but 5.010 was due');
    expect(r.appended[1]).toMatchObject({ type: 'unverified', outcome: 'mismatch' });
  });

  it('one confirmation of two: pending (exit 8), nothing verified', async () => {
    const chain = LWK_CHAIN();
    chain.tip = LWK_BLOCK;
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain,
      keys: [{ key: LWK_MASTER }],
    });
    expect(r.error?.exitCode).toBe(8);
    expect(r.stdout).toContain('1 of 2 confirmations so far');
    expect(r.appended.some((x) => x.type === 'verified')).toBe(false);
  });
});

describe('deposit verify on narrow options: an explorer that lies', () => {
  it('a block above its own tip is refused, never counted as confirmations', async () => {
    const chain = LWK_CHAIN();
    chain.txs.get(LWK_TXID)!.status = { ...LWK_CONFIRMED, block_height: LWK_BLOCK + 50 };
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain,
      keys: [{ key: LWK_MASTER }],
    });
    expect(r.error?.type).toBe('mismatch');
    expect(r.error?.exitCode).toBe(1);
    expect(r.stdout).toContain(
      `MISMATCH   the explorer puts the transaction in block ${LWK_BLOCK + 50}, above its own tip ${LWK_BLOCK + 1}`,
    );
    expect(r.stdout).not.toMatch(/: verified/);
    expect(r.appended[1]).toMatchObject({ type: 'unverified', outcome: 'mismatch' });
  });

  it("another transaction's hex under the asked txid is never a verdict about it", async () => {
    const other = 'ab'.repeat(32);
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, other) },
      chain: { ...LWK_CHAIN(), txs: new Map([[other, { hex: LWK_HEX, status: { ...LWK_CONFIRMED } }]]) },
      keys: [{ key: LWK_MASTER }],
    });
    expect(r.error?.type).toBe('mismatch');
    expect(r.error?.exitCode).toBe(1);
    expect(r.stdout).toContain(
      `MISMATCH   the explorer's raw transaction hashes to ${LWK_TXID}, not to the settlement's txid`,
    );
    expect(r.stdout).not.toMatch(/: verified/);
    expect(r.appended[1]).toMatchObject({ type: 'unverified', outcome: 'mismatch', txid: other });
  });

  it('a txid it does not know: pending (exit 8), never a pass', async () => {
    const other = 'cd'.repeat(32);
    const r = await verify([id(1)], { answers: { [id(1)]: finalized(1, other) }, chain: LWK_CHAIN() });
    expect(r.error?.exitCode).toBe(8);
    expect(r.stdout).toContain('the explorer does not know the transaction');
  });

  it('a registry entry whose contract does not prove the precision: the amount stays unproven', async () => {
    const chain = LWK_CHAIN();
    chain.assets = {
      [LWK_ASSET]: { asset_id: LWK_ASSET, precision: 3, ticker: 'TEST', name: 'Testnet Asset' },
    };
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain,
      keys: [{ key: LWK_MASTER }],
    });
    expect(r.error?.exitCode).toBe(7);
    expect(r.stdout).toContain('5000 base units');
    expect(r.appended.some((x) => x.type === 'verified')).toBe(false);
  });
});

describe('deposit verify on narrow options: a service that lies', () => {
  it('a txid of the wrong shape is refused before the explorer is asked (exit 1)', async () => {
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, `${LWK_TXID.slice(0, 60)}zz`) },
      chain: LWK_CHAIN(),
    });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain('liquidTxid');
    expect(r.explorers.flatMap((e) => e.calls)).toEqual([]);
    expect(r.appended).toEqual([]);
    expect(r.stdout).toBe('');
  });

  it('an answer about another deposit is refused, nothing judged or recorded', async () => {
    const r = await verify([id(1)], { answers: { [id(1)]: finalized(2, LWK_TXID) }, chain: LWK_CHAIN() });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain(id(2));
    expect(r.explorers.flatMap((e) => e.calls)).toEqual([]);
    expect(r.appended).toEqual([]);
  });

  it('amounts that do not add up are refused (exit 1), the explorer never asked', async () => {
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID, { netAmount: 5.04 }) },
      chain: LWK_CHAIN(),
    });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain('netAmount');
    expect(r.explorers.flatMap((e) => e.calls)).toEqual([]);
  });

  it('a deposit lbrl recorded for another address: the answer that moved it is refused', async () => {
    const history = recordsHistory([
      createdRecord(id(1), {
        at: '2024-03-15T17:30:00.000Z',
        amountInCents: 505,
        destinationAddress: 'tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx',
        baseUrl: TARGET,
      }),
    ]);
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      history,
    });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain('destinationAddress');
    expect(r.appended).toEqual([]);
  });

  it('a payment seen before settlement is recorded once: a later answer back at WAITING_PAYMENT is refused', async () => {
    const { settlement: _s, confirmedAt: _c, ...paid } = finalized(1, LWK_TXID);
    const pixConfirmed = { ...paid, status: 'PIX_CONFIRMED', settlement: null, confirmedAt: null };
    const history = recordsHistory([
      createdRecord(id(1), {
        at: '2024-03-15T17:30:00.000Z',
        amountInCents: 505,
        destinationAddress: LWK_ADDRESS,
      }),
    ]);
    const seen = await verify([id(1)], { answers: { [id(1)]: pixConfirmed }, chain: LWK_CHAIN(), history });
    expect(seen.error?.exitCode).toBe(8);
    expect(seen.stdout).toContain(`deposit ${id(1)} (PIX_CONFIRMED): pending: not settled yet`);
    expect(seen.appended).toEqual([
      { v: 1, type: 'status', id: id(1), status: 'PIX_CONFIRMED', at: new Date(NOW).toISOString() },
    ]);
    // the same answer again is no news: nothing more recorded
    const again = await verify([id(1)], { answers: { [id(1)]: pixConfirmed }, chain: LWK_CHAIN(), history });
    expect(again.appended).toEqual([]);
    const back = await verify([id(1)], {
      answers: { [id(1)]: { ...pixConfirmed, status: 'WAITING_PAYMENT' } },
      chain: LWK_CHAIN(),
      history,
    });
    expect(back.error?.exitCode).toBe(1);
    expect(back.error?.message).toContain(
      'status: expected PIX_CONFIRMED or a later status (a status never goes back), service answered WAITING_PAYMENT',
    );
    // a deposit the history does not hold is not recorded
    const stranger = await verify([id(2)], {
      answers: { [id(2)]: { ...pixConfirmed, id: id(2) } },
      chain: LWK_CHAIN(),
    });
    expect(stranger.appended).toEqual([]);
  });

  it('an unknown deposit is exit 4', async () => {
    const r = await verify([id(9)], { answers: {}, chain: LWK_CHAIN() });
    expect(r.error?.type).toBe('not_found');
    expect(r.error?.exitCode).toBe(4);
  });
});

describe('deposit verify on narrow options: the ids and the profile are checked first', () => {
  it('a bad id is exit 2, nothing asked of anyone; the same id twice is asked once', async () => {
    const bad = await verify([id(1), 'not-an-id'], { answers: {}, chain: LWK_CHAIN() });
    expect(bad.error?.exitCode).toBe(2);
    expect(bad.error?.message).toContain('deposit id');
    expect(bad.asked).toEqual([]);
    expect(bad.explorers).toEqual([]);
    const twice = await verify([id(1), id(1).toUpperCase()], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      keys: [{ key: LWK_MASTER }],
    });
    expect(twice.error).toBeUndefined();
    expect(twice.asked).toEqual([id(1)]);
  });

  it('elementsregtest has no default explorer: a usage error naming the setting, no explorer made', async () => {
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      settings: { network: 'elementsregtest' },
    });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('set one with lbrl config set esplora-url');
    expect(r.explorers).toEqual([]);
    expect(r.asked).toEqual([]);
  });

  it('a hand-edited esplora-url is checked as read: exit 2, its password never shown', async () => {
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      settings: { ...LWK_SETTINGS, 'esplora-url': 'http://user:hunter2hunter2@example.com/api' },
    });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('esplora-url in profile default of /config/config.json is not valid');
    expect(r.error?.message).not.toContain('hunter2');
    expect(r.explorers).toEqual([]);
  });

  it('a damaged blinding key is a config error naming its place, never its text', async () => {
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      keys: [{ key: LWK_MASTER }, { key: `${LWK_MASTER.slice(0, 40)}zz` }],
    });
    expect(r.error?.type).toBe('config');
    expect(r.error?.message).toBe(
      'blinding key 2 of profile default in /config/config.json is damaged; set it again with lbrl config set-blinding-key',
    );
    expect(r.explorers).toEqual([]);
  });

  it('a history that cannot be written: a warning on stderr, the verdict still said', async () => {
    const history = recordsHistory([], { failAppend: 'ENOSPC: no space left on device' });
    const r = await verify([id(1)], {
      answers: { [id(1)]: finalized(1, LWK_TXID) },
      chain: LWK_CHAIN(),
      keys: [{ key: LWK_MASTER }],
      history,
    });
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain('verified: every check below was proven');
    expect(r.stderr).toBe(
      'warning: could not record in /history/history.ndjson: ENOSPC: no space left on device\n',
    );
  });
});

/*
 * The sandbox chain: real Elements transactions (the sandbox's builder) paying explicit outputs
 * of its registered asset SBRL (8 decimals), as test/cmd/verify-attacks.test.ts builds them.
 */
const pay = (amount: bigint) => payTx([[DEST, amount]]);

describe('deposit verify on narrow options: one payment proves one deposit (the sandbox chain)', () => {
  const world = (tx: { txid: string; hex: string }, history: RecordsHistory) =>
    sbrlWorld([finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid)], sbrlChain([tx]), { history });

  // two deposits naming one output, across runs (the history file keeping one verified line):
  // test/cmd/verify-attacks.test.ts

  it("the embedded sandbox: its own chain's explorer and asset unless the profile names others", async () => {
    const tx = pay(units(1485));
    const { settings: _s, ...rest } = world(tx, recordsHistory([]));
    const r = await verify([id(1)], {
      ...rest,
      sandbox: true,
      settings: { network: 'elementsregtest', 'default-address': DEST },
    });
    expect(r.error).toBeUndefined();
    expect(r.explorers.map((e) => e.baseUrl)).toEqual(['http://127.0.0.1:1/sandbox/esplora']);
    expect(r.stdout).toContain(`(${SANDBOX_ASSET_ID}), the profile's asset-id`);
  });

  it('judged together in one run: the shortfall is seen whichever is asked first', async () => {
    const tx = pay(units(1485));
    const both = await verify([id(2), id(1)], world(tx, recordsHistory([])));
    expect(both.error?.exitCode).toBe(1);
    expect(both.stdout).toContain('but 29.70000000 was due');
  });

  it('a run that raced another: the later record is undone when the file shows the earlier one', async () => {
    const tx = pay(units(1485));
    const history = recordsHistory([]);
    // another process verified deposit 2 from the same output, and wrote first
    const otherRun = await verify([id(2)], world(tx, recordsHistory([])));
    expect(otherRun.error).toBeUndefined();
    const append = history.append.bind(history);
    history.append = (records) => {
      // its line lands just before this run's own
      if (records.some((x) => x.type === 'verified')) append(otherRun.appended);
      append(records);
    };
    const r = await verify([id(1)], world(tx, history));
    expect(r.error?.exitCode).toBe(1);
    expect(r.stdout).toContain(`with the share of deposit ${id(2)}`);
    // verified, then undone: the history's last word on deposit 1 is the mismatch
    const mine = history.records.filter((x) => 'id' in x && x.id === id(1) && x.type !== 'status');
    expect(mine.map((x) => x.type)).toEqual(['verified', 'unverified']);
    expect(mine[1]).toMatchObject({ outcome: 'mismatch' });
  });
});

describe('deposit verify on narrow options: every number is proven (the sandbox chain)', () => {
  it('ten R$ 1.00 deposits settled 9 cents short by one transaction: a mismatch', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => i + 1);
    // each nets 0.99: 9.90 due, 9.81 paid
    const short = pay(units(981));
    const r = await verify(
      ten.map(id),
      sbrlWorld(
        ten.map((n) => finalizedAnswer(n, short.txid, { cents: 100 })),
        sbrlChain([short]),
      ),
    );
    expect(r.error?.exitCode).toBe(1);
    expect(r.stdout).toContain('the destination address received 9.81000000, but 9.90000000 was due');
    // paid in full, they verify together
    const full = pay(units(990));
    const ok = await verify(
      ten.map(id),
      sbrlWorld(
        ten.map((n) => finalizedAnswer(n, full.txid, { cents: 100 })),
        sbrlChain([full]),
      ),
    );
    expect(ok.error).toBeUndefined();
  });

  it.each([
    // net 14.85, 2.99%: the split is due 0.444015, the destination the rest
    ['44 + 1441: the split rounded to the cent, the destination the rest', 44n, 1441n, 0],
    ['45 + 1440: the split rounded up, the destination the rest', 45n, 1440n, 0],
    ['44 + 1440: a cent lost between them', 44n, 1440n, 1],
    ['43 + 1442: the split short by more than its rounding', 43n, 1442n, 1],
  ] as const)('a 2.99%% split paid %s', async (_name, split, destination, code) => {
    const tx = payTx([
      [DEST, units(Number(destination))],
      [SPLIT, units(Number(split))],
    ]);
    const r = await verify(
      [id(1)],
      sbrlWorld([finalizedAnswer(1, tx.txid, { split: '2.99%' })], sbrlChain([tx])),
    );
    expect(r.error?.exitCode ?? 0).toBe(code);
    if (code === 0) expect(r.stdout).toContain('proven     together the addresses received 14.85000000');
    if (split === 44n && destination === 1440n)
      expect(r.stdout).toContain(
        'MISMATCH   together the addresses received 14.84000000, but the net amount is 14.85000000',
      );
  });

  it('a precision the registry states but its contract does not prove is never used', async () => {
    const tx = pay(units(1485));
    const chain = sbrlChain([tx]);
    const world = sbrlWorld([finalizedAnswer(1, tx.txid)], chain);
    // precision 2 for an asset of precision 8: 1485000000 units would be 14,850,000.00
    chain.assets = {
      [SANDBOX_ASSET_ID]: {
        ...SANDBOX_ASSET,
        precision: 2,
        contract: { ...SANDBOX_ASSET.contract, precision: 2 },
      },
    };
    const lied = await verify([id(1)], world);
    expect(lied.error?.exitCode).toBe(7);
    expect(lied.stdout).toContain(
      'not proven the explorer says precision 2, but no registry contract proves it (its id does not recompute)',
    );
    expect(`${lied.error?.message} ${lied.error?.suggestion}`).toContain('lbrl config set asset-precision');
    // a bare precision beside the true contract is ignored: the contract's 8 is used
    chain.assets = { [SANDBOX_ASSET_ID]: { ...SANDBOX_ASSET, precision: 2 } };
    const bare = await verify([id(1)], world);
    expect(bare.error).toBeUndefined();
    expect(bare.stdout).toContain('proven     precision 8, from its registry contract');
    // no registry entry at all: only the profile's setting proves it
    chain.assets = {};
    expect((await verify([id(1)], world)).error?.exitCode).toBe(7);
  });

  it("the profile's asset-precision, when the registry proves nothing", async () => {
    const tx = pay(units(1485));
    const chain = { ...sbrlChain([tx]), assets: {} };
    // a precision above 8 never reaches the profile: config set refuses it (set-in-process.test.ts);
    // one edited in by hand is refused as read
    const nine = await verify(
      [id(1)],
      sbrlWorld([finalizedAnswer(1, tx.txid)], chain, { settings: { 'asset-precision': '9' } }),
    );
    expect(nine.error?.exitCode).toBe(2);
    expect(nine.error?.message).toContain(
      'asset-precision in profile default of /config/config.json is not valid',
    );
    const r = await verify(
      [id(1)],
      sbrlWorld([finalizedAnswer(1, tx.txid)], chain, { settings: { 'asset-precision': '8' } }),
    );
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain("proven     precision 8, from the profile's asset-precision");
  });

  it("a profile's asset-precision that a proven contract contradicts is said, never used", async () => {
    const tx = pay(units(1485));
    const world = sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx]), {
      settings: { 'asset-precision': '2' },
    });
    const r = await verify([id(1)], world);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain(
      "(the asset id recomputed from the contract and its issuance); the profile's asset-precision 2 disagrees and is not used (lbrl config unset asset-precision)",
    );
    const j = await verify([id(1)], world, { json: true });
    expect(j.stdout).toContain("the profile's asset-precision 2 disagrees");
  });

  it('a block above the explorer’s own tip is refused', async () => {
    const tx = pay(units(1485));
    const r = await verify(
      [id(1)],
      sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx], { ...CONFIRMED, block_height: 150 })),
    );
    expect(r.error?.exitCode).toBe(1);
    expect(r.stdout).toContain(
      'MISMATCH   the explorer puts the transaction in block 150, above its own tip 101',
    );
  });
});

describe('deposit verify on narrow options: where the destination came from', () => {
  it("a deposit lbrl has no record of, paying none of the profile's addresses: unproven, unless trusted", async () => {
    const tx = pay(units(1485));
    const world = sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx]), { stranger: true });
    const r = await verify([id(1)], world);
    expect(r.error?.exitCode).toBe(7);
    expect(r.stdout).toContain(
      `not proven lbrl has no record of deposit ${id(1)}: its addresses are the service's claim, and the destination address ${DEST} is none of the profile's addresses`,
    );
    expect(`${r.error?.message} ${r.error?.suggestion}`).toContain('--trust-service-address');
    const trusted = await verify([id(1)], world, { flags: { trustServiceAddress: true } as VerifyFlags });
    expect(trusted.error).toBeUndefined();
    expect(trusted.stdout).toContain('trusted with --trust-service-address');
  });

  it('a deposit lbrl recorded: its addresses are the ones lbrl asked for, whatever the profile says', async () => {
    const tx = pay(units(1485));
    const history = recordsHistory([
      createdRecord(id(1), {
        at: '2026-11-22T10:00:00.000Z',
        amountInCents: 1500,
        destinationAddress: DEST,
        baseUrl: TARGET,
      }),
    ]);
    const r = await verify(
      [id(1)],
      sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx]), { stranger: true, history }),
    );
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain('proven     the addresses are the ones lbrl asked for (local history)');
  });
});
