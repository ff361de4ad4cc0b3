/**
 * deposit verify against real Liquid transactions, served by a fake explorer that answers as
 * Blockstream's Esplora does (status object, plain-text hex and tip height, 404 as plain text),
 * with the real blinding key of the wallet that received them.
 *
 * c6e3187f…: a Liquid testnet transaction (block 1306469) from Blockstream/lwk's test data; its
 * output 0 pays 5000 units of asset 38fca2d9… to script 001402ff…, blinded to the SLIP-77 key of the
 * descriptor whose master blinding key is ab5824f4… (lwk's TEST_DESCRIPTOR). lwk's own test gives
 * the opening: `#blinded=5000,38fca2d9…,ab9a4205…,6c5c2b44…`. The confidential address below is
 * that script with that key's public key (the `address` field beside it in lwk's JSON is another
 * address of the wallet: its program is 9b27ea3d…, not the output's).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer, ID } from '../helpers/fixtures.js';
import {
  LWK_ADDRESS as ADDRESS,
  LWK_ASSET as ASSET,
  LWK_BLOCK as BLOCK,
  LWK_CONFIRMED as CONFIRMED,
  LWK_HEX as HEX,
  LWK_MASTER as MASTER,
  LWK_REGISTRY as REGISTRY,
  LWK_TXID as TXID,
} from '../helpers/lwk-settlement.js';
import { json, type SeenRequest, startServer } from '../helpers/server.js';

/** the same script, unconfidential (as the explorer shows it) */
const UNCONFIDENTIAL = 'tex1qqtlnn8ktsgtczg406xqq83ayq8d6zm4hnrw4qj';
const DESCRIPTOR = `ct(slip77(${MASTER}),elwpkh([759db348/84'/1'/0']tpubDCRMaF33e44pcJj534LXVhFbHibPbJ5vuLhSSPFAw57kYURv4tzXFL6LSnd78bkjqdmE3USedkbpXJUPA1tdzKfuYSL7PianceqAhwL2UkA/<0;1>/*))#cch6wrnp`;

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

interface Chain {
  status: Record<string, unknown>;
  tip: number;
  /** the registry's answer for the asset, or null for a 404 */
  asset: Record<string, unknown> | null;
}

function esplora(chain: Chain) {
  return (req: SeenRequest, res: Parameters<Parameters<typeof startServer>[0]>[1]) => {
    const url = req.url.replace(/^\/api/, '');
    const notFound = (text: string) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(text);
    };
    const text = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if (url === '/blocks/tip/height') return text(String(chain.tip));
    if (url === `/tx/${TXID}/hex`) return text(HEX);
    if (url === `/tx/${TXID}/status`) return json(res, 200, chain.status);
    if (url === `/asset/${ASSET}`)
      return chain.asset ? json(res, 200, chain.asset) : notFound('Asset id not found');
    // Esplora answers the status of a transaction it does not know as unconfirmed, and 404s its hex
    if (/^\/tx\/[0-9a-f]{64}\/status$/.test(url)) return json(res, 200, { confirmed: false });
    return notFound('Transaction not found');
  };
}

// the confirmed status and the asset's real registry entry (its precision, 3, proven by its
// contract): test/helpers/lwk-settlement.ts
/**
 * A deposit of 5.05 (net 5.00) to the real address, created an hour before the real transaction
 * was confirmed (2024-03-15T18:33:03Z) and settled by it. The profile's default-address is that
 * address (`default: false` leaves it unset: the address is then a stranger's to lbrl).
 */
async function world(
  chain: Chain,
  depositOver: Record<string, unknown> = {},
  opts: { default?: boolean } = {},
) {
  const { qrCode: _q, ...rest } = createAnswer({ amountInCents: 505, lbrlAddress: ADDRESS });
  const answer = {
    ...rest,
    status: 'FINALIZED',
    settlement: { status: 'FINALIZED', liquidTxid: TXID },
    createdAt: '2024-03-15T17:30:00.000Z',
    confirmedAt: '2024-03-15T18:33:05Z',
    ...depositOver,
  };
  const service = await startServer((_req, res) => json(res, 200, answer));
  closers.push(() => service.close());
  const explorer = await startServer(esplora(chain));
  closers.push(() => explorer.close());
  const env = liveEnv(service.url);
  for (const [k, v] of [
    ['network', 'liquidtestnet'],
    ['esplora-url', `${explorer.url}/api`],
    ...(opts.default === false ? [] : [['default-address', ADDRESS]]),
  ]) {
    const r = await runCli(['config', 'set', k!, v!], { env });
    expect(r.code).toBe(0);
  }
  return { env, explorer };
}

