/**
 * deposit verify and watch --verify against a lying service and a lying explorer, as a careful
 * attacker would try them: one payment named by two deposits (in one run, in two runs sharing a
 * history file, and in a watch), an old settlement reused, a stranger's destination on a watch, a
 * reorg after a verification, settlements the sandbox chain's builder makes wrongly, hand-edited
 * settings, malformed blinding keys and splits at the edges of a cent. The transactions are real
 * Elements transactions (the sandbox's builder). Every command runs on its narrow options
 * (runVerify; runWatch with the hook --verify installs; runList, runReport and the config
 * commands) against a scripted service and an explorer without a socket: no server, no sleep. The
 * history and the config are real files in a temporary directory where their bytes matter or runs
 * share them. Two checks run the whole CLI (a hand-edited config file, LBRL_BASE_URL), refused
 * before any request, so they need no server either. The explorer's transport under --timeout (a
 * hang, a trickle, a 429, a redirect loop) is in test/cmd/verify.test.ts.
 */
import fs from 'node:fs';
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { describe, expect, it } from 'vitest';
import {
  type BlindingKeyOptions,
  runGetSetting,
  runListSettings,
  runSetBlindingKey,
  runSetSetting,
} from '../../src/commands/config.js';
import { type ListOptions, runList } from '../../src/commands/deposit-list.js';
import { type ReportOptions, runReport } from '../../src/commands/deposit-report.js';
import type { Context, Prompter } from '../../src/context.js';
import { createChecked } from '../../src/deposits/create.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { buildSettlementTx } from '../../src/sandbox/chain.js';
import type { ConfigKey } from '../../src/store/config.js';
import { ConfigStore } from '../../src/store/config.js';
import { History } from '../../src/store/history.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer } from '../helpers/fixtures.js';
import {
  type PlainTerminal,
  passwordPrompter,
  plainTerminal,
  type SeenRun,
  seenRun,
} from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
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
import { tempDir } from '../helpers/temp.js';
import {
  EXPLORER_URL,
  sbrlChain,
  sbrlWorld,
  TARGET,
  VERIFY_NOW,
  type VerifyWorld,
  verifyIn,
  watchIn,
} from '../helpers/verify-world.js';

const zkp = await loadZkp();

/** A history file of its own, read afresh by each run (as two processes would). */
function historyDir() {
  const dir = tempDir();
  return { dir, file: `${dir}/history.ndjson`, fresh: () => new History(dir) };
}

/** Each run reads the history file anew. */
const runOn = (world: VerifyWorld, dir: { fresh: () => History }) => (ids: string[]) =>
  verifyIn(ids, { ...world, history: dir.fresh() });

