import { bech32, bech32m } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import bs58check from 'bs58check';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLiquidAddress, decodeLiquidAddress } from '../../src/domain/liquid/address.js';

// Public fixtures: liquidjs-lib test/fixtures/address.json, hal-elements and lwk tests.
const VALID: Array<[string, string, string, boolean]> = [
  ['Q7qcjTLsYGoMA7TjUp97R6E6AM5VKqBik6', 'liquid', 'p2pkh', false],
  ['Pz7eBTfLoVaisE57DLn6rZhEtFNa7SnZ2Z', 'liquid', 'p2pkh', false],
  [
    'VTpz1bNuCALgavJKgbAw9Lpp9A72rJy64XPqgqfnaLpMjRcPh5UHBqyRUE4WMZ3asjqu7YEPVAnWw2EK',
    'liquid',
    'p2pkh',
    true,
  ],
  [
    'VTpz1bNuCALgavJKgbAw9Lpp9A72rJy64XPqgqfnaLpMjRcFy6vHWKEeFbmcxvn7WjHNagxHnFaRcVuS',
    'liquid',
    'p2pkh',
    true,
  ],
  [
    'VTpzxkqVGbraaCz18fRVd7EtpG4FBoAFDAbGgBR8mzP2cUVwPWcTBKe75cwYH2rYjYoKFog3Hs1nVKPN',
    'liquid',
    'p2pkh',
    true,
  ],
  [
    'VJLCUu2hpcjPaTGMnAQ18s2uk3tJBFrM4Gtrt27tBKhdz5aJgkgQQjEFyot72jzycwzSPckzCXXVzwG5',
    'liquid',
    'p2sh',
    true,
  ],
  [
    'lq1qqvqqqqqqqqqqqqqqqqqrk7xw2clcng8djs20t23g45xed4net7wxx8uy0q7r00p2e2ct503h0c493nhvfl7k7m4297fq56rwq',
    'liquid',
    'p2wpkh',
    true,
  ],
  [
    'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv',
    'liquid',
    'p2wpkh',
    true,
  ],
  ['ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn', 'liquid', 'p2wpkh', false],
  ['XFKcLWJmPuToz62uc2sgCBUddmH6yopoxE', 'elementsregtest', 'p2sh', false],
  ['2dgp82cKUqN7pesBxcK6smvFSzCjyqqv1wL', 'elementsregtest', 'p2pkh', false],
  [
    'AzppxC5RDs8yB8mabhwS13y4WbsWoS41fLV8GKM4woLUJB5RxNBVfK6wdVX4QVoubRXFKKfbPhEKKTKc',
    'elementsregtest',
    'p2sh',
    true,
  ],
  [
    'CTEqfbuwRjMKaivrrNqMSZahNuqitEMLabLzfxsyNPpPD2DvPGn9SW3Hp4RTEbgQgHtckwd8ons8vHcg',
    'elementsregtest',
    'p2pkh',
    true,
  ],
  ['ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k', 'elementsregtest', 'p2wpkh', false],
  ['ert1qyny4kp4adanuu670vfrnz7t384s8gvdtnwr0jcvvrwqwar4t9qcs2m7c20', 'elementsregtest', 'p2wsh', false],
  [
    'el1qqw3e3mk4ng3ks43mh54udznuekaadh9lgwef3mwgzrfzakmdwcvqpe4ppdaa3t44v3zv2u6w56pv6tc666fvgzaclqjnkz0sd',
    'elementsregtest',
    'p2wpkh',
    true,
  ],
  [
    'el1qqw3e3mk4ng3ks43mh54udznuekaadh9lgwef3mwgzrfzakmdwcvqqfxftvrt6mm8ee4u7cj8x9uhz0tqwsc6hxuxl9sccxuqa682k2p34j69q77djwvn',
    'elementsregtest',
    'p2wsh',
    true,
  ],
  ['tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx', 'liquidtestnet', 'p2wpkh', false],
  [
    'tlq1qqvumj0mqhupymes726sdp0sdlpjtj5h5eqkja4e9lk6atxgat3p49ez5y728m4dzrmnx0rcs7g43p64zded96r7etwq8lmd2e',
    'liquidtestnet',
    'p2wpkh',
    true,
  ],
];

const BLINDING = Buffer.from('02dce16018bbbb8e36de7b394df5b5166e9adb7498be7d881a85a09aeecf76b623', 'hex');
const PROGRAM32 = Buffer.alloc(32, 7);

