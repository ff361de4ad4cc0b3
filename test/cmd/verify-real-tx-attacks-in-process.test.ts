/**
 * deposit verify on a real Liquid testnet settlement (lwk's c6e3187f…, output 0 blinded to the
 * wallet's SLIP-77 key: 5.000 TEST) changed the ways a lying explorer or service could change it,
 * each variant served under the txid its own bytes hash to (test/helpers/tx-layout.ts). Each
 * variant must be refused with one clear line and its documented exit code, never counted as paid.
 */
import fs from 'node:fs';
import bs58check from 'bs58check';
import { describe, expect, it } from 'vitest';
import { runVerify, type VerifyFlags } from '../../src/commands/deposit-verify.js';
import { POLICY_ASSET } from '../../src/domain/liquid/networks.js';
import type { LbrlError } from '../../src/errors.js';
import type { BlindingKeyEntry } from '../../src/store/config.js';
import { plainVerifySources, type ScriptedChain } from '../helpers/fake-explorer.js';
import { createAnswer } from '../helpers/fixtures.js';
import {
  LWK_ADDRESS,
  LWK_ASSET,
  LWK_BLOCK,
  LWK_CONFIRMED,
  LWK_HEX,
  LWK_MASTER,
  LWK_REGISTRY,
  LWK_TXID,
} from '../helpers/lwk-settlement.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
import { scriptedGets } from '../helpers/scripted-deposit-api.js';
import { id } from '../helpers/settled-deposits.js';
import { explicitOutput, joinTx, splitTx, type TxParts, txidOf } from '../helpers/tx-layout.js';

const TARGET = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T12:00:00Z');
const SCRIPT = '001402ff399ecb82178122afd18003c7a401dba16eb7';
const TL_BTC = POLICY_ASSET.liquidtestnet.id;

function finalized(txid: string, over: Record<string, unknown> = {}) {
  const { cents, address, ...rest } = over as { cents?: number; address?: string };
  over = rest;
  const { qrCode: _q, ...answer } = createAnswer({
    amountInCents: cents ?? 505,
    lbrlAddress: address ?? LWK_ADDRESS,
  });
  return {
    ...answer,
    id: id(1),
    status: 'FINALIZED',
    createdAt: '2024-03-15T17:30:00.000Z',
    settlement: { status: 'FINALIZED', liquidTxid: txid },
    confirmedAt: '2024-03-15T18:33:05Z',
    ...over,
  };
}

function chainOf(hex: string, status: Record<string, unknown> = { ...LWK_CONFIRMED }): ScriptedChain {
  return {
    txs: new Map([[txidOf(hex), { hex, status }]]),
    tip: LWK_BLOCK + 1,
    assets: { [LWK_ASSET]: LWK_REGISTRY },
  };
}

async function verify(
  hex: string,
  o: {
    keys?: BlindingKeyEntry[];
    settings?: Record<string, string>;
    json?: boolean;
    over?: Record<string, unknown>;
    chain?: ScriptedChain;
  } = {},
) {
  const txid = txidOf(hex);
  const history = recordsHistory([]);
  const term = plainTerminal({ json: o.json });
  const api = scriptedGets({ [id(1)]: finalized(txid, o.over) }, (x) => history.recorded(x, TARGET));
  const sources = plainVerifySources({
    settings: o.settings ?? {
      network: 'liquidtestnet',
      'esplora-url': 'https://explorer.example/api',
      'asset-id': LWK_ASSET,
      'default-address': LWK_ADDRESS,
    },
    keys: o.keys ?? [{ key: `slip77(${LWK_MASTER})` }],
    chain: o.chain ?? chainOf(hex),
    history,
  });
  const seen = await seenRun(term, () =>
    runVerify({
      idTexts: [id(1)],
      flags: {} as VerifyFlags,
      printer: term.printer,
      json: o.json === true,
      quiet: false,
      client: async () => api,
      sources,
      recorder: {
        now: () => NOW,
        history: () => history,
        recorded: (x) => history.recorded(x, TARGET),
        warn: (line) => term.printer.warn(line),
      },
    }),
  );
  return { ...seen, code: (seen.error as LbrlError | undefined)?.exitCode ?? 0, appended: history.appended };
}

