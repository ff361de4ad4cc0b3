/**
 * `deposit export` held against the readers people use, not our own parser: ofxdump (libofx, what
 * GnuCash and KMyMoney read OFX with), hledger (check and balance) and LibreOffice Calc run
 * headless. The built program exports a month of a ledger file (test/helpers/export-ledger.ts);
 * what each reader says is compared with `deposit report --json` for the same month, to the cent.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { openedByCalc } from '../helpers/calc.js';
import { EXPORT_TZ, exportId, exportLedger } from '../helpers/export-ledger.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);

/** `1.234,56`, `-15.50`, `5940.00`: integer cents by the text, the decimal mark given. */
function cents(text: string, decimal: ',' | '.'): number {
  const plain = text.replace(decimal === ',' ? /\./g : /,/g, '');
  const match = new RegExp(`^(-?)(\\d+)\\${decimal}(\\d{2})$`).exec(plain);
  if (!match) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  return (match[1] ? -1 : 1) * (Number(match[2]) * 100 + Number(match[3]));
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('deposit export, read by ofxdump, hledger and LibreOffice', () => {
  const dir = tempDir();
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: dir, TZ: EXPORT_TZ };
  let total: Record<string, number>;

  const exported = async (format: string): Promise<string> => {
    const file = path.join(dir, `export-${format}.${format === 'csv-br' ? 'csv' : format}`);
    if (format === 'ofx') return exportedBytes(['--month', '2026-11', '--format', format], env, file);
    const result = await runBin(['deposit', 'export', '--month', '2026-11', '--format', format], env);
    expect(result.code).toBe(0);
    fs.writeFileSync(file, result.stdout);
    return file;
  };

  beforeAll(async () => {
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      exportLedger()
        .map((record) => `${JSON.stringify(record)}\n`)
        .join(''),
      { mode: 0o600 },
    );
    const report = await runBin(
      ['deposit', 'report', '--since', '2026-11-01', '--until', '2026-12-01', '--json'],
      env,
    );
    expect(report.code).toBe(0);
    total = JSON.parse(report.stdout).total;
    expect(total.netCents).toBeGreaterThan(0);
  }, 60_000);

  it('ofxdump reads the OFX with no error: the same credits, FITIDs, and sums as the report', async () => {
    const file = await exported('ofx');
    const { stdout, stderr } = await run('ofxdump', [file], { env: { ...process.env, TZ: EXPORT_TZ } });
    expect(ofxdumpComplaints(stderr)).toEqual([]);
    const amounts = [...stdout.matchAll(/Total money amount: (-?[\d.]+)/g)].map((m) => cents(m[1]!, '.'));
    expect(amounts).toHaveLength(7);
    expect(sum(amounts)).toBe(total.netCents);
    expect(cents(/Ledger balance: (-?[\d.]+)/.exec(stdout)![1]!, '.')).toBe(total.netCents);
    const ids = [...stdout.matchAll(/Financial institution's ID for this transaction: (\S+)/g)].map(
      (m) => m[1],
    );
    expect(ids).toEqual([2, 3, 4, 5, 6, 12, 13].map(exportId));
    expect(stdout).toContain('Currency: BRL');
    expect(stdout).toContain('Date posted: Sun Nov  1 00:30:00 2026 -03');
  }, 60_000);

  it('hledger checks the journal (strictly) and balances it to the report, account by account', async () => {
    const file = await exported('journal');
    await run('hledger', ['-f', file, 'check', '--strict']);
    const { stdout } = await run('hledger', ['-f', file, 'balance', '-O', 'csv']);
    const balances = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(`[${line}]`) as [string, string])
        .map(([account, amount]) => [account, amount === '0' ? 0 : cents(amount.replace(/^R\$ /, ''), ',')]),
    );
    // the deposit an older lbrl recorded without its fee and net is counted in the report's gross only
    const oldGross = 1000;
    expect(balances).toEqual({
      'assets:liquid:destination': total.destinationCents,
      'expenses:split': total.splitCents,
      'expenses:deposit fees': total.feeCents,
      'revenue:pix': -(total.grossCents! - oldGross),
      total: 0,
    });
  }, 60_000);

  it('LibreOffice opens csv-br with every amount a number, and the formulas, numbers and dates of references as text', async () => {
    const file = await exported('csv-br');
    const [header, ...data] = await openedByCalc(file);
    const names = header!.map(([, value]) => value);
    const col = (name: string) => names.indexOf(name);
    expect(data).toHaveLength(12);
    for (const row of data)
      for (const name of ['amount', 'fee', 'net', 'destination'])
        expect(row[col(name)]![0], `${name} of ${row[0]![1]}`).toBe(
          row[col(name)]![1] === '' ? 'empty' : 'float',
        );
    const final = data.filter(
      (row) => row[col('status')]![1] === 'FINALIZED' && row[col('fee')]![0] === 'float',
    );
    // the float cell's value, back to cents by its text (LibreOffice writes 5940 or 15.35)
    const valueCents = (text: string) =>
      cents(text.includes('.') ? text.padEnd(text.indexOf('.') + 3, '0') : `${text}.00`, '.');
    const of = (name: string) =>
      sum(final.map((row) => (row[col(name)]![0] === 'float' ? valueCents(row[col(name)]![1]) : 0)));
    expect(of('fee')).toBe(total.feeCents);
    expect(of('net')).toBe(total.netCents);
    expect(of('split')).toBe(total.splitCents);
    expect(of('destination')).toBe(total.destinationCents);
    const formula = data.find((row) => row[0]![1] === exportId(3))![col('reference')]!;
    expect(formula).toEqual(['string', `'=HYPERLINK("http://evil.example","clique")`]);
    expect(data.flat().filter(([type]) => type === 'formula')).toEqual([]);
    // references and notes a spreadsheet would convert (a number losing its zeros, a date) stay text
    const cell = (n: number, name: string) => data.find((row) => row[0]![1] === exportId(n))![col(name)]!;
    expect(cell(9, 'reference')).toEqual(['string', "'00123"]);
    expect(cell(12, 'reference')).toEqual(['string', "'1/2"]);
    expect(cell(12, 'note')).toEqual(['string', "'15,50"]);
  }, 300_000);
});

