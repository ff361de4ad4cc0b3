/**
 * `sandbox serve`, `pay`, `fail`, `send` and `trigger` as functions of narrow options (runServe,
 * runAct, runSend, runTrigger): a printer on plain strings, a clock the test sets, sandbox data in
 * a temporary directory, and fakes for what would open a socket (the standing server, a standing
 * sandbox's API). Only trigger's story runs a sandbox of its own, on a loopback port, as the
 * command does. What a user sees is asserted: stdout, stderr, the error and its exit code, the
 * sandbox data written. The runs of the built CLI are in test/e2e/sandbox.test.ts and
 * test/e2e/standing-sandbox.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DepositClient } from '../../src/api/client.js';
import {
  type ActCommandOptions,
  runAct,
  runSend,
  runServe,
  type SendCommandOptions,
  type ServeCommandOptions,
} from '../../src/commands/sandbox.js';
import { runTrigger, SLOW_MS, type TriggerCommandOptions } from '../../src/commands/sandbox-trigger.js';
import type { Target } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { findChainTx } from '../../src/sandbox/chain-store.js';
import { startSandbox } from '../../src/sandbox/embedded.js';
import { type StoredDeposit, stateAt } from '../../src/sandbox/lifecycle.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { qrPng } from '../../src/ui/qrpng.js';
import { tempDir } from '../helpers/cli.js';
import { brCode, ID, LQ, TEX } from '../helpers/fixtures.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const LIVE: Target = {
  mode: 'live',
  baseUrl: 'http://127.0.0.1:8080',
  token: 'sbx_0123456789abcdef0123456789abcdef',
  baseUrlFrom: 'LBRL_BASE_URL',
  tokenFrom: 'LBRL_TOKEN',
};

/** Runs a command, the error printed as the one handler prints it. */
async function capture(
  json: boolean,
  work: (printer: ReturnType<typeof plainTerminal>['printer']) => Promise<void>,
) {
  const term = plainTerminal({ json });
  let error: unknown;
  try {
    await work(term.printer);
  } catch (e) {
    error = e;
    if (e instanceof LbrlError) term.printer.error(e);
  }
  const code = error === undefined ? 0 : error instanceof LbrlError ? error.exitCode : -1;
  return { stdout: term.stdout, stderr: term.stderr, error, code };
}

