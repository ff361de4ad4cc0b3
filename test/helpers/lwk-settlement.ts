/**
 * A real Liquid testnet settlement, from Blockstream/lwk's test data: c6e3187f… (block 1306469)
 * pays, in its output 0, 5000 units of asset 38fca2d9… (precision 3: 5.000) to the script of
 * ADDRESS, blinded to the SLIP-77 key of the wallet whose master blinding key is MASTER. The
 * registry entry is the asset's real one: its id recomputes from the contract and the issuance
 * prevout, so its precision is proven. See test/cmd/verify-real-chain.test.ts for the story.
 */
import fs from 'node:fs';

export const LWK_HEX = fs
  .readFileSync(new URL('../fixtures/liquid/lwk-testnet-c6e3187f-tx.hex', import.meta.url), 'utf8')
  .trim();
export const LWK_TXID = 'c6e3187f028942973ad27224ca79baa8382e90ad686e927fc29896e8a2edf3f3';
export const LWK_ADDRESS =
  'tlq1qqf3hk7lcuy8p9emlqxm0kp96uzjp2uulzhs3td4ck7yngdjxnc3v7qhl8x0vhqshsy32l5vqq0r6gqwm59htwnsc8w9n8g200';
export const LWK_ASSET = '38fca2d939696061a8f76d4e6b5eecd54e3b4221c846f24a6b279e79952850a5';
export const LWK_MASTER = 'ab5824f4477b4ebb00a132adfd8eb0b7935cf24f6ac151add5d1913db374ce92';
export const LWK_BLOCK = 1306469;
export const LWK_CONFIRMED = {
  confirmed: true,
  block_height: LWK_BLOCK,
  block_hash: '4a2f1b5c0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99',
  block_time: 1710527583,
};
export const LWK_REGISTRY = {
  asset_id: LWK_ASSET,
  contract: {
    entity: { domain: 'liquidtestnet.com' },
    issuer_pubkey: '035d0f7b0207d9cc68870abfef621692bce082084ed3ca0c1ae432dd12d889be01',
    name: 'Testnet Asset',
    precision: 3,
    ticker: 'TEST',
    version: 0,
  },
  issuance_prevout: { txid: '0e19e938c74378ae83b549213a12be88ede6e32e1407bfdf50c4ec3f927408ec', vout: 0 },
  issuance_txin: { txid: '0e19e938c74378ae83b549213a12be88ede6e32e1407bfdf50c4ec3f927408ec', vin: 0 },
  precision: 3,
  ticker: 'TEST',
  name: 'Testnet Asset',
  entity: { domain: 'liquidtestnet.com' },
};
