/**
 * Reconcile and verify judge a settlement by one rule: the same confirmations setting, the same
 * amounts and outputs, the same exit code (0 proven, 1 contradicted, 7 not proven, 8 not yet deep
 * enough), and one output pays one deposit across every profile and service sharing the history.
 * Two tills (profiles caixa1 and caixa2) share one history file and one wallet; each run is the
 * command on narrow options (runVerify, runReconcile) over an explorer without a socket serving real
 * Elements transactions. What a user sees is asserted: stdout, stderr, the exit code.
 */
import { describe, expect, it } from 'vitest';
import { LbrlError } from '../../src/errors.js';
import { SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { plainVerifySources } from '../helpers/fake-explorer.js';
import { createAnswer } from '../helpers/fixtures.js';
import { recordsHistory } from '../helpers/records-history.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import {
  AFTER,
  type ChainTx,
  CREATED,
  DEST,
  id,
  payTx,
  type SettledDeposit,
  SPLIT,
  scriptedChain,
  settledRecords,
  units,
} from '../helpers/settled-deposits.js';
import type { Shown } from '../helpers/shown.js';
import { reconcileShown, verifyShown } from '../helpers/verify-world.js';

const TARGET = 'https://pay.example.com';
const NOW = CREATED + 3600_000;

type TillDeposit = SettledDeposit & { profile?: string; noTxid?: boolean };

/**
 * One shop, two tills: the history holds each deposit under its till's profile (caixa1 unless
 * said); the chain is these transactions, each in block 100 (tip 200) unless `depth` says how
 * deep it is (0: in the mempool).
 */
function shop(
  deposits: TillDeposit[],
  txs: ChainTx[],
  o: { depth?: Record<string, number>; confirmations?: string } = {},
) {
  const records = deposits.flatMap((d) =>
    settledRecords([d], TARGET)
      .map(
        (r): StoredRecord =>
          r.type === 'created'
            ? {
                ...r,
                profile: d.profile ?? 'caixa1',
                // the request's split, as create records it
                splitFee: d.split === undefined ? null : `${(d.split * 100).toFixed(2)}%`,
              }
            : r,
      )
      .map((r): StoredRecord => (r.type === 'status' && d.noTxid ? { ...r, final: undefined } : r)),
  );
  const history = recordsHistory(records);
  const chain = scriptedChain(txs);
  for (const [txid, depth] of Object.entries(o.depth ?? {})) {
    const status =
      depth === 0
        ? { confirmed: false }
        : {
            confirmed: true,
            block_height: chain.tip - depth + 1,
            block_hash: 'cd'.repeat(32),
            block_time: AFTER,
          };
    chain.txs.get(txid)!.status = status;
    for (const list of Object.values(chain.addressTxs ?? {}))
      for (const listed of list) if (listed.txid === txid) listed.status = status as typeof listed.status;
  }
  const settings: Record<string, string> = {
    network: 'elementsregtest',
    'esplora-url': 'https://explorer.example/api',
    'asset-id': SANDBOX_ASSET_ID,
    'default-address': DEST,
    ...(o.confirmations ? { confirmations: o.confirmations } : {}),
  };
  const sources = () => plainVerifySources({ settings, chain, history });
  const service = () =>
    scriptedDepositApi({
      get: (asked) => {
        const d = deposits.find((x) => asked.toLowerCase() === id(x.n));
        if (!d) throw new LbrlError(`deposit ${asked} not found`, 'not_found');
        const { qrCode: _q, ...answer } = createAnswer({
          amountInCents: d.cents,
          lbrlAddress: DEST,
          ...(d.split !== undefined
            ? { lbrlSplitAddress: SPLIT, splitFee: `${(d.split * 100).toFixed(2)}%` }
            : {}),
        });
        return {
          ...answer,
          id: asked,
          status: 'FINALIZED',
          createdAt: new Date(d.at ?? CREATED).toISOString(),
          settlement: { status: 'FINALIZED', liquidTxid: d.txid },
          confirmedAt: new Date(CREATED + 600_000).toISOString(),
        };
      },
      recorded: (x) => history.recorded(x, TARGET),
      now: () => NOW,
    });

  async function verify(idTexts: string[]): Promise<Shown> {
    return verifyShown(idTexts, { api: service(), sources: sources(), history, target: TARGET, now: NOW });
  }

  async function reconcile(profile = 'caixa1', o2: { json?: boolean } = {}): Promise<Shown> {
    const json = o2.json ?? true;
    return reconcileShown({ profile, target: TARGET, history, sources: sources(), now: NOW, json });
  }

  return { verify, reconcile, history };
}