describe('sandbox serve, in process', () => {
  function serve(
    o: {
      flags?: Partial<ServeCommandOptions['flags']>;
      json?: boolean;
      quiet?: boolean;
      baseUrl?: string;
      fails?: Error;
    } = {},
  ) {
    const started: Parameters<ServeCommandOptions['start']>[0][] = [];
    let closed = 0;
    const stop = new AbortController();
    const dir = tempDir();
    const run = capture(o.json ?? false, (printer) =>
      runServe({
        flags: { port: '8080', host: '127.0.0.1', ...o.flags },
        printer,
        json: o.json ?? false,
        quiet: o.quiet ?? false,
        sandboxDir: dir,
        autopay: () => '20',
        token: () => 'sbx_0123456789abcdef0123456789abcdef',
        now: () => NOW,
        signal: stop.signal,
        async start(settings) {
          started.push(settings);
          if (o.fails) throw o.fails;
          settings.log?.('GET /v1/api/deposit/x 404 1ms');
          return {
            baseUrl: o.baseUrl ?? `http://${settings.host}:${settings.port}`,
            token: settings.token,
            close: async () => {
              closed++;
            },
          };
        },
      }),
    );
    return { run, started, stop, closed: () => closed, dir };
  }

  it('prints the base URL and token as env lines, runs until Ctrl-C, then closes and exits 130', async () => {
    const s = serve();
    await new Promise((r) => setImmediate(r));
    expect(s.closed()).toBe(0);
    s.stop.abort();
    const r = await s.run;
    expect(r.stdout).toBe(
      'LBRL_BASE_URL=http://127.0.0.1:8080\nLBRL_TOKEN=sbx_0123456789abcdef0123456789abcdef\n',
    );
    expect(r.stderr).toContain('GET /v1/api/deposit/x 404 1ms\n');
    expect(r.stderr).toContain(
      `sandbox serving at http://127.0.0.1:8080 (data in ${s.dir}; autopay after 20 s); Ctrl-C to stop`,
    );
    expect(r.code).toBe(130);
    expect(s.closed()).toBe(1);
    expect(s.started).toHaveLength(1);
    expect(s.started[0]).toMatchObject({
      dir: s.dir,
      autopay: '20',
      host: '127.0.0.1',
      port: 8080,
      token: 'sbx_0123456789abcdef0123456789abcdef',
    });
  });

  it('--json: one object with the base URL, token and data directory; no request log', async () => {
    const s = serve({ json: true, quiet: true });
    s.stop.abort();
    const r = await s.run;
    expect(JSON.parse(r.stdout)).toEqual({
      baseUrl: 'http://127.0.0.1:8080',
      token: 'sbx_0123456789abcdef0123456789abcdef',
      dataDir: s.dir,
    });
    expect(s.started[0]!.log).toBeUndefined();
    expect(r.stderr).not.toContain('GET /v1');
  });

  it('beyond loopback: a warning, and one more when the URL is plain http', async () => {
    const s = serve({ flags: { host: '0.0.0.0', port: '0' }, baseUrl: 'http://192.168.1.10:40000' });
    s.stop.abort();
    const r = await s.run;
    expect(r.stderr).toContain('warning: listening on 0.0.0.0, reachable beyond this machine\n');
    expect(r.stderr).toContain(
      'warning: lbrl speaks plain http only to loopback; from another machine, put the sandbox behind https\n',
    );
  });

  it.each([
    ['--port', { port: '65536' }, 'a port number from 0 to 65535'],
    ['--port', { port: '80a' }, 'a port number from 0 to 65535'],
    ['--host', { host: 'a b' }, 'an IP address or host name'],
    ['--host', { host: '' }, 'an IP address or host name'],
  ])('a bad %s (%o) is refused (exit 2) before anything starts', async (flag, flags, expected) => {
    const s = serve({ flags });
    const r = await s.run;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: invalid ${flag} .*expected ${expected}`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(s.started).toEqual([]);
  });

  it('a port that cannot be listened on: one line naming it, exit 2', async () => {
    const s = serve({ fails: new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080') });
    const r = await s.run;
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: cannot listen on 127.0.0.1:8080: listen EADDRINUSE: address already in use 127.0.0.1:8080\n',
    );
    expect(r.stdout).toBe('');
  });
});

/** Sandbox data in a temporary directory, holding one deposit waiting for payment. */
function sandboxData(): { dir: string; store: SandboxStore } {
  const dir = tempDir('lbrl-sandbox-');
  const store = new SandboxStore(dir);
  const deposit: StoredDeposit = {
    id: ID,
    amountInCents: 1500,
    destinationAddress: LQ,
    splitAddress: null,
    qrCodeText: brCode(1500),
    feeCents: 15,
    splitBasisPoints: null,
    createdAt: NOW - 60_000,
    autopayAfterMs: null,
  };
  store.publish(deposit);
  return { dir, store };
}

describe('sandbox pay and fail, in process', () => {
  interface Standing {
    raw?: Record<string, unknown>;
    calls: string[];
  }
  function act(
    o: Pick<Partial<ActCommandOptions>, 'idText' | 'action' | 'settle'> & {
      dir: string;
      json?: boolean;
      target?: Target;
      standing?: Standing;
      now?: number;
    },
  ) {
    return capture(o.json ?? false, (printer) =>
      runAct({
        idText: ID,
        action: 'pay',
        printer,
        json: o.json ?? false,
        target: () => o.target ?? { mode: 'sandbox' },
        client: async () => ({
          async getDeposit(id) {
            o.standing?.calls.push(`get ${id}`);
            return { raw: o.standing?.raw ?? {} };
          },
          async sandboxAction(id, action) {
            o.standing?.calls.push(`${action} ${id}`);
            return {
              value: { id, status: 'PIX_CONFIRMED' },
              raw: { id, status: 'PIX_CONFIRMED', sandbox: true },
            };
          },
        }),
        sandboxDir: o.dir,
        now: () => o.now ?? NOW,
        ...(o.idText !== undefined ? { idText: o.idText } : {}),
        ...(o.action !== undefined ? { action: o.action } : {}),
        ...(o.settle !== undefined ? { settle: o.settle } : {}),
      }),
    );
  }
  const status = (store: SandboxStore, at: number) => {
    const fresh = new SandboxStore(store.dir);
    return stateAt(fresh.load(ID)!, fresh.eventsOf(ID), at).status;
  };

  it('pay: PIX_CONFIRMED now, written in the sandbox data; FINALIZED a few seconds later', async () => {
    const { dir, store } = sandboxData();
    const r = await act({ dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`paid ${ID}: PIX_CONFIRMED now, FINALIZED in about 3 s\n`);
    expect(r.stderr).toBe('');
    expect(status(store, NOW)).toBe('PIX_CONFIRMED');
    expect(status(store, NOW + 3000)).toBe('FINALIZED');
  });

  it('pay --json: the deposit as the sandbox answers it', async () => {
    const { dir } = sandboxData();
    const r = await act({ dir, json: true });
    expect(JSON.parse(r.stdout)).toMatchObject({ id: ID, status: 'PIX_CONFIRMED', amountInCents: 1500 });
  });

  it('pay twice: the second is refused with the status it is in (exit 2)', async () => {
    const { dir } = sandboxData();
    await act({ dir });
    const r = await act({ dir, now: NOW + 1500 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: deposit ${ID} is SETTLEMENT_CREATED; `));
    expect(r.stdout).toBe('');
  });

  it('fail: a waiting deposit ends FAILED, and says what it was', async () => {
    const { dir, store } = sandboxData();
    const r = await act({ dir, action: 'fail' });
    expect(r.stdout).toBe(`failed ${ID}: FAILED (was WAITING_PAYMENT)\n`);
    expect(status(store, NOW + 60_000)).toBe('FAILED');
  });

  it('--settle amount is written with the payment; --settle ok is the default', async () => {
    const { dir, store } = sandboxData();
    await act({ dir, settle: 'amount' });
    expect(new SandboxStore(store.dir).eventsOf(ID)).toMatchObject({ paidAt: NOW, settle: 'amount' });
    const other = sandboxData();
    await act({ dir: other.dir, settle: 'ok' });
    expect(new SandboxStore(other.dir).eventsOf(ID).settle).toBeUndefined();
  });

  it.each([
    ['a bad --settle', { settle: 'half' }, /^error: invalid --settle "half": expected ok, amount/],
    ['a bad id', { idText: 'not-an-id' }, /^error: invalid deposit id "not-an-id"/],
  ])('%s is refused (exit 2), nothing written', async (_n, over, message) => {
    const { dir, store } = sandboxData();
    const r = await act({ dir, ...over });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(status(store, NOW)).toBe('WAITING_PAYMENT');
  });

  it('a deposit the sandbox data does not hold: not found (exit 3), naming the directory', async () => {
    const dir = tempDir('lbrl-sandbox-');
    const r = await act({ dir });
    expect(r.code).toBe(new LbrlError('', 'not_found').exitCode);
    expect(r.stderr).toBe(`error: deposit ${ID} not found in the sandbox data in ${dir}\n`);
  });

  it('through a standing sandbox: asks first whether the deposit is a sandbox one, then pays it', async () => {
    const standing: Standing = { raw: { id: ID, sandbox: true }, calls: [] };
    const r = await act({ dir: tempDir(), target: LIVE, standing });
    expect(standing.calls).toEqual([`get ${ID}`, `pay ${ID}`]);
    expect(r.stdout).toBe(`paid ${ID}: PIX_CONFIRMED\n`);
    const json = await act({
      dir: tempDir(),
      target: LIVE,
      standing: { ...standing, calls: [] },
      json: true,
    });
    expect(JSON.parse(json.stdout)).toEqual({ id: ID, status: 'PIX_CONFIRMED', sandbox: true });
  });

  it.each([
    ['no sandbox field', { id: ID }],
    ['"sandbox": "true"', { id: ID, sandbox: 'true' }],
    ['"sandbox": 1', { id: ID, sandbox: 1 }],
  ])('a deposit with %s is a real one: never paid by a request of ours (exit 2)', async (_n, raw) => {
    const standing: Standing = { raw, calls: [] };
    const r = await act({ dir: tempDir(), target: LIVE, standing });
    expect(r.code).toBe(2);
    expect(standing.calls).toEqual([`get ${ID}`]);
    expect(r.stderr).toBe(
      `error: deposit ${ID} at ${LIVE.mode === 'live' ? LIVE.baseUrl : ''} is not a sandbox deposit (no "sandbox": true): sandbox pay acts only on a sandbox\n`,
    );
  });

  it('--settle through a standing sandbox is refused before any request', async () => {
    const standing: Standing = { raw: { sandbox: true }, calls: [] };
    const r = await act({ dir: tempDir(), target: LIVE, standing, settle: 'asset' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: --settle works on the local sandbox data only, not through a standing sandbox\n',
    );
    expect(standing.calls).toEqual([]);
  });
});

