/**
 * Two processes verifying (or watching with --verify) two deposits settled by one output, at once,
 * on one history file: what one counted stays counted, the other is undone, also when both read
 * the transaction before either recorded it. The built binary twice, on a service and an explorer
 * on sockets. The transactions are real Elements transactions paying explicit outputs of the
 * sandbox's asset. What reconcile matches, and the verify rules it matches by, run in process:
 * test/cmd/reconcile-attacks-in-process.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { History } from '../../src/store/history.js';
import { runBin } from '../helpers/bin.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer } from '../helpers/fixtures.js';
import { json, type SeenRequest, startServer } from '../helpers/server.js';
import {
  AFTER,
  type ChainTx,
  CREATED,
  DEST,
  id,
  payTx,
  type SettledDeposit,
  settledRecords,
  units,
} from '../helpers/settled-deposits.js';

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

/** An explorer serving these transactions, the address routes and a registry answer. */
async function explorer(txs: ChainTx[], asset: Record<string, unknown> | null, barrier = 0) {
  // with a barrier, no raw transaction is answered before that many were asked for: runs at once
  const held: Array<() => void> = [];
  const server = await startServer(async (req: SeenRequest, res) => {
    const url = req.url.replace(/^\/api/, '');
    const text = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if (url === '/blocks/tip/height') return text(200, '200');
    if (url === `/asset/${SANDBOX_ASSET_ID}`) return asset ? json(res, 200, asset) : text(404, 'no');
    const page = /^\/address\/([0-9a-z]+)\/txs(\/chain\/[0-9a-f]{64})?$/.exec(url);
    if (page) {
      if (page[2]) return json(res, 200, []);
      return json(
        res,
        200,
        txs
          .filter((t) => t.to.includes(page[1]!))
          .map((t) => ({
            txid: t.txid,
            status: { confirmed: true, block_height: 100, block_hash: 'ab'.repeat(32), block_time: t.time },
          })),
      );
    }
    const m = /^\/tx\/([0-9a-f]{64})\/(hex|status)$/.exec(url);
    const tx = m ? txs.find((t) => t.txid === m[1]) : undefined;
    if (!tx) return m?.[2] === 'status' ? json(res, 200, { confirmed: false }) : text(404, 'not found');
    if (m![2] === 'hex' && barrier > 0) {
      await new Promise<void>((resume) => {
        held.push(resume);
        if (held.length >= barrier) {
          barrier = 0; // once
          for (const h of held.splice(0)) h();
        }
      });
    }
    if (m![2] === 'status')
      return json(res, 200, {
        confirmed: true,
        block_height: 100,
        block_hash: 'ab'.repeat(32),
        block_time: tx.time,
      });
    return text(200, tx.hex);
  });
  closers.push(() => server.close());
  return server;
}

/** A profile pinned to SBRL on an explorer, whose history holds these finalized deposits. */
async function shop(
  deposits: SettledDeposit[],
  txs: ChainTx[],
  asset: Record<string, unknown> | null = SANDBOX_ASSET,
  barrier = 0,
) {
  // the service answers each deposit as finalized, settled by the txid the history holds
  const service = await startServer((req, res) => {
    // ids in any case, answered as asked
    const asked = req.url.split('/').pop()!;
    const d = deposits.find((x) => asked.toLowerCase() === id(x.n));
    if (!d) return json(res, 404, { message: 'not found' });
    const { qrCode: _q, ...answer } = createAnswer({ amountInCents: d.cents, lbrlAddress: DEST });
    return json(res, 200, {
      ...answer,
      id: asked,
      status: 'FINALIZED',
      createdAt: new Date(d.at ?? CREATED).toISOString(),
      settlement: { status: 'FINALIZED', liquidTxid: d.txid },
      confirmedAt: new Date(CREATED + 600_000).toISOString(),
    });
  });
  closers.push(() => service.close());
  const esplora = await explorer(txs, asset, barrier);
  const env = liveEnv(service.url);
  for (const [k, v] of [
    ['network', 'elementsregtest'],
    ['esplora-url', `${esplora.url}/api`],
    ['asset-id', SANDBOX_ASSET_ID],
    ['default-address', DEST],
  ] as const)
    expect((await runCli(['config', 'set', k, v], { env })).code).toBe(0);
  const records = settledRecords(deposits, service.url);
  new History(env.LBRL_CONFIG_DIR!).append(records);
  const run = (args: string[]) => runCli(args, { env, clock: { now: CREATED + 3600_000 } });
  return { run, env };
}

// two real processes: the race is between their appends to and reads of one history file
describe('deposit reconcile matches by the verify rules', () => {
  it('two processes verifying two deposits from one output at once: one verified, the other undone', async () => {
    const tx = payTx([[DEST, units(1485)]], 'race');
    const { run, env } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
      SANDBOX_ASSET,
      2,
    );
    const [a, b] = await Promise.all([
      runBin(['deposit', 'verify', id(1)], env),
      runBin(['deposit', 'verify', id(2)], env),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    const loser = a.code === 1 ? a : b;
    expect(loser.stderr).toMatch(/contradicts the deposit.*with the share of deposit/);
    const listed = JSON.parse((await run(['deposit', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(listed.filter((e) => e.verifiedAt)).toHaveLength(1);
    expect(listed.filter((e) => e.onChain === 'mismatch')).toHaveLength(1);
  }, 30_000);

  it('two processes watching with --verify two deposits from one output at once: one verified, the other a mismatch', async () => {
    const tx = payTx([[DEST, units(1485)]], 'race');
    const { run, env } = await shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
      SANDBOX_ASSET,
      2,
    );
    const [a, b] = await Promise.all([
      runBin(['deposit', 'watch', id(1), '--verify', '--timeout', '10'], env),
      runBin(['deposit', 'watch', id(2), '--verify', '--timeout', '10'], env),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    const loser = a.code === 1 ? a : b;
    expect(loser.stderr).toMatch(/contradicts the deposit.*with the share of deposit/);
    const listed = JSON.parse((await run(['deposit', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(listed.filter((e) => e.verifiedAt)).toHaveLength(1);
    expect(listed.filter((e) => e.onChain === 'mismatch')).toHaveLength(1);
  }, 30_000);
});
