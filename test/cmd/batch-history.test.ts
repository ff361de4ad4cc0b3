import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classify } from '../../src/api/classify.js';
import type { CreateRequest } from '../../src/api/models.js';
import {
  type BatchCommandOptions,
  type BatchOptions,
  runBatch,
} from '../../src/commands/shared/create-batch.js';
import { rowKeys } from '../../src/deposits/batch.js';
import type { LbrlError } from '../../src/errors.js';
import { ResumableRows, RowClaim, RowClaims } from '../../src/store/claims.js';
import { History } from '../../src/store/history.js';
import { type RunResult, runCli, tempDir, tempFile } from '../helpers/cli.js';
import { dayTradeInProcess, id, SERVICE } from '../helpers/day-trade.js';
import { liveEnv } from '../helpers/env.js';
import { batchCsv, createAnswer, EX, getAnswer, LQ, VJL } from '../helpers/fixtures.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;
let created = 0;
let inFlight = 0;
let maxInFlight = 0;
/** what the service answered to each create, by id */
const bodies = new Map<string, ReturnType<typeof createAnswer>>();
let failOn: (body: Record<string, unknown>, n: number) => number | undefined;

beforeEach(async () => {
  created = 0;
  inFlight = 0;
  maxInFlight = 0;
  bodies.clear();
  failOn = () => undefined;
  server = await startServer(async (req, res, n) => {
    if (req.method === 'GET') {
      const id = req.url.split('/').pop()!;
      // the deposit as it was created: a later answer may only move its status
      const { qrCode: _png, ...asCreated } =
        bodies.get(id) ?? createAnswer({ amountInCents: 150000, lbrlAddress: LQ });
      return json(
        res,
        200,
        getAnswer({
          ...asCreated,
          id,
          status: 'FINALIZED',
          settlement: { status: 'FINALIZED', liquidTxid: 'cd'.repeat(32) },
          confirmedAt: '2026-11-22T10:00:09Z',
        }),
      );
    }
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight -= 1;
    const body = JSON.parse(req.body);
    const status = failOn(body, n);
    if (status === 429) return json(res, 429, { message: 'slow down' }, { 'retry-after': '1' });
    if (status) return json(res, status, { message: 'boom' });
    created += 1;
    const id = `00000000-0000-4000-8000-${String(created).padStart(12, '0')}`;
    const answer = { ...createAnswer(body), id };
    bodies.set(id, answer);
    json(res, 201, answer);
  });
  env = liveEnv(server.url);
});
afterEach(() => server.close());

/**
 * `deposit create --from` in process (runBatch on narrow options): a scripted service whose
 * creates fail as `failOn` says (a status becomes what the client's classify() makes of it, as
 * the client does once it gives up), the history and the row claims real files in the profile's
 * directory, a clock that only sleeping moves. What a user sees is as runCli gives it: the error
 * printed as the handler prints it, and its exit code.
 */
