/**
 * deposit verify and watch --verify against a lying service and a lying explorer, as a careful
 * attacker would try them, over real sockets and files: one payment named by two deposits (in one
 * run, in two runs sharing a history, and in a watch), an old settlement reused, a stranger's
 * destination on a watch, a reorg after a verification, hand-edited settings and an explorer that
 * never answers. Ten deposits paid short by 9 cents, a split that loses a cent, a precision the
 * registry does not prove and a block above the tip are judged in process
 * (test/cmd/verify-in-process.test.ts). The transactions are real Elements transactions (the
 * sandbox's builder) paying explicit outputs of the sandbox's registered asset.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EsploraClient } from '../../src/api/esplora.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer } from '../helpers/fixtures.js';
import { json, type SeenRequest, startServer } from '../helpers/server.js';
import {
  CONFIRMED,
  CREATED,
  DEST,
  finalizedAnswer,
  id,
  payTx,
  SPLIT,
  units,
} from '../helpers/settled-deposits.js';

const zkp = await loadZkp();

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

interface Chain {
  txs: Map<string, { hex: string; status: Record<string, unknown> }>;
  tip: number;
  asset: Record<string, unknown> | null;
  /** the explorer never answers */
  hang?: boolean;
  /** the explorer sends its headers, then a byte every 100 ms, for ever */
  trickle?: boolean;
  /** the explorer answers 429 with Retry-After: 3600 */
  busy?: boolean;
  /** the explorer redirects to itself */
  loop?: boolean;
}

function chainOf(
  txs: Array<{ txid: string; hex: string }>,
  status: Record<string, unknown> = CONFIRMED,
): Chain {
  return { txs: new Map(txs.map((t) => [t.txid, { hex: t.hex, status }])), tip: 101, asset: SANDBOX_ASSET };
}

function explorer(chain: Chain) {
  return (req: SeenRequest, res: Parameters<Parameters<typeof startServer>[0]>[1]) => {
    if (chain.hang) return new Promise<void>(() => {});
    if (chain.busy) {
      res.writeHead(429, { 'retry-after': '3600', 'content-type': 'text/plain' });
      res.end('slow down');
      return;
    }
    if (chain.loop) {
      res.writeHead(302, { location: req.url });
      res.end();
      return;
    }
    if (chain.trickle) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('0'), 100);
      res.on('close', () => clearInterval(timer));
      return new Promise<void>((done) => res.on('close', () => done()));
    }
    const text = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    };
    const url = req.url.replace(/^\/api/, '');
    if (url === '/blocks/tip/height') return text(200, String(chain.tip));
    if (url === `/asset/${SANDBOX_ASSET_ID}`)
      return chain.asset ? json(res, 200, chain.asset) : text(404, 'no');
    const m = /^\/tx\/([0-9a-f]{64})\/(hex|status)$/.exec(url);
    const tx = m ? chain.txs.get(m[1]!) : undefined;
    if (!m || !tx) return m?.[2] === 'status' ? json(res, 200, { confirmed: false }) : text(404, 'not found');
    return m[2] === 'hex' ? text(200, tx.hex) : json(res, 200, tx.status);
  };
}

/**
 * A live service answering these deposits (POST creates one from the request, with `created`'s
 * fields), an explorer serving the chain, and a profile pinned to SBRL with DEST as its
 * default-address and SPLIT as its split-address (unless `stranger`).
 */
