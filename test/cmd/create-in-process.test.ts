/**
 * `deposit create` as a function of narrow options (runCreate): a scripted service in process, a
 * clock that only sleeping moves, a printer on plain strings, no server. What a user sees is
 * asserted (stdout, stderr, the error and its exit code), and what the history is handed.
 * The wire (method, path, headers, base URLs) and the client's reading of an answer stay on a
 * server: test/cmd/create-wire.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CreateRequest } from '../../src/api/models.js';
import type { CreateFlags } from '../../src/commands/deposit-create.js';
import {
  type CreateCommandOptions,
  createOptionsOf,
  runCreate,
  type ServiceTarget,
} from '../../src/commands/deposit-create.js';
import type { Context, Prompter } from '../../src/context.js';
import type { RequestDefaults } from '../../src/deposits/ports.js';
import { startDisplayServer } from '../../src/display/server.js';
import { displayFile, newDisplaySecret, writeDisplayRecord } from '../../src/display/state.js';
import { openRuntime } from '../../src/factory/factory.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { brCode, createAnswer, EX, getAnswer, ID, LQ, PNG_BASE64, TOKEN, VJL } from '../helpers/fixtures.js';
import { followInProcess } from '../helpers/follow-in-process.js';
import { type SeenRun, type SteppingClock, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { decodePng, decodeTerminal } from '../helpers/qr.js';
import {
  type ScriptedDepositApi,
  scriptedDepositApi,
  WrittenAnswer,
} from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
const FOLLOW = `follow it with: lbrl deposit watch ${ID}\n`;

interface Created extends SeenRun {
  api: ScriptedDepositApi;
  /** what the command handed the history, in order */
  records: StoredRecord[];
  clock: SteppingClock;
  /** the plan the --verify hook was handed (with --watch) */
  verifying: Array<{ intervalMs: number; timeoutMs?: number | undefined; verify: boolean | undefined }>;
}

interface Setup {
  json?: boolean;
  quiet?: boolean;
  env?: Record<string, string>;
  /** the answer to each create (default: a well-behaved one) */
  answer?: (body: CreateRequest, n: number) => unknown;
  /** the answers of the watch (--watch) */
  get?: (id: string, n: number) => unknown;
  settings?: Record<string, string>;
  defaults?: Partial<RequestDefaults>;
  target?: ServiceTarget;
  globals?: { profile?: string; baseUrl?: string };
  prompter?: Prompter;
  configDir?: string;
  /** the options as the factory fills them, to take the profile's settings from a real config */
  from?: (flags: CreateFlags) => Partial<CreateCommandOptions>;
}

async function create(flags: Partial<CreateFlags>, o: Setup = {}): Promise<Created> {
  const clock = steppingClock();
  const api = scriptedDepositApi({ create: o.answer, get: o.get, now: clock.now });
  const verifying: Created['verifying'] = [];
  const target = o.target ?? { mode: 'live', baseUrl: SERVICE };
  const scope = { profile: 'default', target: target.mode === 'live' ? target.baseUrl : 'sandbox' };
  const full = flags as CreateFlags;
  const { term, records, deps } = followInProcess({ ...o, clock, api, sandbox: target.mode === 'sandbox' });
  const options: CreateCommandOptions = {
    flags: full,
    ...deps,
    config: { setting: (key) => o.settings?.[key] },
    requestDefaults: () => ({ network: 'liquid', ...o.defaults }),
    target: () => target,
    scope: () => scope,
    client: async () => api,
    prompter: async () => o.prompter,
    profileName: o.globals?.profile ?? 'default',
    configDir: o.configDir ?? tempDir(),
    verifying: async (plan, verify) => {
      verifying.push({ intervalMs: plan.intervalMs, timeoutMs: plan.timeoutMs, verify });
      return plan;
    },
    ...o.from?.(full),
  };
  return { api, records, clock, verifying, ...(await seenRun(term, () => runCreate(options))) };
}

const qrLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^[█▀▄ ]+$/.test(l) && l.length > 20)
    .join('\n');