function batchInProcess() {
  const dir = tempDir();
  let creates = 0;
  const world = {
    dir,
    /** how many deposits the service created */
    created: 0,
    failOn: (() => undefined) as (body: CreateRequest, n: number) => number | undefined,
    /** every create sent, in order, with its Idempotency-Key */
    sent: [] as Array<{ body: CreateRequest; idempotencyKey?: string | undefined }>,
    async run(
      flags: Partial<BatchOptions> & { from: string },
      o: { json?: boolean; tty?: boolean } = {},
    ): Promise<RunResult & { error?: LbrlError }> {
      const clock = steppingClock(0);
      const term = plainTerminal({ json: o.json, now: clock.now });
      if (o.tty) (term.ctx.stdout as { isTTY: boolean }).isTTY = true;
      const history = new History(dir);
      const api = scriptedDepositApi({
        now: clock.now,
        create: (body, _n) => {
          creates += 1;
          const last = api.creates().at(-1)!;
          world.sent.push({ body: last.body!, idempotencyKey: last.idempotencyKey });
          const status = world.failOn(body, creates);
          if (status) {
            const verdict = classify(
              {
                method: 'POST',
                baseUrl: SERVICE,
                host: 'pay.example.com',
                timeoutMs: 2000,
                maxRetryAfterMs: 60_000,
                idempotencyKey: last.idempotencyKey,
              },
              { kind: 'answer', status, body: '{"message":"boom"}' },
              clock.now(),
            );
            if (verdict.ok) throw new Error(`${status} is not a refusal`);
            throw verdict.error;
          }
          world.created += 1;
          return {
            ...createAnswer(body),
            id: `00000000-0000-4000-8000-${String(world.created).padStart(12, '0')}`,
          };
        },
      });
      const options: BatchCommandOptions = {
        flags: flags as BatchOptions,
        printer: term.printer,
        globals: { json: o.json },
        ctx: term.ctx,
        requestDefaults: () => ({ network: 'liquid' }),
        scope: () => ({ profile: 'default', target: SERVICE }),
        client: async () => api,
        recorder: { record: (records) => history.append(records) },
        clock,
        resumable: (scope, keys) =>
          new ResumableRows(
            history,
            new RowClaims(dir, (line) => term.printer.warn(line)),
            scope.profile,
            scope.target,
            keys,
          ),
      };
      const seen = await seenRun(term, () => runBatch(options));
      if (seen.error) term.printer.error(seen.error);
      return {
        code: seen.error?.exitCode ?? 0,
        stdout: term.stdout,
        stderr: term.stderr,
        sleeps: clock.sleeps,
        ...(seen.error ? { error: seen.error } : {}),
      };
    },
  };
  return world;
}

