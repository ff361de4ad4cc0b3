/**
 * The split rule on the numbers a service counting in cents produces: R$ 1,500.00 with a fee of
 * R$ 15.00 is a net of 1485.00; a split of 2.99% is 44.4015 exactly (4,440,150,000 units at
 * precision 8, DePix's), which the service may round to the unit or the cent, either way (44.40
 * or 44.41); the destination gets the rest, the net less what the split received (1440.60 or
 * 1440.59). Anything else does not settle the deposit: a split paid more takes from the
 * destination, and a cent lost between them is a cent lost.
 */
import { describe, expect, it } from 'vitest';
import type { SettlementAnalysis, SettlementDeposit } from '../../src/domain/liquid/settlement/model.js';
import { judgeSettlement } from '../../src/domain/liquid/settlement.js';

const ASSET = '02f22f8d9c76ab41661a2729e4752e2c5d1a263012141b86ea98af5472df5189';
const DEST =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
const SPLIT = 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn';
const deposit: SettlementDeposit = {
  id: 'd1',
  destinationAddress: DEST,
  splitAddress: SPLIT,
  splitPercent: 0.0299,
  netAmount: 1485,
  amountInCents: 150000,
};

function judge(destUnits: bigint, splitUnits: bigint, precision = 8, deposits = [deposit]) {
  const out = (index: number, value: bigint) => ({
    index,
    confidential: false,
    opened: 'explicit' as const,
    assetId: ASSET,
    value,
  });
  const a: SettlementAnalysis = {
    txid: 'ab'.repeat(32),
    tx: { txid: 'ab'.repeat(32), version: 2, inputCount: 1, outputs: [], locktime: 0 },
    network: 'liquid',
    deposits,
    addresses: [
      { role: 'destination', address: DEST, script: '0014aa', outputs: [out(0, destUnits)] },
      { role: 'split', address: SPLIT, script: '0014bb', outputs: [out(1, splitUnits)] },
    ],
    problems: [],
  };
  const r = judgeSettlement(a, {
    status: { confirmed: true, blockHeight: 10 },
    tipHeight: 11,
    expectedAssetId: ASSET,
    assets: { [ASSET]: { precision, precisionFrom: 'contract', ticker: 'DePix' } },
  });
  return [r.verdict, ...r.checks.filter((c) => c.what.endsWith('-amount')).map((c) => c.detail)];
}

describe('a split paid to the base unit or rounded to the cent', () => {
  it('the exact shares settle it', () => {
    expect(judge(144_059_850_000n, 4_440_150_000n)).toEqual([
      'verified',
      "the destination address received 1440.59850000, as due (the net 1485.00000000 less the split's 44.40150000)",
      'the split address received 44.40150000, as due',
    ]);
  });

  it('the split rounded to the cent, down or up, and the destination the rest, settle it', () => {
    expect(judge(144_060_000_000n, 4_440_000_000n)).toEqual([
      'verified',
      "the destination address received 1440.60000000, as due (the net 1485.00000000 less the split's 44.40000000)",
      'the split address received 44.40000000, as due (44.40150000 rounded)',
    ]);
    expect(judge(144_059_000_000n, 4_441_000_000n)[0]).toBe('verified');
  });

  it('a split a cent off its rounding is a mismatch, with the values it could have been', () => {
    expect(judge(144_061_000_000n, 4_439_000_000n)).toEqual([
      'mismatch',
      "the destination address received 1440.61000000, as due (the net 1485.00000000 less the split's 44.39000000)",
      'the split address received 44.39000000, but 44.40000000 or 44.40150000 or 44.41000000 was due (44.40150000, rounded to the unit or the cent)',
    ]);
  });

  it('a cent lost between them: the split rounded, the destination short of the rest', () => {
    expect(judge(144_059_000_000n, 4_440_000_000n)).toEqual([
      'mismatch',
      "the destination address received 1440.59000000, but 1440.60000000 was due (the net 1485.00000000 less the split's 44.40000000)",
      'the split address received 44.40000000, as due (44.40150000 rounded)',
    ]);
  });

  it('an amount that is neither to the unit nor in whole cents is a mismatch, even when the total is right', () => {
    // the split 100 units over its share, the destination 100 under: the split took from the destination
    expect(judge(144_059_849_900n, 4_440_150_100n)[0]).toBe('mismatch');
    // the split paid more than any rounding is a mismatch, whatever the destination got
    expect(judge(144_060_000_000n, 4_450_000_000n)[0]).toBe('mismatch');
  });

  it('at precision 0 there are no cents: only the unit rule', () => {
    // 1485 units net: the split 44.4015 units is paid by 44 or 45
    expect(judge(1441n, 44n, 0)[0]).toBe('verified');
    expect(judge(1440n, 45n, 0)[0]).toBe('verified');
    expect(judge(1442n, 43n, 0)[0]).toBe('mismatch');
  });
});

describe('two split deposits paid together to the same two addresses', () => {
  // each script carries both deposits' shares, so each may be short by its shares' rounding;
  // together they must still pay both nets, to the unit
  const second: SettlementDeposit = { ...deposit, id: 'd2' };
  const both = [deposit, second];
  const dueSplit = 2n * 4_440_150_000n;
  const dueDestination = 2n * 144_059_850_000n;

  it('the exact shares settle both', () => {
    expect(judge(dueDestination, dueSplit, 8, both)[0]).toBe('verified');
  });

  it('each address short by less than its rounding, but less than a cent lost between them: a mismatch', () => {
    const short = judge(dueDestination - 400_000n, dueSplit - 500_000n, 8, both);
    expect(short[0]).toBe('mismatch');
    expect(short.slice(1)).toEqual([
      expect.stringMatching(/^the destination address received 2881.19300000, as due/),
      expect.stringMatching(/^the split address received 88.79800000, as due/),
    ]);
  });
});
