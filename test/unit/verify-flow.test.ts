import { describe, expect, it } from 'vitest';
import type { GetResponse } from '../../src/api/models.js';
import type { CheckSettlementInput } from '../../src/deposits/chain-check.js';
import { verifyDeposits, verifyError } from '../../src/deposits/verify.js';
import type { SettlementReport } from '../../src/domain/liquid/settlement/model.js';
import { getAnswer } from '../helpers/fixtures.js';

const TX = 'ab'.repeat(32);
const A = '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
const B = '4f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
const C = '5f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';

function deposit(id: string, txid: string | null): GetResponse {
  return getAnswer({
    id,
    status: txid ? 'FINALIZED' : 'PIX_CONFIRMED',
    settlement: txid ? { status: 'FINALIZED', liquidTxid: txid } : null,
    confirmedAt: txid ? '2026-11-22T10:00:05Z' : null,
  }) as unknown as GetResponse;
}

const api = (ds: GetResponse[]) => ({
  createDeposit: () => Promise.reject(new Error('not here')),
  getDeposit: async (id: string) => {
    const d = ds.find((x) => x.id === id)!;
    return { value: d, raw: d, status: 200, headers: {} } as never;
  },
});

const report = (verdict: SettlementReport['verdict']): SettlementReport => ({
  txid: TX,
  verdict,
  confirmations: 3,
  requiredConfirmations: 2,
  asset: null,
  checks: [],
  addresses: [],
  blindedFragment: null,
  shares: [],
});

const settings = { network: 'liquid' as const, confirmations: 2, keys: {} };

describe('verifying several deposits', () => {
  it('two deposits settled by one transaction are judged together, once', async () => {
    const calls: CheckSettlementInput[] = [];
    const out = await verifyDeposits(
      api([deposit(A, TX), deposit(B, TX), deposit(C, null)]),
      async (input) => {
        calls.push(input);
        return { found: true, report: report('verified') };
      },
      [A, B, C],
      settings,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.deposits.map((d) => d.id)).toEqual([A, B]);
    expect(out.map((o) => [o.id, o.outcome, o.settledWith])).toEqual([
      [A, 'verified', [B]],
      [B, 'verified', [A]],
      [C, 'not-settled', []],
    ]);
    // one not settled: the run is pending (8), never a pass
    expect(verifyError(out)?.exitCode).toBe(8);
  });

  it('the worst outcome decides: mismatch 1, then unproven 7, then pending 8', async () => {
    const run = async (verdicts: Array<SettlementReport['verdict'] | null>) => {
      const ds = verdicts.map((_, i) => deposit([A, B, C][i]!, String(i + 1).repeat(64)));
      const out = await verifyDeposits(
        api(ds),
        async (input) => {
          const v = verdicts[Number(input.txid[0]) - 1];
          return v ? { found: true, report: report(v) } : { found: false };
        },
        ds.map((d) => d.id),
        settings,
      );
      return verifyError(out)?.exitCode ?? 0;
    };
    expect(await run(['verified', 'verified'])).toBe(0);
    expect(await run(['pending', 'unproven', 'verified'])).toBe(7);
    expect(await run(['pending', 'unproven', 'mismatch'])).toBe(1);
    expect(await run([null, 'verified'])).toBe(8);
  });
});