describe('deposit create --from', () => {
  // the rows' order, amounts, splits and records: test/cmd/batch-in-process.test.ts; the tests that
  // run batchInProcess() are the command's logic, the others say why they stay on the server
  it('creates every row of a CSV, four requests at a time, each with its own Idempotency-Key', async () => {
    // on the server: the Idempotency-Key as a header on the wire, the concurrency as sockets see it
    const r = await runCli(['deposit', 'create', '--from', tempFile('rows.csv', batchCsv(10))], { env });
    expect(r.code).toBe(0);
    expect(created).toBe(10);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(maxInFlight).toBeGreaterThan(1);
    const keys = new Set(server.requests.map((q) => q.headers['idempotency-key']));
    expect(keys.size).toBe(10);
  });

  it('reads NDJSON from stdin, with a missing "to" taking the default-address of the profile', async () => {
    // a whole run: the default-address config set wrote reaches the rows through the factory (rows alone: batch-in-process)
    await runCli(['config', 'set', 'default-address', EX], {
      env: { LBRL_CONFIG_DIR: env.LBRL_CONFIG_DIR! },
    });
    const stdin = `{"amountCents": 150000, "to": "${LQ}"}\n\n{"amount": "15,50"}\n{"amount": 0.1}\n`;
    const r = await runCli(['deposit', 'create', '--from', '-', '--concurrency', '1'], { env, stdin });
    expect(r.code).toBe(0);
    expect(server.requests.map((q) => JSON.parse(q.body))).toEqual([
      { amountInCents: 150000, lbrlAddress: LQ },
      { amountInCents: 1550, lbrlAddress: EX },
      { amountInCents: 10, lbrlAddress: EX },
    ]);
    expect(maxInFlight).toBe(1);
  });

  it('refuses a file with bad rows whole, naming each row and field, sending nothing', async () => {
    const world = batchInProcess();
    const bad = `amount,to,splitFee\n1,${LQ},\n1.500,${LQ},\n2,not-an-address,\n3,${LQ},2.5\n,${LQ},\n`;
    const r = await world.run({ from: tempFile('bad.csv', bad) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('4 problem(s) in');
    expect(r.stderr).toContain('row 2 (line 3): invalid amount "1.500": expected an amount in reais');
    expect(r.stderr).toContain('row 3 (line 4): invalid to "not-an-address"');
    expect(r.stderr).toContain('row 4 (line 5): splitFee needs splitTo');
    expect(r.stderr).toContain('row 5 (line 6): missing amount: give amount or amountCents');
    // one problem a line, as a person reads them, not one line with \n written out
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(5);
    expect(r.stderr).not.toContain('\\n');
    expect(world.sent).toHaveLength(0);
    const asJson = await world.run({ from: tempFile('bad.csv', bad) }, { json: true });
    const message: string = JSON.parse(asJson.stderr).error.message;
    expect(message.split('\n')).toHaveLength(5);
    expect(message).not.toContain('\\n');
  });

  it.each([
    ['an unknown column', 'amount,destination\n1,x\n', 'header: unknown column "destination"'],
    ['an unclosed quote', `amount,to\n"1,${LQ}\n`, 'a quoted field is not closed'],
    ['too many cells', `amount,to\n1,${LQ},x\n`, 'row 1 (line 2): has 3 cells, the header has 2'],
    ['no rows', 'amount,to\n', 'the file has a header but no rows'],
  ])('refuses %s', async (_name, text, message) => {
    const world = batchInProcess();
    const r = await world.run({ from: tempFile('x.csv', text) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(world.sent).toHaveLength(0);
  });

  it('a partial failure exits non-zero; --resume creates only the rows that failed', async () => {
    const world = batchInProcess();
    world.failOn = (body) => (body.amountInCents === 300 || body.amountInCents === 700 ? 500 : undefined);
    const f = tempFile('rows.csv', batchCsv(8));
    const first = await world.run({ from: f });
    expect(first.code).toBe(1);
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.error).map((l) => l.row)).toEqual([3, 7]);
    expect(lines[2].error).toMatchObject({ type: 'service', exitCode: 1 });
    expect(first.stderr).toContain('2 of 8 row(s) were not created (rows 3, 7); re-run with --resume');
    expect(world.created).toBe(6);

    world.failOn = () => undefined;
    const keysBefore = world.sent
      .filter((q) => [300, 700].includes(q.body.amountInCents))
      .map((q) => q.idempotencyKey);
    const again = await world.run({ from: f, resume: true });
    expect(again.code).toBe(0);
    expect(world.created).toBe(8);
    const resumed = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(resumed.filter((l) => l.resumed).map((l) => l.row)).toEqual([1, 2, 4, 5, 6, 8]);
    // the retried rows reuse the Idempotency-Key of the attempt whose outcome was unknown
    const keysAfter = world.sent.slice(-2).map((q) => q.idempotencyKey);
    expect(new Set(keysAfter)).toEqual(new Set(keysBefore));
    const third = await world.run({ from: f, resume: true });
    expect(third.code).toBe(0);
    expect(world.created).toBe(8);
  });

  it('backs off on 429 and still creates every row', async () => {
    // on the server: the client's own retry of a 429 with Retry-After
    failOn = (_b, n) => (n === 2 ? 429 : undefined);
    const r = await runCli(['deposit', 'create', '--from', tempFile('rows.csv', batchCsv(5))], { env });
    expect(r.code).toBe(0);
    expect(created).toBe(5);
    expect(r.sleeps).toContain(1000);
  });

  it('Ctrl-C while the batch waits out a 429: exit 130, the rows not yet sent say so', async () => {
    // on the server: Ctrl-C lands in the client's own wait before retrying a 429
    const controller = new AbortController();
    failOn = (_b, n) => {
      if (n === 1) controller.abort();
      return 429;
    };
    const r = await runCli(
      ['deposit', 'create', '--from', tempFile('rows.csv', batchCsv(6)), '--concurrency', '2'],
      {
        env,
        signal: controller.signal,
      },
    );
    expect(r.code).toBe(130);
    expect(r.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(6);
    expect(lines.every((l) => l.error)).toBe(true);
    expect(created).toBe(0);
  });

  it('a 401 stops the batch: the other rows are not sent', async () => {
    const world = batchInProcess();
    world.failOn = () => 401;
    const r = await world.run({ from: tempFile('rows.csv', batchCsv(12)), concurrency: '1' });
    expect(r.code).toBe(3);
    expect(world.sent).toHaveLength(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    expect(lines[5].error.message).toMatch(/^not sent: /);
  });

  it.each([
    [
      ['--amount', '1'],
      "error: --from takes each deposit's values from its row, so --amount cannot go with it: put them in the file's columns (amount or amountCents, to, splitTo, splitFee, ref, note)\n",
    ],
    [
      ['--watch'],
      'error: a batch (--from) does not watch: it creates its rows and ends, so --watch cannot go with it; follow the deposits afterwards with lbrl deposit watch --pending\n',
    ],
    [
      ['--qr-png', 'x.png'],
      "error: a batch draws no QR codes, so --qr-png cannot go with --from: each row's qrCodeText is in its NDJSON line (add --with-qr-code for the PNG), or use lbrl deposit get <id> --qr-png <file>\n",
    ],
  ])('refuses --from with %s, naming why', async (extra, message) => {
    // through the registry: the definition's conflicts are checked before the command runs
    const r = await runCli(['deposit', 'create', '--from', tempFile('rows.csv', batchCsv(1)), ...extra], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(message);
    expect(server.requests).toHaveLength(0);
  });

  it('on a terminal: a table (row, id, amount, status or error) and a summary counting each outcome apart', async () => {
    const world = batchInProcess();
    world.failOn = (body) => (body.amountInCents === 200 ? 400 : undefined);
    const f = tempFile('rows.csv', `amount,to\n1,${LQ}\n2,${LQ}\n1500,${LQ}\n`);
    const first = await world.run({ from: f, concurrency: '1' }, { tty: true });
    expect(first.code).toBe(2);
    expect(first.stdout).toBe(
      [
        'row  id                                         amount  status',
        '  1  00000000-0000-4000-8000-000000000001      R$ 1,00  WAITING_PAYMENT',
        '  2  -                                         R$ 2,00  error: the service refused the request (400): boom',
        '  3  00000000-0000-4000-8000-000000000002  R$ 1.500,00  WAITING_PAYMENT',
        '',
      ].join('\n'),
    );
    expect(first.stderr).toContain('3 row(s): 2 created, 1 failed\n');
    world.failOn = () => undefined;
    const again = await world.run({ from: f, resume: true }, { tty: true });
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')[1]).toBe(
      '  1  00000000-0000-4000-8000-000000000001      R$ 1,00  WAITING_PAYMENT (resumed: created by an earlier run)',
    );
    expect(again.stdout.split('\n')[2]).toMatch(
      /^ {2}2 {2}00000000-0000-4000-8000-000000000003 +R\$ 2,00 {2}WAITING_PAYMENT$/,
    );
    expect(again.stderr).toContain('3 row(s): 1 created, 2 resumed (created by an earlier run), 0 failed\n');
    // every row existed: nothing is said to be created
    const third = await world.run({ from: f, resume: true });
    expect(third.stderr).toContain('3 row(s): 0 created, 3 resumed (created by an earlier run), 0 failed\n');
    expect(third.stderr).not.toMatch(/deposit\(s\) created/);
    // a pipe (or --json) still gets NDJSON
    expect(JSON.parse(third.stdout.split('\n')[0]!)).toMatchObject({ row: 1, resumed: true });
    const json = await world.run({ from: f, resume: true }, { json: true, tty: true });
    expect(JSON.parse(json.stdout.split('\n')[2]!)).toMatchObject({ row: 3, resumed: true });
    expect(world.created).toBe(3);
  });

  it('--resume: a row held by another run for too long fails clearly; the others are created', async () => {
    const world = batchInProcess();
    const f = tempFile('rows.csv', batchCsv(3));
    const keys = rowKeys(
      [1, 2, 3].map((n) => ({
        amountInCents: n * 100,
        lbrlAddress: LQ,
        ...(n % 2 === 0 ? { lbrlSplitAddress: VJL, splitFee: '1.50%' } : {}),
      })),
    );
    // another live run (this very process counts as one) holds row 2
    const held = new RowClaims(world.dir).tryClaim('default', SERVICE, keys[1]!);
    expect(held).toBeInstanceOf(RowClaim);
    const r = await world.run({ from: f, resume: true });
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[1].error.message).toMatch(
      /^a row is held by another lbrl run \(pid \d+ on .+\) for longer than 120 s; if no such run is going on, remove .+\.claim$/,
    );
    expect(world.created).toBe(2);
    // it waited in steps, for two minutes of its clock, not for real
    expect(r.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(120_000);
    (held as RowClaim).release();
    const again = await world.run({ from: f, resume: true });
    expect(again.code).toBe(0);
    expect(world.created).toBe(3);
  });

  it('--resume with something not a directory where the claims go: refused before anything is sent', async () => {
    const world = batchInProcess();
    const claims = path.join(world.dir, 'claims');
    // a file where the directory goes: refused whoever runs it, root included
    fs.writeFileSync(claims, '');
    const r = await world.run({ from: tempFile('rows.csv', batchCsv(2)), resume: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: refusing ${claims}: it is not a directory of yours; remove it, or set LBRL_CONFIG_DIR to a directory of your own\n`,
    );
    expect(world.sent).toHaveLength(0);
  });

  // root writes anywhere: run as root, the system's refusal of a directory it cannot write is
  // what the access check is made to meet, so the same refusal (EACCES) is given to it here
  it('--resume with a claims directory it cannot write: refused before anything is sent', async () => {
    const world = batchInProcess();
    const claims = path.join(world.dir, 'claims');
    fs.mkdirSync(claims, { mode: 0o500 });
    const access = fs.accessSync;
    const denied = vi.spyOn(fs, 'accessSync').mockImplementation((file, mode) => {
      if (process.getuid?.() === 0 && file === claims && mode !== undefined && mode & fs.constants.W_OK)
        throw Object.assign(new Error(`EACCES: permission denied, access '${claims}'`), { code: 'EACCES' });
      return access(file, mode);
    });
    try {
      const r = await world.run({ from: tempFile('rows.csv', batchCsv(2)), resume: true });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `error: cannot keep row claims in ${claims} (EACCES): --resume needs it to keep overlapping runs of a file apart; nothing was sent\nhint: make the directory writable, or set LBRL_CONFIG_DIR to a directory of your own\n`,
      );
      expect(world.sent).toHaveLength(0);
    } finally {
      denied.mockRestore();
      fs.chmodSync(claims, 0o700);
    }
  });
});

describe('the local history and deposit list', () => {
  it('records each create before printing it; list shows newest first, as JSON or tab-separated', async () => {
    // a whole run: creates over the wire recorded through the factory, the history file's mode
    for (const amount of ['1', '2', '3']) {
      expect((await runCli(['deposit', 'create', '--amount', amount, '--to', LQ, '-q'], { env })).code).toBe(
        0,
      );
    }
    const list = await runCli(['deposit', 'list', '--json'], { env });
    const entries = JSON.parse(list.stdout);
    expect(entries.map((e: { amountInCents: number }) => e.amountInCents)).toEqual([300, 200, 100]);
    expect(entries[0]).toMatchObject({
      profile: 'default',
      baseUrl: server.url,
      destinationAddress: LQ,
      status: 'WAITING_PAYMENT',
    });
    const plain = await runCli(['deposit', 'list', '--limit', '2'], { env });
    expect(plain.stdout.trim().split('\n')).toHaveLength(2);
    expect(plain.stdout.split('\n')[0]!.split('\t')).toEqual([
      entries[0].id,
      entries[0].at,
      '300',
      LQ,
      'WAITING_PAYMENT',
    ]);
    const file = path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('--refresh asks the service for those not yet terminal and records the answer', async () => {
    // runList in process over a history file (dayTradeInProcess: the service answers as created, R$ 1.500,00)
    const world = dayTradeInProcess();
    world.write([world.created(1, 1)]);
    world.statusOf.set(id(1), 'FINALIZED');
    const r = await world.list({ refresh: true }, { json: true });
    expect(JSON.parse(r.stdout)[0].status).toBe('FINALIZED');
    const gets = world.asked.length;
    const again = await world.list({ refresh: true }, { json: true });
    expect(JSON.parse(again.stdout)[0].status).toBe('FINALIZED');
    expect(world.asked.length).toBe(gets);
  });

  it('a damaged line is skipped with a warning, never the whole file', async () => {
    // runList in process; the history written as lbrl writes it, after a line cut short
    const world = dayTradeInProcess();
    world.write([world.created(1, 2, { cents: 100 })]);
    fs.appendFileSync(world.file, '{"v":1,"type":"created","id":"trunc');
    world.write([world.created(2, 1, { cents: 200 })]);
    fs.appendFileSync(world.file, 'garbage\n');
    const r = await world.list({}, { json: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((e: { amountInCents: number }) => e.amountInCents)).toEqual([200, 100]);
    expect(r.stderr).toContain('warning: skipped 2 damaged line(s)');
  });

  it('watch --pending follows the deposits not yet terminal', async () => {
    // runWatch in process over a history file
    const world = dayTradeInProcess();
    // the service answers as the deposits were created: R$ 1.500,00 each
    world.write([world.created(1, 2), world.created(2, 1)]);
    world.statusOf.set(id(1), 'FINALIZED');
    world.statusOf.set(id(2), 'FINALIZED');
    const r = await world.watch([], { pending: true }, { json: true });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    const none = await world.watch([], { pending: true });
    expect(none.code).toBe(0);
    expect(none.stderr).toBe(
      `deposits of profile default on ${SERVICE}\nno pending deposits in the local history\n`,
    );
  });
});

describe('on a terminal', () => {
  it('deposit list is a table with a header and formatted amounts', async () => {
    // runList in process (TZ=America/Sao_Paulo) over a history file
    const world = dayTradeInProcess();
    world.write([world.created(1, 1, { cents: 150000 })]);
    const r = await world.list({}, { columns: 120 });
    const [header, row] = r.stdout.split('\n');
    expect(header).toMatch(/^ID\s+CREATED\s+AMOUNT\s+STATUS\s+DESTINATION$/);
    expect(row).toMatch(/ 20\d\d-\d\d-\d\d \d\d:\d\d:\d\d -03:00 /);
    expect(row).toContain('R$ 1.500,00');
    expect(row).toContain('lq1qqvxk052k');
    expect(row).toMatch(/WAITING_PAYMENT {2,}lq1/);
  });

  it('a batch shows its progress on stderr, cleared before each line of the table and at the end', async () => {
    // a whole run on a terminal: the progress line's escape codes on a TTY stderr
    const r = await runCli(['deposit', 'create', '--from', tempFile('rows.csv', batchCsv(3))], {
      env,
      stdoutTTY: true,
      stderrTTY: true,
      columns: 100,
      rows: 30,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('\r\u001b[Krows 3/3');
    // what is left on the line once the batch is done: the summary, nothing of the progress
    const afterLast = r.stderr.slice(r.stderr.lastIndexOf('rows 3/3') + 'rows 3/3'.length);
    expect(afterLast.startsWith('\r\u001b[K')).toBe(true);
    expect(afterLast).toMatch(/^\r\u001b\[K3 row\(s\): 3 created/);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(3);
  });

  it('a terminal of no size (0 columns) gets no progress line to redraw', async () => {
    // a whole run on a terminal of no size (a TTY stderr)
    const r = await runCli(['deposit', 'create', '--from', tempFile('rows.csv', batchCsv(3))], {
      env,
      stdoutTTY: true,
      stderrTTY: true,
      columns: 0,
      rows: 0,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('rows 1/3');
    expect(r.stderr).not.toContain('\r');
  });
});
