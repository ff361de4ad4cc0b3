import { readFileSync } from 'node:fs';
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { describe, expect, it } from 'vitest';
import { assetsToLookUp } from '../../src/domain/liquid/settlement/asset-check.js';
import type { EarlierShare, SettlementDeposit } from '../../src/domain/liquid/settlement/model.js';
import { analyseSettlement } from '../../src/domain/liquid/settlement/outputs.js';
import { formatUnits } from '../../src/domain/liquid/settlement/shares.js';
import { judgeSettlement } from '../../src/domain/liquid/settlement.js';
import { parseTransaction } from '../../src/domain/liquid/tx.js';
import {
  descriptorChecksum,
  loadZkp,
  parseBlindingKey,
  slip77BlindingKey,
  type Zkp,
} from '../../src/domain/liquid/unblind.js';

// A real Elements regtest transaction (Blockstream/lwk test data) and its wallet's SLIP-77 key:
// output 0 pays 1000, output 1 pays 98750 of the regtest policy asset, output 2 is the fee.
const TX_HEX = readFileSync(new URL('../fixtures/liquid/lwk-regtest-tx.hex', import.meta.url), 'utf8').trim();
const TX = parseTransaction(TX_HEX);
const TXID = TX.txid;
const MASTER = Uint8Array.from(
  Buffer.from('9c8e4f05c7711a98c838be228bcb84924d4570ca53f35fa1c793e58841d47023', 'hex'),
);
const ASSET = '5ac9f65c0efcc4775e0baec4ec03abdde22473cd3cf33c0419ca290e0751b225';
const DEPIX = '02f22f8d9c76ab41661a2729e4752e2c5d1a263012141b86ea98af5472df5189';

const zkp: Zkp = await loadZkp();

/** The wallet's confidential address for an output: its program, and the SLIP-77 blinding pubkey. */
function confidentialAddress(index: number): string {
  const script = TX.outputs[index]!.script;
  const pub = zkp.ecc.pointFromScalar(slip77BlindingKey(MASTER, script), true)!;
  const words = [0, ...bech32.toWords(Uint8Array.from([...pub, ...script.subarray(2)]))];
  return blech32Encode('el', Uint8Array.from(words), 'blech32');
}
function unconfidentialAddress(index: number): string {
  return bech32.encode('ert', [0, ...bech32.toWords(TX.outputs[index]!.script.subarray(2))]);
}

const SMALL = confidentialAddress(0); // receives 1000
const LARGE = confidentialAddress(1); // receives 98750
const OTHER =
  'el1qqw3e3mk4ng3ks43mh54udznuekaadh9lgwef3mwgzrfzakmdwcvqpe4ppdaa3t44v3zv2u6w56pv6tc666fvgzaclqjnkz0sd';

// 99750 base units at precision 8; 1000.4925 of them due to the split, 98749.5075 to the destination
const deposit: SettlementDeposit = {
  id: '3b7e1c1e-8a4b-4c57-9a57-7b0f5c3e9d11',
  destinationAddress: LARGE,
  splitAddress: SMALL,
  splitPercent: 0.01003,
  netAmount: 0.0009975,
  amountInCents: 1,
};

const confirmed = { status: { confirmed: true, blockHeight: 100 }, tipHeight: 101 };
// the regtest policy asset counts in 8 decimals; DePix's precision as its registry contract proves it
const registry = {
  [ASSET]: { precision: 8, precisionFrom: 'network' as const, ticker: 'tL-BTC' },
  [DEPIX]: { precision: 8, precisionFrom: 'contract' as const, ticker: 'DePix' },
};

function verify(
  d: SettlementDeposit[] = [deposit],
  o: {
    keys?: boolean;
    asset?: string | undefined;
    tip?: number;
    txid?: string;
    assets?: typeof registry | Record<string, never>;
    earlier?: EarlierShare[];
  } = {},
) {
  const a = analyseSettlement({
    txid: o.txid ?? TXID,
    txHex: TX_HEX,
    network: 'elementsregtest',
    deposits: d,
    keys: o.keys === false ? {} : { masterBlindingKeys: [MASTER] },
    zkp,
  });
  return judgeSettlement(a, {
    ...confirmed,
    tipHeight: o.tip ?? confirmed.tipHeight,
    expectedAssetId: 'asset' in o ? o.asset : ASSET,
    assets: o.assets ?? registry,
    earlier: o.earlier,
  });
}