describe('deposit verify on a real Liquid testnet transaction', () => {
  it('without a key: the script is proven, the amount is not (unproven, exit 7)', async () => {
    const { env } = await world({ status: CONFIRMED, tip: BLOCK + 5, asset: REGISTRY });
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.stdout).toContain("output 0 pays the destination address's script");
    expect(r.stdout).toContain('6 confirmations (2 required)');
    expect(r.stdout).toMatch(
      /not proven +output 0 to the destination address is confidential and no blinding key was given/,
    );
    expect(r.stdout).not.toMatch(/: verified/);
    expect(r.code).toBe(7);
  });

  it("with the wallet's real CT descriptor and the asset pinned: verified, 5.000 received", async () => {
    const { env } = await world({ status: CONFIRMED, tip: BLOCK + 1, asset: REGISTRY });
    expect((await runCli(['config', 'set', 'asset-id', ASSET], { env })).code).toBe(0);
    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: `${DESCRIPTOR}\n` })).code).toBe(0);
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 confirmations (2 required)');
    expect(r.stdout).toContain('the destination address received 5.000, as due');
    expect(r.stdout).toContain(`the asset is TEST (${ASSET}), the profile's asset-id`);
    expect(r.stdout).toContain(
      'proven     precision 3, from its registry contract (the asset id recomputed from the contract and its issuance)',
    );
    expect(r.stdout).toContain(
      `proven     lbrl has no record of deposit ${ID}: its addresses are the service's claim; the destination address is the profile's default-address`,
    );
    expect(r.stdout + r.stderr).not.toContain(MASTER);
    const j = await runCli(['deposit', 'verify', ID, '--json'], { env });
    const out = JSON.parse(j.stdout) as {
      deposits: Array<{ outcome: string; report: { outputs: unknown[] } }>;
    };
    expect(out.deposits[0]!.outcome).toBe('verified');
    expect(out.deposits[0]!.report.outputs).toEqual([
      {
        role: 'destination',
        address: ADDRESS,
        index: 0,
        confidential: true,
        opened: 'unblinded',
        assetId: ASSET,
        value: '5000',
      },
    ]);
    // the explorer link carries lwk's opening of the same output
    const got = await runCli(['deposit', 'get', ID], { env });
    expect(got.stdout).toContain(
      `https://blockstream.info/liquidtestnet/tx/${TXID}#blinded=5000,${ASSET},ab9a42053c7a6ae0d55b774f3d462b1adfaa630e5d0f9b3c0f16640d55b8f6ab,6c5c2b44a0777e463d25eecb70adee84b316c2597b8a28108ffeea38c7acf45d`,
    );
  });

  it('a deposit to the unconfidential form of the address: the same output, opened with the wallet key', async () => {
    const { env } = await world(
      { status: CONFIRMED, tip: BLOCK + 1, asset: REGISTRY },
      { destinationAddress: UNCONFIDENTIAL },
    );
    expect((await runCli(['config', 'set', 'asset-id', ASSET], { env })).code).toBe(0);
    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: MASTER })).code).toBe(0);
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the destination address received 5.000, as due');
  });

  it('a deposit of another amount is a mismatch showing both values (exit 1)', async () => {
    // 5.06 with a fee of 0.05: 5.01 due, 5.000 received
    const { amount, amountInCents, feeAmount, netAmount, qrCodeText } = createAnswer({
      amountInCents: 506,
      lbrlAddress: ADDRESS,
    });
    const { env } = await world(
      { status: CONFIRMED, tip: BLOCK + 1, asset: REGISTRY },
      { amount, amountInCents, feeAmount, netAmount, qrCodeText },
    );
    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: MASTER })).code).toBe(0);
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the destination address received 5.000, but 5.010 was due');
  });

  it('one confirmation, then the block gone (confirmed false): pending both times (exit 8)', async () => {
    const chain: Chain = { status: CONFIRMED, tip: BLOCK, asset: REGISTRY };
    const { env } = await world(chain);
    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: MASTER })).code).toBe(0);
    const one = await runCli(['deposit', 'verify', ID], { env });
    expect(one.code).toBe(8);
    expect(one.stdout).toContain('1 of 2 confirmations so far');
    chain.status = { confirmed: false };
    chain.tip = BLOCK + 3;
    const back = await runCli(['deposit', 'verify', ID], { env });
    expect(back.code).toBe(8);
    expect(back.stdout).toContain('not yet confirmed (in the mempool)');
  });

  it('an asset the registry does not know: the amount is shown in base units, unproven', async () => {
    const { env } = await world({ status: CONFIRMED, tip: BLOCK + 9, asset: null });
    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: MASTER })).code).toBe(0);
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(7);
    expect(r.stdout).toContain("received 5000 base units; the asset's precision is unknown");
  });

  it('a txid the explorer does not know (status unconfirmed, hex 404): pending, never a pass', async () => {
    const other = 'ab'.repeat(32);
    const { env } = await world(
      { status: CONFIRMED, tip: BLOCK + 9, asset: REGISTRY },
      { settlement: { status: 'FINALIZED', liquidTxid: other } },
    );
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(8);
    expect(r.stdout).toContain('the explorer does not know the transaction');
  });
});
