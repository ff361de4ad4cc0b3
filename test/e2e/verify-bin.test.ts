/**
 * The built lbrl verifying a real confidential settlement: the bundle must find and load
 * secp256k1-zkp (required at run time, not bundled) and unblind with the stored key.
 */
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { afterEach, describe, expect, it } from 'vitest';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildSettlementTx, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { handleEsplora } from '../../src/sandbox/chain-esplora.js';
import { runBin } from '../helpers/bin.js';
import { liveEnv } from '../helpers/env.js';
import { getAnswer, ID } from '../helpers/fixtures.js';
import { json, startServer } from '../helpers/server.js';

const zkp = await loadZkp();
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

describe('the built lbrl: deposit verify', () => {
  it('unblinds a confidential settlement with the stored key (exit 0), and says unproven without it (exit 7)', async () => {
    const key = '44'.repeat(32);
    const pub = zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(key, 'hex')), true)!;
    const program = Buffer.from('22'.repeat(20), 'hex');
    const address = blech32Encode(
      'lq',
      Uint8Array.from([0, ...bech32.toWords(Uint8Array.from([...pub, ...program]))]),
      'blech32',
    );
    const deposit = {
      id: ID,
      amountInCents: 150_000,
      feeCents: 1500,
      destinationAddress: address,
      splitAddress: null,
      splitBasisPoints: null,
    };
    const tx = buildSettlementTx(zkp, deposit, 'ok', 'liquid')!;
    const service = await startServer((_req, res) =>
      json(
        res,
        200,
        getAnswer({
          destinationAddress: address,
          status: 'FINALIZED',
          settlement: { status: 'FINALIZED', liquidTxid: tx.txid },
          confirmedAt: '2026-11-22T10:00:05Z',
        }),
      ),
    );
    closers.push(() => service.close());
    const explorer = await startServer(async (req, res) => {
      const fake = { headers: req.headers, method: req.method, url: req.url } as never;
      await handleEsplora(fake, res, {
        // sent 10 s after the deposit was created, a minute of blocks since
        now: () => Date.parse('2026-11-22T10:01:00Z'),
        findTx: () => ({ hex: tx.hex, sentAt: Date.parse('2026-11-22T10:00:10Z'), addresses: [address] }),
      });
    });
    closers.push(() => explorer.close());
    const env = liveEnv(service.url);
    expect((await runBin(['config', 'set', 'esplora-url', explorer.url], env)).code).toBe(0);
    expect((await runBin(['config', 'set', 'asset-id', SANDBOX_ASSET_ID], env)).code).toBe(0);
    // the service names the merchant's own address
    expect((await runBin(['config', 'set', 'default-address', address], env)).code).toBe(0);

    const without = await runBin(['deposit', 'verify', ID], env);
    expect(without.code).toBe(7);
    expect(without.stdout).toContain('no blinding key was given: the amount was not verified');

    expect(
      (await runBin(['config', 'set-blinding-key'], env, `ct(slip77(${'55'.repeat(32)}),elwpkh(x))`)).code,
    ).toBe(0);
    expect((await runBin(['config', 'set-blinding-key', '--address', address], env, key)).code).toBe(0);
    const withKey = await runBin(['deposit', 'verify', ID, '--json'], env);
    expect(withKey.stderr).toBe('');
    expect(withKey.code).toBe(0);
    const doc = JSON.parse(withKey.stdout) as {
      deposits: Array<{
        outcome: string;
        report: { confirmations: number; outputs: Array<{ value: string }> };
      }>;
    };
    expect(doc.deposits[0]).toMatchObject({ outcome: 'verified' });
    expect(doc.deposits[0]!.report.outputs[0]!.value).toBe('148500000000');
    expect(withKey.stdout).not.toContain(key);
  });
});
