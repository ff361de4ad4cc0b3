import { describe, expect, it } from 'vitest';
import type { CreateRequest } from '../../src/api/models.js';
import {
  type BatchCommandOptions,
  type BatchOptions,
  runBatch,
} from '../../src/commands/shared/create-batch.js';
import type { Context } from '../../src/context.js';
import type { CreatedRecord, StoredRecord } from '../../src/store/history-records.js';
import { tempFile } from '../helpers/cli.js';
import { batchCsv, createAnswer, EX, LQ, VJL } from '../helpers/fixtures.js';
import { plainTerminal, type SeenRun, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { type ScriptedDepositApi, scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Batched extends SeenRun {
  api: ScriptedDepositApi;
  records: StoredRecord[];
  /** the most creates the service had in hand at once */
  maxInFlight: number;
}

async function batch(
  flags: Partial<BatchOptions> & { from: string },
  o: {
    answer?: (body: CreateRequest, n: number) => unknown;
    stdin?: string;
    json?: boolean;
    /** what the process would end with should its stdout close (Context.whenStdoutGone) */
    whenStdoutGone?: Context['whenStdoutGone'];
  } = {},
): Promise<Batched> {
  const clock = steppingClock();
  const term = plainTerminal({ json: o.json, stdin: o.stdin, now: clock.now });
  let inFlight = 0;
  let maxInFlight = 0;
  const api = scriptedDepositApi({
    now: clock.now,
    create: async (body, n) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // the answers come back out of order: the lines must not
      for (let i = 0; i < 1 + (n % 3); i++) await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      return o.answer ? o.answer(body, n) : { ...createAnswer(body), id: idOf(n) };
    },
  });
  const records: StoredRecord[] = [];
  const options: BatchCommandOptions = {
    flags: flags as BatchOptions,
    printer: term.printer,
    globals: { json: o.json },
    ctx: { ...term.ctx, whenStdoutGone: o.whenStdoutGone },
    requestDefaults: () => ({ network: 'liquid', defaultAddress: EX }),
    scope: () => ({ profile: 'default', target: SERVICE }),
    client: async () => api,
    recorder: { record: (r) => records.push(...r) },
    clock,
    resumable: () => {
      throw new Error('no --resume in these tests');
    },
  };
  const seen = await seenRun(term, () => runBatch(options));
  return { api, records, maxInFlight, ...seen };
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('deposit create --from: a line sized for a script', () => {
  it("leaves each deposit's base64 PNG qrCode out (id, status, the copy-paste string stay); --with-qr-code keeps it", async () => {
    const file = tempFile('rows.csv', batchCsv(3));
    const r = await batch({ from: file });
    expect(r.error).toBeUndefined();
    const out = lines(r.stdout);
    for (const line of out) {
      expect(Object.keys(line.deposit)).not.toContain('qrCode');
      expect(line.deposit.id).toMatch(/^00000000-/);
      expect(line.deposit.status).toBe('WAITING_PAYMENT');
      expect(line.deposit.qrCodeText).toMatch(/^000201/);
    }
    // a line is a few hundred bytes, not a PNG's tens of kB
    for (const text of r.stdout.trim().split('\n')) expect(text.length).toBeLessThan(1000);
    const kept = await batch({ from: file, withQrCode: true });
    const withPng = lines(kept.stdout);
    for (const line of withPng) expect(line.deposit.qrCode).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // otherwise the same line, field for field and in order
    const { qrCode: _png, ...rest } = withPng[0].deposit;
    expect(JSON.stringify(rest)).toBe(JSON.stringify(out[0].deposit));
  });
});

describe('deposit create --from, in process with a scripted service', () => {
  it('creates every row, four at a time, each recorded with its own key, NDJSON in row order', async () => {
    const r = await batch({ from: tempFile('rows.csv', batchCsv(10)) });
    expect(r.error).toBeUndefined();
    const out = lines(r.stdout);
    expect(out.map((l) => l.row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(out.map((l) => l.deposit.amountInCents)).toEqual([
      100, 200, 300, 400, 500, 600, 700, 800, 900, 1000,
    ]);
    expect(out[1].deposit).toMatchObject({ splitAddress: VJL, splitPercent: 0.015 });
    expect(r.api.creates()[1]!.body).toEqual({
      amountInCents: 200,
      lbrlAddress: LQ,
      lbrlSplitAddress: VJL,
      splitFee: '1.50%',
    });
    expect(r.maxInFlight).toBeLessThanOrEqual(4);
    expect(r.maxInFlight).toBeGreaterThan(1);
    expect(new Set(r.api.creates().map((c) => c.idempotencyKey)).size).toBe(10);
    const created = r.records.filter((x): x is CreatedRecord => x.type === 'created');
    expect(created).toHaveLength(10);
    expect(new Set(created.map((c) => c.batchKey)).size).toBe(10);
    expect(created.every((c) => c.profile === 'default' && c.baseUrl === SERVICE)).toBe(true);
    expect(r.stderr).toBe('10 row(s): 10 created, 0 failed\n');
  });

  it('a reader gone (stdout closed: | head) before the last row ends the run 141, never 0, saying how to resume', async () => {
    let end: (() => number) | undefined;
    let code: number | undefined;
    const file = tempFile('rows.csv', batchCsv(10));
    const r = await batch(
      { from: file, concurrency: '1' },
      {
        whenStdoutGone: (given) => {
          end = given;
        },
        answer: (body, n) => {
          // the reader goes as the fourth row is sent: three were printed
          if (n === 4 && end) code = end();
          return { ...createAnswer(body), id: idOf(n) };
        },
      },
    );
    expect(code).toBe(141);
    // in process the run goes on; what it said then comes first on stderr
    expect(r.stderr.split('\n')[0]).toBe(
      `error: stdout closed (its reader went away) before the batch ended: 3 of 10 row(s) printed; lbrl deposit create --from ${JSON.stringify(file)} --resume creates the rest, none twice`,
    );
    // done: a reader gone from now on ends the run as the batch did
    expect(end).toBeUndefined();
  });

  it('reads NDJSON from stdin, a missing "to" taking the profile default, one at a time with --concurrency 1', async () => {
    const stdin = `{"amountCents": 150000, "to": "${LQ}"}\n\n{"amount": "15,50"}\n{"amount": 0.1}\n`;
    const r = await batch({ from: '-', concurrency: '1' }, { stdin });
    expect(r.error).toBeUndefined();
    expect(r.api.creates().map((c) => c.body)).toEqual([
      { amountInCents: 150000, lbrlAddress: LQ },
      { amountInCents: 1550, lbrlAddress: EX },
      { amountInCents: 10, lbrlAddress: EX },
    ]);
    expect(r.maxInFlight).toBe(1);
  });

  it('refuses a file with bad rows whole (exit 2), naming each row and field, sending and recording nothing', async () => {
    const bad = `amount,to,splitFee\n1,${LQ},\n1.500,${LQ},\n2,not-an-address,\n3,${LQ},2.5\n,${LQ},\n`;
    const r = await batch({ from: tempFile('bad.csv', bad) });
    expect(r.error?.exitCode).toBe(2);
    const problems = r.error!.message.split('\n');
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/^4 problem\(s\) in .*bad\.csv; nothing was sent:$/);
    expect(problems[1]).toContain('row 2 (line 3): invalid amount "1.500": expected an amount in reais');
    expect(problems[2]).toContain('row 3 (line 4): invalid to "not-an-address"');
    expect(problems[3]).toContain('row 4 (line 5): splitFee needs splitTo');
    expect(problems[4]).toContain('row 5 (line 6): missing amount: give amount or amountCents');
    expect(r.api.calls).toEqual([]);
    expect(r.records).toEqual([]);
    expect(r.stdout).toBe('');
  });

  it("--dry-run prints each row's request and sends nothing", async () => {
    const r = await batch({ from: tempFile('rows.csv', batchCsv(2)), dryRun: true });
    expect(r.error).toBeUndefined();
    expect(lines(r.stdout)).toEqual([
      { row: 1, request: { amountInCents: 100, lbrlAddress: LQ } },
      { row: 2, request: { amountInCents: 200, lbrlAddress: LQ, lbrlSplitAddress: VJL, splitFee: '1.50%' } },
    ]);
    expect(r.api.calls).toEqual([]);
  });

  it('a row whose answer lies fails alone (exit 1, not recorded); the others are created and recorded', async () => {
    const r = await batch(
      { from: tempFile('rows.csv', batchCsv(3)) },
      {
        answer: (body, n) =>
          body.amountInCents === 200
            ? { ...createAnswer(body), id: idOf(n), destinationAddress: EX }
            : { ...createAnswer(body), id: idOf(n) },
      },
    );
    expect(r.error?.exitCode).toBe(1);
    const out = lines(r.stdout);
    expect(out.map((l) => (l.error ? 'failed' : 'created'))).toEqual(['created', 'failed', 'created']);
    expect(out[1].error).toMatchObject({ type: 'mismatch', exitCode: 1 });
    expect(out[1].error.message).toContain(`destinationAddress: sent ${LQ}, service answered ${EX}`);
    const created = r.records.filter((x): x is CreatedRecord => x.type === 'created');
    expect(created.map((c) => c.amountInCents).sort()).toEqual([100, 300]);
    expect(r.stderr).toContain('3 row(s): 2 created, 1 failed\n');
  });
});

describe('deposit create --from: the ref and note columns', () => {
  it('each row keeps its reference and note in the ledger and its NDJSON line; the service never sees them', async () => {
    const csv = `valor;destino;referência;observação\r\n15,50;${LQ};pedido 1;"mesa 7; sem troco"\r\n15,50;${LQ};pedido 2;\r\n9;${LQ};;\r\n`;
    const r = await batch({ from: tempFile('rows.csv', csv) });
    expect(r.error).toBeUndefined();
    expect(r.api.creates().map((c) => c.body)).toEqual([
      { amountInCents: 1550, lbrlAddress: LQ },
      { amountInCents: 1550, lbrlAddress: LQ },
      { amountInCents: 900, lbrlAddress: LQ },
    ]);
    const created = r.records.filter((x): x is CreatedRecord => x.type === 'created');
    // recorded as the answers come back, in any order
    expect(created).toHaveLength(3);
    expect(created.map((x) => [x.ref, x.note])).toEqual(
      expect.arrayContaining([
        ['pedido 1', 'mesa 7; sem troco'],
        ['pedido 2', undefined],
        [undefined, undefined],
      ]),
    );
    const out = lines(r.stdout);
    expect(out.map((l) => [l.deposit.ref, l.deposit.note])).toEqual([
      ['pedido 1', 'mesa 7; sem troco'],
      ['pedido 2', undefined],
      [undefined, undefined],
    ]);
    // two rows alike but for their reference are two rows, with two keys
    expect(new Set(created.map((x) => x.batchKey)).size).toBe(3);
  });

  it('a bad ref or note refuses the file before anything is sent, naming row and column', async () => {
    const rows = [
      JSON.stringify({ amount: '1', to: LQ, ref: 'ok' }),
      JSON.stringify({ amount: '1', to: LQ, ref: 'a\u001bb' }),
      JSON.stringify({ amount: '1', to: LQ, note: 'x'.repeat(501) }),
    ].join('\n');
    const r = await batch({ from: tempFile('rows.ndjson', rows) });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain(
      'row 2 (line 2): invalid ref "a\\u001bb": expected text of 1 to 100 characters',
    );
    expect(r.error?.message).toContain('row 3 (line 3): invalid note');
    expect(r.api.creates()).toEqual([]);
  });
});