async function world(
  deposits: Array<ReturnType<typeof finalizedAnswer>>,
  chain: Chain,
  o: { stranger?: boolean; noSplit?: boolean } = {},
) {
  const byId = new Map(deposits.map((d) => [d.id, d]));
  const service = await startServer((req, res) => {
    const m = /\/v1\/api\/deposit\/([0-9a-f-]+)$/.exec(req.url);
    const d = m ? byId.get(m[1]!) : undefined;
    if (req.method === 'GET' && d) return json(res, 200, d);
    if (req.method === 'POST' && req.url.endsWith('/v1/api/deposit')) {
      const body = JSON.parse(req.body) as { amountInCents: number; lbrlAddress: string };
      const created = {
        ...createAnswer(body),
        id: id(900 + byId.size),
        createdAt: new Date(CREATED).toISOString(),
      };
      const { qrCode: _q, ...stored } = created;
      byId.set(created.id, { ...stored, settlement: null, confirmedAt: null } as never);
      return json(res, 201, created);
    }
    return json(res, 404, { error: 'not found' });
  });
  closers.push(() => service.close());
  const esplora = await startServer(explorer(chain));
  closers.push(() => esplora.close());
  const env = liveEnv(service.url);
  const settings: Array<[string, string]> = [
    ['network', 'elementsregtest'],
    ['esplora-url', `${esplora.url}/api`],
    ['asset-id', SANDBOX_ASSET_ID],
  ];
  if (!o.stranger) settings.push(['default-address', DEST]);
  if (!o.stranger && !o.noSplit) settings.push(['split-address', SPLIT]);
  for (const [k, v] of settings) expect((await runCli(['config', 'set', k, v], { env })).code).toBe(0);
  const run = (args: string[]) => runCli(args, { env, clock: { now: Date.parse('2026-11-22T11:00:00Z') } });
  return { env, run, esplora, byId };
}

describe('one payment proves one deposit', () => {
  it('two deposits naming one output of R$ 14.85: the first verified, the second refused, across runs', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const { run, env } = await world(
      [finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid)],
      chainOf([tx]),
    );
    const first = await run(['deposit', 'verify', id(1)]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // another run, the same history: the output was counted for deposit 1
    const second = await run(['deposit', 'verify', id(2)]);
    expect(second.code).toBe(1);
    expect(second.stdout).toContain(
      `MISMATCH   the destination address received 14.85000000, but 29.70000000 was due (with the share of deposit ${id(1)}, counted earlier from the same outputs)`,
    );
    expect(second.stderr).toContain(`error: the settlement of deposit ${id(2)} contradicts the deposit`);
    expect(second.stderr).toContain(id(1));
    // asked again, deposit 1 is still verified, deposit 2 still refused
    expect((await run(['deposit', 'verify', id(1)])).code).toBe(0);
    expect((await run(['deposit', 'verify', id(2)])).code).toBe(1);
    // what the history keeps: the output and the share it paid
    const history = fs.readFileSync(path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson'), 'utf8');
    const verified = history.split('\n').filter((l) => l.includes('"type":"verified"'));
    expect(verified).toHaveLength(1);
    expect(JSON.parse(verified[0]!)).toMatchObject({
      id: id(1),
      txid: tx.txid,
      shares: [{ role: 'destination', outputs: [0], share: '1485/100', rounded: false }],
    });
  });

  // judged together in one run, the shortfall is seen whichever is asked first: test/cmd/verify-in-process.test.ts

  it('watch --verify of both: one verified, the other a mismatch (exit 1)', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const { run } = await world([finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid)], chainOf([tx]));
    const r = await run(['deposit', 'watch', id(1), id(2), '--verify', '--interval', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`deposit ${id(1)}: settlement verified on chain`);
    expect(r.stderr).toContain(`with the share of deposit ${id(1)}`);
  });

  it('watch --verify checks every settlement of the watch through one explorer client', async () => {
    const first = payTx([[DEST, units(1485)]], 'first');
    const second = payTx([[DEST, units(1485)]], 'second');
    const { run } = await world(
      [finalizedAnswer(1, first.txid), finalizedAnswer(2, second.txid)],
      chainOf([first, second]),
    );
    const looked = vi.spyOn(EsploraClient.prototype, 'getTxHex');
    try {
      const r = await run(['deposit', 'watch', id(1), id(2), '--verify', '--interval', '1']);
      expect(r.code, r.stderr).toBe(0);
      expect(looked.mock.calls.map(([txid]) => txid).sort()).toEqual([first.txid, second.txid].sort());
      expect(new Set(looked.mock.contexts).size).toBe(1);
    } finally {
      looked.mockRestore();
    }
  });

  it('a transaction paying both shares in full verifies both, one run after the other', async () => {
    const tx = payTx([[DEST, units(2970)]]);
    const { run } = await world(
      [finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid), finalizedAnswer(3, tx.txid)],
      chainOf([tx]),
    );
    const first = await run(['deposit', 'verify', id(1)]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'the destination address received 29.70000000, more than the 14.85000000 due',
    );
    const second = await run(['deposit', 'verify', id(2)]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`as due (with the share of deposit ${id(1)}, counted earlier`);
    // nothing is left for a third
    const third = await run(['deposit', 'verify', id(3)]);
    expect(third.code).toBe(1);
    expect(third.stdout).toContain('but 44.55000000 was due');
  });

  it('a settlement confirmed before the deposit existed (an old one reused) does not settle it', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const old = { ...CONFIRMED, block_time: Date.parse('2026-11-20T09:00:00Z') / 1000 };
    const { run } = await world([finalizedAnswer(1, tx.txid)], chainOf([tx], old));
    const r = await run(['deposit', 'verify', id(1)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `MISMATCH   the transaction was confirmed at 2026-11-20T09:00:00.000Z, before deposit ${id(1)} was created (2026-11-22T10:00:00.000Z): it cannot be its settlement`,
    );
    // an explorer that gives no block time leaves it unproven, and says why
    const { block_time: _t, ...timeless } = CONFIRMED;
    const unknown = await world([finalizedAnswer(1, tx.txid)], chainOf([tx], timeless));
    const u = await unknown.run(['deposit', 'verify', id(1)]);
    expect(u.code).toBe(7);
    expect(u.stdout).toContain('not proven the explorer gave no block time');
    expect(u.stderr).toContain('use an explorer that does');
    // within the clock margin (an hour) it is not refused
    const near = { ...CONFIRMED, block_time: Date.parse('2026-11-22T09:30:00Z') / 1000 };
    const ok = await world([finalizedAnswer(1, tx.txid)], chainOf([tx], near));
    expect((await ok.run(['deposit', 'verify', id(1)])).code).toBe(0);
  });
});

