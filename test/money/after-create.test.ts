/**
 * Money safety after create, as a user runs lbrl against a service that lies: every answer of
 * every command passes the same rules, with what lbrl knows of the deposit; a lie ends in exit 1
 * naming the field and both values, and never in a success line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/index.js';
import { qrPng } from '../../src/ui/qrpng.js';
import { type RunResult, runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { brCode, createAnswer, EX, ID, LQ, VJL } from '../helpers/fixtures.js';
import { decodePng } from '../helpers/qr.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const CENTS = 1500;
const BODY = { amountInCents: CENTS, lbrlAddress: LQ };
const TXID = 'ab'.repeat(32);

/** A deposit of R$ 15,00 to LQ as an honest service answers a GET about it. */
function honest(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { qrCode: _png, ...rest } = createAnswer(BODY);
  return { ...rest, status, settlement: null, confirmedAt: null, ...extra };
}
const finalized = (extra: Record<string, unknown> = {}) =>
  honest('FINALIZED', {
    settlement: { status: 'FINALIZED', liquidTxid: TXID },
    confirmedAt: '2026-11-22T10:05:00.000Z',
    ...extra,
  });

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

type Answer = Record<string, unknown> | string;

/**
 * A service that answers the create as told (honestly by default) and each GET with the next
 * answer of `gets` (the last one again once they run out); a string is sent as the body itself.
 */
async function service(gets: Answer[], create?: (body: typeof BODY) => Answer) {
  let n = 0;
  const server: TestServer = await startServer((req, res) => {
    if (req.method === 'POST') {
      const body = JSON.parse(req.body) as typeof BODY;
      return json(res, 201, create ? create(body) : createAnswer(body));
    }
    const answer = gets[Math.min(n++, gets.length - 1)]!;
    json(res, 200, answer);
  });
  closers.push(() => server.close());
  return { server, env: liveEnv(server.url) };
}

async function createHonestly(env: Record<string, string>): Promise<void> {
  const r = await runCli(['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ, '--json'], {
    env,
  });
  expect(r.code).toBe(0);
}

/** A lie refused: exit 1, one error naming the field, and nothing that looks like success. */
/**
 * `list --refresh` refusing a lie: the list is still shown, that deposit marked ANSWER_REFUSED,
 * the lie said on stderr for its deposit, exit 1 at the end.
 */
function refusedInList(r: RunResult, ...words: string[]): void {
  expect(r.code).toBe(1);
  const said = r.stderr.split('\n').find((l) => l.startsWith(`deposit ${ID}: answer refused: `));
  expect(said).toContain('Do not pay this charge');
  for (const w of words) expect(said).toContain(w);
  expect(r.stdout).toMatch(new RegExp(`^${ID}\t.*\tANSWER_REFUSED$`, 'm'));
  expect(r.stdout).not.toContain('FINALIZED');
}

function refused(r: RunResult, ...words: string[]): void {
  expect(r.code).toBe(1);
  const lines = r.stderr.split('\n');
  const json = lines.find((l) => l.startsWith('{"error":'));
  const error = json
    ? (JSON.parse(json) as { error: { message: string } }).error.message
    : lines.find((l) => l.startsWith('error: '));
  expect(error).toBeDefined();
  expect(error).toContain('Do not pay this charge');
  for (const w of words) expect(error).toContain(w);
  expect(r.stderr).not.toMatch(/FINALIZED\n$/);
  expect(r.stderr).not.toContain('QR code written');
  expect(r.stdout).not.toMatch(/-> FINALIZED/);
}

const watch = (env: Record<string, string>, ...more: string[]) =>
  runCli(['deposit', 'watch', ID, '--interval', '1', ...more], { env });

