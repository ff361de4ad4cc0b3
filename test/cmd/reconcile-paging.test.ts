/**
 * deposit reconcile against an explorer that lies in its paging: a page that repeats, a page
 * that loops back to an earlier one, an address history that never ends, a failure in the middle.
 * Each is an explorer not to be believed (exit 1, one line naming it), never a history read short
 * and called whole. The command on narrow options (runReconcile) with the real EsploraClient,
 * whose answers come from a dispatcher without a socket (the paths it asks, the pages as an
 * explorer writes them), so the client's paging and its reading of a 500 are its own; the history
 * on plain records, a printer on plain strings, a clock that only sleeping moves. No server.
 */
import { bech32 } from 'bech32';
import { describe, expect, it } from 'vitest';
import { EsploraClient } from '../../src/api/esplora.js';
import { runReconcile } from '../../src/commands/deposit-reconcile.js';
import { readReceipts } from '../../src/deposits/receipts.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildPaymentsTx, SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { answeringDispatcher, jsonReply, type WrittenReply } from '../helpers/answering-dispatcher.js';
import { plainVerifySources } from '../helpers/fake-explorer.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
import { shown } from '../helpers/shown.js';

const zkp = await loadZkp();
const DEST = bech32.encode('ert', [0, ...bech32.toWords(Buffer.alloc(20, 0x22))]);
const BLOCK_TIME = Date.parse('2026-11-22T10:05:00Z') / 1000;
const NOW = Date.parse('2026-11-22T11:00:00Z');
const TARGET = 'https://pay.example.com';
const EXPLORER = 'https://explorer.example/api';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const units = (cents: number) => (BigInt(cents) * 100_000_000n) / 100n;

/**
 * A shop with one FINALIZED deposit (R$ 15,00, net 14,85) settled by a real transaction to DEST,
 * reconciled on an explorer whose address pages are `pages` (by the last txid seen), and that
 * answers the next pages 500 when `fail500`.
 */
