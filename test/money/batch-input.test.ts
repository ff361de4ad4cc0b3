import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, tempFile } from '../helpers/cli.js';
import { createAnswer, LQ, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;

beforeEach(async () => {
  server = await startServer((req, res) => json(res, 201, createAnswer(JSON.parse(req.body))));
  env = { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
});
afterEach(() => server.close());

describe('deposit create --from reads numbers as written', () => {
  it.each([
    ['1e3', 'an amount in reais without scientific notation: write 1000'],
    ['0.1e1', 'an amount in reais without scientific notation: write 1'],
    ['1.5e3', 'an amount in reais without scientific notation: write 1500'],
    ['1500.0000000000001', 'an amount in reais with at most two decimals (a cent is the smallest unit)'],
  ])('NDJSON amount %s is refused as --amount refuses it, quoting the literal', async (literal, expected) => {
    const from = tempFile('rows.ndjson', `{"amount": ${literal}, "to": "${LQ}"}\n`);
    const r = await runCli(['deposit', 'create', '--from', from], { env });
    const flag = await runCli(['deposit', 'create', '--amount', literal, '--to', LQ], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`row 1 (line 1): invalid amount "${literal}": expected ${expected}`);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(`invalid --amount "${literal}": expected ${expected}`);
    expect(server.requests).toHaveLength(0);
  });

  it('a CSV quote that closes early is refused, never joined into a bigger amount', async () => {
    const r = await runCli(
      ['deposit', 'create', '--from', tempFile('rows.csv', `amount,to\n"15"00,${LQ}\n`)],
      {
        env,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'line 2: a quoted field is followed by "0"; expected "," or the end of the line',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('a pt-BR spreadsheet CSV (;, comma decimals, Portuguese header) creates what it says', async () => {
    const from = tempFile('cobrancas.csv', `valor;destino\r\n15,50;${LQ}\r\n`);
    const r = await runCli(['deposit', 'create', '--from', from], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).deposit).toMatchObject({ amountInCents: 1550, amount: 15.5 });
    expect(server.requests.map((q) => JSON.parse(q.body))).toEqual([
      { amountInCents: 1550, lbrlAddress: LQ },
    ]);
  });
});