describe('watch after an honest create: a later answer that changes the deposit ends the watch', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    [
      'the amount is 1 cent',
      { amount: 0.01, amountInCents: 1, feeAmount: 0, netAmount: 0.01, qrCodeText: brCode(1) },
      ['amountInCents: expected 1500, service answered 1'],
    ],
    [
      'another destination',
      { destinationAddress: EX },
      [`destinationAddress: expected ${LQ}, service answered ${EX}`],
    ],
    [
      'a new 50% split',
      { splitAddress: VJL, splitPercent: 0.5 },
      [`splitAddress: expected null, service answered ${VJL}`],
    ],
    ['qrCodeText "hello"', { qrCodeText: 'hello' }, ['qrCodeText: expected a valid PIX BR Code']],
    [
      'createdAt moved',
      { createdAt: '2026-11-22T09:00:00.000Z' },
      ['createdAt: expected 2026-11-22T10:00:00.000Z'],
    ],
    ['feeAmount changed', { feeAmount: 1, netAmount: 14 }, ['feeAmount: expected 0.15, as first answered']],
    [
      'the split percentage appears without an address',
      { splitPercent: 0.5 },
      ['splitPercent: expected null exactly when splitAddress is null'],
    ],
  ])('%s: exit 1, the field named, no FINALIZED', async (_name, lie, words) => {
    const { env } = await service([honest('WAITING_PAYMENT'), finalized(lie)]);
    await createHonestly(env);
    const r = await watch(env);
    refused(r, ...words);
    expect(r.stdout).toContain('WAITING_PAYMENT');
    // the history did not take the lie either
    const list = await runCli(['deposit', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toMatchObject([
      { id: ID, status: 'WAITING_PAYMENT', amountInCents: CENTS },
    ]);
  });

  it('the same lies are caught by create --watch, list --refresh, watch --pending and get', async () => {
    const lie = finalized({ destinationAddress: EX });
    const word = `destinationAddress: expected ${LQ}, service answered ${EX}`;
    const a = await service([lie]);
    const created = await runCli(
      ['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ, '--watch', '--no-qr'],
      { env: a.env },
    );
    refused(created, word);
    refusedInList(await runCli(['deposit', 'list', '--refresh'], { env: a.env }), word);
    for (const args of [
      ['deposit', 'watch', '--pending', '--interval', '1'],
      ['deposit', 'get', ID],
      ['deposit', 'get', ID, '--json'],
    ]) {
      const r = await runCli(args, { env: a.env });
      refused(r, word);
      expect(r.stdout).toBe('');
    }
  });
});

describe('FINALIZED must carry its settlement', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['settlement null', { settlement: null }, 'settlement: expected a settlement object at FINALIZED'],
    [
      'settlement {}',
      { settlement: {} },
      'settlement.liquidTxid: expected a Liquid transaction id at FINALIZED',
    ],
    [
      'a FAILED settlement',
      { settlement: { status: 'FAILED', liquidTxid: TXID } },
      'settlement.status: expected FINALIZED at FINALIZED, service answered FAILED',
    ],
    ['a txid of 1 hex', { settlement: { status: 'FINALIZED', liquidTxid: 'a' } }, 'settlement.liquidTxid'],
    [
      'a txid of 63 hex',
      { settlement: { status: 'FINALIZED', liquidTxid: 'a'.repeat(63) } },
      'settlement.liquidTxid',
    ],
    [
      'a txid of 128 hex',
      { settlement: { status: 'FINALIZED', liquidTxid: 'a'.repeat(128) } },
      'settlement.liquidTxid',
    ],
    [
      'an upper-case txid',
      { settlement: { status: 'FINALIZED', liquidTxid: TXID.toUpperCase() } },
      `settlement.liquidTxid: expected 64 lower-case hex characters, service answered ${TXID.toUpperCase()}`,
    ],
    [
      'a txid of 64 zeros (the null hash)',
      { settlement: { status: 'FINALIZED', liquidTxid: '0'.repeat(64) } },
      'settlement.liquidTxid: expected the id of a transaction, not the null hash',
    ],
    ['no confirmedAt', { confirmedAt: null }, 'confirmedAt: expected a timestamp at FINALIZED'],
    [
      'confirmedAt before createdAt',
      { confirmedAt: '2026-11-21T10:00:00.000Z' },
      'confirmedAt: expected not before createdAt',
    ],
  ])('%s: watch exits 1', async (_name, lie, word) => {
    const { env } = await service([honest('WAITING_PAYMENT'), finalized(lie)]);
    await createHonestly(env);
    refused(await watch(env), word);
  });

  it('also for a deposit lbrl did not create (the internal rules)', async () => {
    const { env } = await service([finalized({ settlement: null })]);
    refused(await runCli(['deposit', 'get', ID], { env }), 'settlement: expected a settlement object');
    refused(await watch(env), 'settlement: expected a settlement object');
  });
});