describe('one payment proves one deposit', () => {
  it('two deposits naming one output of R$ 14.85: the first verified, the second refused, across runs', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const history = historyDir();
    const run = runOn(
      sbrlWorld([finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid)], sbrlChain([tx])),
      history,
    );
    const first = await run([id(1)]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // another run, the same history: the output was counted for deposit 1
    const second = await run([id(2)]);
    expect(second.code).toBe(1);
    expect(second.stdout).toContain(
      `MISMATCH   the destination address received 14.85000000, but 29.70000000 was due (with the share of deposit ${id(1)}, counted earlier from the same outputs)`,
    );
    expect(second.stderr).toContain(`error: the settlement of deposit ${id(2)} contradicts the deposit`);
    expect(second.stderr).toContain(id(1));
    // asked again, deposit 1 is still verified, deposit 2 still refused
    expect((await run([id(1)])).code).toBe(0);
    expect((await run([id(2)])).code).toBe(1);
    // what the history keeps: the output and the share it paid
    const lines = fs.readFileSync(history.file, 'utf8');
    const verified = lines.split('\n').filter((l) => l.includes('"type":"verified"'));
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
    const world = sbrlWorld([finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid)], sbrlChain([tx]));
    const r = await watchIn([id(1), id(2)], world, { verify: true, interval: '1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`deposit ${id(1)}: settlement verified on chain`);
    expect(r.stderr).toContain(`with the share of deposit ${id(1)}`);
    expect(r.stderr).toContain(`error: the settlement of deposit ${id(2)} contradicts the deposit`);
  });

  it('watch --verify checks every settlement of the watch through one explorer client', async () => {
    const first = payTx([[DEST, units(1485)]], 'first');
    const second = payTx([[DEST, units(1485)]], 'second');
    const world = sbrlWorld(
      [finalizedAnswer(1, first.txid), finalizedAnswer(2, second.txid)],
      sbrlChain([first, second]),
    );
    const r = await watchIn([id(1), id(2)], world, { verify: true, interval: '1' });
    expect(r.code, r.stderr).toBe(0);
    // one client for the whole watch, asked for both transactions, closed at the end
    expect(r.explorers).toHaveLength(1);
    const [explorer] = r.explorers;
    expect(explorer!.baseUrl).toBe(EXPLORER_URL);
    expect(
      explorer!.calls
        .filter((c) => c.startsWith('hex '))
        .map((c) => c.slice(4))
        .sort(),
    ).toEqual([first.txid, second.txid].sort());
    expect(explorer!.closed).toBe(true);
  });

  it('a transaction paying both shares in full verifies both, one run after the other', async () => {
    const tx = payTx([[DEST, units(2970)]]);
    const run = runOn(
      sbrlWorld(
        [finalizedAnswer(1, tx.txid), finalizedAnswer(2, tx.txid), finalizedAnswer(3, tx.txid)],
        sbrlChain([tx]),
      ),
      historyDir(),
    );
    const first = await run([id(1)]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'the destination address received 29.70000000, more than the 14.85000000 due',
    );
    const second = await run([id(2)]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`as due (with the share of deposit ${id(1)}, counted earlier`);
    // nothing is left for a third
    const third = await run([id(3)]);
    expect(third.code).toBe(1);
    expect(third.stdout).toContain('but 44.55000000 was due');
  });

  it('a settlement confirmed before the deposit existed (an old one reused) does not settle it', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const old = { ...CONFIRMED, block_time: Date.parse('2026-11-20T09:00:00Z') / 1000 };
    const r = await verifyIn([id(1)], sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx], old)));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `MISMATCH   the transaction was confirmed at 2026-11-20T09:00:00.000Z, before deposit ${id(1)} was created (2026-11-22T10:00:00.000Z): it cannot be its settlement`,
    );
    expect(r.appended.filter((x) => x.type === 'verified')).toEqual([]);
    // an explorer that gives no block time leaves it unproven, and says why
    const { block_time: _t, ...timeless } = CONFIRMED;
    const u = await verifyIn([id(1)], sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx], timeless)));
    expect(u.code).toBe(7);
    expect(u.stdout).toContain('not proven the explorer gave no block time');
    expect(u.stderr).toContain('use an explorer that does');
    // within the clock margin (an hour) it is not refused
    const near = { ...CONFIRMED, block_time: Date.parse('2026-11-22T09:30:00Z') / 1000 };
    const ok = await verifyIn([id(1)], sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx], near)));
    expect(ok.code).toBe(0);
  });
});

// every number proven (shares, splits, precision, a block above the tip) and a destination lbrl
// has no record of are judged by the same rules in test/cmd/verify-in-process.test.ts
describe('where the destination came from, on a watch', () => {
  it("a deposit lbrl has no record of, paying none of the profile's addresses: watch --verify trusts it only when told", async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const world = () => sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx]), { stranger: true });
    // watch takes it with --verify only
    const watch = await watchIn([id(1)], world(), { trustServiceAddress: true });
    expect([watch.code, watch.stderr]).toEqual([
      2,
      "error: --trust-service-address goes with --verify (or the profile's verify on)\n",
    ]);
    expect(watch.asked).toEqual([]);
    const untrusted = await watchIn([id(1)], world(), { verify: true });
    expect(untrusted.code).toBe(7);
    expect(untrusted.stderr).toContain(`lbrl has no record of deposit ${id(1)}`);
    expect(untrusted.appended.some((x) => x.type === 'verified')).toBe(false);
    const trusted = await watchIn([id(1)], world(), { verify: true, trustServiceAddress: true });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).toContain(`deposit ${id(1)}: settlement verified on chain`);
  });
});