describe('one output pays one deposit, across the tills sharing a history', () => {
  it("till A verified the one output: till B's reconcile says B is not paid (exit 1), A's says A is", async () => {
    const tx = payTx([[DEST, units(1485)]], 'one payment');
    const world = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid, profile: 'caixa1' },
        { n: 2, cents: 1500, txid: tx.txid, profile: 'caixa2', at: CREATED + 60_000 },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    expect((await world.verify([id(1)])).code).toBe(0);
    const b = await world.verify([id(2)]);
    expect(b.code).toBe(1);
    // the ledger holds one verification of that output: list --verified shows till A's alone
    expect(world.history.records.filter((r) => r.type === 'verified').map((r) => r.id)).toEqual([id(1)]);
    expect(
      world.history.entries((r) => r.profile === 'caixa2', { where: (e) => Boolean(e.verifiedAt) }),
    ).toEqual([]);
    const tillB = await world.reconcile('caixa2');
    expect(tillB.code).toBe(1);
    const found = JSON.parse(tillB.stdout);
    expect(found.matched).toEqual([]);
    expect(found.missing).toEqual([
      expect.objectContaining({ depositId: id(2), txid: tx.txid, reason: expect.stringContaining(id(1)) }),
    ]);
    // the output is the other till's, said as such: never "matching no deposit"
    expect(found.unmatched).toEqual([]);
    expect(found.elsewhere).toEqual([{ depositId: id(1), txid: tx.txid, vout: 0 }]);
    const human = await world.reconcile('caixa2', { json: false });
    expect(human.stdout).toContain(
      '1 receipt(s) paid deposits of other profiles or services sharing this history',
    );
    expect(human.stdout).toContain(`${id(2)}  destination`);
    const tillA = await world.reconcile('caixa1');
    expect(tillA.code).toBe(0);
    expect(JSON.parse(tillA.stdout).matched).toEqual([
      expect.objectContaining({ depositId: id(1), vout: 0 }),
    ]);
  });

  it('neither till verified it: the one output pays neither, in both tills, as verify of both in one run says', async () => {
    const tx = payTx([[DEST, units(1485)]], 'unverified one');
    const world = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid, profile: 'caixa1' },
        { n: 2, cents: 1500, txid: tx.txid, profile: 'caixa2' },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    for (const till of ['caixa1', 'caixa2']) {
      const r = await world.reconcile(till);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).matched).toEqual([]);
    }
    expect((await world.verify([id(1), id(2)])).code).toBe(1);
  });

  it("a deposit of till B whose settlement is unknown cannot take by its amount the output till A's settlement names", async () => {
    const tx = payTx([[DEST, units(1485)]], 'by amount');
    const world = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid, profile: 'caixa1' },
        { n: 2, cents: 1500, txid: tx.txid, profile: 'caixa2', noTxid: true, at: CREATED + 60_000 },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const tillB = await world.reconcile('caixa2');
    expect(tillB.code).toBe(1);
    const found = JSON.parse(tillB.stdout);
    expect(found.matched).toEqual([]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(2), txid: null })]);
  });

  it('an output paying both tills (summed) is both tills’: each reconcile matches its own', async () => {
    const tx = payTx([[DEST, units(2 * 1485)]], 'both tills');
    const world = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid, profile: 'caixa1' },
        { n: 2, cents: 1500, txid: tx.txid, profile: 'caixa2' },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    for (const [till, n] of [
      ['caixa1', 1],
      ['caixa2', 2],
    ] as const) {
      const r = await world.reconcile(till);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).matched).toEqual([expect.objectContaining({ depositId: id(n) })]);
    }
  });
});

