import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { brCode, createAnswer, EX, LQ, PNG_BASE64, TOKEN, VJL } from '../helpers/fixtures.js';
import { decodePng } from '../helpers/qr.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;
let answer: (body: Record<string, unknown>) => unknown;

beforeEach(async () => {
  answer = (body) => createAnswer(body as never);
  server = await startServer((req, res) =>
    json(res, req.method === 'GET' ? 200 : 201, answer(req.body ? JSON.parse(req.body) : {})),
  );
  env = liveEnv(server.url);
});
afterEach(() => server.close());

describe('deposit create', () => {
  it('sends the checked request with an Idempotency-Key and prints the deposit, QR and copy-paste string', async () => {
    const r = await runCli(['deposit', 'create', '--amount', '1500', '--to', LQ], { env });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/api/deposit');
    expect(JSON.parse(req.body)).toEqual({ amountInCents: 150000, lbrlAddress: LQ });
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stdout).toContain('Amount   R$ 1.500,00 (150000 cents)');
    expect(r.stdout).toContain('Fee      R$ 1.500,00'.replace('1.500,00', '15,00'));
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(150000)}\n`);
    expect(r.stdout).toContain('▄');
    // what to do next: the command that follows it
    expect(r.stderr).toBe(
      `follow it with: lbrl deposit watch ${createAnswer({ amountInCents: 150000, lbrlAddress: LQ }).id}\n`,
    );
  });

  it('--json prints the service object as returned, --no-qr and -q behave', async () => {
    answer = (body) => ({ ...createAnswer(body as never), extra: { kept: true } });
    const r = await runCli(['deposit', 'create', '--amount-cents', '1550', '--to', LQ, '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      ...createAnswer({ amountInCents: 1550, lbrlAddress: LQ }),
      extra: { kept: true },
    });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const q = await runCli(['deposit', 'create', '--amount', '15,5', '--to', LQ, '-q'], { env });
    expect(q.stdout).toBe(`${createAnswer({ amountInCents: 1550, lbrlAddress: LQ }).id}\n`);
    const noQr = await runCli(['deposit', 'create', '--amount', '15.5', '--to', LQ, '--no-qr'], { env });
    expect(noQr.stdout).not.toContain('▄');
  });

  it('sends a split as "X.XX%" and checks the answer', async () => {
    const r = await runCli(
      ['deposit', 'create', '--amount', '10', '--to', LQ, '--split-to', VJL, '--split-fee', '2,99'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      amountInCents: 1000,
      lbrlAddress: LQ,
      lbrlSplitAddress: VJL,
      splitFee: '2.99%',
    });
    expect(r.stdout).toContain(`Split    2.99% of net to ${VJL}`);
  });

  it('takes the destination and split from the profile, and --no-split drops the split', async () => {
    const dir = env.LBRL_CONFIG_DIR!;
    for (const [k, v] of [
      ['default-address', EX],
      ['split-address', VJL],
      ['split-fee', '5'],
    ] as const) {
      expect((await runCli(['config', 'set', k, v], { env: { LBRL_CONFIG_DIR: dir } })).code).toBe(0);
    }
    await runCli(['deposit', 'create', '--amount', '1', '--json'], { env });
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      amountInCents: 100,
      lbrlAddress: EX,
      lbrlSplitAddress: VJL,
      splitFee: '5.00%',
    });
    await runCli(['deposit', 'create', '--amount', '1', '--no-split', '--json'], { env });
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ amountInCents: 100, lbrlAddress: EX });
  });

  it('--dry-run shows the body and sends nothing', async () => {
    const r = await runCli(['deposit', 'create', '--amount', '1500', '--to', LQ, '--dry-run', '--json'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ request: { amountInCents: 150000, lbrlAddress: LQ } });
    expect(server.requests).toHaveLength(0);
  });

  it('--qr-png writes a PNG of the checked qrCodeText, not the picture the service returned', async () => {
    const file = path.join(tempDir(), 'qr.png');
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--qr-png', file, '--json'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(file)).not.toEqual(Buffer.from(PNG_BASE64, 'base64'));
    expect(decodePng(fs.readFileSync(file))).toBe(brCode(100));
  });

  // the refusals of create's flags are cases of the bad-input corpus (test/data/bad-inputs.json)

  it('--json errors are one JSON line on stderr', async () => {
    const r = await runCli(['deposit', 'create', '--amount', 'x', '--to', LQ, '--json'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        type: 'usage',
        message:
          'invalid --amount "x": expected an amount in reais with at most two decimals and no thousands separator, e.g. 1500 or 15,50',
        exitCode: 2,
      },
    });
  });
});

describe('money safety: the answer is checked against the request', () => {
  const base = (body: Record<string, unknown>) => createAnswer(body as never);
  it.each([
    [
      'the wrong amount',
      (b: Record<string, unknown>) => ({
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
      (b: Record<string, unknown>) => ({ ...base(b), destinationAddress: EX }),
      `destinationAddress: sent ${LQ}, service answered ${EX}`,
    ],
    [
      'broken sums',
      (b: Record<string, unknown>) => ({ ...base(b), netAmount: 1500 }),
      'netAmount: sent amount - feeAmount = 1485, service answered 1500',
    ],
    [
      'amount not cents/100',
      (b: Record<string, unknown>) => ({ ...base(b), amount: 1500.01 }),
      'amount: sent amountInCents / 100 = 1500.00, service answered 1500.01',
    ],
    [
      'a corrupted PIX string',
      (b: Record<string, unknown>) => ({ ...base(b), qrCodeText: `${brCode(150000).slice(0, -1)}0` }),
      'qrCodeText: sent a valid PIX BR Code, service answered one where its CRC is',
    ],
    [
      'a PIX string for another amount',
      (b: Record<string, unknown>) => ({ ...base(b), qrCodeText: brCode(15000) }),
      'qrCodeText amount (54): sent 1500.00, service answered 150.00',
    ],
    [
      'a split nobody asked for',
      (b: Record<string, unknown>) => ({ ...base(b), splitAddress: VJL, splitPercent: 0.5 }),
      `splitAddress: sent null, service answered ${VJL}`,
    ],
    [
      'a status other than WAITING_PAYMENT',
      (b: Record<string, unknown>) => ({ ...base(b), status: 'FINALIZED' }),
      'status: sent WAITING_PAYMENT (a new deposit), service answered FINALIZED',
    ],
    ['a missing field', (b: Record<string, unknown>) => ({ ...base(b), qrCode: undefined }), 'field qrCode'],
    [
      'a split percent without an address',
      (b: Record<string, unknown>) => ({ ...base(b), splitPercent: 0.1 }),
      'splitPercent: sent null exactly when splitAddress is null (splitAddress is null), service answered 0.1',
    ],
  ])(
    'refuses an answer with %s (exit 1, both values shown, nothing on stdout)',
    async (_name, make, message) => {
      answer = make;
      const r = await runCli(['deposit', 'create', '--amount', '1500', '--to', LQ], { env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(message);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('an accepted create whose answer cannot be read says a deposit may exist', async () => {
    answer = () => ({ id: 'not-a-uuid' });
    const r = await runCli(['deposit', 'create', '--amount', '1500', '--to', LQ], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /The service accepted the create, so a deposit may exist \(Idempotency-Key [0-9a-f-]{36}\)/,
    );
  });

  it('refuses a split answered with another percentage', async () => {
    answer = (b) => ({ ...base(b), splitPercent: 0.03 });
    const r = await runCli(
      ['deposit', 'create', '--amount', '1', '--to', LQ, '--split-to', VJL, '--split-fee', '2.99'],
      { env },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('splitPercent: sent 0.0299 (2.99%), service answered 0.03');
  });
});

describe('the QR code in the terminal', () => {
  it('--qr-style light draws for a light terminal, and decodes there; a bad style is refused', async () => {
    const { decodeTerminal } = await import('../helpers/qr.js');
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--qr-style', 'light'], {
      env,
    });
    const qr = r.stdout
      .split('\n')
      .filter((l) => /^[█▀▄ ]+$/.test(l) && l.length > 20)
      .join('\n');
    expect(decodeTerminal(qr, 'light')).toBe(brCode(100));
    const bad = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--qr-style', 'blue'], {
      env,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --qr-style "blue"');
    expect(server.requests).toHaveLength(1);
  });

  it('get --qr draws it in the dark style by default and prints the string', async () => {
    const { decodeTerminal } = await import('../helpers/qr.js');
    const { getAnswer } = await import('../helpers/fixtures.js');
    answer = () => getAnswer();
    const r = await runCli(['deposit', 'get', '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', '--qr'], { env });
    expect(r.code).toBe(0);
    const qr = r.stdout
      .split('\n')
      .filter((l) => /^[█▀▄ ]+$/.test(l) && l.length > 20)
      .join('\n');
    expect(decodeTerminal(qr, 'dark')).toBe(brCode(150000));
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(150000)}\n`);
  });
});

describe('base URLs', () => {
  it('a path prefix is kept and /v1/api/deposit appended to it', async () => {
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], {
      env: { ...env, LBRL_BASE_URL: `${server.url}/pix/gateway/` },
    });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.url).toBe('/pix/gateway/v1/api/deposit');
  });

  it('--base-url beats LBRL_BASE_URL', async () => {
    const r = await runCli(
      ['deposit', 'create', '--amount', '1', '--to', LQ, '-q', '--base-url', `${server.url}/flag`],
      {
        env: { ...env, LBRL_BASE_URL: 'https://unused.example.com' },
      },
    );
    expect(r.code).toBe(0);
    expect(server.requests[0]!.url).toBe('/flag/v1/api/deposit');
  });
});