async function reconcile(
  pages: (lastSeen: string | undefined, first: { txid: string }) => Array<{ txid: string }>,
  o: { fail500?: boolean; more?: Array<{ txid: string; hex: string }> } = {},
) {
  const tx = buildPaymentsTx(
    zkp,
    'paid',
    [{ address: DEST, amount: units(1485), assetId: SANDBOX_ASSET_ID }],
    'elementsregtest',
  );
  const asked: string[] = [];
  const wire = answeringDispatcher((call): WrittenReply => {
    const url = call.url.slice(EXPLORER.length);
    asked.push(url);
    if (url === `/asset/${SANDBOX_ASSET_ID}`) return jsonReply(200, SANDBOX_ASSET);
    if (url === '/blocks/tip/height')
      return { status: 200, headers: { 'content-type': 'text/plain' }, body: '200' };
    const known = [tx, ...(o.more ?? [])].find((t) => url === `/tx/${t.txid}/hex`);
    if (known) return { status: 200, headers: { 'content-type': 'text/plain' }, body: known.hex };
    if (url.includes('/txs/chain/') && o.fail500) return jsonReply(500, { error: 'down' });
    const m = new RegExp(`^/address/${DEST}/txs(?:/chain/([0-9a-f]{64}))?$`).exec(url);
    if (!m) return jsonReply(404, { error: 'not found' });
    const status = {
      confirmed: true,
      block_height: 100,
      block_hash: 'ab'.repeat(32),
      block_time: BLOCK_TIME,
    };
    return jsonReply(
      200,
      pages(m[1], tx).map((t) => ({ txid: t.txid, status })),
    );
  });
  const at = '2026-11-22T10:00:00.000Z';
  const history = recordsHistory([
    {
      v: 1,
      type: 'created',
      id: id(1),
      profile: 'default',
      baseUrl: TARGET,
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
  const clock = steppingClock(NOW);
  const term = plainTerminal({ json: true, now: clock.now });
  const sources = plainVerifySources({
    settings: {
      network: 'elementsregtest',
      'esplora-url': EXPLORER,
      'asset-id': SANDBOX_ASSET_ID,
      'default-address': DEST,
    },
    chain: { txs: new Map(), tip: 200 },
    history,
  });
  // the real explorer client, as the factory makes it, on the dispatcher
  sources.explorer = (baseUrl) =>
    new EsploraClient({
      baseUrl,
      sleep: clock.sleep,
      random: clock.random,
      now: clock.now,
      userAgent: 'lbrl',
      timeoutMs: 2000,
      connectTimeoutMs: 2000,
      dispatcher: wire.dispatcher,
    });
  const seen = await seenRun(term, () =>
    runReconcile({
      flags: {},
      printer: term.printer,
      json: true,
      ctx: term.ctx,
      scope: () => ({ profile: 'default', target: TARGET }),
      history: () => history,
      sources,
    }),
  );
  return { ...shown(term, seen), asked, tx };
}

describe('reconcile over an explorer that lies in its paging', () => {
  it('an honest explorer (an empty page ends the history): everything matches, exit 0', async () => {
    const r = await reconcile((lastSeen, first) => (lastSeen ? [] : [first]));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ missing: [], unmatched: [], paidAfterExpiry: [] });
    // the first page, then the page after its last transaction (Esplora's /txs/chain/:last_seen)
    expect(r.asked.filter((u) => u.startsWith('/address/'))).toEqual([
      `/address/${DEST}/txs`,
      `/address/${DEST}/txs/chain/${r.tx.txid}`,
    ]);
  });

  it.each([
    ['repeats its page', (_l: string | undefined, first: { txid: string }) => [first]],
    [
      'loops back to an earlier transaction',
      (l: string | undefined, first: { txid: string }) =>
        l === 'ee'.repeat(32) ? [first] : l ? [{ txid: 'ee'.repeat(32) }] : [first],
    ],
  ])('a page that %s: exit 1, one line naming the explorer, no verdict on stdout', async (_what, pages) => {
    const r = await reconcile(pages);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/address history .*repeat/);
    // one line: the JSON error
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.asked.length).toBeLessThan(10);
  });
});

describe('an honest explorer paging a long history', () => {
  it('pages the address history past 25 transactions: every receipt read, the deposit matched', async () => {
    // 27 payments of R$ 1,00 to R$ 27,00 after the deposit's settlement, newest first as Esplora lists them
    const strays = Array.from({ length: 27 }, (_, i) =>
      buildPaymentsTx(
        zkp,
        `stray${i + 1}`,
        [{ address: DEST, amount: units((i + 1) * 100), assetId: SANDBOX_ASSET_ID }],
        'elementsregtest',
      ),
    );
    const PAGE = 25;
    const r = await reconcile(
      (lastSeen, first) => {
        const all = [...strays].reverse().concat([first as (typeof strays)[number]]);
        const from = lastSeen ? all.findIndex((t) => t.txid === lastSeen) + 1 : 0;
        return all.slice(from, from + PAGE);
      },
      { more: strays },
    );
    expect(r.code).toBe(1);
    // the second page asked after the first page's last transaction, then the third (empty)
    const pages = r.asked.filter((u) => u.startsWith('/address/'));
    expect(pages).toEqual([
      `/address/${DEST}/txs`,
      `/address/${DEST}/txs/chain/${strays[2]!.txid}`,
      `/address/${DEST}/txs/chain/${r.tx.txid}`,
    ]);
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([
      expect.objectContaining({ depositId: id(1), txid: r.tx.txid, cents: 1485 }),
    ]);
    const cents = found.unmatched.map((u: { cents: number }) => u.cents);
    expect(cents.sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 27 }, (_, i) => (i + 1) * 100),
    );
  });
});

describe('an explorer failing in the middle of the address history', () => {
  it('is never a verdict: exit 1, the failure of the explorer named, nothing on stdout', async () => {
    const r = await reconcile((lastSeen, first) => (lastSeen ? [] : [first]), { fail500: true });
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
