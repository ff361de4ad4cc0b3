/**
 * Real Liquid transactions (not built by lbrl) read, unblinded with their real keys and judged.
 * - lwk-testnet-c6e3187f-tx.hex: Liquid testnet c6e3187f… (block 1306469), rebuilt byte for byte
 *   from Blockstream/lwk's `lwk_wollet/tests/data/wallet_tx.json` (its recomputed txid is the
 *   published one); output 0 is blinded to the SLIP-77 key of lwk's TEST_DESCRIPTOR and lwk
 *   publishes its opening (5000 of 38fca2d9…, vbf ab9a4205…, abf 6c5c2b44…).
 * - lwk-mainnet-usdt-issuance-tx.hex: Liquid mainnet abb4080d…, the issuance of USDt, from
 *   Blockstream/lwk (`lwk_wollet/tests/data/usdt-issuance-tx.hex`): an issuance input, an
 *   OP_RETURN, three confidential outputs to P2SH scripts and the fee.
 */
import { readFileSync } from 'node:fs';
import bs58check from 'bs58check';
import { describe, expect, it } from 'vitest';
import { addressScript } from '../../src/domain/liquid/script.js';
import { analyseSettlement } from '../../src/domain/liquid/settlement/outputs.js';
import { judgeSettlement } from '../../src/domain/liquid/settlement.js';
import { isFeeOutput, parseTransaction } from '../../src/domain/liquid/tx.js';
import { loadZkp, slip77BlindingKey, unblindOutput } from '../../src/domain/liquid/unblind.js';
import { commitmentsOf } from '../helpers/commitments.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/liquid/${name}`, import.meta.url), 'utf8').trim();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const zkp = await loadZkp();

const TESTNET_TX = fixture('lwk-testnet-c6e3187f-tx.hex');
const TESTNET_TXID = 'c6e3187f028942973ad27224ca79baa8382e90ad686e927fc29896e8a2edf3f3';
const TESTNET_POLICY_ASSET = '144c654344aa716d6f3abcc1ca90e5641e4e2a7f633bc09fe3baf64585819a49';
const MASTER = bytes('ab5824f4477b4ebb00a132adfd8eb0b7935cf24f6ac151add5d1913db374ce92');
const ASSET = '38fca2d939696061a8f76d4e6b5eecd54e3b4221c846f24a6b279e79952850a5';
const USDT_TX = fixture('lwk-mainnet-usdt-issuance-tx.hex');
const LBTC = '6f0279e9ed041c3d710a9f57d0c02928416460c4b722ae3457a11eec381c526d';