describe('deposit create, in process with a scripted service', () => {
  it('sends the checked request with a fresh Idempotency-Key, records it, and prints the deposit, QR and copy-paste string', async () => {
    const r = await create({ amount: '1500', to: LQ });
    expect(r.error).toBeUndefined();
    const [sent, ...more] = r.api.creates();
    expect(more).toEqual([]);
    expect(sent!.body).toEqual({ amountInCents: 150000, lbrlAddress: LQ });
    expect(sent!.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(r.stdout).toContain('Amount   R$ 1.500,00 (150000 cents)');
    expect(r.stdout).toContain('Fee      R$ 15,00');
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(150000)}\n`);
    expect(decodeTerminal(qrLines(r.stdout), 'dark')).toBe(brCode(150000));
    // what to do next: the command that follows it
    expect(r.stderr).toBe(FOLLOW);
    // recorded before anything was printed, with what was sent and what was answered
    expect(r.records).toEqual([
      expect.objectContaining({
        type: 'created',
        id: ID,
        profile: 'default',
        baseUrl: SERVICE,
        at: '2026-11-22T10:00:00.000Z',
        amountInCents: 150000,
        destinationAddress: LQ,
        splitAddress: null,
        splitFee: null,
        status: 'WAITING_PAYMENT',
      }),
    ]);
    // each run its own key: a retry of the same run reuses it, a new run never does
    const again = await create({ amount: '1500', to: LQ });
    expect(again.api.creates()[0]!.idempotencyKey).not.toBe(sent!.idempotencyKey);
  });

  it('--json prints the service object as returned, --no-qr and -q behave', async () => {
    const r = await create(
      { amountCents: '1550', to: LQ },
      { json: true, answer: (body) => ({ ...createAnswer(body), extra: { kept: true } }) },
    );
    expect(r.error).toBeUndefined();
    expect(JSON.parse(r.stdout)).toEqual({
      ...createAnswer({ amountInCents: 1550, lbrlAddress: LQ }),
      extra: { kept: true },
    });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('');
    const q = await create({ amount: '15,5', to: LQ }, { quiet: true });
    expect(q.stdout).toBe(`${ID}\n`);
    expect(q.stderr).toBe('');
    const noQr = await create({ amount: '15.5', to: LQ, qr: false });
    expect(noQr.stdout).not.toContain('▄');
    expect(noQr.stdout).toContain(`PIX copy-paste:\n${brCode(1550)}\n`);
  });

  it('sends a split as "X.XX%" and checks the answer', async () => {
    const r = await create({ amount: '10', to: LQ, splitTo: VJL, splitFee: '2,99' });
    expect(r.error).toBeUndefined();
    expect(r.api.creates()[0]!.body).toEqual({
      amountInCents: 1000,
      lbrlAddress: LQ,
      lbrlSplitAddress: VJL,
      splitFee: '2.99%',
    });
    expect(r.stdout).toContain(`Split    2.99% of net to ${VJL}`);
    expect(r.records[0]).toMatchObject({ splitAddress: VJL, splitFee: '2.99%' });
  });

  it('takes the destination and split from the profile (a real config), and --no-split drops the split', async () => {
    const dir = tempDir();
    for (const [k, v] of [
      ['default-address', EX],
      ['split-address', VJL],
      ['split-fee', '5'],
    ] as const) {
      expect((await runCli(['config', 'set', k, v], { env: { LBRL_CONFIG_DIR: dir } })).code).toBe(0);
    }
    // the profile's settings as the factory reads them; the service is the scripted one
    const fromProfile = (flags: CreateFlags) => {
      const ctx = {
        stdout: { write: () => true },
        stderr: { write: () => true },
        stdin: process.stdin,
        env: { LBRL_CONFIG_DIR: dir, LBRL_BASE_URL: SERVICE, LBRL_TOKEN: TOKEN },
        homedir: os.tmpdir(),
        now: () => 0,
        sleep: async () => {},
        random: () => 0.5,
        signal: new AbortController().signal,
      } as Context;
      const { factory } = openRuntime(ctx, { json: true });
      const { requestDefaults, target, scope, config } = createOptionsOf(flags, factory);
      return { requestDefaults, target, scope, config };
    };
    const r = await create({ amount: '1' }, { json: true, from: fromProfile });
    expect(r.error).toBeUndefined();
    expect(r.api.creates()[0]!.body).toEqual({
      amountInCents: 100,
      lbrlAddress: EX,
      lbrlSplitAddress: VJL,
      splitFee: '5.00%',
    });
    expect(r.records[0]).toMatchObject({ profile: 'default', baseUrl: SERVICE });
    const noSplit = await create({ amount: '1', split: false }, { json: true, from: fromProfile });
    expect(noSplit.api.creates()[0]!.body).toEqual({ amountInCents: 100, lbrlAddress: EX });
  });

  it('--dry-run shows the body and sends nothing', async () => {
    const r = await create({ amount: '1500', to: LQ, dryRun: true }, { json: true });
    expect(r.error).toBeUndefined();
    expect(JSON.parse(r.stdout)).toEqual({ request: { amountInCents: 150000, lbrlAddress: LQ } });
    expect(r.api.calls).toEqual([]);
    expect(r.records).toEqual([]);
    const human = await create({ amount: '15,50', to: LQ, dryRun: true });
    expect(human.stdout).toBe(
      `Would send POST ${SERVICE}/v1/api/deposit\n${JSON.stringify({ amountInCents: 1550, lbrlAddress: LQ }, null, 2)}\n`,
    );
    expect(human.stderr).toBe(`R$ 15,50 to ${LQ}; nothing was sent (--dry-run)\n`);
    const sandbox = await create({ amount: '1', to: LQ, dryRun: true }, { target: { mode: 'sandbox' } });
    expect(sandbox.stdout).toContain('Would send POST (embedded sandbox)/v1/api/deposit\n');
    expect(human.api.calls).toEqual([]);
  });

  it('--qr-png writes a PNG of the checked qrCodeText, not the picture the service returned', async () => {
    const file = path.join(tempDir(), 'qr.png');
    const r = await create({ amount: '1', to: LQ, qrPng: file }, { json: true });
    expect(r.error).toBeUndefined();
    expect(fs.readFileSync(file)).not.toEqual(Buffer.from(PNG_BASE64, 'base64'));
    expect(decodePng(fs.readFileSync(file))).toBe(brCode(100));
  });

  it('--qr-style light draws for a light terminal, and decodes there; a bad style is refused before any request', async () => {
    const r = await create({ amount: '1', to: LQ, qrStyle: 'light' });
    expect(decodeTerminal(qrLines(r.stdout), 'light')).toBe(brCode(100));
    const bad = await create({ amount: '1', to: LQ, qrStyle: 'blue' });
    expect(bad.error?.exitCode).toBe(2);
    expect(bad.error?.message).toContain('invalid --qr-style "blue"');
    expect(bad.api.calls).toEqual([]);
  });

  it('a bad amount or address is refused (exit 2) with nothing sent and nothing recorded', async () => {
    for (const flags of [
      { amount: 'x', to: LQ },
      { amount: '1', to: 'lq1notanaddress' },
      { amount: '1', to: TEX_ON_LIQUID },
    ]) {
      const r = await create(flags);
      expect(r.error?.exitCode).toBe(2);
      expect(r.error?.type).toBe('usage');
      expect(r.api.calls).toEqual([]);
      expect(r.records).toEqual([]);
      expect(r.stdout).toBe('');
    }
  });
});

/** An address of another network: refused for a liquid profile. */
const TEX_ON_LIQUID = 'tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx';

describe('money safety, in process: the answer is checked against the request', () => {
  const base = (body: CreateRequest) => createAnswer(body);
  it.each([
    [
      'the wrong amount',
      (b: CreateRequest) => ({
        ...base(b),
        amountInCents: 15000,
        amount: 150,
        netAmount: 148.5,
        feeAmount: 1.5,
      }),
      'amountInCents: sent 150000, service answered 15000',
    ],
    [
      'the wrong address',
      (b: CreateRequest) => ({ ...base(b), destinationAddress: EX }),
      `destinationAddress: sent ${LQ}, service answered ${EX}`,
    ],
    [
      'broken sums',
      (b: CreateRequest) => ({ ...base(b), netAmount: 1500 }),
      'netAmount: sent amount - feeAmount = 1485, service answered 1500',
    ],
    [
      'amount not cents/100',
      (b: CreateRequest) => ({ ...base(b), amount: 1500.01 }),
      'amount: sent amountInCents / 100 = 1500.00, service answered 1500.01',
    ],
    [
      'a corrupted PIX string',
      (b: CreateRequest) => ({ ...base(b), qrCodeText: `${brCode(150000).slice(0, -1)}0` }),
      'qrCodeText: sent a valid PIX BR Code, service answered one where its CRC is',
    ],
    [
      'a PIX string for another amount',
      (b: CreateRequest) => ({ ...base(b), qrCodeText: brCode(15000) }),
      'qrCodeText amount (54): sent 1500.00, service answered 150.00',
    ],
    [
      'a split nobody asked for',
      (b: CreateRequest) => ({ ...base(b), splitAddress: VJL, splitPercent: 0.5 }),
      `splitAddress: sent null, service answered ${VJL}`,
    ],
    [
      'a status other than WAITING_PAYMENT',
      (b: CreateRequest) => ({ ...base(b), status: 'FINALIZED' }),
      'status: sent WAITING_PAYMENT (a new deposit), service answered FINALIZED',
    ],
    [
      'a split percent without an address',
      (b: CreateRequest) => ({ ...base(b), splitPercent: 0.1 }),
      'splitPercent: sent null exactly when splitAddress is null (splitAddress is null), service answered 0.1',
    ],
    [
      'an integer amount written as a decimal',
      (b: CreateRequest) =>
        new WrittenAnswer(
          JSON.stringify(base(b)).replace('"amountInCents":150000', '"amountInCents":150000.0'),
        ),
      'amountInCents: sent an integer written as one',
    ],
  ])(
    'refuses an answer with %s (exit 1, both values shown, nothing on stdout, nothing recorded)',
    async (_name, make, message) => {
      const r = await create({ amount: '1500', to: LQ }, { answer: make });
      expect(r.error?.exitCode).toBe(1);
      expect(r.error?.type).toBe('mismatch');
      expect(r.error?.message).toContain(message);
      expect(r.stdout).toBe('');
      expect(r.records).toEqual([]);
      expect(r.api.creates()).toHaveLength(1);
    },
  );

  it('refuses a split answered with another percentage', async () => {
    const r = await create(
      { amount: '1', to: LQ, splitTo: VJL, splitFee: '2.99' },
      { answer: (b) => ({ ...base(b), splitPercent: 0.03 }) },
    );
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain('splitPercent: sent 0.0299 (2.99%), service answered 0.03');
    expect(r.records).toEqual([]);
  });
});

describe('deposit create --watch, in process', () => {
  const paid = (status: string, extra: Record<string, unknown> = {}) =>
    getAnswer({
      ...createAnswer({ amountInCents: 1000, lbrlAddress: LQ }),
      qrCode: undefined,
      status,
      ...extra,
    });
  const finalized = () =>
    paid('FINALIZED', {
      settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
      confirmedAt: '2026-11-22T10:00:05Z',
    });
  const statuses = (n: number) => (n < 3 ? paid('WAITING_PAYMENT') : finalized());

  it('creates, shows the QR and the string, then follows to FINALIZED, recording each status', async () => {
    const r = await create({ amount: '10', to: LQ, watch: true }, { get: (_id, n) => statuses(n) });
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(1000)}\n`);
    expect(r.stdout).toMatch(/WAITING_PAYMENT\n[\s\S]*-> FINALIZED {2}txid/);
    expect(r.stderr).toContain(`deposit ${ID} FINALIZED`);
    expect(r.stderr).not.toContain('follow it with');
    expect(r.records.map((x) => [x.type, (x as { status?: string }).status])).toEqual([
      ['created', 'WAITING_PAYMENT'],
      ['status', 'WAITING_PAYMENT'],
      ['status', 'FINALIZED'],
    ]);
    expect(new Set(r.clock.sleeps)).toEqual(new Set([3000]));
    expect(r.verifying).toEqual([{ intervalMs: 3000, timeoutMs: undefined, verify: undefined }]);
  });

  it('hands --interval, --timeout and --verify to the verification, parsed', async () => {
    const r = await create(
      { amount: '10', to: LQ, watch: true, interval: '7', timeout: '1m', verify: true },
      { json: true, get: (_id, n) => statuses(n) },
    );
    expect(r.error).toBeUndefined();
    expect(r.verifying).toEqual([{ intervalMs: 7000, timeoutMs: 60_000, verify: true }]);
    expect(new Set(r.clock.sleeps)).toEqual(new Set([7000]));
  });

  it.each([
    [
      'the address sent',
      { destinationAddress: EX },
      `destinationAddress: expected ${LQ}, service answered ${EX}. Do not pay this charge`,
    ],
    [
      'the first answer',
      { createdAt: '2026-11-22T09:00:00.000Z' },
      'createdAt: expected 2026-11-22T10:00:00.000Z, as first answered (it never changes), service answered 2026-11-22T09:00:00.000Z',
    ],
  ])(
    'a watch answer that contradicts %s is refused (exit 1), and what it said is not recorded',
    async (_what, lie, message) => {
      const r = await create(
        { amount: '10', to: LQ, watch: true },
        { get: (_id, n) => (n < 2 ? paid('WAITING_PAYMENT') : paid('PIX_CONFIRMED', lie)) },
      );
      expect(r.error?.exitCode).toBe(1);
      expect(r.error?.type).toBe('mismatch');
      expect(r.error?.message).toContain(message);
      expect(r.records.map((x) => (x as { status?: string }).status)).toEqual([
        'WAITING_PAYMENT',
        'WAITING_PAYMENT',
      ]);
      expect(r.stdout).not.toContain('PIX_CONFIRMED');
    },
  );

  it('--timeout ends it with 124, says the charge is still open and how to follow it again (with --profile)', async () => {
    const r = await create(
      { amount: '10', to: LQ, watch: true, timeout: '10s' },
      { get: () => paid('WAITING_PAYMENT'), globals: { profile: 'shop 2' } },
    );
    expect(r.error?.exitCode).toBe(124);
    expect(r.error?.type).toBe('watch_timeout');
    expect(r.stderr).toContain(`deposit ${ID} timed out at WAITING_PAYMENT\n`);
    expect(r.stderr).toContain(
      `the charge is still open: stopping the watch cancels nothing. Follow it again with:\n  lbrl deposit watch ${ID} --profile 'shop 2'\n`,
    );
  });

  it('in the sandbox, says how to pay, with the autopay delay unless it is off', async () => {
    const get = (_id: string, n: number) => statuses(n);
    const on = await create(
      { amount: '10', to: LQ, watch: true, qr: false },
      { get, target: { mode: 'sandbox' }, settings: { 'sandbox-autopay': '5' } },
    );
    expect(on.stderr).toContain(
      `sandbox: simulate the payment with: lbrl sandbox pay ${ID} (or wait 5 s for autopay)\n`,
    );
    const off = await create(
      { amount: '10', to: LQ, watch: true, qr: false },
      { get, target: { mode: 'sandbox' }, settings: { 'sandbox-autopay': 'off' } },
    );
    expect(off.stderr).toContain(`sandbox: simulate the payment with: lbrl sandbox pay ${ID}\n`);
    // the profile says nothing: the default, 5 s
    const unset = await create(
      { amount: '10', to: LQ, watch: true, qr: false },
      { get, target: { mode: 'sandbox' } },
    );
    expect(unset.error).toBeUndefined();
    expect(unset.stderr).toContain(
      `sandbox: simulate the payment with: lbrl sandbox pay ${ID} (or wait 5 s for autopay)\n`,
    );
    const live = await create({ amount: '10', to: LQ, watch: true, qr: false }, { get });
    expect(live.stderr).not.toContain('sandbox');
  });
});

