/**
 * deposit reconcile on a real Liquid testnet settlement (lwk's c6e3187f…: output 0 blinded to the
 * wallet's SLIP-77 key, 5.000 TEST to the deposit's address), listed in the address's history by
 * an explorer that may serve it changed (test/helpers/tx-layout.ts). What a user sees is asserted:
 * stdout, the error, its suggestion and exit code.
 */
import { describe, expect, it } from 'vitest';
import { runReconcile } from '../../src/commands/deposit-reconcile.js';
import type { LbrlError } from '../../src/errors.js';
import { plainVerifySources } from '../helpers/fake-explorer.js';
import { LWK_ADDRESS, LWK_ASSET, LWK_HEX, LWK_MASTER, LWK_REGISTRY } from '../helpers/lwk-settlement.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
import { id, scriptedChain, settledRecords } from '../helpers/settled-deposits.js';
import { explicitOutput, joinTx, splitTx, type TxParts, txidOf } from '../helpers/tx-layout.js';

const TARGET = 'https://pay.example.com';
const SCRIPT = '001402ff399ecb82178122afd18003c7a401dba16eb7';
const CREATED = Date.parse('2024-03-15T17:30:00.000Z');
const BLOCK_TIME = 1710527583;

/** A deposit of R$ 5.05 (net 5.00) to the lwk address, settled by `hex`, reconciled with the wallet's key. */
async function reconcile(hex: string) {
  const txid = txidOf(hex);
  const term = plainTerminal({ json: false, now: () => CREATED + 3600_000 });
  const history = recordsHistory(
    settledRecords([{ n: 1, cents: 505, txid, at: CREATED, to: LWK_ADDRESS }], TARGET),
  );
  const sources = plainVerifySources({
    settings: {
      network: 'liquidtestnet',
      'esplora-url': 'https://explorer.example/api',
      'asset-id': LWK_ASSET,
      'default-address': LWK_ADDRESS,
    },
    keys: [{ key: `slip77(${LWK_MASTER})` }],
    chain: scriptedChain([{ txid, hex, time: BLOCK_TIME, to: [LWK_ADDRESS] }], { [LWK_ASSET]: LWK_REGISTRY }),
    history,
  });
  const seen = await seenRun(term, () =>
    runReconcile({
      flags: {},
      printer: term.printer,
      json: false,
      ctx: term.ctx,
      scope: () => ({ profile: 'default', target: TARGET }),
      history: () => history,
      sources,
    }),
  );
  const error = seen.error as LbrlError | undefined;
  return {
    stdout: seen.stdout,
    code: error?.exitCode ?? 0,
    message: error?.message ?? '',
    hint: error?.suggestion ?? '',
  };
}

function variant(change: (parts: TxParts) => void): string {
  const parts = splitTx(LWK_HEX);
  change(parts);
  return joinTx(parts);
}

describe('deposit reconcile on a real confidential settlement', () => {
  it('the real transaction, opened with the wallet key: everything matches', async () => {
    const r = await reconcile(LWK_HEX);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 receipt(s) matched to deposits\neverything matches');
  });

  it("a range proof the address's own key cannot open (same txid): not proven, the key not blamed (exit 7)", async () => {
    const altered = variant((p) => {
      const proof = Buffer.from(p.outputs[0]!.rangeProof);
      proof[100]! ^= 1;
      p.outputs[0]!.rangeProof = proof;
    });
    const r = await reconcile(altered);
    expect(r.code).toBe(7);
    expect(r.stdout).toContain('Paid by an output whose amount could not be read (not proven):');
    expect(r.stdout).toContain(
      "in c6e3187f028942973ad27224ca79baa8382e90ad686e927fc29896e8a2edf3f3:0  (output 0 to the destination address is confidential and did not open with the address's own blinding key",
    );
    expect(r.hint).toContain('only the payer can show their amounts');
    expect(r.hint).not.toContain('set-blinding-key');
  });

  it('an explicit output one unit short: the deposit missing and the output unmatched (exit 1)', async () => {
    const short = variant((p) => {
      p.outputs[0] = {
        base: explicitOutput(LWK_ASSET, 4999n, SCRIPT),
        rangeProof: Buffer.alloc(0),
        surjectionProof: Buffer.alloc(0),
      };
    });
    const r = await reconcile(short);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${id(1)}  destination       R$ 5,00  to ${LWK_ADDRESS}`);
    expect(r.stdout).toContain('the destination address received 4.999, but 5.000 was due');
    // the output as received, to the unit: never cut to R$ 4,99
    expect(r.stdout).toContain(`${txidOf(short)}:0      R$ 4,999  to ${LWK_ADDRESS}`);
    expect(r.message).toBe(
      'the chain and the history disagree: 1 share(s) of finalized deposits not found on chain; 1 receipt(s) matching no deposit',
    );
  });
});
