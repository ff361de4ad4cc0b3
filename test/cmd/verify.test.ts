/**
 * What stays on sockets: deposit verify, watch --verify and create --watch --verify as whole runs
 * against the embedded sandbox and its own chain (its service and explorer on loopback; the
 * sandbox's clock moves the chain, so confirmations grow as the test advances it), and the
 * explorer client's transport against a live service (a 404 in plain text, HTML, garbage hex, a
 * refused connection, a hang, a trickle, a 429 for an hour, a redirect loop). What the commands
 * make of answers runs in process: test/cmd/verify-in-process.test.ts and verify-attacks.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { afterEach, describe, expect, it } from 'vitest';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildSettlementTx, SANDBOX_ASSET } from '../../src/sandbox/chain.js';
import { handleEsplora } from '../../src/sandbox/chain-esplora.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv, sandboxEnv } from '../helpers/env.js';
import { getAnswer, ID } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const zkp = await loadZkp();

/** A confidential elementsregtest address whose blinding private key the test holds. */
function confidentialAddress(keyByte: string, program: string, hrp = 'el'): { address: string; key: string } {
  const key = keyByte.repeat(32);
  const pub = zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(key, 'hex')), true)!;
  const words = [0, ...bech32.toWords(Uint8Array.from([...pub, ...Buffer.from(program, 'hex')]))];
  return { address: blech32Encode(hrp, Uint8Array.from(words), 'blech32'), key };
}

const DEST = confidentialAddress('11', '6fa016500a3c6a737ebb260e2ddca78ba9234558');
const SPLIT = 'ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k';
const START = Date.parse('2026-11-22T10:00:00Z');
/** building a settlement (range proofs) on a busy machine may take a while: no time-out then */
const SLOW_OK = { timeoutMs: 30_000, connectTimeoutMs: 30_000 };

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

/** A sandbox profile on elementsregtest with autopay off, and a clock the test moves. */
async function world() {
  const env = sandboxEnv();
  const clock = { now: START };
  const run = (args: string[], stdin?: string) =>
    runCli(args, { env, clock, client: SLOW_OK, ...(stdin !== undefined ? { stdin } : {}) });
  for (const [k, v] of [
    ['sandbox-autopay', 'off'],
    ['network', 'elementsregtest'],
  ]) {
    expect((await run(['config', 'set', k!, v!])).code).toBe(0);
  }
  const create = async (to = DEST.address, split = true) => {
    const args = ['deposit', 'create', '--amount', '1500', '--to', to, '--no-qr', '--yes', '-q'];
    if (split) args.push('--split-to', SPLIT, '--split-fee', '2.99%');
    const r = await run(args);
    expect(r.code).toBe(0);
    return r.stdout.trim();
  };
  return { env, clock, run, create };
}