describe('deposit create, asking a person', () => {
  /** Answers as a person would, each checked by the prompt's own validation (a refused one is typed again). */
  function person(answers: string[], confirmAnswer = true) {
    const asked: string[] = [];
    const rejected: string[] = [];
    const prompter: Prompter = {
      async input(q) {
        asked.push(q.message);
        for (;;) {
          const typed = answers.shift();
          if (typed === undefined) throw new Error(`no answer left for ${q.message}`);
          const value = typed === '' && q.default !== undefined ? q.default : typed;
          const ok = q.validate(value);
          if (ok === true) return value;
          rejected.push(`${value}: ${ok}`);
        }
      },
      async confirm(q) {
        asked.push(q.message);
        return confirmAnswer;
      },
      password: async () => {
        throw new Error('create asks for no secret');
      },
    };
    return { prompter, asked, rejected };
  }

  /** The prompter as the factory hands it: only at a terminal, not in CI, not with --no-input. */
  const sessionPrompter =
    (terminal: boolean, env: Record<string, string>, input: boolean | undefined, prompter: Prompter) =>
    (flags: CreateFlags) => {
      const ctx = {
        stdout: { write: () => true, isTTY: terminal },
        stderr: { write: () => true, isTTY: terminal },
        stdin: Object.assign(Readable.from([]), { isTTY: terminal }),
        env,
        homedir: os.tmpdir(),
        now: () => 0,
        sleep: async () => {},
        random: () => 0.5,
        signal: new AbortController().signal,
        prompter,
      } as Context;
      return { prompter: createOptionsOf(flags, openRuntime(ctx, { input }).factory).prompter };
    };

  it('asks for the missing amount and destination, validates as typed, shows a summary, and sends what was confirmed', async () => {
    const p = person(['1.500,00', '15,5', 'not-an-address', LQ]);
    const r = await create({ qr: false }, { prompter: p.prompter });
    expect(r.error).toBeUndefined();
    expect(p.asked).toEqual([
      'Amount in reais (e.g. 1500 or 15,50)',
      'Destination Liquid address',
      'Create this charge?',
    ]);
    expect(p.rejected[0]).toContain('1.500,00: expected an amount in reais');
    expect(p.rejected[1]).toContain('not-an-address: expected a Liquid address on liquid');
    expect(r.stderr).toContain('  R$ 15,50 (1550 cents)\n');
    expect(r.stderr).toContain(
      `Amount   R$ 15,50 (1550 cents)\nTo       ${LQ}\nSplit    none\nService  ${SERVICE}\n`,
    );
    expect(r.api.creates().map((c) => c.body)).toEqual([{ amountInCents: 1550, lbrlAddress: LQ }]);
  });

  it('declined, it sends and records nothing (exit 2)', async () => {
    const p = person(['15,50', LQ], false);
    const r = await create({}, { prompter: p.prompter });
    expect(p.asked).toEqual([
      'Amount in reais (e.g. 1500 or 15,50)',
      'Destination Liquid address',
      'Create this charge?',
    ]);
    expect(p.rejected).toEqual([]);
    expect(r.error?.type).toBe('cancelled');
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toBe('cancelled; nothing was sent');
    expect(r.stderr).toContain(
      `Amount   R$ 15,50 (1550 cents)\nTo       ${LQ}\nSplit    none\nService  ${SERVICE}\n`,
    );
    expect(r.api.calls).toEqual([]);
    expect(r.records).toEqual([]);
    // given on the command line, the confirmation is still asked
    const given = person([], false);
    const flagged = await create({ amount: '1', to: LQ }, { prompter: given.prompter });
    expect(given.asked).toEqual(['Create this charge?']);
    expect(flagged.error?.message).toBe('cancelled; nothing was sent');
    expect(flagged.api.calls).toEqual([]);
  });

  it('confirmed, it sends what was answered; --yes asks nothing more', async () => {
    const p = person(['2', LQ], true);
    const r = await create({}, { prompter: p.prompter, json: true });
    expect(r.error).toBeUndefined();
    expect(r.api.creates()[0]!.body).toEqual({ amountInCents: 200, lbrlAddress: LQ });
    const yes = person([], false);
    const y = await create({ amount: '1', to: LQ, yes: true }, { prompter: yes.prompter, json: true });
    expect(yes.asked).toEqual([]);
    expect(y.api.creates()).toHaveLength(1);
  });

  it("with the profile's default-address set, never asks for the destination: it is the one sent", async () => {
    const p = person(['10']);
    const r = await create(
      { qr: false, yes: true },
      { prompter: p.prompter, defaults: { defaultAddress: EX } },
    );
    expect(r.error).toBeUndefined();
    expect(p.asked).toEqual(['Amount in reais (e.g. 1500 or 15,50)']);
    expect(r.api.creates()[0]!.body).toEqual({ amountInCents: 1000, lbrlAddress: EX });
    // as the user typed it: --amount 12,50 --watch --yes asks nothing at all
    const quiet = person([]);
    const given = await create(
      { amount: '12,50', yes: true, qr: false },
      { prompter: quiet.prompter, defaults: { defaultAddress: LQ } },
    );
    expect(given.error).toBeUndefined();
    expect(quiet.asked).toEqual([]);
    expect(given.api.creates()[0]!.body).toEqual({ amountInCents: 1250, lbrlAddress: LQ });
    // without --yes, the summary shows the default it will send to, and asks only to confirm
    const confirming = person([], true);
    const shown = await create(
      { amount: '1' },
      { prompter: confirming.prompter, defaults: { defaultAddress: EX } },
    );
    expect(confirming.asked).toEqual(['Create this charge?']);
    expect(shown.stderr).toContain(`To       ${EX}\n`);
  });

  it('asks for the split fee when only the split address was given', async () => {
    const p = person(['2,99']);
    const r = await create({ amount: '1', to: LQ, splitTo: EX, yes: true }, { prompter: p.prompter });
    expect(r.error).toBeUndefined();
    expect(r.api.creates()[0]!.body).toMatchObject({ splitFee: '2.99%', lbrlSplitAddress: EX });
  });

  it.each([
    ['CI is set', true, { CI: 'true' }, undefined],
    ['--no-input', true, {}, false],
    ['there is no terminal', false, {}, undefined],
  ] as const)(
    'never prompts when %s: a missing value names the flag (exit 2), nothing sent',
    async (_name, terminal, env, input) => {
      const p = person(['1', LQ]);
      const r = await create({}, { from: sessionPrompter(terminal, env, input, p.prompter) });
      expect(p.asked).toEqual([]);
      expect(r.error?.exitCode).toBe(2);
      expect(r.error?.message).toBe('missing amount: pass --amount <reais> or --amount-cents <n>');
      expect(r.stderr).toBe('');
      expect(r.api.calls).toEqual([]);
    },
  );

  it('at a terminal, not in CI and without --no-input, the factory hands the prompter', async () => {
    const p = person(['1', LQ]);
    const r = await create({ yes: true }, { from: sessionPrompter(true, {}, undefined, p.prompter) });
    expect(r.error).toBeUndefined();
    expect(p.asked).toEqual(['Amount in reais (e.g. 1500 or 15,50)', 'Destination Liquid address']);
  });
});