// every number proven (shares, splits, precision, a block above the tip) and a destination lbrl
// has no record of are judged by the same rules in process: test/cmd/verify-in-process.test.ts
describe('where the destination came from, on a watch', () => {
  it("a deposit lbrl has no record of, paying none of the profile's addresses: watch --verify trusts it only when told", async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const { run } = await world([finalizedAnswer(1, tx.txid)], chainOf([tx]), { stranger: true });
    // watch takes it with --verify only
    const watch = await run(['deposit', 'watch', id(1), '--trust-service-address']);
    expect([watch.code, watch.stderr]).toEqual([
      2,
      "error: --trust-service-address goes with --verify (or the profile's verify on)\n",
    ]);
    expect((await run(['deposit', 'watch', id(1), '--verify'])).code).toBe(7);
    expect((await run(['deposit', 'watch', id(1), '--verify', '--trust-service-address'])).code).toBe(0);
  });
});

describe('the history follows the chain', () => {
  it('a deposit verified, then its transaction back in the mempool, then gone: list shows what was found', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const chain = chainOf([tx]);
    const { env, run, byId } = await world([], chain, { noSplit: true });
    const made = await runCli(
      ['deposit', 'create', '--amount', '15', '--to', DEST, '--no-qr', '--yes', '-q'],
      {
        env,
        clock: { now: CREATED },
      },
    );
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const created = made.stdout.trim();
    byId.set(created, { ...byId.get(created)!, ...finalizedAnswer(0, tx.txid), id: created });

    const verified = await run(['deposit', 'verify', created]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('proven     the addresses are the ones lbrl asked for (local history)');
    const list = () => runCli(['deposit', 'list'], { env: { ...env, NO_COLOR: '1' }, stdoutTTY: true });
    const listJson = async () =>
      (
        JSON.parse((await runCli(['deposit', 'list', '--json'], { env })).stdout) as Array<
          Record<string, unknown>
        >
      )[0]!;
    expect((await list()).stdout.split('\n')[1]).toMatch(/FINALIZED {2}verified$/);
    expect((await listJson()).verifiedAt).toBe('2026-11-22T11:00:00.000Z');

    // a reorg: the transaction is back in the mempool
    chain.txs.set(tx.txid, { hex: tx.hex, status: { confirmed: false } });
    const pending = await run(['deposit', 'verify', created]);
    expect(pending.code).toBe(8);
    expect((await list()).stdout.split('\n')[1]).toMatch(/FINALIZED {2}pending$/);
    const afterReorg = await listJson();
    expect(afterReorg.verifiedAt).toBeUndefined();
    expect(afterReorg.onChain).toBe('pending');
    // asked again: nothing new to record
    const file = path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson');
    const size = fs.statSync(file).size;
    expect((await run(['deposit', 'verify', created])).code).toBe(8);
    expect(fs.statSync(file).size).toBe(size);

    // then gone from the explorer
    chain.txs.delete(tx.txid);
    expect((await run(['deposit', 'verify', created])).code).toBe(8);
    expect((await listJson()).onChain).toBe('not-found');

    // back and deep enough: verified again
    chain.txs.set(tx.txid, { hex: tx.hex, status: CONFIRMED });
    expect((await run(['deposit', 'verify', created])).code).toBe(0);
    const again = await listJson();
    expect(again.onChain).toBeUndefined();
    expect(again.verifiedAt).toBe('2026-11-22T11:00:00.000Z');
  });

  it('a first verification that finds a mismatch or nothing proven is kept: list, its filters and report count it', async () => {
    const short = payTx([[DEST, units(1485) - 1n]], 'short');
    const chain = chainOf([short]);
    const { env, run, byId } = await world([], chain, { noSplit: true });
    const make = async () => {
      const made = await runCli(
        ['deposit', 'create', '--amount', '15', '--to', DEST, '--no-qr', '--yes', '-q'],
        {
          env,
          clock: { now: CREATED },
        },
      );
      expect(made.code).toBe(0);
      return made.stdout.trim();
    };
    const paidShort = await make();
    byId.set(paidShort, { ...byId.get(paidShort)!, ...finalizedAnswer(0, short.txid), id: paidShort });
    const unproven = await make();
    byId.set(unproven, { ...byId.get(unproven)!, ...finalizedAnswer(0, short.txid), id: unproven });
    expect((await run(['deposit', 'verify', paidShort])).code).toBe(1);
    // the registry answer is gone: the precision of the pinned asset is not proven
    chain.asset = null;
    const u = await run(['deposit', 'verify', unproven]);
    expect(u.code).toBe(7);
    const listed = JSON.parse((await runCli(['deposit', 'list', '--json'], { env })).stdout) as Array<
      Record<string, unknown>
    >;
    expect(Object.fromEntries(listed.map((e) => [e.id, e.onChain]))).toEqual({
      [paidShort]: 'mismatch',
      [unproven]: 'unproven',
    });
    const unverified = JSON.parse(
      (await runCli(['deposit', 'list', '--unverified', '--json'], { env })).stdout,
    );
    expect(unverified).toHaveLength(2);
    const report = await runCli(['deposit', 'report', '--json'], { env });
    expect(JSON.parse(report.stdout).total).toMatchObject({
      finalizedCount: 2,
      verifiedCount: 0,
      mismatchCount: 1,
      mismatchNetCents: 1485,
      unprovenCount: 1,
      unprovenNetCents: 1485,
      uncheckedCount: 0,
    });
  });
});