describe('sandbox send, in process', () => {
  function send(
    flags: SendCommandOptions['flags'],
    o: { json?: boolean; target?: Target; dir?: string } = {},
  ) {
    const dir = o.dir ?? tempDir('lbrl-sandbox-');
    const run = capture(o.json ?? false, (printer) =>
      runSend({
        flags,
        printer,
        json: o.json ?? false,
        network: () => 'liquid',
        target: () => o.target ?? { mode: 'sandbox' },
        sandboxDir: dir,
        now: () => NOW,
      }),
    );
    return { run, dir };
  }

  it('pays the address on the sandbox chain: the txid printed, the transaction written', async () => {
    const { run, dir } = send({ to: LQ, amount: '12,34' });
    const r = await run;
    expect(r.code).toBe(0);
    const m = /^sent R\$ ?12,34 to (\S+) on the sandbox chain: txid ([0-9a-f]{64})\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(m![1]).toBe(LQ);
    const tx = findChainTx(new SandboxStore(dir), m![2]!);
    expect(tx).toBeDefined();
    expect(tx!.sentAt).toBe(NOW);
  });

  it('--json: the txid, the address and the amount in cents', async () => {
    const r = await send({ to: LQ, amount: '0,01' }, { json: true }).run;
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ to: LQ, amountInCents: 1 });
    expect(out.txid).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['no --to', { amount: '1' }, 'error: sandbox send needs --to <liquid-address>\n'],
    ['no --amount', { to: LQ }, 'error: sandbox send needs --amount <reais>\n'],
    [
      'an address of another network',
      { to: TEX, amount: '1' },
      /^error: invalid --to .*expected a liquid address \(the profile's network\)\n$/,
    ],
    [
      'not an address',
      { to: 'lq1nonsense', amount: '1' },
      /^error: invalid --to "lq1nonsense": expected a Liquid address/,
    ],
    ['an amount with three decimals', { to: LQ, amount: '1,234' }, /^error: invalid --amount "1,234"/],
    ['a float-looking amount', { to: LQ, amount: '1e3' }, /^error: invalid --amount "1e3"/],
  ])('%s is refused (exit 2), nothing written', async (_n, flags, message) => {
    const { run, dir } = send(flags);
    const r = await run;
    expect(r.code).toBe(2);
    if (typeof message === 'string') expect(r.stderr).toBe(message);
    else expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(dir, 'chain'))).toBe(false);
  });

  it('through a standing sandbox or a live service: refused, nothing written', async () => {
    const { run, dir } = send({ to: LQ, amount: '1' }, { target: LIVE });
    const r = await run;
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: sandbox send works on the local sandbox data only, not through a standing sandbox or a live service\n',
    );
    expect(fs.existsSync(path.join(dir, 'chain'))).toBe(false);
  });
});