describe("a settlement made wrongly by the sandbox chain's builder", () => {
  // R$ 1500.00 (net 1485.00) to a confidential address whose blinding key the profile holds, 2.99%
  // to SPLIT: the transaction `sandbox pay --settle <mode>` sends, as its chain builds it
  const KEY = '11'.repeat(32);
  const pub = zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(KEY, 'hex')), true)!;
  const TO = blech32Encode(
    'el',
    Uint8Array.from([0, ...bech32.toWords(Uint8Array.from([...pub, ...Buffer.alloc(20, 0x6f)]))]),
    'blech32',
  );

  it.each([
    [
      'amount',
      'destination-amount',
      'the destination address received 1440.58850000, but 1440.59850000 was due',
    ],
    ['asset', 'asset', "received another asset than the profile's"],
    ['address', 'destination', 'no output pays the destination address'],
  ] as const)('--settle %s is a mismatch naming %s (exit 1)', async (mode, what, line) => {
    const tx = buildSettlementTx(
      zkp,
      {
        id: id(1),
        amountInCents: 150_000,
        feeCents: 1500,
        destinationAddress: TO,
        splitAddress: SPLIT,
        splitBasisPoints: 299,
      },
      mode,
      'elementsregtest',
    )!;
    const { qrCode: _q, ...answer } = createAnswer({
      amountInCents: 150_000,
      lbrlAddress: TO,
      lbrlSplitAddress: SPLIT,
      splitFee: '2.99%',
    });
    const deposit = {
      ...answer,
      id: id(1),
      status: 'FINALIZED',
      settlement: { status: 'FINALIZED', liquidTxid: tx.txid },
      confirmedAt: '2026-11-22T10:05:30.000Z',
    };
    const world = () =>
      sbrlWorld([deposit as ReturnType<typeof finalizedAnswer>], sbrlChain([tx]), {
        settings: { 'default-address': TO },
        keys: [{ key: KEY }],
      });
    const r = await verifyIn([id(1)], world());
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('MISMATCH: the transaction contradicts the deposit');
    expect(r.stdout).toContain(line);
    expect(r.stderr).toContain(`error: the settlement of deposit ${id(1)} contradicts the deposit`);
    expect(r.appended.at(-1)).toMatchObject({ type: 'unverified', outcome: 'mismatch', txid: tx.txid });
    const asJson = await verifyIn([id(1)], world(), { json: true });
    expect(asJson.code).toBe(1);
    const checks = (
      JSON.parse(asJson.stdout) as {
        deposits: Array<{ report: { checks: Array<{ what: string; outcome: string }> } }>;
      }
    ).deposits[0]!.report.checks;
    expect(checks.filter((c) => c.outcome === 'mismatch').map((c) => c.what)).toContain(what);
    expect(JSON.parse(asJson.stderr.trim().split('\n').at(-1)!).error).toMatchObject({
      type: 'mismatch',
      exitCode: 1,
    });
    expect(r.stdout + r.stderr + asJson.stdout + asJson.stderr).not.toContain(KEY);
  });
});