describe('settings are checked when read', () => {
  /** The profile as a user's editor leaves it: esplora-url written by hand. */
  function handEdit(env: Record<string, string>, url: string) {
    const file = path.join(env.LBRL_CONFIG_DIR!, 'config.json');
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      profiles: Record<string, Record<string, string>>;
    };
    config.profiles.default!['esplora-url'] = url;
    fs.writeFileSync(file, JSON.stringify(config));
  }

  it.each([
    ['http to another host, with a password', 'http://alice:hunter2pass@203.0.113.9/api'],
    ['https with a password', 'https://alice:hunter2pass@blockstream.info/liquid/api'],
    ['ftp', 'ftp://203.0.113.9/api'],
    ['file', 'file:///etc/passwd'],
    ['a query', 'https://blockstream.info/liquid/api?x=1'],
  ])(
    'esplora-url edited by hand (%s): refused before any request, the password never shown',
    async (_, url) => {
      const tx = payTx([[DEST, units(1485)]]);
      const { env, run, esplora } = await world([finalizedAnswer(1, tx.txid)], chainOf([tx]));
      handEdit(env, url);
      for (const args of [
        ['deposit', 'verify', id(1)],
        ['deposit', 'verify', id(1), '--verbose'],
        ['deposit', 'verify', id(1), '--json'],
        ['deposit', 'watch', id(1), '--verify'],
      ]) {
        const r = await run(args);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/esplora-url in profile default of .* is not valid: .*https:\/\//);
        expect(r.stdout + r.stderr).not.toContain('hunter2pass');
      }
      const shown = await runCli(['config', 'get', 'esplora-url'], { env });
      expect(shown.stdout).not.toContain('hunter2pass');
      expect((await runCli(['config', 'list', '--json'], { env })).stdout).not.toContain('hunter2pass');
      expect(esplora.requests).toHaveLength(0);
    },
  );

  it('a password in a URL given to config set or LBRL_BASE_URL is never printed', async () => {
    const { env } = await world([], chainOf([]));
    const set = await runCli(['config', 'set', 'esplora-url', 'https://alice:hunter2pass@example.com/api'], {
      env,
    });
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('[redacted]@example.com');
    expect(set.stderr).not.toContain('hunter2pass');
    const base = await runCli(['deposit', 'get', id(1), '--verbose'], {
      env: { ...env, LBRL_BASE_URL: 'https://alice:hunter2pass@example.com' },
    });
    expect(base.code).toBe(2);
    expect(base.stdout + base.stderr).not.toContain('hunter2pass');
  });
});

