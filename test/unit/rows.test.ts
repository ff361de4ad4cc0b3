import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReais, readCents } from '../../src/domain/money.js';
import { JsonNumber, parseJsonExact } from '../../src/domain/text/json-exact.js';
import {
  csvDelimiter,
  decodeRowsInput,
  parseCsv,
  parseNdjson,
  type parseRows,
} from '../../src/domain/text/rows.js';

const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

function fieldsOf(r: ReturnType<typeof parseRows>) {
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.rows.map((x) => x.fields);
}

describe('NDJSON numbers are read as written', () => {
  it.each(['1e3', '0.1e1', '1.5e3', '1500.0000000000001', '1E3', '-5', '15.500'])(
    'amount %s reaches the amount rules as its literal, and they refuse it',
    (literal) => {
      const [fields] = fieldsOf(parseNdjson(`{"amount": ${literal}, "to": "${LQ}"}`));
      expect(fields!.amount).toBe(literal);
      expect(parseReais(fields!.amount!).ok).toBe(false);
    },
  );

  it.each(['1e3', '1000.0', '1.5e3'])('amountCents %s is refused as --amount-cents refuses it', (literal) => {
    const [fields] = fieldsOf(parseNdjson(`{"amountCents": ${literal}}`));
    expect(fields!.amountCents).toBe(literal);
    expect(readCents(fields!.amountCents!).ok).toBe(false);
  });

  it('plain numbers and strings pass as they are', () => {
    expect(
      fieldsOf(parseNdjson(`{"amount": 15.5, "splitFee": 2.99}\n{"amountCents": 1500, "to": " ${LQ} "}\r\n`)),
    ).toEqual([
      { amount: '15.5', splitFee: '2.99' },
      { amountCents: '1500', to: LQ },
    ]);
  });

  it.each<[string, string]>([
    ['{"amount": 1, "amount": 2}', 'row 1 (line 1): not valid JSON: key "amount" given twice at column'],
    ['{"amount": 1, "Amount": 2}', 'row 1 (line 1): field amount is given twice (as "Amount")'],
    ['{"amount": 01}', 'row 1 (line 1): not valid JSON: expected "," or "}" at column 13'],
    ['{"amount": .5}', 'row 1 (line 1): not valid JSON: expected a value at column 12'],
    ['{"amount": 1e}', 'row 1 (line 1): not valid JSON'],
    ['{"amount": NaN}', 'row 1 (line 1): not valid JSON: expected a value'],
    ['{"amount": true}', 'row 1 (line 1): field amount must be a string or a number'],
    ['[1]', 'row 1 (line 1): expected a JSON object'],
    ['7', 'row 1 (line 1): expected a JSON object'],
  ])('%s is refused: %s', (line, error) => {
    const r = parseNdjson(line);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toContain(error);
  });
});

describe('parseJsonExact agrees with JSON.parse on what JSON is', () => {
  const plain = (v: unknown): unknown =>
    v instanceof JsonNumber
      ? Number(v.text)
      : Array.isArray(v)
        ? v.map(plain)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
          : v;

  it('any JSON text: the same value, numbers aside as their text', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const r = parseJsonExact(text);
        let dup = false;
        try {
          JSON.parse(text);
        } catch {
          dup = true;
        }
        expect(dup).toBe(false);
        if (!r.ok) {
          // the only JSON it refuses: an object with a key given twice
          expect(r.reason).toContain('given twice');
          return;
        }
        expect(plain(r.value)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('a number keeps its literal text', () => {
    expect(parseJsonExact('[1e3, -0.10, 1500.0000000000001]')).toEqual({
      ok: true,
      value: [new JsonNumber('1e3'), new JsonNumber('-0.10'), new JsonNumber('1500.0000000000001')],
    });
  });

  it('deep nesting is refused, not a stack overflow', () => {
    expect(parseJsonExact(`${'['.repeat(100000)}${']'.repeat(100000)}`)).toEqual({
      ok: false,
      reason: 'nesting deeper than 64 at column 66',
    });
  });
});

describe('CSV as RFC 4180 says', () => {
  it.each<[string, string]>([
    [
      'amount,to\n"15"00,x\n',
      'line 2: a quoted field is followed by "0"; expected "," or the end of the line',
    ],
    ['amount,to\n"1"" 5"0,x\n', 'a quoted field is followed by "0"'],
    [
      'amount;to\n"15";"x"y\n',
      'line 2: a quoted field is followed by "y"; expected ";" or the end of the line',
    ],
    ['amount,to\n15"00,x\n', 'line 2: a quote inside an unquoted field'],
    ['amount,to\n"15,x\n', 'line 2: a quoted field is not closed'],
  ])('%j is refused, never joined: %s', (text, error) => {
    const r = parseCsv(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toContain(error);
  });

  it('quoted fields hold delimiters, doubled quotes and line breaks; CRLF ends a line', () => {
    expect(fieldsOf(parseCsv(`amount,to\r\n"1,50","${LQ}"\r\n"2",x\r\n`))).toEqual([
      { amount: '1,50', to: LQ },
      { amount: '2', to: 'x' },
    ]);
  });
});

describe('semicolon CSV, as a pt-BR spreadsheet saves it', () => {
  it('takes the delimiter from the header, and comma decimals pass to the amount rules', () => {
    const rows = fieldsOf(parseCsv(`\uFEFFvalor;destino\r\n15,50;${LQ}\r\n1.500,00;${LQ}\r\n`));
    expect(rows).toEqual([
      { amount: '15,50', to: LQ },
      { amount: '1.500,00', to: LQ },
    ]);
    expect(parseReais(rows[0]!.amount!)).toEqual({ ok: true, value: 1550 });
    expect(parseReais(rows[1]!.amount!).ok).toBe(false);
  });

  it.each([
    ['amount;to;splitTo;splitFee', ';'],
    ['amount,to', ','],
    ['amount', ','],
    ['"a;b",to', ','],
  ])('header %s: delimiter %s', (header, d) => {
    expect(csvDelimiter(`${header}\n1;2`)).toBe(d);
  });

  it('Portuguese names, with or without accents and case', () => {
    expect(fieldsOf(parseCsv('Valor;Centavos;Destino;Destino Split;Taxa_Split\n1;;x;y;2,99\n'))).toEqual([
      { amount: '1', to: 'x', splitTo: 'y', splitFee: '2,99' },
    ]);
  });

  it('a header with both delimiters is refused; comma decimals in a comma file get a hint', () => {
    expect(parseCsv('amount;to,splitTo\n1;2\n')).toEqual({
      ok: false,
      errors: ['header: it has both "," and ";"; separate the columns with one of them'],
    });
    expect(parseCsv('amount\n15,50\n')).toEqual({
      ok: false,
      errors: [
        'row 1 (line 2): has 2 cells, the header has 1 (for comma decimals such as 15,50, separate the columns with ";" or quote the amount)',
      ],
    });
  });
});

describe('batch input bytes', () => {
  it('the size is checked before decoding; bytes that are not UTF-8 are refused', () => {
    expect(decodeRowsInput(new Uint8Array(11), 10)).toEqual({
      ok: false,
      error: 'it has 11 bytes; at most 10 are read',
    });
    // "endereço" as Windows-1252 saves it
    expect(decodeRowsInput(Uint8Array.from([0x65, 0xe7, 0x6f]))).toEqual({
      ok: false,
      error: 'it is not UTF-8 text; save it as "CSV UTF-8" (or NDJSON) and try again',
    });
    expect(decodeRowsInput(new TextEncoder().encode('valor;endereço\n'))).toEqual({
      ok: true,
      text: 'valor;endereço\n',
    });
  });
});