const outcomes = (r: ReturnType<typeof verify>) => r.checks.map((c) => [c.what, c.outcome]);

describe('a settlement checked against a real confidential transaction', () => {
  it('verified: confirmed twice, both scripts paid, the pinned asset, both shares within a unit', () => {
    const r = verify();
    expect(r.verdict).toBe('verified');
    expect(r.confirmations).toBe(2);
    expect(outcomes(r)).toEqual([
      ['confirmations', 'proven'],
      ['destination', 'proven'],
      ['split', 'proven'],
      ['asset', 'proven'],
      ['precision', 'proven'],
      ['destination-amount', 'proven'],
      ['split-amount', 'proven'],
      ['total', 'proven'],
    ]);
    expect(r.checks.map((c) => c.detail)).toEqual([
      'confirmed in block 100, 2 confirmations (2 required)',
      "output 1 pays the destination address's script",
      "output 0 pays the split address's script",
      `the asset is tL-BTC (${ASSET}), the profile's asset-id`,
      "precision 8, from the network's own asset (8 decimals)",
      "the destination address received 0.00098750, as due (the net 0.00099750 less the split's 0.00001000)",
      'the split address received 0.00001000, as due (0.00001000…0.00001001 rounded)',
      'together the addresses received 0.00099750, at least the net amount',
    ]);
    expect(r.asset).toEqual({ id: ASSET, ticker: 'tL-BTC', precision: 8, pinned: true });
    expect(r.blindedFragment).toMatch(
      new RegExp(`^#blinded=98750,${ASSET},[0-9a-f]{64},[0-9a-f]{64},1000,${ASSET},`),
    );
  });

  it('the explorer form of the address (unconfidential) matches the same script', () => {
    const r = verify([{ ...deposit, destinationAddress: unconfidentialAddress(1) }]);
    expect(r.verdict).toBe('verified');
  });

  it('unproven without a blinding key: the scripts are proven, asset and amounts are not', () => {
    const r = verify([deposit], { keys: false });
    expect(r.verdict).toBe('unproven');
    expect(outcomes(r)).toEqual([
      ['confirmations', 'proven'],
      ['destination', 'proven'],
      ['split', 'proven'],
      ['asset', 'not-proven'],
      ['precision', 'proven'],
      ['destination-amount', 'not-proven'],
      ['split-amount', 'not-proven'],
    ]);
    expect(r.checks[3]!.detail).toBe(
      "the destination and split addresses' outputs are confidential and were not unblinded: the asset was not verified",
    );
    // without asset-id, the same gap in other words
    expect(verify([deposit], { keys: false, asset: undefined }).checks[3]!.detail).toBe(
      'the outputs are confidential and were not unblinded: the asset was not verified',
    );
    expect(r.checks.find((c) => c.what === 'destination-amount')!.detail).toBe(
      'output 1 to the destination address is confidential and no blinding key was given: the amount was not verified',
    );
    expect(r.blindedFragment).toBeNull();
  });

  it('unproven when the asset is not pinned: reported by id and ticker', () => {
    const r = verify([deposit], { asset: undefined });
    expect(r.verdict).toBe('unproven');
    expect(r.checks.find((c) => c.what === 'asset')).toEqual({
      what: 'asset',
      outcome: 'not-proven',
      detail: `the asset is tL-BTC (${ASSET}), not pinned: set asset-id to check it`,
    });
    expect(r.asset?.pinned).toBe(false);
    // the amounts are still checked, in that asset
    expect(r.checks.filter((c) => c.what.endsWith('-amount')).map((c) => c.outcome)).toEqual([
      'proven',
      'proven',
    ]);
  });

  it('unproven when the precision is unknown: the amount is shown in base units', () => {
    const r = verify([deposit], { assets: {} });
    expect(r.verdict).toBe('unproven');
    expect(r.checks.find((c) => c.what === 'destination-amount')?.detail).toBe(
      "received 98750 base units; the asset's precision is unknown, so the amount was not verified",
    );
  });

  it('pending with one confirmation of two', () => {
    const r = verify([deposit], { tip: 100 });
    expect(r.verdict).toBe('pending');
    expect(r.checks[0]).toEqual({
      what: 'confirmations',
      outcome: 'not-proven',
      detail: '1 of 2 confirmations so far',
    });
  });

  it('mismatch: another amount, with both values', () => {
    // each share is within the split's rounding (under a cent), but together they are 10 units short
    const r = verify([{ ...deposit, netAmount: 0.0009976 }]);
    expect(r.verdict).toBe('mismatch');
    expect(r.checks.find((c) => c.what === 'total')).toEqual({
      what: 'total',
      outcome: 'mismatch',
      detail: 'together the addresses received 0.00099750, but the net amount is 0.00099760',
      expected: '0.00099760',
      actual: '0.00099750',
    });
    // without a split, the destination's share is exact
    const alone = verify([{ ...deposit, splitAddress: null, splitPercent: null, netAmount: 0.0009876 }]);
    expect(alone.checks.find((c) => c.what === 'destination-amount')).toEqual({
      what: 'destination-amount',
      outcome: 'mismatch',
      detail: 'the destination address received 0.00098750, but 0.00098760 was due',
      expected: '0.00098760',
      actual: '0.00098750',
    });
  });

  it('mismatch: another asset than the pinned one', () => {
    const r = verify([deposit], { asset: DEPIX });
    expect(r.verdict).toBe('mismatch');
    expect(r.checks.find((c) => c.what === 'asset')).toMatchObject({
      outcome: 'mismatch',
      expected: DEPIX,
      actual: ASSET,
    });
  });

  it('mismatch: no output pays the destination', () => {
    const r = verify([{ ...deposit, destinationAddress: OTHER }]);
    expect(r.verdict).toBe('mismatch');
    expect(r.checks.find((c) => c.what === 'destination')).toMatchObject({
      outcome: 'mismatch',
      detail: `no output pays the destination address ${OTHER}`,
    });
  });

  it('mismatch: the raw transaction is not the one the service named', () => {
    const r = verify([deposit], { txid: '00'.repeat(32) });
    expect(r.verdict).toBe('mismatch');
    expect(r.checks[0]).toMatchObject({ what: 'transaction', expected: '00'.repeat(32), actual: TXID });
  });

  it('an address of another network is a mismatch, not a crash', () => {
    const liquid = 'VTpz1bNuCALgavJKgbAw9Lpp9A72rJy64XPqgqfnaLpMjRcPh5UHBqyRUE4WMZ3asjqu7YEPVAnWw2EK';
    const r = verify([{ ...deposit, destinationAddress: liquid }]);
    expect(r.verdict).toBe('mismatch');
    expect(r.checks[0]!.detail).toBe(
      `the destination address ${liquid} is a liquid address, not elementsregtest`,
    );
  });

  it('several deposits settled by one transaction: the shares due to one script are summed', () => {
    const half = { ...deposit, splitAddress: null, splitPercent: null, netAmount: 0.00049375 };
    const r = verify([half, { ...half, id: '5c1d7e0a-3f2b-4e8c-9d6a-1b2c3d4e5f60' }]);
    expect(r.verdict).toBe('verified');
    // one of the two alone is paid (more than due)...
    const first = verify([half]);
    expect(first.verdict).toBe('verified');
    // ...and once its share is counted, the other is judged with it: paid in full, verified
    const earlier = first.shares.map((x) => ({ ...x, depositId: half.id }));
    const second = { ...half, id: '5c1d7e0a-3f2b-4e8c-9d6a-1b2c3d4e5f60' };
    expect(verify([second], { earlier }).verdict).toBe('verified');
    // a third deposit naming the same outputs finds nothing left: a mismatch naming both earlier ones
    const both = [...earlier, ...earlier.map((x) => ({ ...x, depositId: second.id }))];
    const third = verify([{ ...half, id: '6d1d7e0a-3f2b-4e8c-9d6a-1b2c3d4e5f60' }], { earlier: both });
    expect(third.verdict).toBe('mismatch');
    expect(third.checks.find((c) => c.outcome === 'mismatch')!.detail).toBe(
      `the destination address received 0.00098750, but 0.00148125 was due (with the share of deposit ${half.id}, ${second.id}, counted earlier from the same outputs)`,
    );
  });

  it('the destination and the split address being one: both shares are due to it', () => {
    const r = verify([{ ...deposit, destinationAddress: LARGE, splitAddress: LARGE, netAmount: 0.0009875 }]);
    expect(r.verdict).toBe('verified');
  });

  it('names the assets to look up in the registry', () => {
    const a = analyseSettlement({
      txid: TXID,
      txHex: TX_HEX,
      network: 'elementsregtest',
      deposits: [deposit],
      keys: { masterBlindingKeys: [MASTER] },
      zkp,
    });
    expect(assetsToLookUp(a, DEPIX)).toEqual([DEPIX, ASSET]);
    expect(assetsToLookUp({ ...a, addresses: [] })).toEqual([]);
  });

  it('a per-address key works like the master key', () => {
    const key = slip77BlindingKey(MASTER, TX.outputs[1]!.script);
    const a = analyseSettlement({
      txid: TXID,
      txHex: TX_HEX,
      network: 'elementsregtest',
      deposits: [{ ...deposit, splitAddress: null, splitPercent: null, netAmount: 0.0009875 }],
      keys: { outputKeys: [slip77BlindingKey(MASTER, TX.outputs[0]!.script), key] },
      zkp,
    });
    expect(a.addresses[0]!.outputs[0]!.opened).toBe('unblinded');
    const wrong = analyseSettlement({
      txid: TXID,
      txHex: TX_HEX,
      network: 'elementsregtest',
      deposits: [deposit],
      keys: { outputKeys: [slip77BlindingKey(MASTER, TX.outputs[0]!.script)] },
      zkp,
    });
    const report = judgeSettlement(wrong, { ...confirmed, expectedAssetId: ASSET, assets: registry });
    expect(report.verdict).toBe('unproven');
    expect(report.checks.find((c) => c.what === 'destination-amount')?.detail).toBe(
      "output 1 to the destination address is confidential and did not open with the blinding keys given (none of them is this address's key): the amount was not verified",
    );
  });
});

