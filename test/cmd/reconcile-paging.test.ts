/**
 * deposit reconcile against an explorer that lies in its paging: a page that repeats, a page
 * that loops back to an earlier one, an address history that never ends. Each is an explorer
 * not to be believed (exit 1, one line naming it), never a history read short and called whole.
 */
import { bech32 } from 'bech32';
import { afterEach, describe, expect, it } from 'vitest';
import { readReceipts } from '../../src/deposits/reconcile.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildPaymentsTx, SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { History, type StoredRecord } from '../../src/store/history.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { json, startServer } from '../helpers/server.js';

const zkp = await loadZkp();
const DEST = bech32.encode('ert', [0, ...bech32.toWords(Buffer.alloc(20, 0x22))]);
const BLOCK_TIME = Date.parse('2026-11-22T10:05:00Z') / 1000;
const NOW = Date.parse('2026-11-22T11:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const units = (cents: number) => (BigInt(cents) * 100_000_000n) / 100n;

let closers: Array<() => Promise<void>> = [];
let fail500 = false;
afterEach(async () => {
  fail500 = false;
  for (const c of closers) await c();
  closers = [];
});

/** A shop with one FINALIZED deposit (R$ 15,00, net 14,85) settled by a real transaction to DEST. */
async function shop(
  pages: (lastSeen: string | undefined, first: { txid: string }) => Array<{ txid: string }>,
) {
  const tx = buildPaymentsTx(
    zkp,
    'paid',
    [{ address: DEST, amount: units(1485), assetId: SANDBOX_ASSET_ID }],
    'elementsregtest',
  );
  const service = await startServer((_req, res) => json(res, 404, { error: 'not found' }));
  closers.push(() => service.close());
  const asked: string[] = [];
  const esplora = await startServer((req, res) => {
    const url = req.url.replace(/^\/api/, '');
    asked.push(url);
    if (url === `/asset/${SANDBOX_ASSET_ID}`) return json(res, 200, SANDBOX_ASSET);
    if (url === `/tx/${tx.txid}/hex`) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(tx.hex);
      return;
    }
    if (url.includes('/txs/chain/') && fail500) return json(res, 500, { error: 'down' });
    const m = new RegExp(`^/address/${DEST}/txs(?:/chain/([0-9a-f]{64}))?$`).exec(url);
    if (!m) return json(res, 404, { error: 'not found' });
    const status = {
      confirmed: true,
      block_height: 100,
      block_hash: 'ab'.repeat(32),
      block_time: BLOCK_TIME,
    };
    return json(
      res,
      200,
      pages(m[1], tx).map((t) => ({ txid: t.txid, status })),
    );
  });
  closers.push(() => esplora.close());
  const env = liveEnv(service.url);
  for (const [k, v] of [
    ['network', 'elementsregtest'],
    ['esplora-url', `${esplora.url}/api`],
    ['asset-id', SANDBOX_ASSET_ID],
    ['default-address', DEST],
  ])
    expect((await runCli(['config', 'set', k!, v!], { env })).code).toBe(0);
  const at = '2026-11-22T10:00:00.000Z';
  new History(env.LBRL_CONFIG_DIR!).append([
    {
      v: 1,
      type: 'created',
      id: id(1),
      profile: 'default',
      baseUrl: service.url,
      at,
      amountInCents: 1500,
      destinationAddress: DEST,
      splitAddress: null,
      splitFee: null,
      status: 'WAITING_PAYMENT',
      answer: { amount: 15, feeAmount: 0.15, netAmount: 14.85, splitPercent: null, createdAt: at },
    } as StoredRecord,
    {
      v: 1,
      type: 'status',
      id: id(1),
      status: 'FINALIZED',
      at,
      final: { settlement: { status: 'FINALIZED', liquidTxid: tx.txid }, confirmedAt: at },
    } as StoredRecord,
  ]);
  const run = (args: string[]) => runCli(args, { env, clock: { now: NOW } });
  return { run, asked, tx };
}

describe('reconcile over an explorer that lies in its paging', () => {
  it('an honest explorer (an empty page ends the history): everything matches, exit 0', async () => {
    const { run } = await shop((lastSeen, first) => (lastSeen ? [] : [first]));
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ missing: [], unmatched: [], paidAfterExpiry: [] });
  });

  it.each([
    ['repeats its page', (_l: string | undefined, first: { txid: string }) => [first]],
    [
      'loops back to an earlier transaction',
      (l: string | undefined, first: { txid: string }) =>
        l === 'ee'.repeat(32) ? [first] : l ? [{ txid: 'ee'.repeat(32) }] : [first],
    ],
  ])('a page that %s: exit 1, one line naming the explorer, no verdict on stdout', async (_what, pages) => {
    const { run, asked } = await shop(pages);
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/address history .*repeat/);
    expect(asked.length).toBeLessThan(10);
  });
});

describe('an explorer failing in the middle of the address history', () => {
  it('is never a verdict: exit 1, the failure of the explorer named, nothing on stdout', async () => {
    fail500 = true;
    const { run } = await shop((lastSeen, first) => (lastSeen ? [] : [first]));
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.stdout).toBe('');
    // a service's failure (5xx): exit 1, as for the deposit service; unreachable would be 6
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error.message).toMatch(/explorer .* answered 500/);
  });
});

describe('an address history that never ends', () => {
  it('is refused once the page bound is reached, never read short and called whole', async () => {
    let pages = 0;
    const endless = {
      getAddressTxs: async () => {
        pages += 1;
        const txid = pages.toString(16).padStart(64, '0');
        return [{ txid, status: { confirmed: true, block_time: BLOCK_TIME } }];
      },
      getTxHex: async () => null,
    };
    await expect(
      readReceipts(endless as never, {
        addresses: [DEST],
        network: 'elementsregtest',
        assetId: SANDBOX_ASSET_ID,
        keys: {},
        zkp: null,
      }),
    ).rejects.toThrow(/did not end within 10000 pages/);
    expect(pages).toBe(10_000);
  });
});