function variant(change: (parts: TxParts) => void, o: { witness?: boolean } = {}) {
  const parts = splitTx(LWK_HEX);
  change(parts);
  return joinTx(parts, o);
}

const explicit = (asset: string, units: bigint, script = SCRIPT) => ({
  base: explicitOutput(asset, units, script),
  surjectionProof: Buffer.alloc(0),
  rangeProof: Buffer.alloc(0),
});

/** What a user sees of a run: the lines, the error's message and suggestion, and what was recorded as verified. */
function shown(r: Awaited<ReturnType<typeof verify>>) {
  const error = r.error as LbrlError | undefined;
  return {
    code: r.code,
    stdout: r.stdout,
    message: error?.message ?? '',
    hint: error?.suggestion ?? '',
    verified: r.appended.filter((record) => record.type === 'verified').length,
  };
}

describe("a real settlement's bytes changed by the explorer", () => {
  it('the real transaction, with the wallet key and the asset pinned: verified (the baseline)', async () => {
    expect(joinTx(splitTx(LWK_HEX))).toBe(LWK_HEX);
    expect(txidOf(LWK_HEX)).toBe(LWK_TXID);
    const r = shown(await verify(LWK_HEX));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the destination address received 5.000, as due');
    expect(r.verified).toBe(1);
  });

  it('a copy without its witness (same txid, no range proofs): refused as unreadable (exit 1), nothing counted', async () => {
    const stripped = variant(() => {}, { witness: false });
    expect(txidOf(stripped)).toBe(LWK_TXID);
    const r = shown(await verify(stripped));
    expect(r.code).toBe(1);
    expect(r.message).toBe(
      `the explorer's raw transaction ${LWK_TXID} cannot be read: it is a copy without its witness (no range proofs), so output 0's committed value cannot be opened`,
    );
    expect(r.verified).toBe(0);
  });

  it("one output's range proof cut from the witness: refused as unreadable (exit 1)", async () => {
    const cut = variant((p) => {
      p.outputs[0]!.rangeProof = Buffer.alloc(0);
    });
    expect(txidOf(cut)).toBe(LWK_TXID);
    const r = shown(await verify(cut));
    expect(r.code).toBe(1);
    expect(r.message).toContain('output 0 has a committed value but no range proof, which the chain refuses');
    expect(r.verified).toBe(0);
  });

  it("a range proof altered (same txid) with the address's own key: unproven (exit 7), never blamed on the key", async () => {
    const altered = variant((p) => {
      const proof = Buffer.from(p.outputs[0]!.rangeProof);
      proof[100]! ^= 1;
      p.outputs[0]!.rangeProof = proof;
    });
    expect(txidOf(altered)).toBe(LWK_TXID);
    const r = shown(await verify(altered));
    expect(r.code).toBe(7);
    expect(r.stdout).toMatch(
      /not proven +output 0 to the destination address is confidential and did not open with the address's own blinding key, the one its public key names \(blinded to another key by the payer, or a range proof damaged in the explorer's copy\): the amount was not verified/,
    );
    expect(r.stdout).not.toContain("none of them is this address's key");
    expect(r.hint).toContain(
      "cannot be opened, not even with the address's own key: only the payer can show its amount",
    );
    expect(r.hint).not.toContain('dumpblindingkey');
    expect(r.verified).toBe(0);
  });

  it("another wallet's key: unproven (exit 7), the hint says the key is not the address's", async () => {
    const r = shown(await verify(LWK_HEX, { keys: [{ key: `slip77(${'9c'.repeat(32)})` }] }));
    expect(r.code).toBe(7);
    expect(r.stdout).toContain(
      "output 0 to the destination address is confidential and did not open with the blinding keys given (none of them is this address's key)",
    );
    expect(r.hint).toContain('dumpblindingkey');
  });

  it('an output without its ephemeral key: unproven (exit 7), no key can open it', async () => {
    const noNonce = variant((p) => {
      const base = Buffer.from(p.outputs[0]!.base);
      // asset (33) and value (33) commitments, then the 33-byte nonce: replaced by a null one
      p.outputs[0]!.base = Buffer.concat([base.subarray(0, 66), Buffer.of(0), base.subarray(99)]);
    });
    const r = shown(await verify(noNonce));
    expect(r.code).toBe(7);
    expect(r.stdout).toContain(
      'output 0 to the destination address is confidential and carries no ephemeral key, so no blinding key can open it: the amount was not verified',
    );
    expect(r.hint).toContain('only the payer can show its amount');
    expect(r.verified).toBe(0);
  });

  it('an explicit asset over a committed value (partly blinded): unproven (exit 7), said as it is', async () => {
    const partly = variant((p) => {
      const base = Buffer.from(p.outputs[0]!.base);
      const asset = Buffer.concat([Buffer.of(1), Buffer.from(LWK_ASSET, 'hex').reverse()]);
      p.outputs[0]!.base = Buffer.concat([asset, base.subarray(33)]);
    });
    const r = shown(await verify(partly));
    expect(r.code).toBe(7);
    expect(r.stdout).toContain(
      'output 0 to the destination address is partly blinded (an explicit asset with a committed value, or the reverse), so its amount cannot be read: the amount was not verified',
    );
    expect(r.stdout).not.toContain('no blinding key was given');
    expect(r.hint).toContain('only the payer can show its amount');
    expect(r.hint).not.toContain('add the blinding key');
    expect(r.verified).toBe(0);
  });
});