describe('a real Liquid testnet transaction with its real blinding key', () => {
  const tx = parseTransaction(TESTNET_TX);

  it('reads it: the txid recomputed is the published one, the fee is explicit', () => {
    expect(tx.txid).toBe(TESTNET_TXID);
    expect(tx.inputCount).toBe(2);
    expect(tx.locktime).toBe(1306468);
    expect(tx.outputs.map((o) => [o.asset.kind, o.value.kind, hex(o.script)])).toEqual([
      ['confidential', 'confidential', '001402ff399ecb82178122afd18003c7a401dba16eb7'],
      ['confidential', 'confidential', '001455e6968d84642e22cfe6b58308cc2b0af86f1414'],
      ['confidential', 'confidential', '00140623dee4f821d767bc1ca313c08325887a7fcaf5'],
      ['explicit', 'explicit', ''],
    ]);
    const fee = tx.outputs[3]!;
    expect(isFeeOutput(fee)).toBe(true);
    expect(fee.asset).toEqual({ kind: 'explicit', id: TESTNET_POLICY_ASSET });
    expect(fee.value).toEqual({ kind: 'explicit', amount: 376n });
  });

  it('opens output 0 with the SLIP-77 key to the opening lwk publishes, its commitments recomputed', () => {
    const out = tx.outputs[0]!;
    const r = unblindOutput(zkp, out, slip77BlindingKey(MASTER, out.script));
    expect(r).toEqual({
      ok: true,
      value: {
        value: 5000n,
        assetId: ASSET,
        valueBlindingFactor: 'ab9a42053c7a6ae0d55b774f3d462b1adfaa630e5d0f9b3c0f16640d55b8f6ab',
        assetBlindingFactor: '6c5c2b44a0777e463d25eecb70adee84b316c2597b8a28108ffeea38c7acf45d',
      },
    });
    if (!r.ok || out.asset.kind !== 'confidential' || out.value.kind !== 'confidential') return;
    const c = commitmentsOf(zkp, r.value);
    expect(hex(c.assetCommitment)).toBe(hex(out.asset.commitment));
    expect(hex(c.valueCommitment)).toBe(hex(out.value.commitment));
  });

  it("the other outputs are not the wallet's: its key does not open them", () => {
    for (const out of tx.outputs.slice(1, 3)) {
      const r = unblindOutput(zkp, out, slip77BlindingKey(MASTER, out.script));
      expect(r.ok ? 'opened' : r.code).toBe('wrong-key');
    }
  });

  it('the unconfidential form of the address (as explorers show it) matches the same output', () => {
    const plain = addressScript('tex1qqtlnn8ktsgtczg406xqq83ayq8d6zm4hnrw4qj');
    expect(plain.ok && hex(plain.value.script)).toBe(hex(tx.outputs[0]!.script));
    const a = analyseSettlement({
      txid: TESTNET_TXID,
      txHex: TESTNET_TX,
      network: 'liquidtestnet',
      deposits: [
        {
          id: 'd1',
          destinationAddress: 'tex1qqtlnn8ktsgtczg406xqq83ayq8d6zm4hnrw4qj',
          netAmount: 50,
          amountInCents: 5050,
        },
      ],
      keys: { masterBlindingKeys: [MASTER] },
      zkp,
    });
    const r = judgeSettlement(a, {
      status: { confirmed: true, blockHeight: 1306469 },
      tipHeight: 1306470,
      expectedAssetId: ASSET,
      assets: { [ASSET]: { precision: 2, precisionFrom: 'profile', ticker: 'TST' } },
    });
    expect(r.verdict).toBe('verified');
    expect(r.confirmations).toBe(2);
    expect(r.blindedFragment).toBe(
      `#blinded=5000,${ASSET},ab9a42053c7a6ae0d55b774f3d462b1adfaa630e5d0f9b3c0f16640d55b8f6ab,6c5c2b44a0777e463d25eecb70adee84b316c2597b8a28108ffeea38c7acf45d`,
    );
  });
});

describe('the USDt issuance on Liquid mainnet', () => {
  const tx = parseTransaction(USDT_TX);

  it('reads the issuance input, the OP_RETURN, the P2SH outputs and the fee; the txid is the published one', () => {
    expect(tx.txid).toBe('abb4080d91849e933ee2ed65da6b436f7c385cf363fb4aa08399f1e27c58ff3d');
    expect(tx.inputCount).toBe(1);
    expect(tx.outputs.map((o) => hex(o.script))).toEqual([
      '6a0100',
      'a914e990e182f69d9304ed850f657118f40dc9d1eb2a87',
      'a914dacf5878a4a3c57e07f1c899ff34567ce869e3b487',
      'a914c6a9b3f6802e107ff529c966d60f49a18254716687',
      '',
    ]);
    expect(tx.outputs[0]!.value).toEqual({ kind: 'explicit', amount: 0n });
    expect(isFeeOutput(tx.outputs[0]!)).toBe(false);
    expect(tx.outputs[4]!.asset).toEqual({ kind: 'explicit', id: LBTC });
    expect(tx.outputs[4]!.value).toEqual({ kind: 'explicit', amount: 3177n });
    expect(isFeeOutput(tx.outputs[4]!)).toBe(true);
    for (const o of tx.outputs.slice(1, 4)) {
      expect([o.asset.kind, o.value.kind, o.nonce?.length]).toEqual(['confidential', 'confidential', 33]);
      expect(o.rangeproof.length).toBeGreaterThan(2000);
    }
  });

  it('a base58 confidential (VJL…) address is matched through its P2SH script; without its key the amount is not verified', () => {
    // a confidential P2SH address of mainnet (prefix 12, version 39) for output 1's script hash
    const pub = zkp.ecc.pointFromScalar(bytes('11'.repeat(32)), true)!;
    const hash = tx.outputs[1]!.script.subarray(2, 22);
    const vjl = bs58check.encode(Uint8Array.of(12, 39, ...pub, ...hash));
    expect(vjl.startsWith('VJL')).toBe(true);
    const s = addressScript(vjl);
    expect(s.ok && [hex(s.value.script), hex(s.value.blindingPubkey!), s.value.network]).toEqual([
      hex(tx.outputs[1]!.script),
      hex(pub),
      'liquid',
    ]);
    const a = analyseSettlement({
      txid: tx.txid,
      txHex: USDT_TX,
      network: 'liquid',
      deposits: [{ id: 'd1', destinationAddress: vjl, netAmount: 10, amountInCents: 1010 }],
      keys: { outputKeys: [bytes('11'.repeat(32))] },
      zkp,
    });
    expect(a.addresses[0]!.outputs.map((o) => [o.index, o.opened])).toEqual([[1, 'wrong-key']]);
    const r = judgeSettlement(a, {
      status: { confirmed: true, blockHeight: 100 },
      tipHeight: 200,
      assets: {},
    });
    expect(r.verdict).toBe('unproven');
    expect(r.checks.find((c) => c.what === 'destination')?.outcome).toBe('proven');
    // the key given is the address's own (its public key is the one in the address), and the
    // output was blinded to another: said so, never "not this address's key"
    expect(r.checks.find((c) => c.what === 'destination-amount')?.detail).toContain(
      "did not open with the address's own blinding key",
    );
  });
});