describe('statuses move forward only, and a final one never changes', () => {
  it('FINALIZED then WAITING_PAYMENT in one watch is refused', async () => {
    const { env } = await service([finalized(), honest('WAITING_PAYMENT')]);
    await createHonestly(env);
    const first = await watch(env);
    expect(first.code).toBe(0);
    // across processes: the history recorded FINALIZED
    const r = await runCli(['deposit', 'get', ID], { env });
    refused(r, 'status: expected FINALIZED, as already answered (a final status never changes)');
  });

  it('TX_SENT recorded by list --refresh, then PIX_CONFIRMED: get refuses it', async () => {
    const txSent = honest('TX_SENT', { settlement: { status: 'PENDING', liquidTxid: TXID } });
    const { env } = await service([txSent, honest('PIX_CONFIRMED')]);
    await createHonestly(env);
    expect((await runCli(['deposit', 'list', '--refresh', '--json'], { env })).code).toBe(0);
    refused(await runCli(['deposit', 'get', ID], { env }), 'status: expected TX_SENT or a later status');
  });

  it('an unknown status is refused, and named', async () => {
    const { env } = await service([honest('PAID')]);
    const r = await runCli(['deposit', 'get', ID], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: .*field status: expected one of WAITING_PAYMENT, .*, service answered "PAID"\. Do not pay this charge/,
    );
    expect(r.stdout).toBe('');
  });
});