describe('deposit create --display', () => {
  it('with no customer display running, is refused (exit 2) before anything is sent', async () => {
    const r = await create(
      { amount: '1', to: LQ, display: true, yes: true },
      { configDir: tempDir(), globals: { profile: 'shop' } },
    );
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toBe(
      'no customer display is running for profile shop (nothing was sent): start one in another terminal with lbrl display --profile shop, then run this again',
    );
    expect(r.api.calls).toEqual([]);
    expect(r.records).toEqual([]);
  });

  /** A display of profile default in this process: the real server, answering /show as `show` says. */
  async function runningDisplay(configDir: string, show: (id: string, target?: string) => boolean) {
    const secret = newDisplaySecret();
    const key = 'k'.repeat(22);
    const server = await startDisplayServer(
      {
        key,
        secret,
        lang: 'pt',
        current: () => ({ phase: 'idle', shop: 'Loja' }),
        subscribe: () => () => {},
        show,
        now: () => 0,
      },
      '127.0.0.1',
      0,
    );
    const port = Number(new URL(server.baseUrl).port);
    writeDisplayRecord(displayFile(configDir, 'default'), {
      pid: process.pid,
      host: '127.0.0.1',
      urlHost: '127.0.0.1',
      port,
      key,
      startedAt: new Date(0).toISOString(),
      secret,
      target: 'sandbox',
    });
    return server;
  }

  it.each([
    ['plain', {}],
    ['-q', { quiet: true }],
    ['--json', { json: true }],
  ] as const)(
    'a display that does not take the charge (%s): said, and never exit 0; the charge is printed',
    async (_how, globals) => {
      const configDir = tempDir();
      const server = await runningDisplay(configDir, () => false);
      try {
        const r = await create(
          { amount: '1', to: LQ, display: true, yes: true, qr: false, watch: true },
          { configDir, ...globals },
        );
        expect(r.error?.type).toBe('display');
        expect(r.error?.exitCode).toBe(1);
        expect(r.error?.message).toMatch(
          /^the customer display did not take the charge \(it does not know deposit \S+ of this profile\): it is not on the customer's screen/,
        );
        // created and printed, not followed
        expect(r.api.creates()).toHaveLength(1);
        const id = r.records.find((record) => record.type === 'created')!.id;
        expect(r.stdout).toContain(id);
        expect(r.api.calls.filter((call) => call.kind === 'get')).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );

  it('the display is told the service of the charge, so one started for another service can show it', async () => {
    const configDir = tempDir();
    const asked: Array<[string, string | undefined]> = [];
    const server = await runningDisplay(configDir, (id, target) => {
      asked.push([id, target]);
      return true;
    });
    try {
      const r = await create({ amount: '1', to: LQ, display: true, yes: true, qr: false }, { configDir });
      expect(r.error).toBeUndefined();
      expect(asked).toEqual([[r.records.find((record) => record.type === 'created')!.id, SERVICE]]);
      expect(r.stderr).toMatch(/^shown on the customer display \(port \d+\)$/m);
    } finally {
      await server.close();
    }
  });
});

describe('deposit create --ref and --note: kept in the ledger, never sent', () => {
  it('records them with the deposit, sends the same body as without them, and shows them', async () => {
    const r = await create({ amount: '15,50', to: LQ, ref: '  pedido 1042  ', note: 'mesa 7, sem troco' });
    expect(r.error).toBeUndefined();
    expect(r.api.creates()[0]!.body).toEqual({ amountInCents: 1550, lbrlAddress: LQ });
    expect(r.records).toEqual([
      expect.objectContaining({ type: 'created', id: ID, ref: 'pedido 1042', note: 'mesa 7, sem troco' }),
    ]);
    expect(r.stdout).toContain(`Deposit  ${ID}\nRef      pedido 1042\nNote     mesa 7, sem troco\nStatus `);
  });

  it('--json: the service object with ref and note added; without them, the object as it was', async () => {
    const withRef = await create({ amount: '1', to: LQ, ref: 'A-1' }, { json: true });
    const printed = JSON.parse(withRef.stdout);
    expect(printed.ref).toBe('A-1');
    expect(printed.note).toBeUndefined();
    expect(printed.id).toBe(ID);
    const without = await create({ amount: '1', to: LQ }, { json: true });
    expect(Object.keys(JSON.parse(without.stdout))).not.toContain('ref');
  });

  it.each([
    ['--ref', { ref: 'a\u001b[2Jb' }, '"a\\u001b[2Jb"'],
    ['--ref', { ref: 'x'.repeat(101) }, 'expected text of 1 to 100 characters'],
    ['--ref', { ref: '   ' }, '"   "'],
    ['--note', { note: 'line\nbreak' }, '"line\\nbreak"'],
    ['--ref', { ref: 'abc\u202edcb' }, 'abc'],
    ['--note', { note: 'n'.repeat(501) }, 'characters'],
  ])('%s refused (exit 2, one line naming it, nothing sent): %j', async (flag, flags, shown) => {
    const r = await create({ amount: '1', to: LQ, ...flags });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain(`invalid ${flag} `);
    expect(r.error?.message).toContain(shown);
    expect(r.error?.message).toContain('no control or invisible characters');
    expect(r.error?.message).not.toContain('\n');
    expect(r.api.creates()).toEqual([]);
    expect(r.records).toEqual([]);
  });

  it('100 characters (code points, emoji included) is accepted', async () => {
    const ref = `${'é'.repeat(98)}🍕🍕`;
    const r = await create({ amount: '1', to: LQ, ref });
    expect(r.error).toBeUndefined();
    expect(r.records[0]).toEqual(expect.objectContaining({ ref }));
  });

  it('--dry-run --json shows them beside the request, which does not carry them', async () => {
    const r = await create({ amount: '1', to: LQ, ref: 'R', dryRun: true }, { json: true });
    expect(JSON.parse(r.stdout)).toEqual({ request: { amountInCents: 100, lbrlAddress: LQ }, ref: 'R' });
  });
});