describe('explicit outputs to the confidential address (its script, whatever the blinding)', () => {
  it('the pinned asset, to the unit: verified; one unit short: a mismatch showing both (exit 1)', async () => {
    const exact = shown(await verify(variant((p) => void (p.outputs[0] = explicit(LWK_ASSET, 5000n)))));
    expect(exact.code).toBe(0);
    expect(exact.stdout).toContain('the destination address received 5.000, as due');
    const short = shown(await verify(variant((p) => void (p.outputs[0] = explicit(LWK_ASSET, 4999n)))));
    expect(short.code).toBe(1);
    expect(short.stdout).toContain('MISMATCH   the destination address received 4.999, but 5.000 was due');
    expect(short.verified).toBe(0);
  });

  it('tL-BTC in place of the asset: a mismatch naming both assets (exit 1)', async () => {
    const r = shown(await verify(variant((p) => void (p.outputs[0] = explicit(TL_BTC, 5000n)))));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "MISMATCH   the destination address received another asset than the profile's",
    );
    expect(r.stdout).toContain(`expected ${LWK_ASSET}, found ${TL_BTC}`);
  });

  it('four outputs to the address: the asset summed (5.000), another asset among them left out (3.750, exit 1)', async () => {
    const four = (last: string) =>
      variant((p) => {
        p.outputs[0] = explicit(LWK_ASSET, 1250n);
        p.outputs.push(explicit(LWK_ASSET, 1250n), explicit(LWK_ASSET, 1250n), explicit(last, 1250n));
      });
    const all = shown(await verify(four(LWK_ASSET)));
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("outputs 0, 4, 5, 6 pay the destination address's script");
    expect(all.stdout).toContain('the destination address received 5.000, as due');
    const mixed = shown(await verify(four(TL_BTC)));
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toContain('the destination address received 3.750, but 5.000 was due');
  });
});