describe('create answers', () => {
  it('a negative netAmount is refused: exit 1, no "Net -R$" printed, nothing recorded', async () => {
    const { env } = await service([], (b) => ({ ...createAnswer(b), feeAmount: 20, netAmount: -5 }));
    const r = await runCli(['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ], { env });
    refused(r, 'feeAmount: sent at most the amount, 15, service answered 20');
    expect(r.stdout).toBe('');
    expect(r.stdout + r.stderr).not.toContain('-R$');
    const list = await runCli(['deposit', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it('a key given twice (one value for JSON.parse, another for other readers) is refused', async () => {
    const { env } = await service([], (b) => {
      const text = JSON.stringify(createAnswer(b));
      return `{"qrCodeText":${JSON.stringify(brCode(500000))},${text.slice(1)}`;
    });
    const r = await runCli(['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ], { env });
    refused(r, 'key "qrCodeText" given twice');
  });

  it('an id in upper case is one deposit: the history and list show its real status', async () => {
    const upper = ID.toUpperCase();
    const { env } = await service([finalized({ id: upper })], (b) => ({ ...createAnswer(b), id: upper }));
    const c = await runCli(['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ, '--quiet'], {
      env,
    });
    expect(c.code).toBe(0);
    expect(c.stdout).toBe(`${ID}\n`);
    const w = await runCli(['deposit', 'watch', upper, '--interval', '1'], { env });
    expect(w.code).toBe(0);
    expect(w.stderr).toMatch(new RegExp(`\\ndeposit ${ID} FINALIZED\\n$`));
    expect(w.stderr).not.toContain(ID.toUpperCase());
    const list = await runCli(['deposit', 'list', '--json'], { env });
    const entries = JSON.parse(list.stdout) as Array<{ id: string; status: string }>;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: ID, status: 'FINALIZED' });
    const refreshed = await runCli(['deposit', 'list', '--refresh', '--json'], { env });
    expect(JSON.parse(refreshed.stdout)).toHaveLength(1);
  });
});

describe('every QR lbrl shows or writes is drawn from the checked qrCodeText', () => {
  it('create --qr-png: the service PNG pays R$ 5.000,00 elsewhere; the file written pays the deposit', async () => {
    const other = brCode(500000);
    const png = (await qrPng(other)).toString('base64');
    const { env } = await service([], (b) => ({ ...createAnswer(b), qrCode: png }));
    const file = path.join(tempDir(), 'qr.png');
    const r = await runCli(
      ['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ, '--qr-png', file, '--json'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(decodePng(fs.readFileSync(file))).toBe(brCode(CENTS));
    // --json passes the service's object through as it was returned
    expect(JSON.parse(r.stdout).qrCode).toBe(png);
  });

  it('get --qr-png and get --qr draw the checked text; a FINALIZED one is said not to be paid', async () => {
    const { env } = await service([finalized()]);
    const file = path.join(tempDir(), 'qr.png');
    const r = await runCli(['deposit', 'get', ID, '--qr', '--qr-png', file], { env });
    expect(r.code).toBe(0);
    expect(decodePng(fs.readFileSync(file))).toBe(brCode(CENTS));
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(CENTS)}\n`);
    expect(r.stderr).toContain(
      `warning: deposit ${ID} is FINALIZED: do not pay its QR code or copy-paste string`,
    );
  });

  it('the warning is given with --quiet and --json too, and for FAILED', async () => {
    const { env } = await service([honest('FAILED')]);
    const file = path.join(tempDir(), 'qr.png');
    for (const flag of ['--quiet', '--json']) {
      const r = await runCli(['deposit', 'get', ID, '--qr-png', file, flag], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`warning: deposit ${ID} is FAILED: do not pay`);
    }
  });

  it('a WAITING_PAYMENT deposit is shown without the warning', async () => {
    const { env } = await service([honest('WAITING_PAYMENT')]);
    const r = await runCli(['deposit', 'get', ID, '--qr'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('do not pay');
  });
});

describe('nothing from the service reaches a terminal raw', () => {
  const ESC = '\u001b';
  const fake = `${ESC}[1A${ESC}[2K\rStatus      FINALIZED`;

  it('an address drawing a fake "Status FINALIZED" line is no address, and is shown escaped', async () => {
    // a deposit lbrl did not create: the address is refused by its syntax, the text escaped
    const { env } = await service([honest('WAITING_PAYMENT', { destinationAddress: `${LQ}${fake}` })]);
    const r = await runCli(['deposit', 'get', ID], { env });
    refused(r, 'destinationAddress: expected a Liquid address (letters and digits only)');
    expect(r.stdout).toBe('');
    expect(r.stdout + r.stderr).not.toContain(ESC);
    expect(r.stderr).toContain('\\x1b[1A\\x1b[2K\\rSta');
  });

  it('in a mismatch, the service value is escaped and the warning stays readable', async () => {
    const { env } = await service([
      honest('WAITING_PAYMENT', { destinationAddress: `${EX}${fake}\u009b2K` }),
    ]);
    await createHonestly(env);
    const r = await runCli(['deposit', 'get', ID], { env });
    refused(r, 'destinationAddress');
    expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u009b]/);
  });

  it("the service's own error message is escaped", async () => {
    const server = await startServer((_req, res) => json(res, 500, { message: `down${fake}\u009b2J` }));
    closers.push(() => server.close());
    const r = await runCli(['deposit', 'get', ID], { env: liveEnv(server.url) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the service answered 500: down\\x1b[1A');
    expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u009b]/);
  });

  it('--json passes the value through, with C1 and bidirectional controls as JSON escapes', async () => {
    const note = `x\u009b2J\u202eevil${ESC}[31m`;
    const { env } = await service([honest('WAITING_PAYMENT', { note })]);
    const r = await runCli(['deposit', 'get', ID, '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
    expect(JSON.parse(r.stdout).note).toBe(note);
  });

  it('--verbose shows the bodies with their control characters escaped', async () => {
    const { env } = await service([honest('WAITING_PAYMENT', { note: fake })]);
    const r = await runCli(['deposit', 'get', ID, '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(ESC);
  });
});

describe('where lbrl sends requests decides the mode', () => {
  it('a live service answering "sandbox": true is not called "no real money"', async () => {
    const { env } = await service([finalized({ sandbox: true })], (b) => ({
      ...createAnswer(b),
      sandbox: true,
    }));
    const c = await runCli(['deposit', 'create', '--amount-cents', String(CENTS), '--to', LQ, '--no-qr'], {
      env,
    });
    expect(c.code).toBe(0);
    const g = await runCli(['deposit', 'get', ID], { env });
    expect(g.code).toBe(0);
    for (const r of [c, g]) expect(r.stdout + r.stderr).not.toMatch(/no real money|sandbox/i);
    // a real txid on a live service gets its explorer link
    expect(g.stdout).toContain(`Explorer    https://blockstream.info/liquid/tx/${TXID}`);
  });
});

describe('batch rows pass the same rules', () => {
  it('a row whose answer lies is not created, and says why', async () => {
    const { env } = await service([], (b) => ({ ...createAnswer(b), destinationAddress: EX }));
    const from = path.join(tempDir(), 'rows.csv');
    fs.writeFileSync(from, `amountCents,to\n${CENTS},${LQ}\n`);
    const r = await runCli(['deposit', 'create', '--from', from], { env });
    expect(r.code).toBe(1);
    const line = JSON.parse(r.stdout.trim()) as { error: { type: string; message: string } };
    expect(line.error.type).toBe('mismatch');
    expect(line.error.message).toContain(`destinationAddress: sent ${LQ}, service answered ${EX}`);
  });
});

describe('lies the issue does not list', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['splitPercent 0', { splitAddress: VJL, splitPercent: 0 }, 'splitPercent: expected a fraction above 0'],
    [
      'splitPercent above 1',
      { splitAddress: VJL, splitPercent: 1.5 },
      'splitPercent: expected a fraction above 0',
    ],
    ['a split address without a percentage', { splitAddress: VJL, splitPercent: null }, 'splitPercent'],
    [
      'a fee above the amount',
      { feeAmount: 2000, netAmount: -500 },
      'feeAmount: expected at most the amount',
    ],
    ['a negative fee', { feeAmount: -1, netAmount: 1501 }, 'feeAmount: expected at least 0'],
    ['an amount that is not cents / 100', { amount: 15.001 }, 'amount: expected amountInCents / 100 = 15.00'],
    [
      'a PIX string for another amount',
      { qrCodeText: brCode(150) },
      'qrCodeText amount (54): expected 15.00',
    ],
    [
      'a settlement while waiting',
      { settlement: { status: 'PENDING' } },
      'settlement: expected null at WAITING_PAYMENT',
    ],
    [
      'a txid before TX_SENT',
      { status: 'PIX_CONFIRMED', settlement: { liquidTxid: TXID } },
      'settlement.liquidTxid: expected none',
    ],
    [
      'TX_SENT without a txid',
      { status: 'TX_SENT', settlement: { status: 'PENDING' } },
      'settlement.liquidTxid',
    ],
  ])('%s, on a deposit lbrl did not create: get exits 1', async (_name, lie, word) => {
    const { env } = await service([honest('WAITING_PAYMENT', lie)]);
    const r = await runCli(['deposit', 'get', ID], { env });
    refused(r, word);
    expect(r.stdout).toBe('');
  });

  it('a status going back within one watch ends it', async () => {
    const txSent = honest('TX_SENT', { settlement: { status: 'PENDING', liquidTxid: TXID } });
    const { env } = await service([txSent, honest('PIX_CONFIRMED'), finalized()]);
    refused(await watch(env), 'status: expected TX_SENT or a later status (a status never goes back)');
  });

  it('what a FINALIZED answer said never changes, in a later process either', async () => {
    const other = { status: 'FINALIZED', liquidTxid: 'cd'.repeat(32) };
    const { env } = await service([
      finalized(),
      finalized({ settlement: other }),
      finalized({ confirmedAt: '2026-11-22T11:00:00.000Z' }),
    ]);
    await createHonestly(env);
    expect((await watch(env)).code).toBe(0);
    refused(await runCli(['deposit', 'get', ID], { env }), 'settlement: expected', `${'cd'.repeat(32)}`);
    refused(
      await runCli(['deposit', 'get', ID, '--json'], { env }),
      'confirmedAt: expected 2026-11-22T10:05:00.000Z',
    );
    const list = await runCli(['deposit', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toEqual([expect.not.objectContaining({ final: expect.anything() })]);
  });

  it('a key given twice in a get answer is refused, naming the body', async () => {
    const text = JSON.stringify(honest('WAITING_PAYMENT'));
    const { env } = await service([`{"amountInCents":1,${text.slice(1)}`]);
    const r = await runCli(['deposit', 'get', ID], { env });
    refused(r, 'key "amountInCents" given twice');
  });
});

describe('more lies, each refused by a rule (exit 1, the field and both values named)', () => {
  it.each<[string, Answer, string]>([
    [
      'confirmedAt years ahead',
      finalized({ confirmedAt: '2099-01-01T00:00:00.000Z' }),
      'confirmedAt: expected not after now',
    ],
    [
      'amountInCents written 1.5e3',
      JSON.stringify(finalized()).replace('"amountInCents":1500', '"amountInCents":1.5e3'),
      'amountInCents: expected an integer written as one (digits only, as the interface types it), service answered 1.5e3',
    ],
    [
      'amountInCents written 1500.0',
      JSON.stringify(finalized()).replace('"amountInCents":1500', '"amountInCents":1500.0'),
      'service answered 1500.0',
    ],
  ])('%s: get, get --json, watch and list --refresh refuse it', async (_name, lie, word) => {
    const { env } = await service([honest('WAITING_PAYMENT'), lie]);
    await createHonestly(env);
    expect((await runCli(['deposit', 'get', ID], { env })).code).toBe(0);
    for (const args of [
      ['deposit', 'get', ID],
      ['deposit', 'get', ID, '--json'],
      ['deposit', 'watch', ID, '--interval', '1'],
    ]) {
      const r = await runCli(args, { env });
      refused(r, word);
      expect(r.stdout).not.toContain('FINALIZED');
    }
    refusedInList(await runCli(['deposit', 'list', '--refresh'], { env }), word);
  });

  it('a deposit lbrl did not create: a destination with a bidi control or a space is no address', async () => {
    for (const dest of [`\u202e${LQ}`, `${LQ} `]) {
      const { env } = await service([finalized({ destinationAddress: dest })]);
      const r = await runCli(['deposit', 'get', ID], { env });
      refused(r, 'destinationAddress: expected a Liquid address (letters and digits only)');
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('\u202e');
    }
  });

  it('a get answered 202 (or 201) is not the state of the deposit', async () => {
    for (const code of [201, 202]) {
      const server = await startServer((_req, res) => json(res, code, finalized()));
      closers.push(() => server.close());
      const env = liveEnv(server.url);
      for (const args of [
        ['deposit', 'get', ID],
        ['deposit', 'watch', ID, '--interval', '1'],
      ]) {
        const r = await runCli(args, { env });
        refused(r, `HTTP ${code}, not 200`);
        expect(r.stdout).toBe('');
      }
    }
  });

  it('the library refuses them as the command line does (LbrlError mismatch / contract)', async () => {
    const lies: Array<[number, Answer, string]> = [
      [200, finalized({ confirmedAt: '2099-01-01T00:00:00.000Z' }), 'confirmedAt: expected not after now'],
      [202, finalized(), 'HTTP 202, not 200'],
    ];
    for (const [code, lie, word] of lies) {
      const server = await startServer((_req, res) => json(res, code, lie));
      closers.push(() => server.close());
      const lbrl = createClient({ baseUrl: server.url, token: 'tok_secret_ABCDEFGHIJKLMNOP', maxRetries: 0 });
      const error = await lbrl.get(ID).then(
        () => undefined,
        (e: unknown) => e as Error & { exitCode: number },
      );
      expect(error?.message).toContain(word);
      expect(error?.exitCode).toBe(1);
    }
  });

  it('odd but valid answers are accepted: same instant in another offset, upper-case bech32, extra fields', async () => {
    const { env } = await service([
      honest('WAITING_PAYMENT'),
      finalized({
        createdAt: '2026-11-22T07:00:00.000-03:00',
        destinationAddress: LQ.toUpperCase(),
        note: 'extra',
      }),
    ]);
    await createHonestly(env);
    const r = await watch(env);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
  });
});
