import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { afterEach, describe, expect, it } from 'vitest';
import { EsploraClient } from '../../src/api/esplora.js';
import { assetInfo, checkSettlement, lookUpSettlement } from '../../src/deposits/chain-check.js';
import { POLICY_ASSET } from '../../src/domain/liquid/networks.js';
import type { BlindingKeys, SettlementDeposit } from '../../src/domain/liquid/settlement/model.js';
import { analyseSettlement } from '../../src/domain/liquid/settlement/outputs.js';
import { judgeSettlement } from '../../src/domain/liquid/settlement.js';
import { parseTransaction } from '../../src/domain/liquid/tx.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import {
  buildSettlementTx,
  type ChainDeposit,
  chainTxOf,
  explorerAddress,
  SANDBOX_ASSET,
  SANDBOX_ASSET_ID,
  type SettleMode,
} from '../../src/sandbox/chain.js';
import { type ChainTx, handleEsplora } from '../../src/sandbox/chain-esplora.js';

const zkp = await loadZkp();

// an address whose blinding key the test knows
const BLINDING_KEY = Uint8Array.from(Buffer.from('11'.repeat(32), 'hex'));
const PROGRAM = Uint8Array.from(Buffer.from('6fa016500a3c6a737ebb260e2ddca78ba9234558', 'hex'));
const CONFIDENTIAL = blech32Encode(
  'el',
  Uint8Array.from([
    0,
    ...bech32.toWords(Uint8Array.from([...zkp.ecc.pointFromScalar(BLINDING_KEY, true)!, ...PROGRAM])),
  ]),
  'blech32',
);
const EXPLICIT = 'ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k';

const stored: ChainDeposit = {
  id: '7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  amountInCents: 150_000,
  feeCents: 1_500,
  destinationAddress: CONFIDENTIAL,
  splitAddress: EXPLICIT,
  splitBasisPoints: 299,
};
// what the service shows for it
const deposit: SettlementDeposit = {
  id: stored.id,
  destinationAddress: CONFIDENTIAL,
  splitAddress: EXPLICIT,
  splitPercent: 0.0299,
  netAmount: 1485,
  amountInCents: 150_000,
};
const registry = { [SANDBOX_ASSET_ID]: { precision: 8, precisionFrom: 'contract' as const, ticker: 'SBRL' } };

function check(mode: SettleMode, keys: BlindingKeys = { outputKeys: [BLINDING_KEY] }) {
  const tx = buildSettlementTx(zkp, stored, mode, 'elementsregtest')!;
  const a = analyseSettlement({
    txid: tx.txid,
    txHex: tx.hex,
    network: 'elementsregtest',
    deposits: [deposit],
    keys,
    zkp,
  });
  return judgeSettlement(a, {
    status: { confirmed: true, blockHeight: 10 },
    tipHeight: 11,
    expectedAssetId: SANDBOX_ASSET_ID,
    assets: registry,
  });
}

