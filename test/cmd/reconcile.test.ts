/**
 * deposit reconcile against the embedded sandbox and its chain: what the address received, read
 * from the explorer's address history (paged), matched to the history's deposits. The verdicts
 * themselves (matched, missing, unmatched, paid after expiry or failure) and the paging of a long
 * or lying history are tested in process: test/cmd/reconcile-in-process.test.ts,
 * reconcile-attacks-in-process.test.ts and reconcile-paging.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import { runCli } from '../helpers/cli.js';
import { sandboxEnv } from '../helpers/env.js';
import { EX } from '../helpers/fixtures.js';

const START = Date.parse('2026-11-22T10:00:00Z');
const SLOW_OK = { timeoutMs: 30_000, connectTimeoutMs: 30_000 };

async function shop() {
  const env = sandboxEnv();
  const clock = { now: START };
  const run = (args: string[]) => runCli(args, { env, clock, client: SLOW_OK });
  expect((await run(['config', 'set', 'sandbox-autopay', 'off'])).code).toBe(0);
  expect((await run(['config', 'set', 'default-address', EX])).code).toBe(0);
  const create = async (amount: string) => {
    const r = await run(['deposit', 'create', '--amount', amount, '--no-qr', '--yes', '-q']);
    expect(r.code).toBe(0);
    return r.stdout.trim();
  };
  return { env, clock, run, create };
}

// end to end on the embedded sandbox: its service and its chain's explorer on a loopback port,
// what sandbox pay, fail and send put on its chain read back through the real explorer client
describe('deposit reconcile', () => {
  it('matches each settlement to its deposit, and reports what matches nothing and what came for a charge given up on', async () => {
    const { env, clock, run, create } = await shop();
    const paid = await create('35');
    const abandoned = await create('20');
    const failed = await create('50');
    expect((await run(['sandbox', 'pay', paid])).code).toBe(0);
    expect((await run(['sandbox', 'fail', failed])).code).toBe(0);
    expect((await run(['deposit', 'watch', paid, failed, '-q'])).code).toBe(5);
    // settled, not yet two blocks deep: reconcile says what verify says, pending (exit 8)
    const early = await run(['deposit', 'reconcile', '--json']);
    expect(JSON.parse(early.stderr.trim()).error.exitCode).toBe(8);
    expect(JSON.parse(early.stdout)).toMatchObject({ matched: [], unmatched: [], missing: [] });
    expect((await run(['deposit', 'verify', paid, '-q'])).code).toBe(8);
    clock.now += 10_000; // two blocks of the sandbox's chain
    const clean = await run(['deposit', 'reconcile', '--json']);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    const first = JSON.parse(clean.stdout);
    expect(first.matched).toEqual([
      expect.objectContaining({ depositId: paid, role: 'destination', address: EX, vout: 0, cents: 3465 }),
    ]);
    expect(first).toMatchObject({ missing: [], unmatched: [], paidAfterExpiry: [] });

    new History(env.LBRL_CONFIG_DIR!).append([
      { v: 1, type: 'expired', id: abandoned, at: new Date(clock.now).toISOString() },
    ]);
    const stray = await run(['sandbox', 'send', '--to', EX, '--amount', '12,34', '--json']);
    expect(stray.code).toBe(0);
    const strayTxid = JSON.parse(stray.stdout).txid;
    expect((await run(['sandbox', 'send', '--to', EX, '--amount', '49,50'])).code).toBe(0);
    expect((await run(['sandbox', 'send', '--to', EX, '--amount', '19,80'])).code).toBe(0);
    clock.now += 10_000;
    const r = await run(['deposit', 'reconcile', '--json']);
    expect(r.code).toBe(1);
    const found = JSON.parse(r.stdout);
    expect(found.unmatched).toEqual([
      { address: EX, txid: strayTxid, vout: 0, cents: 1234, amount: '12.34' },
    ]);
    expect(
      found.paidAfterExpiry
        .map((p: { depositId: string; status: string; cents: number }) => [p.depositId, p.status, p.cents])
        .sort(),
    ).toEqual(
      [
        [abandoned, 'EXPIRED', 1980],
        [failed, 'FAILED', 4950],
      ].sort(),
    );
    expect(JSON.parse(r.stderr.trim()).error.exitCode).toBe(1);
    const human = await run(['deposit', 'reconcile']);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      `Received, matching no deposit:\n  ${strayTxid}:0      R$ 12,34  to ${EX}\n`,
    );
  }, 60_000);

  it('pages the address history past 25 transactions', async () => {
    const { run, clock } = await shop();
    for (let i = 1; i <= 27; i++) {
      const r = await run(['sandbox', 'send', '--to', EX, '--amount', `${i}`, '-q']);
      expect(r.code).toBe(0);
      clock.now += 10_000;
    }
    clock.now += 60_000; // every one confirmed: Esplora pages the confirmed ones 25 at a time
    const r = await run(['deposit', 'reconcile', '--json', '--verbose']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /> GET http:\/\/127\.0\.0\.1:\d+\/esplora\/address\/ex1q[0-9a-z]+\/txs\/chain\/[0-9a-f]{64}\n/,
    );
    const cents = JSON.parse(r.stdout).unmatched.map((u: { cents: number }) => u.cents);
    expect(cents.sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 27 }, (_, i) => (i + 1) * 100),
    );
  }, 60_000);

  // a whole run through the CLI (its flags, the one error handler, the exit code); no server is started
  it('sandbox send checks its values before anything is sent', async () => {
    const { run } = await shop();
    const bad = await run([
      'sandbox',
      'send',
      '--to',
      'tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx',
      '--amount',
      '1',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error: invalid --to "tex1q[^"]+": expected a liquid address \(the profile's network\)\n$/,
    );
    const amount = await run(['sandbox', 'send', '--to', EX, '--amount', '1.500,00']);
    expect(amount.code).toBe(2);
  });
});