describe("a real wallet's first addresses (Blockstream/lwk `fixed_addresses_test`)", () => {
  // the first receiving address of the mnemonic "abandon … about" with SLIP-77 blinding, whose
  // master blinding key lwk publishes, on each network and script kind
  const master = bytes('9c8e4f05c7711a98c838be228bcb84924d4570ca53f35fa1c793e58841d47023');
  const addresses: Array<[string, string]> = [
    [
      'liquid',
      'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv',
    ],
    ['liquid', 'VJLCQwwG8s7qUGhpJkQpkf7wLoK785TcK2cPqka8675FeJB7NEHLto5MUJyhJURGJCbFHA6sb6rgTwbh'],
    [
      'liquidtestnet',
      'tlq1qq2xvpcvfup5j8zscjq05u2wxxjcyewk7979f3mmz5l7uw5pqmx6xf5xy50hsn6vhkm5euwt72x878eq6zxx2z58hd7zrsg9qn',
    ],
    ['liquidtestnet', 'vjTwLVioiKrDJ7zZZn9iQQrxP6RPpcvpHBhzZrbdZKKVZE29FuXSnkXdKcxK3qD5t1rYsdxcm9KYRMji'],
    [
      'elementsregtest',
      'el1qq2xvpcvfup5j8zscjq05u2wxxjcyewk7979f3mmz5l7uw5pqmx6xf5xy50hsn6vhkm5euwt72x878eq6zxx2z0z676mna6kdq',
    ],
    ['elementsregtest', 'AzpmUtw4GMrEsfz6GKx5SKT1DV3qLS3xtSGdKG351rMjGxoUwS6Vsbu3zu2opBiPtjWs1GnE48uMFFnb'],
  ];

  it.each(addresses)(
    '%s %s: its blinding key is the SLIP-77 key of the script lbrl derives',
    (network, address) => {
      const s = addressScript(address);
      if (!s.ok) throw new Error(s.reason);
      expect(s.value.network).toBe(network);
      const derived = zkp.ecc.pointFromScalar(slip77BlindingKey(master, s.value.script), true)!;
      expect(hex(s.value.blindingPubkey!)).toBe(hex(derived));
      // base58 ones are P2SH-P2WPKH, blech32 ones P2WPKH, each of the same key
      expect(hex(s.value.script)).toMatch(
        address.length < 90 ? /^a914[0-9a-f]{40}87$/ : /^0014[0-9a-f]{40}$/,
      );
    },
  );
});
