/**
 * checkSettlement against an explorer answering as Blockstream's Esplora does, for a real Liquid
 * testnet transaction paying testnet L-BTC explicitly to a taproot address (Blockstream/lwk's
 * `lwk_wasm/tests/node/simplicity_p2pk.js`). Esplora's /asset for the network's own asset has peg
 * statistics only (no registry entry, so no precision), and its /tx JSON has the shapes below.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EsploraClient, txSchema } from '../../src/api/esplora.js';
import { checkSettlement } from '../../src/deposits/chain-check.js';
import { parseTransaction } from '../../src/domain/liquid/tx.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const T = JSON.parse(
  readFileSync(new URL('../fixtures/liquid/lwk-testnet-taproot-tx.json', import.meta.url), 'utf8'),
) as { hex: string; address: string; script: string };
const TX = parseTransaction(T.hex);
const TLBTC = '144c654344aa716d6f3abcc1ca90e5641e4e2a7f633bc09fe3baf64585819a49';
const stats = {
  tx_count: 1,
  peg_in_count: 1,
  peg_in_amount: 100000,
  peg_out_count: 0,
  peg_out_amount: 0,
  burn_count: 0,
  burned_amount: 0,
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function check(netAmount: number) {
  server = await startServer((req, res) => {
    const text = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if (req.url === '/blocks/tip/height') return text('1500001');
    if (req.url === `/tx/${TX.txid}/hex`) return text(T.hex);
    if (req.url === `/tx/${TX.txid}/status`)
      return json(res, 200, {
        confirmed: true,
        block_height: 1500000,
        block_hash: 'cd'.repeat(32),
        block_time: 1,
      });
    if (req.url === `/asset/${TLBTC}`)
      return json(res, 200, {
        asset_id: TLBTC,
        chain_stats: stats,
        mempool_stats: { ...stats, tx_count: 0 },
      });
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  const client = new EsploraClient({
    baseUrl: server.url,
    sleep: async () => {},
    random: () => 0.5,
    now: () => 0,
  });
  try {
    return await checkSettlement(client, {
      txid: TX.txid,
      network: 'liquidtestnet',
      deposits: [{ id: 'd1', destinationAddress: T.address, netAmount, amountInCents: 1 }],
    });
  } finally {
    await client.close();
  }
}

describe("the network's own asset, as Esplora answers it (no precision in /asset)", () => {
  it('is counted in 8 decimals: the two explicit outputs to the taproot address are read and judged', async () => {
    const r = await check(0.0009975);
    if (!r.found) throw new Error('not found');
    expect(r.report.asset).toEqual({ id: TLBTC, ticker: 'tL-BTC', precision: 8, pinned: false });
    expect(r.report.checks.at(-1)).toMatchObject({
      what: 'destination-amount',
      outcome: 'proven',
      detail: 'the destination address received 0.00099750, as due',
    });
    // not pinned: the asset is named but not verified
    expect(r.report.verdict).toBe('unproven');
  });

  it('another amount is a mismatch in those units', async () => {
    const r = await check(0.001);
    if (!r.found) throw new Error('not found');
    expect(r.report.verdict).toBe('mismatch');
    expect(r.report.checks.at(-1)).toMatchObject({ expected: '0.00100000', actual: '0.00099750' });
  });
});

describe("Esplora's /tx JSON as the real API shapes it", () => {
  it('accepts fee and OP_RETURN outputs without an address, commitments, witnesses, peg-outs and a status object', () => {
    const answer = {
      txid: TX.txid,
      version: 2,
      locktime: 0,
      size: 1200,
      weight: 2000,
      discount_vsize: 300,
      discount_weight: 1200,
      fee: 250,
      vin: [
        {
          txid: 'ab'.repeat(32),
          vout: 0,
          prevout: null,
          scriptsig: '',
          scriptsig_asm: '',
          witness: ['3044', '02' + 'cd'.repeat(32)],
          is_coinbase: false,
          sequence: 4294967293,
          is_pegin: true,
          issuance: null,
        },
      ],
      vout: [
        {
          scriptpubkey: '0014' + 'ef'.repeat(20),
          scriptpubkey_asm: 'OP_0 OP_PUSHBYTES_20 ' + 'ef'.repeat(20),
          scriptpubkey_type: 'v0_p2wpkh',
          scriptpubkey_address: 'tex1qalhmmmhmmmhmmmhmmmhmmmhmmmhmmmhm7l5l5n',
          valuecommitment: '08' + '11'.repeat(32),
          assetcommitment: '0a' + '22'.repeat(32),
        },
        {
          scriptpubkey: '6a0100',
          scriptpubkey_asm: 'OP_RETURN OP_PUSHBYTES_1 00',
          scriptpubkey_type: 'op_return',
          value: 0,
          asset: TLBTC,
        },
        {
          scriptpubkey: '6a20' + '00'.repeat(32),
          scriptpubkey_asm: 'OP_RETURN',
          scriptpubkey_type: 'op_return',
          value: 1000,
          asset: TLBTC,
          pegout: {
            genesis_hash: '00'.repeat(32),
            scriptpubkey: '0014' + '12'.repeat(20),
            scriptpubkey_asm: 'OP_0',
            scriptpubkey_address: 'tb1qzgfpyyfzzgfpyyfzzgfpyyfzzgfpyyfz5jtmzs',
          },
        },
        { scriptpubkey: '', scriptpubkey_asm: '', scriptpubkey_type: 'fee', value: 250, asset: TLBTC },
      ],
      status: { confirmed: false },
    };
    const parsed = txSchema.safeParse(answer);
    expect(parsed.success).toBe(true);
    const confirmed = txSchema.safeParse({
      ...answer,
      status: { confirmed: true, block_height: 1, block_hash: 'ef'.repeat(32), block_time: 1 },
    });
    expect(confirmed.success).toBe(true);
  });
});
