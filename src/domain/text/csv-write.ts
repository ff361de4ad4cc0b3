/** CSV out: RFC 4180 (CRLF, fields quoted when they must be), with a dot or a comma decimal. */

export type CsvDialect = { separator: ',' | ';'; decimal: '.' | ',' };

export const CSV_RFC: CsvDialect = { separator: ',', decimal: '.' };
/** What a Brazilian spreadsheet opens as numbers: `;` between fields, a comma decimal. */
export const CSV_BR: CsvDialect = { separator: ';', decimal: ',' };

function field(value: string, dialect: CsvDialect): string {
  return value.includes(dialect.separator) || /["\r\n]/.test(value) || value.startsWith("'")
    ? `"${value.replace(/"/g, '""')}"`
    : value;
}

/** One record, ended by CRLF as RFC 4180 says. */
export function csvRecord(values: string[], dialect: CsvDialect): string {
  return `${values.map((v) => field(v, dialect)).join(dialect.separator)}\r\n`;
}

/** Integer cents as reais in the dialect's decimal, no grouping: 1550 -> `15.50` or `15,50`. */
export function centsField(cents: number, dialect: CsvDialect): string {
  const big = BigInt(cents);
  const negative = big < 0n;
  const abs = negative ? -big : big;
  return `${negative ? '-' : ''}${abs / 100n}${dialect.decimal}${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * What a spreadsheet would read as a formula (OWASP's CSV injection rule): a cell starting with
 * `=`, `+`, `-`, `@`, a tab or a carriage return, or their full-width forms, which some
 * spreadsheets read alike, after any spaces.
 */
const FORMULA_START = /^[\s\u3000]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;

/**
 * A text cell that no spreadsheet runs: one that could start a formula gets a leading `'`, and
 * is quoted, as OWASP advises. Only for text: the writer's own numbers (`-1,50`) stay numbers.
 */
export function textField(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}