describe('formatUnits', () => {
  it.each([
    [1450000000n, 8, '14.50000000'],
    [1n, 8, '0.00000001'],
    [0n, 2, '0.00'],
    [12345n, 0, '12345'],
  ])('%s at %s is %s', (units, precision, text) => {
    expect(formatUnits(units, precision)).toBe(text);
  });
});

describe('parseBlindingKey', () => {
  const hex = '9c8e4f05c7711a98c838be228bcb84924d4570ca53f35fa1c793e58841d47023';
  const key = Uint8Array.from(Buffer.from(hex, 'hex'));

  it('a bare key is tried as an address key and as a master key', () => {
    expect(parseBlindingKey(` ${hex.toUpperCase()}\n`)).toEqual({
      ok: true,
      value: { outputKeys: [key], masterBlindingKeys: [key] },
    });
  });

  it("a descriptor's checksum is BIP-380's", () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
  });

  it.each([
    `slip77(${hex})`,
    `ct(slip77(${hex}),elwpkh([73c5da0a/84'/1'/0']tpubDC8msFGeGuwnKG9Upg7DM2b4DaRqg3CUZa5g8v2SRQ6K4NSkxUgd7HsL2XVWbVm39yBA4LAxysQAm397zwQSQoQgewGiYZqrA9DsP4zbQ1M/<0;1>/*))#2e4n992d`,
  ])('%s is a master key', (text) => {
    expect(parseBlindingKey(text)).toEqual({
      ok: true,
      value: { outputKeys: [], masterBlindingKeys: [key] },
    });
  });

  it.each(['', 'abc', `${hex}00`, '00'.repeat(32), 'ff'.repeat(32), `ct(${hex},elwpkh(xpub))`])(
    'refuses %j without repeating it',
    (text) => {
      const r = parseBlindingKey(text);
      expect(r.ok).toBe(false);
      if (!r.ok && text.length > 8) expect(r.expected).not.toContain(text);
    },
  );

  it('a master key from the descriptor opens the real transaction', () => {
    const r = parseBlindingKey(`slip77(${hex})`);
    if (!r.ok) throw new Error();
    const a = analyseSettlement({
      txid: TXID,
      txHex: TX_HEX,
      network: 'elementsregtest',
      deposits: [deposit],
      keys: r.value,
      zkp,
    });
    expect(judgeSettlement(a, { ...confirmed, expectedAssetId: ASSET, assets: registry }).verdict).toBe(
      'verified',
    );
  });
});

