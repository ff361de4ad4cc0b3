/**
 * `deposit export` as a function of narrow options (runExport), beside `deposit report` on the same
 * ledger (test/helpers/export-ledger.ts, a month with its edges): what each format writes, and that
 * its totals are the report's to the cent. The readers people use (ofxdump, hledger, LibreOffice)
 * read the same files in test/e2e/export-readers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type ExportOptions, runExport } from '../../src/commands/deposit-export.js';
import { type ReportOptions, runReport } from '../../src/commands/deposit-report.js';
import { CSV_EXPORT_COLUMNS } from '../../src/deposits/export.js';
import type { LbrlError } from '../../src/errors.js';
import { History } from '../../src/store/history.js';
import type { CreatedRecord, StoredRecord } from '../../src/store/history-records.js';
import { EXPORT_TZ, exportId, exportLedger } from '../helpers/export-ledger.js';
import { plainTerminal } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
import { tempDir } from '../helpers/temp.js';
import { readWindows1252 } from '../helpers/windows-1252.js';

const NOW = Date.parse('2026-12-02T12:00:00Z');

async function seen(work: (term: ReturnType<typeof plainTerminal>) => Promise<void>, json = false) {
  const term = plainTerminal({ json, env: { TZ: EXPORT_TZ }, now: () => NOW });
  let error: LbrlError | undefined;
  try {
    await work(term);
  } catch (caught) {
    error = caught as LbrlError;
  }
  return { stdout: term.stdout, bytes: term.stdoutBytes!, stderr: term.stderr, error };
}

function world(term: ReturnType<typeof plainTerminal>, json: boolean) {
  const history = recordsHistory(exportLedger());
  return { printer: term.printer, json, profileName: 'default', ctx: term.ctx, history: () => history };
}

const exported = (flags: ExportOptions, json = false) =>
  seen((term) => runExport({ flags, ...world(term, json) }), json);

/** The report's totals for the same window, as `report --json` gives them. */
async function reportTotals(flags: ReportOptions) {
  const run = await seen((term) => runReport({ flags, ...world(term, true) }), true);
  return JSON.parse(run.stdout).total as Record<string, number>;
}

/** RFC 4180 records (CRLF, quoted fields with "" inside). */
function readCsv(text: string, separator: string): string[][] {
  expect(text.endsWith('\r\n')).toBe(true);
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === separator) {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += char;
  }
  return rows;
}

/** `15,50` or `15.50` as integer cents, by the text (no float). */
function cents(text: string): number {
  const match = /^(-?)(\d+)[.,](\d{2})$/.exec(text);
  if (!match) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  return (match[1] ? -1 : 1) * (Number(match[2]) * 100 + Number(match[3]));
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('deposit export --format csv and csv-br', () => {
  it.each([
    ['csv', ','],
    ['csv-br', ';'],
  ])(
    '%s: one record per deposit of the month, oldest first, finalized sums equal to the report',
    async (format, separator) => {
      const run = await exported({ format, month: '2026-11' });
      expect(run.error).toBeUndefined();
      const [header, ...rows] = readCsv(run.stdout, separator);
      expect(header).toEqual([
        'id',
        'reference',
        'note',
        'created',
        'confirmed',
        'status',
        'amount',
        'fee',
        'net',
        'split_address',
        'split',
        'destination',
        'settlement_txid',
        'on_chain',
      ]);
      // 00:30 local on the 1st and 23:59 local on the 30th are in; October and December are not
      expect(rows.map((r) => r[0])).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(exportId));
      expect(rows[0]!.slice(3, 6)).toEqual([
        '2026-11-01T00:30:00-03:00',
        '2026-11-01T00:31:00-03:00',
        'FINALIZED',
      ]);
      const col = (name: string) => header!.indexOf(name);
      const final = rows.filter((r) => r[col('status')] === 'FINALIZED' && r[col('fee')] !== '');
      const total = await reportTotals({ since: '2026-11-01', until: '2026-12-01' });
      const of = (name: string) => sum(final.map((r) => (r[col(name)] === '' ? 0 : cents(r[col(name)]!))));
      expect(of('amount')).toBe(total.grossCents! - 1000); // the older record's amount: counted in gross, no fee or net
      expect(of('fee')).toBe(total.feeCents);
      expect(of('net')).toBe(total.netCents);
      expect(of('split')).toBe(total.splitCents);
      expect(of('destination')).toBe(total.destinationCents);
      // the amounts: the dialect's decimal, no grouping; the largest exact
      const big = rows.find((r) => r[0] === exportId(3))!;
      expect(big.slice(6, 9)).toEqual(
        separator === ';' ? ['6000,00', '60,00', '5940,00'] : ['6000.00', '60.00', '5940.00'],
      );
      expect(rows.map((r) => r[col('on_chain')])).toEqual([
        'verified',
        'unproven',
        'not checked',
        'mismatch',
        'not checked',
        '',
        '',
        '',
        'not checked',
        '',
        'not checked',
        'not checked',
      ]);
      expect(rows.find((r) => r[0] === exportId(9))![col('status')]).toBe('EXPIRED');
      expect(run.stderr).toContain('1 finalized deposit(s) have no fee or net in the history');
    },
  );

  it('the merchant words are text a spreadsheet does not run or convert: =, +, -, @, numbers, dates lead with a quote', async () => {
    const run = await exported({ format: 'csv-br', month: '2026-11' });
    const rows = readCsv(run.stdout, ';');
    const refOf = (n: number) => rows.find((r) => r[0] === exportId(n))![1];
    expect(refOf(3)).toBe(`'=HYPERLINK("http://evil.example","clique")`);
    expect(refOf(5)).toBe(`'+55 11 9999`);
    expect(refOf(6)).toBe(`'-10`);
    expect(refOf(7)).toBe(`'@SUM(A1:A9)`);
    expect(refOf(4)).toBe('pão de queijo 🧀');
    // what a spreadsheet would read as a number or a date keeps its text too
    expect(refOf(9)).toBe(`'00123`);
    expect(refOf(12)).toBe(`'1/2`);
    expect(rows.find((r) => r[0] === exportId(12))![2]).toBe(`'15,50`);
    expect(rows.find((r) => r[0] === exportId(3))![2]).toBe('mesa 7; "sem troco"');
    // and a number the writer made is never quoted
    expect(run.stdout).toContain(';6000,00;60,00;5940,00;');
  });
});