describe('the sandbox chain builds real Elements transactions', () => {
  it('a confidential output blinded to the address, an explicit split, a fee; read back by the parser', () => {
    const tx = buildSettlementTx(zkp, stored, 'ok', 'elementsregtest')!;
    const parsed = parseTransaction(tx.hex);
    expect(parsed.txid).toBe(tx.txid);
    expect(parsed.outputs.map((o) => [o.asset.kind, o.value.kind])).toEqual([
      ['confidential', 'confidential'],
      ['explicit', 'explicit'],
      ['explicit', 'explicit'],
    ]);
    // 1485 reais, 2.99% of it (44.4015) rounded down to the unit to the split
    expect(tx.payments.map((p) => p.amount)).toEqual([144_059_850_000n, 4_440_150_000n]);
    expect(parsed.outputs[1]!.value).toEqual({ kind: 'explicit', amount: 4_440_150_000n });
    expect(parsed.outputs[2]!.asset).toEqual({ kind: 'explicit', id: POLICY_ASSET.elementsregtest.id });
    // its surjection proof proves the output's asset is among the inputs'
    const out = parsed.outputs[0]!;
    if (out.asset.kind !== 'confidential') throw new Error();
    const inputs = [SANDBOX_ASSET_ID, POLICY_ASSET.elementsregtest.id].map((id) =>
      zkp.generator.generate(Uint8Array.from(Buffer.from(id, 'hex')).reverse()),
    );
    expect(zkp.surjectionproof.verify(out.surjectionproof, inputs, out.asset.commitment)).toBe(true);
  });

  it('the same deposit gives the same transaction in every process', () => {
    const a = buildSettlementTx(zkp, stored, 'ok', 'elementsregtest')!;
    const b = buildSettlementTx(zkp, stored, 'ok', 'elementsregtest')!;
    expect(b.hex).toBe(a.hex);
    expect(buildSettlementTx(zkp, { ...stored, id: 'another' }, 'ok', 'elementsregtest')!.txid).not.toBe(
      a.txid,
    );
  });

  it('settled rightly, it verifies with the blinding key', () => {
    const r = check('ok');
    expect(r.verdict).toBe('verified');
    expect(r.checks.filter((c) => c.what.endsWith('-amount')).map((c) => c.detail)).toEqual([
      "the destination address received 1440.59850000, as due (the net 1485.00000000 less the split's 44.40150000)",
      'the split address received 44.40150000, as due',
    ]);
  });

  it('a 100% split to a confidential destination settles (its share of zero blinded too) and verifies', () => {
    // the sandbox answered 500 to every get of such a deposit once paid: no range proof of a zero value
    const all = { ...stored, splitBasisPoints: 10_000 };
    const tx = buildSettlementTx(zkp, all, 'ok', 'elementsregtest')!;
    const a = analyseSettlement({
      txid: tx.txid,
      txHex: tx.hex,
      network: 'elementsregtest',
      deposits: [{ ...deposit, splitPercent: 1 }],
      keys: { outputKeys: [BLINDING_KEY] },
      zkp,
    });
    const r = judgeSettlement(a, {
      status: { confirmed: true, blockHeight: 10 },
      tipHeight: 11,
      expectedAssetId: SANDBOX_ASSET_ID,
      assets: registry,
    });
    expect(r.verdict).toBe('verified');
    expect(r.checks.filter((c) => c.what.endsWith('-amount')).map((c) => c.detail)).toContain(
      'the split address received 1485.00000000, as due',
    );
  });

  it('without the key, the explicit split is proven and the confidential destination is not', () => {
    const r = check('ok', {});
    expect(r.verdict).toBe('unproven');
    expect(r.checks.find((c) => c.what === 'asset')?.detail).toBe(
      "the destination address's outputs are confidential and were not unblinded: the asset was not verified",
    );
    expect(r.checks.map((c) => [c.what, c.outcome])).toEqual([
      ['confirmations', 'proven'],
      ['destination', 'proven'],
      ['split', 'proven'],
      ['asset', 'not-proven'],
      ['precision', 'proven'],
      ['destination-amount', 'not-proven'],
      ['split-amount', 'proven'],
    ]);
  });

  it.each([
    [
      'amount',
      'destination-amount',
      "the destination address received 1440.58850000, but 1440.59850000 was due (the net 1485.00000000 less the split's 44.40150000)",
    ],
    ['asset', 'asset', "the destination and split addresses received another asset than the profile's"],
    ['address', 'destination', `no output pays the destination address ${CONFIDENTIAL}`],
  ] as const)('settled with the wrong %s, it is a mismatch', (mode, what, detail) => {
    const r = check(mode);
    expect(r.verdict).toBe('mismatch');
    expect(r.checks.find((c) => c.what === what)).toMatchObject({ outcome: 'mismatch', detail });
  });

  it('with no transaction, nothing is built', () => {
    expect(buildSettlementTx(zkp, stored, 'none', 'elementsregtest')).toBeNull();
  });
});

