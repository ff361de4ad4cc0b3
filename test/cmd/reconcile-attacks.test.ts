/**
 * deposit reconcile against a lying explorer: it matches by the verify rules (one output, one
 * deposit; the precision proven, never the registry's bare word; at least the due, to the unit;
 * a split and its destination adding up to the net; no settlement older than the deposit; one
 * output whichever way its address is written), and what verify counted stays counted, also
 * when two verify or watch --verify runs share one history at once. The transactions are real Elements transactions paying explicit outputs of the sandbox's asset.
 */
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { afterEach, describe, expect, it } from 'vitest';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { History } from '../../src/store/history.js';
import { runBin } from '../helpers/bin.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer } from '../helpers/fixtures.js';
import { json, type SeenRequest, startServer } from '../helpers/server.js';
import {
  AFTER,
  type ChainTx,
  CREATED,
  DEST,
  id,
  payTx,
  type SettledDeposit,
  SPLIT,
  settledRecords,
  units,
} from '../helpers/settled-deposits.js';

const zkp = await loadZkp();

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

/** An explorer serving these transactions, the address routes and a registry answer. */
async function explorer(txs: ChainTx[], asset: Record<string, unknown> | null, barrier = 0) {
  // with a barrier, no raw transaction is answered before that many were asked for: runs at once
  const held: Array<() => void> = [];
  const server = await startServer(async (req: SeenRequest, res) => {
    const url = req.url.replace(/^\/api/, '');
    const text = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if (url === '/blocks/tip/height') return text(200, '200');
    if (url === `/asset/${SANDBOX_ASSET_ID}`) return asset ? json(res, 200, asset) : text(404, 'no');
    const page = /^\/address\/([0-9a-z]+)\/txs(\/chain\/[0-9a-f]{64})?$/.exec(url);
    if (page) {
      if (page[2]) return json(res, 200, []);
      return json(
        res,
        200,
        txs
          .filter((t) => t.to.includes(page[1]!))
          .map((t) => ({
            txid: t.txid,
            status: { confirmed: true, block_height: 100, block_hash: 'ab'.repeat(32), block_time: t.time },
          })),
      );
    }
    const m = /^\/tx\/([0-9a-f]{64})\/(hex|status)$/.exec(url);
    const tx = m ? txs.find((t) => t.txid === m[1]) : undefined;
    if (!tx) return m?.[2] === 'status' ? json(res, 200, { confirmed: false }) : text(404, 'not found');
    if (m![2] === 'hex' && barrier > 0) {
      await new Promise<void>((resume) => {
        held.push(resume);
        if (held.length >= barrier) {
          barrier = 0; // once
          for (const h of held.splice(0)) h();
        }
      });
    }
    if (m![2] === 'status')
      return json(res, 200, {
        confirmed: true,
        block_height: 100,
        block_hash: 'ab'.repeat(32),
        block_time: tx.time,
      });
    return text(200, tx.hex);
  });
  closers.push(() => server.close());
  return server;
}

/** A profile pinned to SBRL on an explorer, whose history holds these finalized deposits. */
async function shop(
  deposits: SettledDeposit[],
  txs: ChainTx[],
  asset: Record<string, unknown> | null = SANDBOX_ASSET,
  barrier = 0,
) {
  // the service answers each deposit as finalized, settled by the txid the history holds
  const service = await startServer((req, res) => {
    // ids in any case, answered as asked
    const asked = req.url.split('/').pop()!;
    const d = deposits.find((x) => asked.toLowerCase() === id(x.n));
    if (!d) return json(res, 404, { message: 'not found' });
    const { qrCode: _q, ...answer } = createAnswer({ amountInCents: d.cents, lbrlAddress: DEST });
    return json(res, 200, {
      ...answer,
      id: asked,
      status: 'FINALIZED',
      createdAt: new Date(d.at ?? CREATED).toISOString(),
      settlement: { status: 'FINALIZED', liquidTxid: d.txid },
      confirmedAt: new Date(CREATED + 600_000).toISOString(),
    });
  });
  closers.push(() => service.close());
  const esplora = await explorer(txs, asset, barrier);
  const env = liveEnv(service.url);
  for (const [k, v] of [
    ['network', 'elementsregtest'],
    ['esplora-url', `${esplora.url}/api`],
    ['asset-id', SANDBOX_ASSET_ID],
    ['default-address', DEST],
  ] as const)
    expect((await runCli(['config', 'set', k, v], { env })).code).toBe(0);
  const records = settledRecords(deposits, service.url);
  new History(env.LBRL_CONFIG_DIR!).append(records);
  const run = (args: string[]) => runCli(args, { env, clock: { now: CREATED + 3600_000 } });
  return { run, env };
}