describe('blinding keys', () => {
  const KEY = '11'.repeat(32);
  const pub = () => zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(KEY, 'hex')), true)!;
  /** a confidential elementsregtest address blinded to KEY's public key */
  const confidential = () => {
    const words = [0, ...bech32.toWords(Uint8Array.from([...pub(), ...Buffer.alloc(20, 0x22)]))];
    return blech32Encode('el', Uint8Array.from(words), 'blech32');
  };

  it.each([
    'ct(slip77(' + KEY + ')',
    'slip77(' + KEY + '),junk)',
    'ct(slip77(' + KEY + '),)',
    'ct(slip77(' + KEY + '),elwpkh(xpub)',
    'slip77(' + KEY + ')junk',
    'ct(slip77(' + KEY + '),junk(xpub))',
    // a checksum that is not the descriptor's, and a space inside it
    `ct(slip77(${KEY}),elwpkh(xpub))#aaaaaaaa`,
    `slip77(${KEY})#qqqqqqqq`,
    `ct(slip77(${KEY}), elwpkh(xpub))`,
  ])('a malformed descriptor is refused: %s', async (text) => {
    const { env } = await world([], chainOf([]));
    const r = await runCli(['config', 'set-blinding-key'], { env, stdin: `${text}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: the blinding key given is not usable');
    expect(r.stderr).not.toContain(KEY);
    expect((await runCli(['config', 'list'], { env })).stdout).toContain('blinding-keys=\n');
  });

  it("a key given with --address must be that address's: a wrong one is refused and the good one kept", async () => {
    const { env } = await world([], chainOf([]));
    const address = confidential();
    const good = await runCli(['config', 'set-blinding-key', '--address', address], { env, stdin: KEY });
    expect(good.code).toBe(0);
    const wrong = await runCli(['config', 'set-blinding-key', '--address', address], {
      env,
      stdin: '22'.repeat(32),
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`the blinding key given is not the blinding key of ${address}`);
    expect(wrong.stderr).not.toContain('22'.repeat(32));
    const file = fs.readFileSync(path.join(env.LBRL_CONFIG_DIR!, 'config.json'), 'utf8');
    expect(file).toContain(KEY);
    expect(file).not.toContain('22'.repeat(32));
    // an unconfidential address has no blinding key at all
    const plain = await runCli(['config', 'set-blinding-key', '--address', DEST], { env, stdin: KEY });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('is not confidential');
  });

  it('a key that does not open the output gets a hint saying so', async () => {
    const address = confidential();
    const tx = payTx([[address, units(1485)]]);
    const d = { ...finalizedAnswer(1, tx.txid), destinationAddress: address };
    const { env, run } = await world([d], chainOf([tx]));
    expect((await runCli(['config', 'set', 'default-address', address], { env })).code).toBe(0);
    expect((await runCli(['config', 'set-blinding-key'], { env, stdin: '33'.repeat(32) })).code).toBe(0);
    const r = await run(['deposit', 'verify', id(1)]);
    expect(r.code).toBe(7);
    expect(r.stdout).toContain(
      "did not open with the blinding keys given (none of them is this address's key)",
    );
    expect(r.stderr).toContain('the blinding keys set do not open the outputs');
    expect(r.stderr).not.toContain('hint: add the blinding key');
  });
});

describe('--timeout holds whatever the explorer does', () => {
  it('watch --verify --timeout 1 against an explorer that never answers ends in about a second (exit 124)', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const chain = chainOf([tx]);
    chain.hang = true;
    const { run } = await world([finalizedAnswer(1, tx.txid)], chain);
    const started = Date.now();
    const r = await run(['deposit', 'watch', id(1), '--verify', '--timeout', '1']);
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
      const tx = payTx([[DEST, units(1485)]]);
      const chain = chainOf([tx]);
      chain[mode] = true;
      const { run } = await world([finalizedAnswer(1, tx.txid)], chain);
      const started = Date.now();
      const r = await run(['deposit', 'watch', id(1), '--verify', '--timeout', '1']);
      expect(r.code).toBe(124);
      expect(Date.now() - started).toBeLessThan(2500);
      // no wait past the deadline, on the run's own clock
      expect(r.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1000);
    },
  );

  it('an explorer that redirects in a loop is refused at once, not followed', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const chain = chainOf([tx]);
    chain.loop = true;
    const { run } = await world([finalizedAnswer(1, tx.txid)], chain);
    const r = await run(['deposit', 'verify', id(1)]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('redirect');
  });
});

describe('splits at the edges', () => {
  // net R$ 14.85; the split's exact share, then what the split and the destination received
  it.each([
    ['33.33%', 495, 990, 0n, 0n, 0],
    ['33.33%', 494, 991, 0n, 0n, 0],
    ['33.33%', 494, 990, 0n, 0n, 1],
    // 0.01% is 0.1485 cents: rounded down to the cent, the split is owed nothing
    ['0.01%', 0, 1485, 0n, 0n, 0],
    ['0.01%', 0, 1485, 148500n, -148500n, 0],
    ['0.01%', 1, 1484, 0n, 0n, 0],
    ['0.01%', 0, 1484, 0n, 0n, 1],
    // 100%: the destination is owed nothing
    ['100.00%', 1485, 0, 0n, 0n, 0],
    ['100.00%', 1484, 0, 0n, 0n, 1],
  ] as const)(
    'a %s split paid %i + %i cents (and %i, %i units): exit %i',
    async (split, s, d, sx, dx, code) => {
      const pays: Array<[string, bigint]> = [];
      if (units(s) + sx > 0n) pays.push([SPLIT, units(s) + sx]);
      if (units(d) + dx > 0n) pays.push([DEST, units(d) + dx]);
      const tx = payTx(pays, `edge${split}${s}${d}${sx}`);
      const { run } = await world([finalizedAnswer(1, tx.txid, { split })], chainOf([tx]));
      const r = await run(['deposit', 'verify', id(1)]);
      expect(r.code).toBe(code);
      if (code === 0 && s === 0 && sx === 0n)
        expect(r.stdout).toContain('no output pays the split address: its share is less than a cent');
    },
  );
});