describe('deposit export --format ofx', () => {
  it('an OFX 1.02 statement: one CREDIT of the net per finalized deposit, FITID its id, the sums the report’s', async () => {
    const run = await exported({ format: 'ofx', month: '2026-11' });
    expect(run.error).toBeUndefined();
    // the bytes of the Windows-1252 its header declares
    const text = readWindows1252(run.bytes);
    expect(text.startsWith('OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\n')).toBe(true);
    expect(text).toContain('\r\nENCODING:USASCII\r\nCHARSET:1252\r\n');
    expect(text).toContain('\r\n<CURDEF>BRL\r\n');
    const transactions = [...text.matchAll(/<STMTTRN>([\s\S]*?)<\/STMTTRN>/g)].map((m) => m[1]!);
    const field = (t: string, name: string) => new RegExp(`<${name}>([^\\r\\n]*)`).exec(t)?.[1];
    expect(transactions.map((t) => field(t, 'FITID'))).toEqual([2, 3, 4, 5, 6, 12, 13].map(exportId));
    expect(transactions.every((t) => field(t, 'TRNTYPE') === 'CREDIT')).toBe(true);
    const total = await reportTotals({ since: '2026-11-01', until: '2026-12-01' });
    expect(sum(transactions.map((t) => cents(field(t, 'TRNAMT')!)))).toBe(total.netCents);
    expect(cents(/<BALAMT>([^\r\n]*)/.exec(text)![1]!)).toBe(total.netCents);
    // the first deposit: local time with its offset, gross and fee in the memo
    expect(field(transactions[0]!, 'DTPOSTED')).toBe('20261101003000[-3:GMT]');
    expect(field(transactions[0]!, 'MEMO')).toBe('pedido 1042 | bruto 15,50 | tarifa 0,15');
    // a NAME is at most 32 characters
    expect(field(transactions[1]!, 'NAME')).toBe('=HYPERLINK("http://evil.example"');
    expect(field(transactions[2]!, 'NAME')).toBe('pão de queijo ?');
    expect(run.bytes.includes(Buffer.from('p\xe3o de queijo ?', 'latin1'))).toBe(true);
    expect(/<DTEND>([^\r\n]*)/.exec(text)![1]).toBe('20261130235959[-3:GMT]');
  });

  it('markup in a reference is escaped, never read as a tag', async () => {
    const records = exportLedger().map((r) =>
      r.type === 'created' && r.id === exportId(2) ? { ...r, ref: '</NAME><TRNAMT>999999.00 & co' } : r,
    );
    const history = recordsHistory(records);
    const run = await seen((term) =>
      runExport({
        flags: { format: 'ofx', month: '2026-11' },
        ...world(term, false),
        history: () => history,
      }),
    );
    expect(run.stdout).toContain('<MEMO>&lt;/NAME&gt;&lt;TRNAMT&gt;999999.00 &amp; co | bruto');
    // cut at 32 characters without splitting an entity
    expect(run.stdout).toContain('<NAME>&lt;/NAME&gt;&lt;TRNAMT&gt;99999\r\n');
    expect(run.stdout.match(/<TRNAMT>/g)).toHaveLength(7);
  });
});