// a precision only claimed, a unit short, an old payment and a split a unit short are matched by
// the same rules in process: test/cmd/reconcile-in-process.test.ts
describe('deposit reconcile matches by the verify rules', () => {
  it('an output verify counted for one deposit is never matched to another, whichever is older', async () => {
    const tx = payTx([[DEST, units(1485)]], 'one');
    // both name the one output; the older was never verified, the newer was
    const { run } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid, at: CREATED + 60_000 },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const first = await run(['deposit', 'verify', id(2)]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(1);
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([expect.objectContaining({ depositId: id(2), txid: tx.txid, vout: 0 })]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(1), txid: tx.txid })]);
    // and verify says the same of the other
    const other = await run(['deposit', 'verify', id(1)]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(id(2));
  });

  it('one output paying two deposits verify judged together is matched to both', async () => {
    const tx = payTx([[DEST, units(2 * 1485)]], 'both');
    const { run } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    expect((await run(['deposit', 'verify', id(1), id(2)])).code).toBe(0);
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(
      JSON.parse(r.stdout)
        .matched.map((m: { depositId: string; vout: number }) => [m.depositId, m.vout])
        .sort(),
    ).toEqual([
      [id(1), 0],
      [id(2), 0],
    ]);
  });

  it('the same deposit named in another case is one deposit, in one run and across runs', async () => {
    const tx = payTx([[DEST, units(1485)]], 'case');
    const { run } = await shop([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }]);
    const both = await run(['deposit', 'verify', id(1), id(1).toUpperCase()]);
    expect(both.stderr).toBe('');
    expect(both.code).toBe(0);
    const again = await run(['deposit', 'verify', id(1).toUpperCase()]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
  });

  it('two processes verifying two deposits from one output at once: one verified, the other undone', async () => {
    const tx = payTx([[DEST, units(1485)]], 'race');
    const { run, env } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
      SANDBOX_ASSET,
      2,
    );
    const [a, b] = await Promise.all([
      runBin(['deposit', 'verify', id(1)], env),
      runBin(['deposit', 'verify', id(2)], env),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    const loser = a.code === 1 ? a : b;
    expect(loser.stderr).toMatch(/contradicts the deposit.*with the share of deposit/);
    const listed = JSON.parse((await run(['deposit', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(listed.filter((e) => e.verifiedAt)).toHaveLength(1);
    expect(listed.filter((e) => e.onChain === 'mismatch')).toHaveLength(1);
  }, 30_000);

  it('two processes watching with --verify two deposits from one output at once: one verified, the other a mismatch', async () => {
    const tx = payTx([[DEST, units(1485)]], 'race');
    const { run, env } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
      SANDBOX_ASSET,
      2,
    );
    const [a, b] = await Promise.all([
      runBin(['deposit', 'watch', id(1), '--verify', '--timeout', '10'], env),
      runBin(['deposit', 'watch', id(2), '--verify', '--timeout', '10'], env),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    const loser = a.code === 1 ? a : b;
    expect(loser.stderr).toMatch(/contradicts the deposit.*with the share of deposit/);
    const listed = JSON.parse((await run(['deposit', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(listed.filter((e) => e.verifiedAt)).toHaveLength(1);
    expect(listed.filter((e) => e.onChain === 'mismatch')).toHaveLength(1);
  }, 30_000);

  it('one output is one receipt, whichever way its address is written: never two deposits paid', async () => {
    const tx = payTx([[DEST, units(1485)]], 'twice');
    const { run } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid, to: DEST.toUpperCase(), at: CREATED + 60_000 },
      ],
      [{ ...tx, time: AFTER, to: [DEST, DEST.toUpperCase()] }],
    );
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(1);
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([expect.objectContaining({ depositId: id(1), vout: 0 })]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(2) })]);
    expect(found.unmatched).toEqual([]);
  });

  it.each([
    // 100%: the split takes the whole net, the destination is owed nothing
    ['100%', 1, [[SPLIT, units(1485)]], 0],
    // 0.01% of R$ 14.85 is 0.1485 cents: paid exactly, or rounded to nothing
    [
      '0.01%',
      0.0001,
      [
        [SPLIT, 148_500n],
        [DEST, units(1485) - 148_500n],
      ],
      0,
    ],
    ['0.01%', 0.0001, [[DEST, units(1485)]], 0],
    ['0.01%', 0.0001, [[DEST, units(1484)]], 1],
  ] as const)('a %s split at the edge: exit %i as verify judges it', async (_, split, pays, code) => {
    const tx = payTx(
      pays.map(([a, u]) => [a, u]),
      `edge${split}${pays.length}${code}`,
    );
    const { run } = await shop(
      [{ n: 1, cents: 1500, txid: tx.txid, split }],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
    );
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(code);
    const found = JSON.parse(r.stdout);
    expect(found.unmatched).toEqual(code === 0 ? [] : [expect.objectContaining({ txid: tx.txid })]);
  });
});

describe('deposit reconcile counts each output and each deposit once', () => {
  /** the matched deposits and the outputs they name, sorted */
  const matchedOf = (stdout: string) =>
    (JSON.parse(stdout).matched as Array<{ depositId: string; vout: number }>)
      .map((m) => [m.depositId, m.vout])
      .sort();

  it('two deposits (never verified) settled by one summed output: both matched to it, nothing left over', async () => {
    const tx = payTx([[DEST, units(1485 + 2970)]], 'summed');
    const { run } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 3000, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(matchedOf(r.stdout)).toEqual([
      [id(1), 0],
      [id(2), 0],
    ]);
    expect([result.missing, result.unmatched, result.unproven]).toEqual([[], [], []]);
    // said to a person: one receipt, matched
    const human = await run(['deposit', 'reconcile']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/: 1 receipt\(s\) matched to deposits\n/);
    expect(human.stdout).toContain('everything matches');
  });

  it('three deposits of one transaction: one paid alone, two summed into another output', async () => {
    const tx = payTx(
      [
        [DEST, units(990)],
        [DEST, units(1485 + 1485)],
      ],
      'three',
    );
    const { run } = await shop(
      [
        { n: 1, cents: 1000, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
        { n: 3, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(0);
    expect(matchedOf(r.stdout)).toEqual([
      [id(1), 0],
      [id(2), 1],
      [id(3), 1],
    ]);
  });

  it('two deposits with a 10% split, settled by one transaction: one output summing the splits, one the rest', async () => {
    // each: net R$ 14.85, split R$ 1.485 (148500000 units), destination R$ 13.365
    const tx = payTx(
      [
        [SPLIT, 2n * 148_500_000n],
        [DEST, 2n * 1_336_500_000n],
      ],
      'summed-splits',
    );
    const { run } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid, split: 0.1 },
        { n: 2, cents: 1500, txid: tx.txid, split: 0.1 },
      ],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
    );
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(
      result.matched
        .map((m: { depositId: string; role: string; vout: number }) => [m.depositId, m.role, m.vout])
        .sort(),
    ).toEqual([
      [id(1), 'destination', 1],
      [id(1), 'split', 0],
      [id(2), 'destination', 1],
      [id(2), 'split', 0],
    ]);
    expect([result.missing, result.unmatched]).toEqual([[], []]);
  });

  it('a summed output one unit short of the deposits together matches neither: both missing, the output unmatched', async () => {
    const tx = payTx([[DEST, units(2 * 1485) - 1n]], 'summed-short');
    const { run } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result.matched).toEqual([]);
    expect(result.missing.map((m: { depositId: string }) => m.depositId).sort()).toEqual([id(1), id(2)]);
    expect(result.unmatched).toHaveLength(1);
  });

  describe('a confidential output no key opens', () => {
    const KEY = '11'.repeat(32);
    const pub = () => zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(KEY, 'hex')), true)!;
    /** DEST's script, confidential: blinded to KEY's public key */
    const CONF = () =>
      blech32Encode(
        'el',
        Uint8Array.from([0, ...bech32.toWords(Uint8Array.from([...pub(), ...Buffer.alloc(20, 0x22)]))]),
        'blech32',
      );

    it("paying a deposit's settlement: reported once, as not proven (exit 7), never missing and unmatched", async () => {
      const to = CONF();
      const tx = payTx([[to, units(1485)]], 'blind');
      const { run } = await shop(
        [{ n: 1, cents: 1500, txid: tx.txid, to }],
        [{ ...tx, time: AFTER, to: [to] }],
      );
      const r = await run(['deposit', 'reconcile', '--json']);
      expect(r.code).toBe(7);
      const result = JSON.parse(r.stdout);
      expect([result.matched, result.missing, result.unmatched]).toEqual([[], [], []]);
      expect(result.unproven).toEqual([
        expect.objectContaining({
          depositId: id(1),
          role: 'destination',
          txid: tx.txid,
          vout: 0,
          cents: 1485,
        }),
      ]);
      expect(JSON.parse(r.stderr).error.type).toBe('unproven');
      const human = await run(['deposit', 'reconcile']);
      expect(human.code).toBe(7);
      expect(human.stdout).toContain('Paid by an output whose amount could not be read (not proven):');
      expect(human.stdout).not.toContain('Finalized, but not found on chain');
      expect(human.stdout).not.toContain('Received, matching no deposit');
      expect(human.stdout).not.toContain('everything matches');
    });

    it('settling two deposits summed: each deposit once, the output once', async () => {
      const to = CONF();
      const tx = payTx([[to, units(2 * 1485)]], 'blind-summed');
      const { run } = await shop(
        [
          { n: 1, cents: 1500, txid: tx.txid, to },
          { n: 2, cents: 1500, txid: tx.txid, to },
        ],
        [{ ...tx, time: AFTER, to: [to] }],
      );
      const r = await run(['deposit', 'reconcile', '--json']);
      expect(r.code).toBe(7);
      const result = JSON.parse(r.stdout);
      expect([result.matched, result.missing, result.unmatched]).toEqual([[], [], []]);
      expect(
        result.unproven.map((u: { depositId: string; vout: number }) => [u.depositId, u.vout]).sort(),
      ).toEqual([
        [id(1), 0],
        [id(2), 0],
      ]);
    });

    it('with the key, the same output is matched', async () => {
      const to = CONF();
      const tx = payTx([[to, units(1485)]], 'blind-key');
      const { run, env } = await shop(
        [{ n: 1, cents: 1500, txid: tx.txid, to }],
        [{ ...tx, time: AFTER, to: [to] }],
      );
      expect((await runCli(['config', 'set-blinding-key', '--address', to], { env, stdin: KEY })).code).toBe(
        0,
      );
      const r = await run(['deposit', 'reconcile', '--json']);
      expect(r.code).toBe(0);
      expect(matchedOf(r.stdout)).toEqual([[id(1), 0]]);
    });
  });
});