/**
 * The export's bytes as a shell's redirection takes them (`> file`): no decoding on the way, as
 * an OFX in Windows-1252 must not be read as UTF-8.
 */
function exportedBytes(args: string[], env: Record<string, string>, file: string): string {
  const out = fs.openSync(file, 'w');
  const result = spawnSync(process.execPath, [BIN, 'deposit', 'export', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', out, 'pipe'],
    encoding: 'utf8',
  });
  fs.closeSync(out);
  expect(result.status, result.stderr).toBe(0);
  return file;
}

/**
 * What ofxdump says is wrong, but its OpenSP parser's INFO about each byte past ASCII ("ignored
 * character error: ... non SGML character number 195"): libofx has converted the declared
 * Windows-1252 to UTF-8 before, and prints the characters right.
 */
function ofxdumpComplaints(stderr: string): string[] {
  return stderr
    .replace(
      /LibOFX INFO: OpenSP parser: ignored character error:\n\S+:E: non SGML character number \d+\n\n\(Above message occurred on Line \d+, Column \d+\)\n?/g,
      '',
    )
    .split('\n')
    .filter((line) => /error|warning/i.test(line));
}

describe('deposit export --format ofx, accents read by ofxdump', () => {
  it.each([
    ['São Paulo, ação', 'São Paulo, ação'],
    ['“Pão” – 5 € … Œuvre', '“Pão” – 5 € … Œuvre'],
    ['ǎ ő 💸 Москва', 'a o ? ??????'],
  ])(
    'a reference %j is read %j, in the payee and the memo',
    async (ref, shown) => {
      const dir = tempDir();
      const records = exportLedger().map((r) =>
        'id' in r && r.type === 'created' && r.id === exportId(2) ? { ...r, ref, note: 'ação' } : r,
      );
      fs.writeFileSync(
        path.join(dir, 'history.ndjson'),
        records.map((r) => `${JSON.stringify(r)}\n`).join(''),
        {
          mode: 0o600,
        },
      );
      const env = { HOME: tempDir(), LBRL_CONFIG_DIR: dir, TZ: EXPORT_TZ };
      const file = exportedBytes(['--month', '2026-11', '--format', 'ofx'], env, path.join(dir, 'a.ofx'));
      const { stdout, stderr } = await run('ofxdump', [file], { env: { ...process.env, TZ: EXPORT_TZ } });
      expect(ofxdumpComplaints(stderr)).toEqual([]);
      const first = stdout.split('ofx_proc_transaction():').find((t) => t.includes(exportId(2)))!;
      expect(/Name of payee or transaction description: (.*)/.exec(first)?.[1]).toBe(shown);
      expect(/Extra transaction information \(memo\): (.*)/.exec(first)?.[1]).toMatch(
        new RegExp(`^${shown.replace(/[?.*+()|[\]\\]/g, '\\$&')} \\| ação \\| bruto `),
      );
    },
    60_000,
  );
});

describe('deposit export of a busy year', () => {
  it('130,000 finalized deposits are one OFX statement, not a stack overflow', async () => {
    const dir = tempDir();
    const [created, finalized] = exportLedger().filter((r) => 'id' in r && r.id === exportId(2));
    const lines: string[] = [];
    for (let n = 1; n <= 130_000; n++) {
      const id = exportId(100_000 + n);
      lines.push(JSON.stringify({ ...created, id }), JSON.stringify({ ...finalized, id }));
    }
    fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
    // a shell's redirection: the statement (26 MB) goes to a file, as `> all.ofx` sends it; no
    // window: the statement's first and last dates are the deposits' own
    const file = path.join(dir, 'november.ofx');
    const out = fs.openSync(file, 'w');
    const result = spawnSync(process.execPath, [BIN, 'deposit', 'export', '--format', 'ofx'], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), LBRL_CONFIG_DIR: dir, TZ: EXPORT_TZ },
      stdio: ['ignore', out, 'pipe'],
      encoding: 'utf8',
    });
    fs.closeSync(out);
    expect(result.stderr).not.toMatch(/error|stack|Maximum call/i);
    expect(result.status).toBe(0);
    const statement = fs.readFileSync(file, 'utf8');
    expect(statement.match(/<STMTTRN>/g)).toHaveLength(130_000);
    expect(/<DTSTART>([^\r\n]*)/.exec(statement)![1]).toBe('20261101003000[-3:GMT]');
  });
});