describe('deposit export --format ofx: the merchant’s words in Windows-1252', () => {
  it.each([
    ['São Paulo, ação', 'São Paulo, ação'],
    // composed first: an a and a combining tilde are one ã
    ['Sa\u0303o Jose\u0301', 'São José'],
    ['“Pão” – 5 € … Œuvre', '“Pão” – 5 € … Œuvre'],
    // what the set lacks: without its accent (ǎ, ő), else ?
    ['ǎ ő 💸 Москва', 'a o ? ??????'],
  ])('a reference %j is written %j, one byte a character, as the header declares', async (ref, shown) => {
    const records = exportLedger().map((r) =>
      r.type === 'created' && r.id === exportId(2) ? { ...r, ref, note: ref } : r,
    );
    const history = recordsHistory(records);
    const run = await seen((term) =>
      runExport({
        flags: { format: 'ofx', month: '2026-11' },
        ...world(term, false),
        history: () => history,
      }),
    );
    expect(run.error).toBeUndefined();
    const text = readWindows1252(run.bytes);
    expect(text).toContain(`\r\n<NAME>${shown}\r\n`);
    expect(text).toContain(`\r\n<MEMO>${shown} | ${shown} | bruto`);
    // one byte a character: the bytes are the text's own, none of UTF-8's
    expect(run.bytes.length).toBe([...text].length);
    expect(text).not.toContain('\ufffd');
  });
});

describe('deposit export --format journal', () => {
  it('one balanced transaction per finalized deposit; the accounts’ sums are the report’s', async () => {
    const run = await exported({ format: 'journal', month: '2026-11' });
    expect(run.error).toBeUndefined();
    const text = run.stdout;
    expect(text).toContain('\ncommodity R$ 1.000,00\n');
    const blocks = text.split('\n\n').filter((b) => /^\d{4}-\d{2}-\d{2} /.test(b));
    expect(blocks).toHaveLength(7);
    const byAccount = new Map<string, number>();
    for (const block of blocks) {
      const postings = [...block.matchAll(/^ {4}([a-z][^\n]*?) {2,}R\$ (-?\d+,\d{2})$/gm)];
      expect(sum(postings.map((p) => cents(p[2]!)))).toBe(0);
      for (const [, account, amount] of postings)
        byAccount.set(account!, (byAccount.get(account!) ?? 0) + cents(amount!));
    }
    const total = await reportTotals({ since: '2026-11-01', until: '2026-12-01' });
    expect(Object.fromEntries(byAccount)).toEqual({
      'assets:liquid:destination': total.destinationCents,
      'expenses:split': total.splitCents,
      'expenses:deposit fees': total.feeCents,
      'revenue:pix': -(total.grossCents! - 1000),
    });
    // the reference is the description; ; and | (a comment, a payee) are not read as such
    // the note after the reference, as hledger's own note; a `;` there would start a comment
    expect(text).toContain(
      `\n2026-11-05 * (${exportId(3)}) =HYPERLINK("http://evil.example","clique") | mesa 7\uff1b "sem troco"\n`,
    );
    expect(text).toContain('    ; note: mesa 7; "sem troco"\n');
  });
});

