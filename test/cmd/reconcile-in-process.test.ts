/**
 * `deposit reconcile` as a function of narrow options (runReconcile): the history on plain
 * records, an explorer without a socket serving real Elements transactions (the sandbox chain's
 * builder, explicit outputs of its asset) and lying where it can (a precision it only claims, an
 * output a unit short, an old payment), a printer on plain strings. No factory, no server. What a
 * user sees is asserted (stdout, stderr, the error and its exit code). A lying explorer's paging is
 * reconcile-paging.test.ts's (in process too, on the real explorer client); what verify counted,
 * summed outputs and confidential ones are reconcile-attacks-in-process.test.ts's; the races of
 * two processes stay with reconcile-attacks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type ReconcileOptions, runReconcile } from '../../src/commands/deposit-reconcile.js';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { type FakeExplorer, plainVerifySources } from '../helpers/fake-explorer.js';
import { brCode, LQ } from '../helpers/fixtures.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
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

const TARGET = 'https://pay.example.com';

async function reconcile(
  deposits: SettledDeposit[],
  txs: ChainTx[],
  o: {
    flags?: ReconcileOptions;
    json?: boolean;
    asset?: Record<string, unknown> | null;
    settings?: Record<string, string>;
    more?: StoredRecord[];
  } = {},
) {
  const term = plainTerminal({ json: o.json ?? true, now: () => CREATED + 3600_000 });
  const { printer, ctx } = term;
  const history = recordsHistory([...settledRecords(deposits, TARGET), ...(o.more ?? [])]);
  const asset = o.asset === undefined ? SANDBOX_ASSET : o.asset;
  const sources = plainVerifySources({
    settings: o.settings ?? {
      network: 'elementsregtest',
      'esplora-url': 'https://explorer.example/api',
      'asset-id': SANDBOX_ASSET_ID,
      'default-address': DEST,
    },
    chain: scriptedChain(txs, asset ? { [SANDBOX_ASSET_ID]: asset as Record<string, unknown> } : {}),
    history,
  });
  const seen = await seenRun(term, () =>
    runReconcile({
      flags: o.flags ?? {},
      printer,
      json: o.json ?? true,
      ctx,
      scope: () => ({ profile: 'default', target: TARGET }),
      history: () => history,
      sources,
    }),
  );
  const explorer: FakeExplorer | undefined = sources.made[0];
  return {
    ...seen,
    calls: explorer?.calls ?? [],
    closed: explorer?.closed,
  };
}

describe('deposit reconcile on narrow options: it matches by the verify rules', () => {
  it('each share found on chain: everything matches, exit 0, the explorer closed', async () => {
    const tx = payTx([[DEST, units(1485)]], 'paid');
    const r = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }]);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([
      expect.objectContaining({ depositId: id(1), role: 'destination', address: DEST, vout: 0, cents: 1485 }),
    ]);
    expect(found).toMatchObject({ missing: [], unmatched: [], paidAfterExpiry: [] });
    expect(r.closed).toBe(true);
    const human = await reconcile(
      [{ n: 1, cents: 1500, txid: tx.txid }],
      [{ ...tx, time: AFTER, to: [DEST] }],
      {
        json: false,
      },
    );
    expect(human.stdout).toBe(
      '1 address(es) read on https://explorer.example/api: 1 receipt(s) matched to deposits\neverything matches\n',
    );
  });

  it('a precision the registry only claims is never used: exit 7 with the hint, no match', async () => {
    // R$ 14.85 at precision 2 would be 1485 units; the asset has precision 8
    const tx = payTx([[DEST, 1485n]], 'p2');
    const r = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }], {
      asset: { ...SANDBOX_ASSET, contract: undefined, issuance_prevout: undefined, precision: 2 },
    });
    expect(r.stdout).toBe('');
    expect(r.error?.message).toContain('precision');
    expect(r.error?.message).toContain('only claims 2');
    expect(r.error?.suggestion).toContain('lbrl config set asset-precision');
    expect(r.error?.exitCode).toBe(7);
    // nothing was read of the addresses
    expect(r.calls.filter((c) => c.startsWith('address'))).toEqual([]);
  });

  it("the profile's asset-precision that the contract contradicts is said, and the contract's used", async () => {
    const tx = payTx([[DEST, units(1485)]], 'prec');
    const r = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }], {
      settings: {
        network: 'elementsregtest',
        'esplora-url': 'https://explorer.example/api',
        'asset-id': SANDBOX_ASSET_ID,
        'asset-precision': '2',
        'default-address': DEST,
      },
    });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toContain(
      `warning: the profile's asset-precision 2 disagrees with the registry contract of ${SANDBOX_ASSET_ID} (precision 8): the contract's is used`,
    );
  });

  it('an asset-id written in capitals in the profile is read as the one asset: proven, matched', async () => {
    const tx = payTx([[DEST, units(1485)]], 'caps');
    const r = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }], {
      settings: {
        network: 'elementsregtest',
        'esplora-url': 'https://explorer.example/api',
        'asset-id': SANDBOX_ASSET_ID.toUpperCase(),
        'asset-precision': '2',
        'default-address': DEST,
      },
    });
    expect(r.error).toBeUndefined();
    // the contract proves the precision of the id as the profile names it, capitals or not
    expect(r.stderr).toBe(
      `warning: the profile's asset-precision 2 disagrees with the registry contract of ${SANDBOX_ASSET_ID} (precision 8): the contract's is used (lbrl config unset asset-precision)\n`,
    );
    expect(JSON.parse(r.stdout).matched).toEqual([
      expect.objectContaining({ depositId: id(1), role: 'destination', vout: 0, cents: 1485 }),
    ]);
  });

  it('one unit short of the net is not a match (verify calls it a mismatch)', async () => {
    const tx = payTx([[DEST, units(1485) - 1n]], 'short');
    const r = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }]);
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toBe(
      'the chain and the history disagree: 1 share(s) of finalized deposits not found on chain; 1 receipt(s) matching no deposit',
    );
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(1), cents: 1485 })]);
    expect(found.unmatched).toEqual([expect.objectContaining({ txid: tx.txid, cents: 1484 })]);
  });

  it('a payment confirmed before the deposit existed does not settle it', async () => {
    const old = payTx([[DEST, units(1485)]], 'old');
    const r = await reconcile(
      [{ n: 1, cents: 1500, txid: old.txid }],
      [{ ...old, time: CREATED / 1000 - 86_400, to: [DEST] }],
      { flags: { since: '2026-11-20' } },
    );
    expect(r.error?.exitCode).toBe(1);
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(1) })]);
  });

  it('a 33.33% split whose shares add up to one unit less than the net is not a match; paid in full it is', async () => {
    // net 1485.00: the split's exact share is 494.9505, the destination takes the rest
    const lost = payTx(
      [
        [DEST, units(99_005) - 1n],
        [SPLIT, units(49_495)],
      ],
      'lost',
    );
    const bad = await reconcile(
      [{ n: 1, cents: 150_000, txid: lost.txid, split: 0.3333 }],
      [{ ...lost, time: AFTER, to: [DEST, SPLIT] }],
    );
    expect(bad.error?.exitCode).toBe(1);
    expect(JSON.parse(bad.stdout).missing).toEqual([
      expect.objectContaining({ depositId: id(1), role: 'destination' }),
    ]);
    const full = payTx(
      [
        [DEST, units(99_005)],
        [SPLIT, units(49_495)],
      ],
      'full',
    );
    const good = await reconcile(
      [{ n: 1, cents: 150_000, txid: full.txid, split: 0.3333 }],
      [{ ...full, time: AFTER, to: [DEST, SPLIT] }],
    );
    expect(good.stderr).toBe('');
    expect(good.error).toBeUndefined();
    expect(
      JSON.parse(good.stdout)
        .matched.map((m: { role: string }) => m.role)
        .sort(),
    ).toEqual(['destination', 'split']);
  });
  // an output verify counted for one deposit is never matched to another:
  // test/cmd/reconcile-attacks-in-process.test.ts, where verify itself records it and says so of the other deposit
});

describe('deposit reconcile on narrow options: what it reads, and what it refuses', () => {
  it('a paid deposit matched; a stray payment, one for a charge given up on and one for a FAILED deposit all said: exit 1', async () => {
    const paid = payTx([[DEST, units(3465)]], 'paid35');
    const stray = payTx([[DEST, units(1234)]], 'stray1234');
    const late = payTx([[DEST, units(1980)]], 'late1980');
    const afterFail = payTx([[DEST, units(4950)]], 'failed4950');
    const at = new Date(CREATED).toISOString();
    const world = (json: boolean) =>
      reconcile(
        [
          { n: 1, cents: 3500, txid: paid.txid },
          { n: 2, cents: 2000, txid: late.txid, status: 'WAITING_PAYMENT' },
        ],
        [
          { ...paid, time: AFTER, to: [DEST] },
          { ...stray, time: AFTER + 60, to: [DEST] },
          { ...late, time: AFTER + 120, to: [DEST] },
          { ...afterFail, time: AFTER + 180, to: [DEST] },
        ],
        {
          json,
          more: [
            { v: 1, type: 'expired', id: id(2), at: new Date(CREATED + 1000).toISOString() },
            {
              v: 1,
              type: 'created',
              id: id(3),
              profile: 'default',
              baseUrl: TARGET,
              at,
              amountInCents: 5000,
              destinationAddress: DEST,
              splitAddress: null,
              splitFee: null,
              status: 'WAITING_PAYMENT',
              answer: {
                amount: 50,
                feeAmount: 0.5,
                netAmount: 49.5,
                splitPercent: null,
                qrCodeText: brCode(5000),
                createdAt: at,
              },
            },
            {
              v: 1,
              type: 'status',
              id: id(3),
              status: 'FAILED',
              at,
              final: { settlement: null, confirmedAt: null },
            },
          ],
        },
      );
    const r = await world(true);
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toBe(
      'the chain and the history disagree: 1 receipt(s) matching no deposit; 2 payment(s) for deposits expired or failed',
    );
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([
      expect.objectContaining({ depositId: id(1), role: 'destination', address: DEST, vout: 0, cents: 3465 }),
    ]);
    expect(found.missing).toEqual([]);
    expect(found.unmatched).toEqual([
      { address: DEST, txid: stray.txid, vout: 0, cents: 1234, amount: '12.34' },
    ]);
    expect(
      found.paidAfterExpiry
        .map((p: { depositId: string; status: string; cents: number }) => [p.depositId, p.status, p.cents])
        .sort(),
    ).toEqual([
      [id(2), 'EXPIRED', 1980],
      [id(3), 'FAILED', 4950],
    ]);
    const human = await world(false);
    expect(human.error?.exitCode).toBe(1);
    expect(human.stdout).toContain(
      `Received, matching no deposit:\n  ${stray.txid}:0      R$ 12,34  to ${DEST}\n`,
    );
    expect(human.stdout).toContain(`  ${id(3)}  FAILED       R$ 49,50  in ${afterFail.txid}:0`);
  });

  it('a payment for a charge given up on, and one matching nothing: both said, exit 1', async () => {
    const stray = payTx([[DEST, units(1234)]], 'stray');
    const late = payTx([[DEST, units(1980)]], 'late');
    const r = await reconcile(
      [{ n: 1, cents: 2000, txid: late.txid, status: 'WAITING_PAYMENT' }],
      [
        { ...stray, time: AFTER, to: [DEST] },
        { ...late, time: AFTER + 60, to: [DEST] },
      ],
      {
        json: false,
        more: [{ v: 1, type: 'expired', id: id(1), at: new Date(CREATED + 1000).toISOString() }],
      },
    );
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toBe(
      'the chain and the history disagree: 1 receipt(s) matching no deposit; 1 payment(s) for deposits expired or failed',
    );
    expect(r.stdout).toContain(
      `Received, matching no deposit:\n  ${stray.txid}:0      R$ 12,34  to ${DEST}\n`,
    );
    expect(r.stdout).toContain('Paid after lbrl gave up on them (expired) or after they FAILED:\n');
    expect(r.stdout).toContain(`  ${id(1)}  EXPIRED      R$ 19,80  in ${late.txid}:0`);
  });

  it('no asset-id: a usage error before any address is read', async () => {
    const r = await reconcile([], [], {
      settings: {
        network: 'elementsregtest',
        'esplora-url': 'https://explorer.example/api',
        'default-address': DEST,
      },
    });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toBe(
      'reconcile counts the pinned asset only: set it with lbrl config set asset-id <64 hex digits>',
    );
    expect(r.calls).toEqual([]);
  });

  it('an address of the history that is not of the profile’s network is never sent to the explorer', async () => {
    const tx = payTx([[DEST, units(1485)]], 'net');
    const r = await reconcile(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: 'ef'.repeat(32), to: LQ },
        { n: 3, cents: 1500, txid: 'ef'.repeat(32), to: 'not an address\u001b[2J' },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    expect(r.stderr).toContain(
      'warning: 2 address(es) of the history are not elementsregtest addresses: not read',
    );
    // the first page, then the page after its last transaction: DEST's history only
    const asked = r.calls.filter((c) => c.startsWith('address'));
    expect(asked).toEqual([`address ${DEST}`, `address ${DEST} after ${tx.txid}`]);
  });

  it('a bad --since is exit 2 before the explorer is made', async () => {
    const r = await reconcile([], [], { flags: { since: 'last week' } });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('invalid --since "last week"');
    expect(r.calls).toEqual([]);
    expect(r.closed).toBeUndefined();
  });
});