describe('handleEsplora: the sandbox chain over HTTP', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  async function serve(now: { t: number }, txs: Map<string, ChainTx>) {
    server = http.createServer((req, res) => {
      void handleEsplora(
        req,
        res,
        { now: () => now.t, findTx: (id) => txs.get(id), blockMs: 5000 },
        '/esplora',
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    return new EsploraClient({
      baseUrl: `http://127.0.0.1:${port}/esplora`,
      sleep: async () => {},
      random: () => 0.5,
      now: () => 0,
      maxRetries: 0,
    });
  }

  it('serves status, tip, hex and asset; confirmations grow with the sandbox clock', async () => {
    const tx = buildSettlementTx(zkp, stored, 'ok', 'elementsregtest')!;
    const sentAt = 1_000_002_000;
    const now = { t: sentAt - 1 };
    const client = await serve(
      now,
      new Map([[tx.txid, { hex: tx.hex, sentAt, addresses: [CONFIDENTIAL, EXPLICIT] }]]),
    );

    // before it was sent, the explorer does not know it
    expect(await lookUpSettlement(client, tx.txid)).toEqual({ found: false });

    const verifyNow = async () => {
      const found = await lookUpSettlement(client, tx.txid);
      if (!found.found) throw new Error('not found');
      const asset = await client.getAsset(SANDBOX_ASSET_ID);
      const a = analyseSettlement({
        txid: tx.txid,
        txHex: found.hex,
        network: 'elementsregtest',
        deposits: [deposit],
        keys: { outputKeys: [BLINDING_KEY] },
        zkp,
      });
      return judgeSettlement(a, {
        status: { confirmed: found.status.confirmed, blockHeight: found.status.block_height ?? null },
        tipHeight: found.tipHeight,
        expectedAssetId: SANDBOX_ASSET_ID,
        // what the sandbox's registry answer proves: its contract recomputes to the id
        assets: { [SANDBOX_ASSET_ID]: assetInfo(SANDBOX_ASSET_ID, asset, { network: 'elementsregtest' }) },
      });
    };

    now.t = sentAt;
    expect((await verifyNow()).checks[0]!.detail).toBe('not yet confirmed (in the mempool)');
    now.t = sentAt + 5000;
    const one = await verifyNow();
    expect([one.verdict, one.confirmations]).toEqual(['pending', 1]);
    now.t = sentAt + 10_000;
    const two = await verifyNow();
    expect([two.verdict, two.confirmations]).toEqual(['verified', 2]);

    expect(await client.getAsset(SANDBOX_ASSET_ID)).toEqual(SANDBOX_ASSET);
    const shown = await client.getTx(tx.txid);
    expect(shown?.vout.map((o) => [o.scriptpubkey_type, o.scriptpubkey_address, o.value, o.asset])).toEqual([
      ['v0_p2wpkh', bech32.encode('ert', [0, ...bech32.toWords(PROGRAM)]), undefined, undefined],
      ['v0_p2wpkh', EXPLICIT, 4_440_150_000, SANDBOX_ASSET_ID],
      ['fee', undefined, 40, POLICY_ASSET.elementsregtest.id],
    ]);
    expect(shown?.vout[0]?.valuecommitment).toMatch(/^0[89]/);
  });

  it('checkSettlement: the whole check in one call, against the sandbox explorer', async () => {
    const tx = buildSettlementTx(zkp, stored, 'ok', 'elementsregtest')!;
    const sentAt = 2_000_000_000;
    const txs = new Map([[tx.txid, chainTxOf(tx, sentAt)]]);
    const now = { t: sentAt + 10_000 };
    const client = await serve(now, txs);
    const input = {
      txid: tx.txid,
      network: 'elementsregtest' as const,
      deposits: [deposit],
      expectedAssetId: SANDBOX_ASSET_ID,
    };

    const withKey = await checkSettlement(client, { ...input, keys: { outputKeys: [BLINDING_KEY] } });
    expect(withKey.found && [withKey.report.verdict, withKey.report.asset]).toEqual([
      'verified',
      { id: SANDBOX_ASSET_ID, ticker: 'SBRL', precision: 8, pinned: true },
    ]);
    const withoutKey = await checkSettlement(client, input);
    expect(withoutKey.found && withoutKey.report.verdict).toBe('unproven');
    expect(await checkSettlement(client, { ...input, txid: 'cd'.repeat(32) })).toEqual({ found: false });

    // an explorer whose raw transaction is not one: exit 1, never a pass
    txs.set(tx.txid, { ...chainTxOf(tx, sentAt), hex: `${tx.hex}00` });
    await expect(checkSettlement(client, input)).rejects.toMatchObject({
      exitCode: 1,
      type: 'contract',
      message: `the explorer's raw transaction ${tx.txid} cannot be read: 1 bytes follow the end of the transaction`,
    });
    // the sandbox explorer answers 500 rather than crash on it
    expect(await client.getTx(tx.txid).catch((e: Error) => e.message)).toMatch(
      / answered 500: Internal error$/,
    );
    // an explorer that serves another transaction under this txid: a mismatch
    const other = buildSettlementTx(zkp, { ...stored, id: 'other' }, 'ok', 'elementsregtest')!;
    txs.set(tx.txid, chainTxOf(other, sentAt));
    const forged = await checkSettlement(client, input);
    expect(forged.found && forged.report.verdict).toBe('mismatch');
    expect(forged.found && forged.report.checks[0]).toMatchObject({
      what: 'transaction',
      expected: tx.txid,
      actual: other.txid,
    });
  });

  it('answers unknown routes, transactions and assets with plain-text 404s', async () => {
    const client = await serve({ t: 0 }, new Map());
    expect(await client.getTx('ab'.repeat(32))).toBeNull();
    expect(await client.getAsset(POLICY_ASSET.liquid.id)).toBeNull();
    expect(await client.getTipHeight()).toBe(0);
  });
});

describe('settlementReportJson', () => {
  it('is plain JSON: amounts as strings, no blinding factors', async () => {
    const { settlementReportJson } = await import('../../src/domain/liquid/settlement.js');
    const json = settlementReportJson(check('ok'));
    const text = JSON.stringify(json);
    expect(json).toMatchObject({
      verdict: 'verified',
      confirmations: 2,
      asset: { id: SANDBOX_ASSET_ID, ticker: 'SBRL', precision: 8, pinned: true },
      outputs: [
        { role: 'destination', index: 0, confidential: true, opened: 'unblinded', value: '144059850000' },
        { role: 'split', index: 1, confidential: false, opened: 'explicit', value: '4440150000' },
      ],
    });
    expect(text).not.toMatch(/BlindingFactor|opening/);
  });
});

const FIXTURE_ADDRESSES = (
  JSON.parse(readFileSync(new URL('../fixtures/liquid/addresses.json', import.meta.url), 'utf8')) as {
    addresses: Array<{ confidential: string; unconfidential: string }>;
  }
).addresses.map((a) => [a.confidential, a.unconfidential] as const);

describe('explorerAddress: the unconfidential form an explorer shows', () => {
  it.each(FIXTURE_ADDRESSES)('%s shows as %s', (confidential, unconfidential) => {
    expect(explorerAddress(confidential)).toBe(unconfidential);
    expect(explorerAddress(unconfidential)).toBe(unconfidential);
  });
});