describe('Liquid addresses', () => {
  it.each(VALID)('accepts %s', (addr, network, kind, confidential) => {
    const r = decodeLiquidAddress(addr);
    expect(r).toMatchObject({ ok: true, value: { network, kind, confidential } });
  });

  it('accepts taproot (witness v1) as bech32m and blech32m', () => {
    const ex = bech32m.encode('ex', [1, ...bech32m.toWords(PROGRAM32)]);
    expect(decodeLiquidAddress(ex)).toMatchObject({ ok: true, value: { kind: 'p2tr', encoding: 'bech32m' } });
    const words = [1, ...bech32.toWords([...BLINDING, ...PROGRAM32])];
    const lq = blech32Encode('lq', Uint8Array.from(words), 'blech32m');
    expect(decodeLiquidAddress(lq)).toMatchObject({
      ok: true,
      value: { kind: 'p2tr', encoding: 'blech32m', network: 'liquid' },
    });
  });

  it('refuses the checksum variant that does not go with the witness version', () => {
    const v1bech32 = bech32.encode('ex', [1, ...bech32.toWords(PROGRAM32)]);
    expect(decodeLiquidAddress(v1bech32)).toEqual({
      ok: false,
      reason: 'witness version 1 must use bech32m, not bech32',
    });
    const v0bech32m = bech32m.encode('ex', [0, ...bech32m.toWords(Buffer.alloc(20, 1))]);
    expect(decodeLiquidAddress(v0bech32m)).toEqual({
      ok: false,
      reason: 'witness version 0 must use bech32, not bech32m',
    });
    const words = [0, ...bech32.toWords([...BLINDING, ...Buffer.alloc(20, 1)])];
    const lqm = blech32Encode('lq', Uint8Array.from(words), 'blech32m');
    expect(decodeLiquidAddress(lqm)).toEqual({
      ok: false,
      reason: 'witness version 0 must use blech32, not blech32m',
    });
    const words1 = [1, ...bech32.toWords([...BLINDING, ...PROGRAM32])];
    const lq1 = blech32Encode('lq', Uint8Array.from(words1), 'blech32');
    expect(decodeLiquidAddress(lq1)).toEqual({
      ok: false,
      reason: 'witness version 1 must use blech32m, not blech32',
    });
  });

  it('refuses Bitcoin addresses and wrong program lengths', () => {
    expect(decodeLiquidAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4').ok).toBe(false);
    expect(decodeLiquidAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2').ok).toBe(false);
    const short = bech32.encode('ex', [0, ...bech32.toWords(Buffer.alloc(25, 1))]);
    expect(decodeLiquidAddress(short)).toEqual({
      ok: false,
      reason: 'a witness version 0 program of 25 bytes is not valid',
    });
  });

  it('refuses a confidential base58 address whose blinding key is off the curve', () => {
    const payload = Buffer.concat([Buffer.from([12, 57]), Buffer.alloc(33, 0xff), Buffer.alloc(20, 1)]);
    payload[2] = 2;
    expect(decodeLiquidAddress(bs58check.encode(payload))).toEqual({
      ok: false,
      reason: 'its blinding key is not a valid public key',
    });
  });

  it('refuses mixed case but accepts all upper case bech32', () => {
    const a = 'ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k';
    expect(decodeLiquidAddress(a.toUpperCase())).toMatchObject({ ok: true, value: { address: a } });
    expect(decodeLiquidAddress(`ERT1${a.slice(4)}`)).toEqual({
      ok: false,
      reason: 'it mixes upper and lower case',
    });
  });

  it('checks the network against the profile', () => {
    expect(checkLiquidAddress('tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx', 'liquid')).toEqual({
      ok: false,
      reason:
        "it is a liquidtestnet address, but the profile's network is liquid; use a liquid address or `lbrl config set network liquidtestnet`",
    });
    expect(checkLiquidAddress('tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx', 'liquidtestnet').ok).toBe(true);
  });

  it('refuses every single-character corruption of every fixture', () => {
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0';
    for (const [addr] of VALID) {
      for (let i = 0; i < addr.length; i += 3) {
        const c = addr[i]!;
        const repl = alphabet[(alphabet.indexOf(c) + 7) % alphabet.length]!;
        if (repl.toLowerCase() === c.toLowerCase()) continue;
        const bad = addr.slice(0, i) + repl + addr.slice(i + 1);
        expect(decodeLiquidAddress(bad).ok, bad).toBe(false);
      }
    }
  });

  it('property: arbitrary strings never throw and mostly fail', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (s) => {
        const r = decodeLiquidAddress(s);
        expect(typeof r.ok).toBe('boolean');
      }),
    );
  });
});