describe('deposit verify against the sandbox chain', () => {
  // whole runs through the embedded sandbox (its service and explorer on loopback, its chain's clock); the
  // verification's logic runs in process in test/cmd/verify-in-process.test.ts
  it('not settled, then in the mempool, then 1 of 2, then unproven without a key, verified with it', async () => {
    const { clock, run, create, env } = await world();
    const id = await create();

    const waiting = await run(['deposit', 'verify', id]);
    expect(waiting.code).toBe(8);
    expect(waiting.stdout).toContain('pending: not settled yet');
    expect(waiting.stderr).toContain(
      `error: the settlement of deposit ${id} cannot be verified yet (not settled yet)`,
    );

    expect((await run(['sandbox', 'pay', id])).code).toBe(0);
    clock.now += 3000; // FINALIZED, the transaction sent at +2 s, not yet in a block
    const mempool = await run(['deposit', 'verify', id]);
    expect(mempool.code).toBe(8);
    expect(mempool.stdout).toContain('not proven not yet confirmed (in the mempool)');
    expect(mempool.stdout).not.toMatch(/: verified/);

    clock.now += 5000;
    const one = await run(['deposit', 'verify', id]);
    expect(one.code).toBe(8);
    expect(one.stdout).toContain('1 of 2 confirmations so far');

    clock.now += 5000;
    const noKey = await run(['deposit', 'verify', id]);
    expect(noKey.code).toBe(7);
    expect(noKey.stdout).toContain('unproven: nothing contradicts the deposit');
    expect(noKey.stdout).toContain(
      'output 0 to the destination address is confidential and no blinding key was given: the amount was not verified',
    );
    // the split address is unconfidential: its share is proven without a key
    expect(noKey.stdout).toContain('proven     the split address received 44.40150000, as due');
    expect(noKey.stdout).toMatch(/proven {5}confirmed in block \d+, 2 confirmations \(2 required\)/);
    expect(noKey.stderr).toContain('lbrl config set-blinding-key');

    const set = await run(['config', 'set-blinding-key', '--address', DEST.address], `${DEST.key}\n`);
    expect(set.code).toBe(0);
    const verified = await run(['deposit', 'verify', id]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`deposit ${id} (FINALIZED): verified: every check below was proven`);
    expect(verified.stdout).toContain('proven     the destination address received 1440.59850000, as due');
    expect(verified.stdout).toContain("the profile's asset-id");
    expect(verified.stderr).not.toContain('error');

    const asJson = await run(['deposit', 'verify', id, '--json']);
    expect(asJson.code).toBe(0);
    const doc = JSON.parse(asJson.stdout) as {
      deposits: Array<{ outcome: string; report: { verdict: string; outputs: Array<{ opened: string }> } }>;
    };
    expect(doc.deposits[0]!.outcome).toBe('verified');
    expect(doc.deposits[0]!.report.outputs.map((o) => o.opened)).toEqual(['unblinded', 'explicit']);
    // no key, no blinding factor anywhere
    for (const r of [set, verified, asJson]) {
      expect(r.stdout + r.stderr).not.toContain(DEST.key);
      expect(r.stdout + r.stderr).not.toMatch(/blinded=|BlindingFactor/);
    }

    const list = await runCli(['deposit', 'list'], {
      env: { ...env, NO_COLOR: '1' },
      clock,
      stdoutTTY: true,
      columns: 200,
    });
    const [head, first] = list.stdout.split('\n');
    expect(head).toMatch(/ STATUS {5}ON CHAIN {2}DESTINATION$/);
    expect(first).toMatch(new RegExp(`^${id} .* FINALIZED {2}verified {2}\\S+$`));
    expect(first!.indexOf('verified')).toBe(head!.indexOf('ON CHAIN'));
    const listed = JSON.parse((await run(['deposit', 'list', '--json'])).stdout) as Array<{
      verifiedAt?: string;
    }>;
    expect(listed[0]!.verifiedAt).toBe(new Date(clock.now).toISOString());
    // verified twice (plain and --json), recorded once
    const history = fs.readFileSync(path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson'), 'utf8');
    expect(history.split('\n').filter((l) => l.includes('"type":"verified"'))).toHaveLength(1);
  });

  // a settlement made wrongly (--settle amount, asset, address), built by the sandbox chain's builder:
  // judged in process in test/cmd/verify-attacks.test.ts

  it('no transaction (--settle none): pending while the explorer does not know the txid (exit 8)', async () => {
    const { clock, run, create } = await world();
    const id = await create();
    expect((await run(['sandbox', 'pay', id, '--settle', 'none'])).code).toBe(0);
    clock.now += 60_000;
    const r = await run(['deposit', 'verify', id]);
    expect(r.code).toBe(8);
    expect(r.stdout).toContain('pending: the explorer does not know the transaction');
  });

  // an unknown deposit (exit 4) and a bad id (exit 2): test/cmd/verify-attacks.test.ts, in process;
  // a bad --settle: test/cmd/sandbox-in-process.test.ts
});

describe('watch --verify', () => {
  // whole runs through the embedded sandbox (its service and explorer on loopback, its chain's clock); the
  // verification's logic runs in process in test/cmd/verify-in-process.test.ts
  it('create --watch --verify: done only once verified (exit 0), with the key', async () => {
    const { run, env } = await world();
    expect((await run(['config', 'set', 'sandbox-autopay', '0'])).code).toBe(0);
    expect((await run(['config', 'set-blinding-key'], DEST.key)).code).toBe(0);
    const r = await runCli(
      [
        'deposit',
        'create',
        '--amount',
        '15',
        '--to',
        DEST.address,
        '--yes',
        '--no-qr',
        '--watch',
        '--verify',
      ],
      { env, clock: { now: START }, client: SLOW_OK },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('waiting for its settlement on chain: not yet confirmed (in the mempool)');
    expect(r.stderr).toContain('1 of 2 confirmations so far');
    expect(r.stderr).toMatch(/settlement verified on chain \(2 confirmations\)/);
  });

  it('the verify setting makes it the default: unproven without a key ends with exit 7 and says what to add', async () => {
    // the profile's verify setting is read by verifyingPlanOf through the factory: no narrow seam for it
    const { run, create, env } = await world();
    expect((await run(['config', 'set', 'verify', 'on'])).code).toBe(0);
    const id = await create();
    expect((await run(['sandbox', 'pay', id])).code).toBe(0);
    const r = await runCli(['deposit', 'watch', id], { env, clock: { now: START }, client: SLOW_OK });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('no blinding key was given: the amount was not verified');
    expect(r.stderr).toContain('hint: add the blinding key');
    // --no-verify: FINALIZED is enough (an hour later: the sandbox's clock never runs backwards,
    // and a deposit seen FINALIZED that answered an earlier status would be a lie)
    const plain = await runCli(['deposit', 'watch', id, '--no-verify'], {
      env,
      clock: { now: START + 3_600_000 },
      client: SLOW_OK,
    });
    expect(plain.stderr).not.toContain('error');
    expect(plain.code).toBe(0);
  });

  // a mismatch ends the watch (exit 1), no transaction keeps it waiting until --timeout (124):
  // test/cmd/verify-attacks.test.ts, in process

  it('--verify without --watch on create is a usage error', async () => {
    // the definition's conflict rules, applied by the commander wiring (refused before the sandbox starts)
    const { run } = await world();
    const r = await run(['deposit', 'create', '--amount', '1', '--to', SPLIT, '--verify', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--verify goes with --watch');
  });
});

describe('deposit verify against a live service and an explorer that misbehaves', () => {
  const finalized = (over: Record<string, unknown> = {}) =>
    getAnswer({
      status: 'FINALIZED',
      settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
      confirmedAt: '2026-11-22T10:00:05Z',
      ...over,
    });

  async function live(explorer: Parameters<typeof startServer>[0] | null) {
    const service = await startServer((_req, res) => json(res, 200, finalized()));
    closers.push(() => service.close());
    let esplora: TestServer | undefined;
    if (explorer) {
      esplora = await startServer(explorer);
      closers.push(() => esplora!.close());
    }
    const env = liveEnv(service.url);
    const url = esplora ? esplora.url : 'http://127.0.0.1:9'; // nothing listens on port 9
    expect((await runCli(['config', 'set', 'esplora-url', url], { env })).code).toBe(0);
    return { env, esplora };
  }

  it('a txid the explorer does not know: pending (exit 8), never a pass', async () => {
    // on servers: what the explorer client makes of a 404 in plain text
    const { env } = await live((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Transaction not found');
    });
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(8);
    expect(r.stdout).toContain('the explorer does not know the transaction');
  });

  it('an explorer answering HTML is a broken contract (exit 1)', async () => {
    // on servers: what the explorer client makes of an HTML page (its content-type)
    const { env } = await live((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: the explorer answered \/tx\/a{0}(ab)+\/status with content-type "text\/html", not JSON/,
    );
  });

  it('an explorer answering garbage hex is a broken contract (exit 1)', async () => {
    // on servers: what the explorer client makes of a body that is not hex
    const { env } = await live((req, res) => {
      if (req.url.endsWith('/status')) return json(res, 200, { confirmed: true, block_height: 10 });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(req.url.endsWith('/hex') ? 'zz-not-hex' : '12');
    });
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not hex');
  });

  it('an unreachable explorer is exit 6, after retries', async () => {
    // on servers: a refused connection and the explorer client's retries
    const { env } = await live(null);
    const r = await runCli(['deposit', 'verify', ID], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('could not reach the explorer at http://127.0.0.1:9');
    expect(r.sleeps.length).toBe(3);
  });

  /** An explorer that never answers, trickles a byte every 100 ms, answers 429 for an hour, or redirects to itself. */
  function stubborn(mode: 'hang' | 'trickle' | 'busy' | 'loop'): Parameters<typeof startServer>[0] {
    return (req, res) => {
      if (mode === 'hang') return new Promise<void>(() => {});
      if (mode === 'busy') {
        res.writeHead(429, { 'retry-after': '3600', 'content-type': 'text/plain' });
        res.end('slow down');
        return;
      }
      if (mode === 'loop') {
        res.writeHead(302, { location: req.url });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('0'), 100);
      res.on('close', () => clearInterval(timer));
      return new Promise<void>((done) => res.on('close', () => done()));
    };
  }
  const NOW = { now: Date.parse('2026-11-22T11:00:00Z') };

  it('watch --verify --timeout 1 against an explorer that never answers ends in about a second (exit 124)', async () => {
    // on servers: the explorer client's sockets under the watch's deadline
    const { env } = await live(stubborn('hang'));
    const started = Date.now();
    const r = await runCli(['deposit', 'watch', ID, '--verify', '--timeout', '1'], {
      env,
      clock: { ...NOW },
    });
    expect(r.code).toBe(124);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(r.stderr).toContain('timed out after 1 s');
  });

  it.each([
    ['trickles its answer a byte at a time', 'trickle'],
    ['answers 429 with Retry-After: 3600', 'busy'],
  ] as const)(
    'watch --verify --timeout 1 against an explorer that %s ends by the deadline (exit 124)',
    async (_, mode) => {
      // on servers: a body that never ends, and a Retry-After, as the explorer client reads them
      const { env } = await live(stubborn(mode));
      const started = Date.now();
      const r = await runCli(['deposit', 'watch', ID, '--verify', '--timeout', '1'], {
        env,
        clock: { ...NOW },
      });
      expect(r.code).toBe(124);
      expect(Date.now() - started).toBeLessThan(2500);
      // no wait past the deadline, on the run's own clock
      expect(r.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1000);
    },
  );

  it('an explorer that redirects in a loop is refused at once, not followed', async () => {
    // on servers: what the explorer client does with a redirect
    const { env } = await live(stubborn('loop'));
    const r = await runCli(['deposit', 'verify', ID], { env, clock: { ...NOW } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('redirect');
  });

  // elementsregtest, which has no default explorer: test/cmd/verify-in-process.test.ts

  // settings checked on set, blinding keys from stdin or a prompt and never echoed: in process in
  // test/cmd/verify-attacks.test.ts ("blinding keys")
});

describe('deposit get: the explorer link with the unblinded amounts', () => {
  it('shows #blinded= when a key is known, the plain link when none is', async () => {
    // a whole run: the key config set-blinding-key stored reaches the explorer client (whose requests are counted) through the factory
    const dest = confidentialAddress('33', '1111111111111111111111111111111111111111', 'lq');
    const tx = buildSettlementTx(
      zkp,
      {
        id: ID,
        amountInCents: 150_000,
        feeCents: 1500,
        destinationAddress: dest.address,
        splitAddress: null,
        splitBasisPoints: null,
      },
      'ok',
      'liquid',
    )!;
    const answer = getAnswer({
      destinationAddress: dest.address,
      status: 'FINALIZED',
      settlement: { status: 'FINALIZED', liquidTxid: tx.txid },
      confirmedAt: '2026-11-22T10:00:05Z',
    });
    const service = await startServer((_req, res) => json(res, 200, answer));
    closers.push(() => service.close());
    const explorer = await startServer(async (req, res) => {
      const fake = { headers: req.headers, method: req.method, url: req.url } as never;
      await handleEsplora(fake, res, {
        now: () => 10_000_000,
        findTx: () => ({ hex: tx.hex, sentAt: 0, addresses: [dest.address] }),
      });
    });
    closers.push(() => explorer.close());
    const env = liveEnv(service.url);
    expect((await runCli(['config', 'set', 'esplora-url', explorer.url], { env })).code).toBe(0);
    const plain = await runCli(['deposit', 'get', ID], { env });
    expect(plain.stdout).toContain(`Explorer    https://blockstream.info/liquid/tx/${tx.txid}\n`);
    expect(explorer.requests).toHaveLength(0);

    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: dest.key })).code).toBe(0);
    const linked = await runCli(['deposit', 'get', ID], { env });
    expect(linked.code).toBe(0);
    const m =
      /Explorer +https:\/\/blockstream\.info\/liquid\/tx\/([0-9a-f]{64})#blinded=(\d+),([0-9a-f]{64}),([0-9a-f]{64}),([0-9a-f]{64})\n/.exec(
        linked.stdout,
      );
    expect(m?.[1]).toBe(tx.txid);
    expect(m?.[2]).toBe('148500000000');
    expect(m?.[3]).toBe(SANDBOX_ASSET.asset_id);
    expect(linked.stdout + linked.stderr).not.toContain(dest.key);
  });
});