describe('deposit export: the window and the flags', () => {
  it('--month is the local month: the same file as --since and --until of its first days', async () => {
    const month = await exported({ format: 'csv', month: '2026-11' });
    const span = await exported({ format: 'csv', since: '2026-11-01', until: '2026-12-01' });
    expect(month.stdout).toBe(span.stdout);
    const december = await exported({ format: 'csv', month: '2026-12' });
    expect(readCsv(december.stdout, ',').map((r) => r[0])).toEqual(['id', exportId(14)]);
  });

  it.each([
    [{ month: '2026-11' }, '--format is required: csv, csv-br, ofx, journal'],
    [{ format: 'xlsx' }, 'invalid --format "xlsx": expected csv, csv-br, ofx, journal'],
    [
      { format: 'csv', month: '2026-13' },
      'invalid --month "2026-13": expected a month as YYYY-MM, such as 2026-11',
    ],
    [{ format: 'csv', month: '11/2026' }, 'invalid --month "11/2026"'],
    // the window's ends are lbrl's own: the error names the month given, never an --until not given
    [{ format: 'csv', month: '9999-12' }, 'invalid --month "9999-12"'],
    [{ format: 'csv', month: '2026-11', since: '7d' }, '--month cannot go with --since or --until'],
    [{ format: 'csv', since: 'yesterday' }, 'invalid --since "yesterday"'],
  ])('%j is refused: exit 2, one line, nothing written', async (flags, message) => {
    const run = await exported(flags as ExportOptions);
    expect(run.error?.exitCode).toBe(2);
    expect(run.error?.message).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('--json is refused: the file is in the format chosen', async () => {
    const run = await exported({ format: 'csv' }, true);
    expect(run.error?.exitCode).toBe(2);
    expect(run.stdout).toBe('');
  });

  it('an empty window: a file with no deposits (CSV: its header), and a note on stderr', async () => {
    const run = await exported({ format: 'csv', month: '2025-01' });
    expect(run.stdout.split('\r\n')).toHaveLength(2);
    expect(run.stderr).toContain('no deposits recorded for profile default in that time');
  });
});

describe('deposit export: the service the profile uses now, as report counts it', () => {
  const LIVE = 'https://deposit.example';
  /** The month's sandbox ledger, and one live deposit of its own created in it. */
  function mixed() {
    const records = exportLedger();
    const source = records.find((r) => r.type === 'created' && r.id === exportId(2)) as CreatedRecord;
    const live: CreatedRecord = { ...structuredClone(source), id: exportId(900), baseUrl: LIVE };
    return recordsHistory([...records, live]);
  }
  const run = (service: string, flags: ExportOptions) =>
    seen((term) => {
      const history = mixed();
      return runExport({
        flags,
        printer: term.printer,
        json: false,
        profileName: 'default',
        ctx: term.ctx,
        history: () => history,
        service: () => service,
      });
    });

  it('a live profile exports no sandbox charge, and says which service the file covers', async () => {
    const live = await run(LIVE, { format: 'csv', month: '2026-11' });
    const rows = readCsv(live.stdout, ',').slice(1);
    expect(rows.map((row) => row[0])).toEqual([exportId(900)]);
    expect(live.stderr).toContain(`deposits of profile default on ${LIVE}`);
    const sandbox = await run('sandbox', { format: 'csv', month: '2026-11' });
    expect(
      readCsv(sandbox.stdout, ',')
        .slice(1)
        .map((row) => row[0]),
    ).not.toContain(exportId(900));
  });

  it('--all-services: every service, as asked', async () => {
    const all = await run(LIVE, { format: 'csv', month: '2026-11', allServices: true });
    const ids = readCsv(all.stdout, ',')
      .slice(1)
      .map((row) => row[0]);
    expect(ids).toContain(exportId(900));
    expect(ids).toContain(exportId(2));
  });

  it("--all-services --format ofx: two services' deposits that share an id are two credits, never one FITID twice", async () => {
    // the same id, finalized on the sandbox and on the live service: an importer drops a repeated FITID
    const records = exportLedger();
    const twins = records
      .filter((r) => 'id' in r && r.id === exportId(2))
      // created a second later on the live service: its lines name it
      .map((r) => ({
        ...structuredClone(r),
        ...('at' in r ? { at: new Date(Date.parse(r.at) + 1000).toISOString() } : {}),
        baseUrl: LIVE,
      })) as StoredRecord[];
    // the file history: it holds one deposit per id per service, as the ledger promises
    const history = new History(tempDir());
    history.append([...records, ...twins]);
    const run = await seen((term) =>
      runExport({
        flags: { format: 'ofx', month: '2026-11', allServices: true },
        printer: term.printer,
        json: false,
        profileName: 'default',
        ctx: term.ctx,
        history: () => history,
        service: () => LIVE,
      }),
    );
    expect(run.error).toBeUndefined();
    const fitids = [...run.stdout.matchAll(/<FITID>([^\r\n]*)/g)].map((m) => m[1]!);
    expect(fitids).toHaveLength(8);
    expect(new Set(fitids).size).toBe(fitids.length);
    // the statement's own service keeps the bare id; the other's carries a tag of its service
    expect(fitids).toContain(exportId(2));
    expect(fitids.filter((f) => f.startsWith(exportId(2)))).toEqual([
      expect.stringMatching(new RegExp(`^${exportId(2)}(\\.[0-9a-f]{8})?$`)),
      expect.stringMatching(new RegExp(`^${exportId(2)}(\\.[0-9a-f]{8})?$`)),
    ]);
  });

  it("--all-services names each deposit's service in a last column: a sandbox charge is never read as money received", async () => {
    for (const [format, separator] of [
      ['csv', ','],
      ['csv-br', ';'],
    ] as const) {
      const rows = readCsv(
        (await run(LIVE, { format, month: '2026-11', allServices: true })).stdout,
        separator,
      );
      expect(rows[0]).toEqual([...CSV_EXPORT_COLUMNS, 'service']);
      const serviceOf = new Map(rows.slice(1).map((row) => [row[0], row.at(-1)]));
      expect(serviceOf.get(exportId(900))).toBe(LIVE);
      expect(serviceOf.get(exportId(2))).toBe('sandbox');
    }
    // one service's export keeps its columns as documented
    const live = readCsv((await run(LIVE, { format: 'csv', month: '2026-11' })).stdout, ',');
    expect(live[0]).toEqual([...CSV_EXPORT_COLUMNS]);
  });
});