describe('watch --verify ends', () => {
  it('a mismatch ends the watch with exit 1; no transaction keeps it waiting until --timeout (124)', async () => {
    const short = payTx([[DEST, units(1484)]], 'short');
    const world = sbrlWorld([finalizedAnswer(1, short.txid)], sbrlChain([short]));
    const r = await watchIn([id(1)], world, { verify: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('but 14.85000000 was due');
    expect(r.stderr).toContain(`error: the settlement of deposit ${id(1)} contradicts the deposit`);

    const none = sbrlWorld([finalizedAnswer(1, 'cd'.repeat(32))], sbrlChain([]));
    const t = await watchIn([id(1)], none, { verify: true, timeout: '60' });
    expect(t.code).toBe(124);
    expect(t.stderr).toContain('not yet known to the explorer');
    expect(t.stderr).toContain('not yet verified on chain');
    // at the deadline, on the run's own clock
    expect(t.clock.t - VERIFY_NOW).toBe(60_000);
    expect(t.appended.some((x) => x.type === 'verified')).toBe(false);
  });
});

/** `deposit create --amount 15 --to DEST -q`'s work: the checked create, recorded in the history file. */
async function created(history: History, n: number): Promise<string> {
  const api = scriptedDepositApi({
    create: (body) => ({
      ...createAnswer(body),
      id: id(900 + n),
      createdAt: new Date(CREATED).toISOString(),
    }),
  });
  const { value } = await createChecked(
    {
      api,
      recorder: { record: (records) => history.append(records) },
      scope: { profile: 'default', target: TARGET },
      now: () => CREATED,
    },
    { amountInCents: 1500, lbrlAddress: DEST },
    `key-${n}`,
  );
  return value.id;
}

/** `deposit list` over the history file: on a terminal (a table), or --json; --unverified. */
async function listed(history: () => History, flags: ListOptions = {}, o: { json?: boolean } = {}) {
  const term = plainTerminal({ json: o.json, ...(o.json ? {} : { columns: 80 }) });
  const seen = await seenRun(term, () =>
    runList({
      flags,
      printer: term.printer,
      json: o.json === true,
      profileName: 'default',
      ctx: term.ctx,
      history,
      refresh: {
        targetKey: () => TARGET,
        client: () => Promise.reject(new Error('list without --refresh asks nothing')),
        recorder: { record: () => {} },
        expireAfterMs: () => 24 * 3600_000,
        paidAfterExpiry: () => {},
      },
    }),
  );
  expect(seen.error).toBeUndefined();
  return seen.stdout;
}
const listJson = async (history: () => History, flags: ListOptions = {}) =>
  JSON.parse(await listed(history, flags, { json: true })) as Array<Record<string, unknown>>;

describe('the history follows the chain', () => {
  it('a deposit verified, then its transaction back in the mempool, then gone: list shows what was found', async () => {
    const tx = payTx([[DEST, units(1485)]]);
    const chain = sbrlChain([tx]);
    const history = historyDir();
    const made = await created(history.fresh(), 1);
    const world = sbrlWorld([{ ...finalizedAnswer(0, tx.txid), id: made }], chain, { noSplit: true });
    const run = runOn(world, history);

    const verified = await run([made]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('proven     the addresses are the ones lbrl asked for (local history)');
    const table = async () => (await listed(history.fresh)).split('\n')[1];
    const first = async () => (await listJson(history.fresh))[0]!;
    expect(await table()).toMatch(/FINALIZED {2}verified$/);
    expect((await first()).verifiedAt).toBe('2026-11-22T11:00:00.000Z');

    // a reorg: the transaction is back in the mempool
    chain.txs.set(tx.txid, { hex: tx.hex, status: { confirmed: false } });
    expect((await run([made])).code).toBe(8);
    expect(await table()).toMatch(/FINALIZED {2}pending$/);
    const afterReorg = await first();
    expect(afterReorg.verifiedAt).toBeUndefined();
    expect(afterReorg.onChain).toBe('pending');
    // asked again: nothing new to record
    const size = fs.statSync(history.file).size;
    expect((await run([made])).code).toBe(8);
    expect(fs.statSync(history.file).size).toBe(size);

    // then gone from the explorer
    chain.txs.delete(tx.txid);
    expect((await run([made])).code).toBe(8);
    expect((await first()).onChain).toBe('not-found');

    // back and deep enough: verified again
    chain.txs.set(tx.txid, { hex: tx.hex, status: CONFIRMED });
    expect((await run([made])).code).toBe(0);
    const again = await first();
    expect(again.onChain).toBeUndefined();
    expect(again.verifiedAt).toBe('2026-11-22T11:00:00.000Z');
  });

  it('a first verification that finds a mismatch or nothing proven is kept: list, its filters and report count it', async () => {
    const short = payTx([[DEST, units(1485) - 1n]], 'short');
    const chain = sbrlChain([short]);
    const history = historyDir();
    const paidShort = await created(history.fresh(), 1);
    const unproven = await created(history.fresh(), 2);
    const world = sbrlWorld(
      [
        { ...finalizedAnswer(0, short.txid), id: paidShort },
        { ...finalizedAnswer(0, short.txid), id: unproven },
      ],
      chain,
      { noSplit: true },
    );
    const run = runOn(world, history);
    expect((await run([paidShort])).code).toBe(1);
    // the registry answer is gone: the precision of the pinned asset is not proven
    chain.assets = {};
    expect((await run([unproven])).code).toBe(7);
    const all = await listJson(history.fresh);
    expect(Object.fromEntries(all.map((e) => [e.id, e.onChain]))).toEqual({
      [paidShort]: 'mismatch',
      [unproven]: 'unproven',
    });
    expect(await listJson(history.fresh, { unverified: true })).toHaveLength(2);
    const term = plainTerminal({ json: true, now: () => Date.parse('2026-11-22T12:00:00Z') });
    await runReport({
      flags: {} as ReportOptions,
      json: true,
      printer: term.printer,
      profileName: 'default',
      ctx: term.ctx,
      history: history.fresh,
    });
    expect(JSON.parse(term.stdout).total).toMatchObject({
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
  const tx = payTx([[DEST, units(1485)]]);

  it.each([
    ['http to another host, with a password', 'http://alice:hunter2pass@203.0.113.9/api'],
    ['https with a password', 'https://alice:hunter2pass@blockstream.info/liquid/api'],
    ['ftp', 'ftp://203.0.113.9/api'],
    ['file', 'file:///etc/passwd'],
    ['a query', 'https://blockstream.info/liquid/api?x=1'],
  ])(
    'esplora-url edited by hand (%s): refused before any request, the password never shown',
    async (_, url) => {
      const world = () =>
        sbrlWorld([finalizedAnswer(1, tx.txid)], sbrlChain([tx]), { settings: { 'esplora-url': url } });
      const runs = [
        await verifyIn([id(1)], world()),
        await verifyIn([id(1)], world(), { json: true }),
        await watchIn([id(1)], world(), { verify: true }),
      ];
      for (const r of runs) {
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(
          /esplora-url in profile default of \/config\/config\.json is not valid: .*https:\/\//,
        );
        expect(r.stdout + r.stderr).not.toContain('hunter2pass');
        // no explorer client made, so nothing asked of it; nor of the service
        expect(r.explorers).toEqual([]);
        expect(r.asked).toEqual([]);
      }
      // what config get and config list show of it
      const get = plainTerminal({ json: true });
      await runGetSetting('esplora-url', {
        printer: get.printer,
        json: true,
        profileName: 'default',
        configFile: '/config/config.json',
        profile: () => ({ network: 'elementsregtest', 'esplora-url': url }),
        baseUrlSetting: () => undefined,
        target: () => ({ mode: 'sandbox' }),
        network: () => 'elementsregtest',
      });
      expect(get.stdout + get.stderr).not.toContain('hunter2pass');
      const list = plainTerminal({ json: true });
      runListSettings({
        printer: list.printer,
        json: true,
        profileName: 'default',
        profile: {},
        setting: (key: ConfigKey) => world().settings[key],
      });
      expect(JSON.parse(list.stdout)['esplora-url']).toBeTypeOf('string');
      expect(list.stdout).not.toContain('hunter2pass');
    },
  );

  it('esplora-url edited into the config file: the whole run refuses it before any request (exit 2)', async () => {
    // through the CLI: the hand-edited file is read by the factory; nothing is asked of anyone, so
    // no server (the service's URL is a port nothing listens on: a request would be exit 6)
    const env = liveEnv('http://127.0.0.1:9');
    expect((await runCli(['config', 'set', 'network', 'elementsregtest'], { env })).code).toBe(0);
    const file = `${env.LBRL_CONFIG_DIR}/config.json`;
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      profiles: Record<string, Record<string, string>>;
    };
    config.profiles.default!['esplora-url'] = 'http://alice:hunter2pass@127.0.0.1:9/api';
    fs.writeFileSync(file, JSON.stringify(config));
    for (const args of [
      ['deposit', 'verify', id(1)],
      ['deposit', 'verify', id(1), '--verbose'],
      ['deposit', 'verify', id(1), '--json'],
      ['deposit', 'watch', id(1), '--verify'],
    ]) {
      const r = await runCli(args, { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/esplora-url in profile default of .* is not valid: .*https:\/\//);
      expect(r.stdout + r.stderr).not.toContain('hunter2pass');
    }
    expect((await runCli(['config', 'get', 'esplora-url'], { env })).stdout).not.toContain('hunter2pass');
    expect((await runCli(['config', 'list', '--json'], { env })).stdout).not.toContain('hunter2pass');
  });

  it('a password in a URL given to config set or LBRL_BASE_URL is never printed', async () => {
    const term = plainTerminal();
    let writes = 0;
    const set = await seenRun(term, () =>
      runSetSetting('esplora-url', 'https://alice:hunter2pass@example.com/api', {
        printer: term.printer,
        profileName: 'default',
        profileForRepair: () => ({}),
        updateProfile: async () => {
          writes += 1;
        },
      }),
    );
    expect(set.error?.exitCode).toBe(2);
    expect(set.error?.message).toContain('[redacted]@example.com');
    expect(set.error?.message).not.toContain('hunter2pass');
    expect(writes).toBe(0);
    // through the CLI: LBRL_BASE_URL is read by the factory; refused before any request, no server
    const base = await runCli(['deposit', 'get', id(1), '--verbose'], {
      env: { ...liveEnv('http://127.0.0.1:9'), LBRL_BASE_URL: 'https://alice:hunter2pass@example.com' },
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

  /** A config file of its own, its default profile on this network. */
  async function configFile(network = 'elementsregtest') {
    const store = new ConfigStore(tempDir());
    await store.updateProfile('default', (profile) => {
      profile.network = network;
    });
    return store;
  }

  /** A run's end as the handler prints it, with its exit code. */
  function ended(term: PlainTerminal, seen: SeenRun) {
    if (seen.error) term.printer.error(seen.error);
    return { ...seen, stderr: term.stderr, code: seen.error?.exitCode ?? 0 };
  }

  /**
   * `lbrl config set-blinding-key [--address]` into the config file (each read a fresh look at
   * it): the key on stdin, or asked at a terminal by `prompter`; `input: false` is --no-input.
   */
  async function setKey(
    store: ConfigStore,
    flags: BlindingKeyOptions,
    o: { stdin?: string; prompter?: Prompter; input?: boolean } = {},
  ) {
    const term = plainTerminal(o.stdin !== undefined ? { stdin: o.stdin } : {});
    const tty = o.prompter !== undefined;
    const ctx = {
      ...term.ctx,
      stdin: Object.assign(term.ctx.stdin, { isTTY: tty }),
      stdout: { ...term.ctx.stdout, isTTY: tty },
      ...(o.prompter ? { prompter: o.prompter } : {}),
    } as unknown as Context;
    const seen = await seenRun(term, () =>
      runSetBlindingKey({
        flags,
        printer: term.printer,
        profileName: 'default',
        ctx,
        input: o.input,
        color: false,
        profile: () => new ConfigStore(store.dir).profile('default'),
        profileForRepair: () => new ConfigStore(store.dir).rawProfile('default'),
        updateProfile: (change) => new ConfigStore(store.dir).updateProfile('default', change),
      }),
    );
    return ended(term, seen);
  }

  /** `lbrl config set <key> <value>` into the config file. */
  async function setSetting(store: ConfigStore, key: string, value: string) {
    const term = plainTerminal();
    const seen = await seenRun(term, () =>
      runSetSetting(key, value, {
        printer: term.printer,
        profileName: 'default',
        profileForRepair: () => new ConfigStore(store.dir).rawProfile('default'),
        updateProfile: (change) => new ConfigStore(store.dir).updateProfile('default', change),
      }),
    );
    return ended(term, seen);
  }

  /** `lbrl config list` of the config file's profile. */
  function listSettings(store: ConfigStore) {
    const profile = new ConfigStore(store.dir).profile('default');
    const term = plainTerminal();
    runListSettings({
      printer: term.printer,
      json: false,
      profileName: 'default',
      profile,
      setting: (key) => {
        const value = (profile as Record<string, unknown>)[key];
        return typeof value === 'string' ? value : undefined;
      },
    });
    return term.stdout;
  }

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
    const store = await configFile();
    const before = fs.readFileSync(store.file, 'utf8');
    const r = await setKey(store, {}, { stdin: `${text}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: the blinding key given is not usable');
    expect(r.stderr).not.toContain(KEY);
    // nothing stored: the file as it was
    expect(fs.readFileSync(store.file, 'utf8')).toBe(before);
    expect(new ConfigStore(store.dir).profile('default')['blinding-keys']).toBeUndefined();
  });

  it("a key given with --address must be that address's: a wrong one is refused and the good one kept", async () => {
    const store = await configFile();
    const address = confidential();
    const good = await setKey(store, { address }, { stdin: KEY });
    expect(good.code).toBe(0);
    const wrong = await setKey(store, { address }, { stdin: '22'.repeat(32) });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`the blinding key given is not the blinding key of ${address}`);
    expect(wrong.stderr).not.toContain('22'.repeat(32));
    const file = fs.readFileSync(store.file, 'utf8');
    expect(file).toContain(KEY);
    expect(file).not.toContain('22'.repeat(32));
    // an unconfidential address has no blinding key at all
    const plain = await setKey(store, { address: DEST }, { stdin: KEY });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('is not confidential');
  });

  it('settings are checked on set; blinding keys only from stdin, never as a value', async () => {
    const store = await configFile('liquid');
    for (const [k, v] of [
      ['esplora-url', 'http://example.com/api'],
      ['asset-id', 'xyz'],
      ['confirmations', '0'],
      ['verify', 'yes'],
    ] as const) {
      const r = await setSetting(store, k, v);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`invalid value for ${k}`);
    }
    const asValue = await setSetting(store, 'blinding-keys', 'aa'.repeat(32));
    expect(asValue.code).toBe(2);
    expect(asValue.stderr).toContain('config set-blinding-key');
    expect(asValue.stderr).not.toContain('aa'.repeat(32));
    expect((await setKey(store, {}, { stdin: 'not a key' })).code).toBe(2);
    const good = await setKey(store, {}, { stdin: `slip77(${'22'.repeat(32)})\n` });
    expect(good.code).toBe(0);
    expect(fs.statSync(store.file).mode & 0o777).toBe(0o600);
    // at a terminal: a prompt that does not echo; with --no-input, a clear refusal
    const { prompter, asked } = passwordPrompter(KEY);
    const address = confidential();
    // an address of another network than the profile's is refused before anything is asked
    const otherNetwork = await setKey(store, { address }, { prompter });
    expect(otherNetwork.code).toBe(2);
    expect(otherNetwork.stderr).toContain('invalid --address');
    expect(asked).toEqual([]);
    expect((await setSetting(store, 'network', 'elementsregtest')).code).toBe(0);
    const atPrompt = await setKey(store, { address }, { prompter });
    expect(atPrompt.code).toBe(0);
    expect(asked).toEqual([`Blinding key for address ${address}`]);
    expect(atPrompt.stdout + atPrompt.stderr).not.toContain(KEY);
    const refused = await setKey(store, {}, { prompter, input: false });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('no terminal to ask for the blinding key');
    const list = listSettings(store);
    expect(list).toContain('blinding-keys=(set: 1 for the wallet, 1 for single addresses; never shown)');
    expect(list).not.toContain(KEY);
    expect(list).not.toContain('22'.repeat(32));
  });

  it('a key given where the address goes is not echoed; a mistyped key leaves the expected forms readable', async () => {
    const store = await configFile();
    const key = '3c'.repeat(32);
    for (const given of [key, `slip77(${key})`, `ct(slip77(${key}),elwpkh(02${'ab'.repeat(32)}))`]) {
      const r = await setKey(store, { address: given }, { stdin: `${key}\n` });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain(key.slice(0, 8));
      expect(r.stderr).toMatch(/^error: invalid --address: .*blinding key.*stdin.*\n$/);
    }
    const typo = await setKey(store, {}, { stdin: `slip77(${key.slice(0, 62)}zz)\n` });
    expect(typo.code).toBe(2);
    expect(typo.stderr).not.toContain(key.slice(0, 8));
    expect(typo.stderr).not.toContain('[redacted]');
    expect(typo.stderr).toContain('slip77(<master blinding key>) or a ct(slip77(...),...) descriptor');
    expect(new ConfigStore(store.dir).profile('default')['blinding-keys']).toBeUndefined();
  });

  it('a key that does not open the output gets a hint saying so', async () => {
    const address = confidential();
    const tx = payTx([[address, units(1485)]]);
    const world = sbrlWorld(
      [{ ...finalizedAnswer(1, tx.txid), destinationAddress: address }],
      sbrlChain([tx]),
      { settings: { 'default-address': address }, keys: [{ key: '33'.repeat(32) }] },
    );
    const r = await verifyIn([id(1)], world);
    expect(r.code).toBe(7);
    expect(r.stdout).toContain(
      "did not open with the blinding keys given (none of them is this address's key)",
    );
    expect(r.stderr).toContain('the blinding keys set do not open the outputs');
    expect(r.stderr).not.toContain('hint: add the blinding key');
    expect(r.stdout + r.stderr).not.toContain('33'.repeat(32));
  });
});

describe('the ids', () => {
  it('an unknown deposit is exit 4; a bad id exit 2, nothing asked', async () => {
    const world = sbrlWorld([], sbrlChain([]));
    const unknown = await verifyIn([id(7)], world);
    expect(unknown.code).toBe(4);
    expect(unknown.asked).toEqual([id(7)]);
    const bad = await verifyIn(['nope'], world);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid deposit id "nope"');
    expect(bad.asked).toEqual([]);
    expect(bad.explorers).toEqual([]);
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
      const r = await verifyIn([id(1)], sbrlWorld([finalizedAnswer(1, tx.txid, { split })], sbrlChain([tx])));
      expect(r.code).toBe(code);
      expect(r.appended.some((x) => x.type === 'verified')).toBe(code === 0);
      if (code === 0 && s === 0 && sx === 0n)
        expect(r.stdout).toContain('no output pays the split address: its share is less than a cent');
    },
  );
});
