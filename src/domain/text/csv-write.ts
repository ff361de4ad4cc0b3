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
 * The words a spreadsheet reads inside a number, a date or a time (month names of Portuguese,
 * English and Spanish, AM/PM, the `R` of `R$`, `de`): text made of digits and only these words
 * (or an exponent's `e`) may open as a value, not as the text it is.
 */
const VALUE_WORDS = new Set(
  (
    'jan fev feb mar abr apr mai may jun jul ago aug set sep sept out oct nov dez dec ene dic ' +
    'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro ' +
    'january february march april june july august september october november december ' +
    'enero febrero marzo mayo junio julio septiembre octubre noviembre diciembre am pm de us e r'
  ).split(' '),
);
const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What a spreadsheet opens as a truth value, in the locales above and a few more. */
const TRUTH_WORD = /^\s*(true|false|verdadeiro|falso|verdadero|vrai|faux|wahr|falsch|vero)\s*$/iu;

/**
 * Whether a spreadsheet would open this text as anything but itself: a formula, or a value it
 * converts (`00123` as 123, `1/2` as a date, `15,50` as a number, `10 %`, `R$ 10,00`, `12:30`,
 * `Jan 5`, `VERDADEIRO`), losing what the merchant wrote.
 */
function readAsNonText(value: string): boolean {
  if (FORMULA_START.test(value) || TRUTH_WORD.test(value)) return true;
  // a deposit id, even one of digits alone, opens as text
  if (!/\p{Nd}/u.test(value) || UUID_FORM.test(value)) return false;
  const words = value.match(/\p{L}+/gu) ?? [];
  return words.every((word) => VALUE_WORDS.has(word.toLowerCase()));
}

/**
 * A text cell that a spreadsheet shows as the text it is: one that could start a formula (OWASP's
 * rule) or be read as a number, a date, a time or a truth value gets a leading `'`, and is quoted.
 * Only for text: the writer's own numbers (`-1,50`) stay numbers.
 */
export function textField(value: string): string {
  return readAsNonText(value) ? `'${value}` : value;
}
