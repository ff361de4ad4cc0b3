import { describe, expect, test } from 'vitest';
import {
  canonicalJson,
  contractHash,
  issuedAssetId,
  provenPrecision,
} from '../../src/domain/liquid/asset.js';
import { LWK_REGISTRY } from '../helpers/lwk-settlement.js';

/**
 * Real entries of the Liquid asset registry, as Esplora's /asset/:id answers them (quoted in the
 * test suites of Blockstream's gdk/lwk and in esplora's API.md): each id is recomputed from its
 * contract and issuance prevout.
 */
const REGISTRY = [
  {
    asset_id: 'ce091c998b83c78bb71a632313ba3760f1763d9cfcffae02258ffa9865a37bd2',
    contract: {
      entity: { domain: 'tether.to' },
      issuer_pubkey: '0337cceec0beea0232ebe14cba0197a9fbd45fcf2ec946749de920e71434c2b904',
      name: 'Tether USD',
      precision: 8,
      ticker: 'USDt',
      version: 0,
    },
    issuance_prevout: { txid: '9596d259270ef5bac0020435e6d859aea633409483ba64e232b8ba04ce288668', vout: 0 },
    precision: 8,
  },
  {
    asset_id: '8363084c77fbaebce672092d301fc103495546457468b88a0830ce4797562c03',
    contract: {
      entity: { domain: 'nitramiz.github.io' },
      issuer_pubkey: '02fd002ce3bb8bb5d626aec4b3821d100c0e2cae226f8199860767cb70b69a3305',
      name: 'TestOps',
      precision: 0,
      ticker: 'BSOPS',
      version: 0,
    },
    issuance_prevout: { txid: 'ff0cbfa8d97a192a0e296451afee8028c9d414aae6dee145f4d71d35518c9962', vout: 1 },
    precision: 0,
  },
  {
    asset_id: '4d4354944366ea1e33f27c37fec97504025d6062c551208f68597d1ed40ec53e',
    contract: {
      entity: { domain: 'magicalcryptofriends.com' },
      issuer_pubkey: '02d2b29fe8ffef6acb5e75d0cd7f9c55d502bd876434b87c39ae209fc57c57f52a',
      name: 'Magical Crypto Token',
      nonce: '13158145',
      precision: 0,
      ticker: 'MCT',
      version: 0,
    },
    issuance_prevout: { txid: '839e819d74ac98110fce63a3dab3a1075bbddcad811e0e125641989581919ab0', vout: 1 },
    precision: 0,
  },
  // liquidtestnet: the asset of lwk's testnet settlement
  LWK_REGISTRY,
];

describe('asset ids recomputed from registry contracts', () => {
  test.each(REGISTRY)('$contract.ticker: $asset_id', (entry) => {
    expect(issuedAssetId(entry.issuance_prevout, entry.contract)).toBe(entry.asset_id);
    expect(provenPrecision(entry.asset_id, entry)).toBe(entry.precision);
  });

  test("USDt's contract hash is the one its issuance committed to", () => {
    // the value rust-elements' registry test expects for ContractHash::from_json_contract
    expect(contractHash(REGISTRY[0]!.contract)).toBe(
      '3c7f0a53c2ff5b99590620d7f6604a7a3a7bfbaaa6aa61f7bfc7833ca03cde82',
    );
  });

  test('the canonical JSON sorts keys at every depth and has no spaces, whatever order it came in', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x'], c: null } })).toBe('{"a":{"c":null,"d":[1,"x"]},"b":1}');
    const shuffled = Object.fromEntries(Object.entries(REGISTRY[0]!.contract).reverse());
    expect(Object.keys(shuffled)[0]).toBe('version');
    expect(issuedAssetId(REGISTRY[0]!.issuance_prevout, shuffled)).toBe(REGISTRY[0]!.asset_id);
  });

  test('a contract changed in any way, or another prevout, proves nothing', () => {
    const usdt = REGISTRY[0]!;
    expect(provenPrecision(usdt.asset_id, { ...usdt, contract: { ...usdt.contract, precision: 2 } })).toBe(
      undefined,
    );
    expect(
      provenPrecision(usdt.asset_id, { ...usdt, issuance_prevout: { ...usdt.issuance_prevout, vout: 1 } }),
    ).toBe(undefined);
    expect(provenPrecision(usdt.asset_id, { contract: usdt.contract })).toBe(undefined);
    expect(provenPrecision(usdt.asset_id, { issuance_prevout: usdt.issuance_prevout })).toBe(undefined);
    // another asset's contract and prevout prove nothing about this one
    const { contract, issuance_prevout } = REGISTRY[0]!;
    expect(provenPrecision(REGISTRY[1]!.asset_id, { contract, issuance_prevout })).toBe(undefined);
  });
});