describe('sandbox trigger, in process', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  function trigger(
    scenario: string,
    o: {
      flags?: TriggerCommandOptions['flags'];
      json?: boolean;
      target?: Target;
      defaultAddress?: string;
      network?: 'liquid' | 'liquidtestnet' | 'elementsregtest';
    } = {},
  ) {
    const dir = tempDir('lbrl-sandbox-');
    const records: StoredRecord[] = [];
    let started = 0;
    const run = capture(o.json ?? false, (printer) =>
      runTrigger({
        scenario,
        flags: o.flags ?? {},
        printer,
        json: o.json ?? false,
        requestDefaults: () => ({
          network: o.network ?? 'liquid',
          defaultAddress: o.defaultAddress,
          splitAddress: undefined,
          splitFee: undefined,
        }),
        target: () => o.target ?? { mode: 'sandbox' },
        scope: () => ({ profile: 'default', target: 'sandbox' }),
        recorder: { record: (r) => records.push(...r) },
        now: () => NOW,
        async startSandbox() {
          started++;
          const sandbox = await startSandbox({ drawPng: qrPng, dir, autopay: 'off', now: () => NOW });
          closers.push(() => sandbox.close());
          return sandbox;
        },
        client: async (target) => {
          const client = new DepositClient({
            baseUrl: target.baseUrl,
            token: target.token,
            maxRetries: 0,
            sleep: async () => {},
            random: () => 0.5,
            now: () => NOW,
          });
          closers.push(() => client.close());
          return client;
        },
      }),
    );
    return { run, dir, records, started: () => started };
  }

  it.each([
    ['paid', 'FINALIZED', {}],
    ['failed', 'FAILED', {}],
    ['paid-slowly', 'TX_SENT', { slowMs: SLOW_MS }],
    ['wrong-settlement', 'FINALIZED', { settle: 'address' }],
    ['abandoned', 'WAITING_PAYMENT', {}],
  ])(
    '%s: a deposit created through the sandbox, recorded, and its story written',
    async (scenario, later, events) => {
      const t = trigger(scenario);
      const r = await t.run;
      expect(r.code).toBe(0);
      const id = r.stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.stderr).toMatch(
        new RegExp(`^triggered ${scenario}: deposit ${id} .*; lbrl listen sends its events\\n$`),
      );
      expect(t.records[0]).toMatchObject({ type: 'created', id, profile: 'default', baseUrl: 'sandbox' });
      const store = new SandboxStore(t.dir);
      const deposit = store.load(id)!;
      expect(deposit.destinationAddress).toBe(LQ);
      expect(deposit.amountInCents).toBe(1000);
      expect(deposit.autopayAfterMs).toBeNull();
      expect(store.eventsOf(id)).toMatchObject(events);
      expect(stateAt(deposit, store.eventsOf(id), NOW + 10_000).status).toBe(later);
    },
  );

  it('--json: the scenario, the id and its story; --to and --amount are used', async () => {
    const t = trigger('paid', { json: true, flags: { to: LQ, amount: '12,34' } });
    const r = await t.run;
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ scenario: 'paid' });
    expect(new SandboxStore(t.dir).load(out.id)!.amountInCents).toBe(1234);
  });

  it.each([
    [
      'an unknown scenario',
      'paid-twice',
      {},
      /^error: invalid scenario "paid-twice": expected one of paid, failed, paid-slowly, wrong-settlement, abandoned\n$/,
    ],
    [
      'no destination on a network without an example',
      'paid',
      { network: 'elementsregtest' as const },
      /^error: sandbox trigger needs a destination on elementsregtest: pass --to <liquid-address> or set default-address\n$/,
    ],
    ['an address of another network', 'paid', { flags: { to: TEX } }, /^error: .*--to/],
    ['a bad amount', 'paid', { flags: { amount: '-5' } }, /^error: .*--amount/],
    ['a live target', 'paid', { target: LIVE }, /^error: sandbox trigger acts on the embedded sandbox/],
  ])('%s is refused (exit 2) before any sandbox starts', async (_n, scenario, o, message) => {
    const t = trigger(scenario, o);
    const r = await t.run;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(t.started()).toBe(0);
    expect(t.records).toEqual([]);
  });
});