describe('the pinned asset, address by address', () => {
  it('the destination in the asset but the split in another is a mismatch naming the split', async () => {
    const { buildSettlementTx, SANDBOX_ASSET_ID } = await import('../../src/sandbox/chain.js');
    const dest = unconfidentialAddress(1);
    const tx = buildSettlementTx(
      zkp,
      {
        id: 'x',
        amountInCents: 10_000,
        feeCents: 100,
        destinationAddress: dest,
        splitAddress: unconfidentialAddress(0),
        splitBasisPoints: 1000,
      },
      'ok',
      'elementsregtest',
    )!;
    const a = analyseSettlement({
      txid: tx.txid,
      txHex: tx.hex,
      network: 'elementsregtest',
      deposits: [
        {
          ...deposit,
          destinationAddress: dest,
          splitAddress: unconfidentialAddress(0),
          splitPercent: 0.1,
          netAmount: 99,
        },
      ],
      zkp,
    });
    // pretend the split output carried another asset
    a.addresses[1]!.outputs[0]!.assetId = ASSET;
    const r = judgeSettlement(a, { ...confirmed, expectedAssetId: SANDBOX_ASSET_ID, assets: {} });
    expect(r.checks.find((c) => c.what === 'asset')).toEqual({
      what: 'asset',
      outcome: 'mismatch',
      detail: "the split address received another asset than the profile's",
      expected: SANDBOX_ASSET_ID,
      actual: ASSET,
    });
  });
});