describe('reconcile says what verify says of a settlement, exit code and all', () => {
  /** one deposit of R$ 15.00 (net 14.85), with its split if given, settled by tx paying `pays` */
  const cases: Array<{
    name: string;
    pays: Array<[string, bigint]>;
    split?: number;
    depth?: number;
    confirmations?: string;
    code: number;
    /** reconcile's, when it differs: money beyond the due is paid (verify, 0) but must be given back (reconcile, 1) */
    reconcileCode?: number;
  }> = [
    { name: 'paid exactly', pays: [[DEST, units(1485)]], code: 0 },
    { name: 'a unit short', pays: [[DEST, units(1485) - 1n]], code: 1 },
    { name: 'paid twice over in one output', pays: [[DEST, units(2970)]], code: 0, reconcileCode: 1 },
    {
      name: 'paid, and the same again in a second output',
      pays: [
        [DEST, units(1485)],
        [DEST, units(1485)],
      ],
      code: 0,
      reconcileCode: 1,
    },
    {
      name: 'paid in two outputs',
      pays: [
        [DEST, units(1000)],
        [DEST, units(485)],
      ],
      code: 0,
    },
    {
      name: 'paid, and dust beside it',
      pays: [
        [DEST, units(1485)],
        [DEST, 1n],
      ],
      code: 0,
    },
    {
      name: 'paid, and an output of no value beside it',
      pays: [
        [DEST, units(1485)],
        [DEST, 0n],
      ],
      code: 0,
    },
    { name: 'in the mempool', pays: [[DEST, units(1485)]], depth: 0, code: 8 },
    { name: 'one confirmation of the two required', pays: [[DEST, units(1485)]], depth: 1, code: 8 },
    {
      name: 'one confirmation, one required',
      pays: [[DEST, units(1485)]],
      depth: 1,
      confirmations: '1',
      code: 0,
    },
    {
      name: 'two confirmations of the six required',
      pays: [[DEST, units(1485)]],
      depth: 2,
      confirmations: '6',
      code: 8,
    },
    { name: 'a 100% split, the destination paid nothing', pays: [[SPLIT, units(1485)]], split: 1, code: 0 },
    {
      name: 'a 100% split, the destination paid an output of no value',
      pays: [
        [SPLIT, units(1485)],
        [DEST, 0n],
      ],
      split: 1,
      code: 0,
    },
    { name: 'a 100% split paid to the destination', pays: [[DEST, units(1485)]], split: 1, code: 1 },
    {
      name: 'a 100% split, in the mempool',
      pays: [
        [SPLIT, units(1485)],
        [DEST, 0n],
      ],
      split: 1,
      depth: 0,
      code: 8,
    },
    {
      name: 'a 10% split paid both shares',
      pays: [
        [SPLIT, units(148) + 500_000n],
        [DEST, units(1336) + 500_000n],
      ],
      split: 0.1,
      code: 0,
    },
    { name: 'a 10% split, the split unpaid', pays: [[DEST, units(1485)]], split: 0.1, code: 1 },
    { name: 'a 10% split paid to the split only', pays: [[SPLIT, units(1485)]], split: 0.1, code: 1 },
  ];

  it.each(cases)('$name: exit $code from verify, the same from reconcile but for a surplus', async (c) => {
    const tx = payTx(c.pays, `case ${c.name}`);
    const world = shop(
      [{ n: 1, cents: 1500, txid: tx.txid, ...(c.split !== undefined ? { split: c.split } : {}) }],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
      {
        ...(c.depth !== undefined ? { depth: { [tx.txid]: c.depth } } : {}),
        ...(c.confirmations ? { confirmations: c.confirmations } : {}),
      },
    );
    // reconcile first: verify records what it proved, and reconcile must not need it
    const reconciled = await world.reconcile('caixa1');
    const verified = await world.verify([id(1)]);
    const reconcileCode = c.reconcileCode ?? c.code;
    expect({ verify: verified.code, reconcile: reconciled.code }).toEqual({
      verify: c.code,
      reconcile: reconcileCode,
    });
    const found = JSON.parse(reconciled.stdout);
    // the deposit is matched all the same: what is beyond its due is the surplus
    if (c.reconcileCode !== undefined) {
      expect(found.matched).toEqual([expect.objectContaining({ depositId: id(1), role: 'destination' })]);
      expect(found.surplus).toEqual([expect.objectContaining({ depositIds: [id(1)], cents: 1485 })]);
    } else expect(found.surplus).toEqual([]);
    if (c.code === 0) expect([found.missing, found.unmatched, found.pending]).toEqual([[], [], []]);
    if (c.code === 8) {
      expect(found.matched).toEqual([]);
      expect(found.pending.length).toBeGreaterThan(0);
      expect(reconciled.stderr).toContain('not yet confirmed deeply enough');
    }
    // and once verify recorded it, reconcile says the same again
    expect((await world.reconcile('caixa1')).code).toBe(reconcileCode);
  });
});
