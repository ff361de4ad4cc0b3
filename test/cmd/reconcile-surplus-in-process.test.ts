/**
 * Money received beyond what was due: a verified settlement whose transaction pays a deposit's
 * address more than its share (the same amount twice, one output overpaid by a cent or more) is
 * matched, as verify judges it, but the extra is listed as `surplus` (--json) and under "Received
 * beyond what was due" (human view), and reconcile ends with exit 1 as for money matching no
 * deposit: the merchant has money to give back. Less than a cent more is the rounding the rules allow.
 */
import { describe, expect, it } from 'vitest';
import { runReconcile } from '../../src/commands/deposit-reconcile.js';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { plainVerifySources } from '../helpers/fake-explorer.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
import {
  AFTER,
  type ChainTx,
  CREATED,
  DEST,
  id,
  payTx,
  type SettledDeposit,
  SPLIT,
  scriptedChain,
  settledRecords,
  units,
} from '../helpers/settled-deposits.js';

const TARGET = 'https://pay.example.com';

async function reconcile(
  deposits: SettledDeposit[],
  txs: ChainTx[],
  json: boolean,
  columns?: number,
  env: Record<string, string> = {},
) {
  const term = plainTerminal({ json, env, now: () => CREATED + 3600_000, ...(columns ? { columns } : {}) });
  const history = recordsHistory(settledRecords(deposits, TARGET));
  const sources = plainVerifySources({
    settings: {
      network: 'elementsregtest',
      'esplora-url': 'https://explorer.example/api',
      'asset-id': SANDBOX_ASSET_ID,
      'default-address': DEST,
    },
    chain: scriptedChain(txs, { [SANDBOX_ASSET_ID]: SANDBOX_ASSET as unknown as Record<string, unknown> }),
    history,
  });
  return seenRun(term, () =>
    runReconcile({
      flags: {},
      printer: term.printer,
      json,
      ctx: term.ctx,
      scope: () => ({ profile: 'default', target: TARGET }),
      history: () => history,
      sources,
    }),
  );
}

describe('deposit reconcile: money beyond what was due is said', () => {
  it('a settlement paying the address twice: matched, the second share listed as surplus, exit 1', async () => {
    const tx = payTx(
      [
        [DEST, units(1485)],
        [DEST, units(1485)],
      ],
      'twice',
    );
    const chain = [{ ...tx, time: AFTER, to: [DEST] }];
    const json = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], chain, true);
    const found = JSON.parse(json.stdout);
    expect(found.matched).toEqual([expect.objectContaining({ depositId: id(1), role: 'destination' })]);
    expect(found.surplus).toEqual([
      { depositIds: [id(1)], address: DEST, txid: tx.txid, dueCents: 1485, cents: 1485, amount: '14.85' },
    ]);
    expect(json.error?.exitCode).toBe(1);
    expect(json.error?.message).toContain('1 settlement(s) paying more than was due');
    const human = await reconcile([{ n: 1, cents: 1500, txid: tx.txid }], chain, false);
    expect(human.stdout).not.toContain('everything matches');
    expect(human.stdout).toContain('Received beyond what was due (give it back or account for it):');
    expect(human.stdout).toContain(
      `R$ 14,85 more than the R$ 14,85 due  to ${DEST}  in ${tx.txid}  (${id(1)})`,
    );
    expect(human.error?.exitCode).toBe(1);
  });

  it('one output overpaid by a cent and a unit is surplus, said to the unit', async () => {
    const tx = payTx([[DEST, units(1586) + 1n]], 'over');
    const r = await reconcile(
      [{ n: 1, cents: 1500, txid: tx.txid }],
      [{ ...tx, time: AFTER, to: [DEST] }],
      true,
    );
    const found = JSON.parse(r.stdout);
    expect(found.surplus).toEqual([expect.objectContaining({ cents: 101, amount: '1.01000001' })]);
    expect(r.error?.exitCode).toBe(1);
  });

  it('a split settlement whose destination got twice its share: surplus at the destination only', async () => {
    const tx = payTx(
      [
        [SPLIT, units(14_850)],
        [DEST, units(133_650)],
        [DEST, units(133_650)],
      ],
      'split-twice',
    );
    const r = await reconcile(
      [{ n: 1, cents: 150_000, txid: tx.txid, split: 0.1 }],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
      true,
    );
    const found = JSON.parse(r.stdout);
    expect(found.surplus).toEqual([expect.objectContaining({ address: DEST, cents: 133_650 })]);
    expect(r.error?.exitCode).toBe(1);
  });

  it('paid exactly: no surplus, everything matches, exit 0', async () => {
    const tx = payTx([[DEST, units(1485)]], 'exact');
    const r = await reconcile(
      [{ n: 1, cents: 1500, txid: tx.txid }],
      [{ ...tx, time: AFTER, to: [DEST] }],
      false,
    );
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain('everything matches');
  });

  it.each([20, 40, 80, 300])('at %i columns no amount is cut across lines', async (columns) => {
    const tx = payTx(
      [
        [DEST, units(1485)],
        [DEST, units(1485)],
      ],
      `narrow ${columns}`,
    );
    const r = await reconcile(
      [{ n: 1, cents: 1500, txid: tx.txid }],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
      false,
      columns,
    );
    expect(r.error?.exitCode).toBe(1);
    const lines = r.stdout.split('\n');
    // each amount whole on one line, and any line with an amount no wider than the terminal
    for (const amount of ['R$ 14,85'])
      expect(
        lines.some((line) => line.includes(amount)),
        amount,
      ).toBe(true);
    for (const line of lines.filter((l) => l.includes('R$')))
      expect(line.length, line).toBeLessThanOrEqual(columns);
    if (columns >= 300)
      expect(lines).toContain(`  R$ 14,85 more than the R$ 14,85 due  to ${DEST}  in ${tx.txid}  (${id(1)})`);
  });

  it('when stdout is not a terminal: COLUMNS when set, else no limit (the rule of every view)', async () => {
    const tx = payTx(
      [
        [DEST, units(1485)],
        [DEST, units(1485)],
      ],
      'piped',
    );
    const run = (env: Record<string, string>) =>
      reconcile(
        [{ n: 1, cents: 1500, txid: tx.txid }],
        [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
        false,
        undefined,
        env,
      );
    const whole = `  R$ 14,85 more than the R$ 14,85 due  to ${DEST}  in ${tx.txid}  (${id(1)})`;
    expect((await run({})).stdout.split('\n')).toContain(whole);
    const narrow = (await run({ COLUMNS: '40' })).stdout.split('\n');
    expect(narrow).not.toContain(whole);
    for (const line of narrow.filter((l) => l.includes('R$')))
      expect(line.length, line).toBeLessThanOrEqual(40);
  });
});