describe('a real Liquid testnet transaction with explicit outputs (no key needed)', () => {
  const t = JSON.parse(
    readFileSync(new URL('../fixtures/liquid/lwk-testnet-taproot-tx.json', import.meta.url), 'utf8'),
  ) as { hex: string; address: string; script: string };
  const TESTNET_LBTC = '144c654344aa716d6f3abcc1ca90e5641e4e2a7f633bc09fe3baf64585819a49';
  const tx = parseTransaction(t.hex);

  const judge = (netAmount: number) =>
    judgeSettlement(
      analyseSettlement({
        txid: tx.txid,
        txHex: t.hex,
        network: 'liquidtestnet',
        deposits: [{ id: deposit.id, destinationAddress: t.address, netAmount, amountInCents: 1 }],
      }),
      {
        ...confirmed,
        expectedAssetId: TESTNET_LBTC,
        assets: { [TESTNET_LBTC]: { precision: 8, precisionFrom: 'network', ticker: 'tL-BTC' } },
      },
    );

  it('pays the taproot address twice, explicitly, in testnet L-BTC', () => {
    const outs = tx.outputs.filter((o) => Buffer.from(o.script).toString('hex') === t.script);
    expect(outs.map((o) => [o.index, o.value, o.asset])).toEqual([
      [0, { kind: 'explicit', amount: 1000n }, { kind: 'explicit', id: TESTNET_LBTC }],
      [1, { kind: 'explicit', amount: 98750n }, { kind: 'explicit', id: TESTNET_LBTC }],
    ]);
  });

  it('a deposit it settles verifies without any blinding key; the two outputs are summed', () => {
    const r = judge(0.0009975);
    expect(r.verdict).toBe('verified');
    expect(r.checks.map((c) => c.detail).slice(1)).toEqual([
      "outputs 0, 1 pay the destination address's script",
      `the asset is tL-BTC (${TESTNET_LBTC}), the profile's asset-id`,
      "precision 8, from the network's own asset (8 decimals)",
      'the destination address received 0.00099750, as due',
    ]);
    expect(r.blindedFragment).toBeNull();
  });

  it('what the address received is the sum of its outputs: one unit more is due, a mismatch', () => {
    const r = judge(0.00099751);
    expect(r.verdict).toBe('mismatch');
    expect(r.checks.at(-1)).toMatchObject({ expected: '0.00099751', actual: '0.00099750' });
  });

  it('more than due is not a contradiction: the rest is left for other deposits', () => {
    const r = judge(0.00001);
    expect(r.verdict).toBe('verified');
    expect(r.checks.at(-1)!.detail).toBe(
      'the destination address received 0.00099750, more than the 0.00001000 due',
    );
  });
});