describe('a real taproot (segwit v1) settlement: lwk testnet 8ce096e8…, explicit outputs to tex1p…', () => {
  const taproot = JSON.parse(
    fs.readFileSync(new URL('../fixtures/liquid/lwk-testnet-taproot-tx.json', import.meta.url), 'utf8'),
  ) as { hex: string; address: string; script: string };
  const settings = (asset: string, precision?: string) => ({
    network: 'liquidtestnet',
    'esplora-url': 'https://explorer.example/api',
    'asset-id': asset,
    ...(precision ? { 'asset-precision': precision } : {}),
    'default-address': taproot.address,
  });
  const run = (hex: string, cents: number, s: Record<string, string>) =>
    verify(hex, { keys: [], settings: s, over: { cents, address: taproot.address } }).then(shown);
  // its outputs 0 and 1 in TEST (precision 3, proven by its contract): 1.000 + 98.750 = 99.750
  const inTest = (() => {
    const parts = splitTx(taproot.hex);
    parts.outputs[0] = explicit(LWK_ASSET, 1000n, taproot.script);
    parts.outputs[1] = explicit(LWK_ASSET, 98750n, taproot.script);
    return joinTx(parts);
  })();

  it('both outputs summed to the net: verified; a net one cent more: a mismatch (exit 1)', async () => {
    const paid = await run(inTest, 10075, settings(LWK_ASSET));
    expect(paid.code).toBe(0);
    expect(paid.stdout).toContain("outputs 0, 1 pay the destination address's script");
    expect(paid.stdout).toContain('the destination address received 99.750, as due');
    const more = await run(inTest, 10076, settings(LWK_ASSET));
    expect(more.code).toBe(1);
    expect(more.stdout).toContain('the destination address received 99.750, but 99.760 was due');
  });

  it("the real one, in tL-BTC: counted in satoshis whatever the profile's asset-precision says (exit 1)", async () => {
    // 99,750 satoshis are 0.00099750, never R$ 997.50 because asset-precision says 2
    const r = await run(taproot.hex, 100757, settings(TL_BTC, '2'));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "proven     precision 8, from the network's own asset (8 decimals); the profile's asset-precision 2 disagrees and is not used",
    );
    expect(r.stdout).toContain('the destination address received 0.00099750, but 997.50000000 was due');
    expect(r.verified).toBe(0);
  });
});

describe("a real peg-in (rust-elements' test transaction): an input from the main chain, an explicit output", () => {
  const pegin = (
    JSON.parse(
      fs.readFileSync(new URL('../fixtures/liquid/rust-elements-txs.json', import.meta.url), 'utf8'),
    ) as Array<{ name: string; hex: string; txid: string }>
  ).find((t) => t.name === 'pegin')!;
  // its output 0: 99,993,740 units of asset 630ed6f9… to a P2PKH script (elementsregtest version 235)
  const address = bs58check.encode(
    Uint8Array.of(235, ...Buffer.from('d7cc0ea6d5e53af78c7802101519cc100692668e', 'hex')),
  );
  const asset = '630ed6f9b176af03c0cd3f8aa430f9e7b4d988cf2d0b2f204322488f03b00bf8';
  const settings = {
    network: 'elementsregtest',
    'esplora-url': 'https://explorer.example/api',
    'asset-id': asset,
    'asset-precision': '5',
    'default-address': address,
  };
  it('999.93740 received: a net of 999.93 verified, one of 999.94 a mismatch (exit 1)', async () => {
    expect(txidOf(pegin.hex)).toBe(pegin.txid);
    const paid = shown(await verify(pegin.hex, { keys: [], settings, over: { cents: 101003, address } }));
    expect(paid.code).toBe(0);
    expect(paid.stdout).toContain('the destination address received 999.93740, more than the 999.93000 due');
    const short = shown(await verify(pegin.hex, { keys: [], settings, over: { cents: 101004, address } }));
    expect(short.code).toBe(1);
    expect(short.stdout).toContain('the destination address received 999.93740, but 999.94000 was due');
  });
});
