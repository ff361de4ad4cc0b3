/**
 * Batch input: CSV with a header, or NDJSON; each row's fields as the text the file holds, so
 * an amount is checked by the same rules as `--amount` and `--amount-cents`.
 *
 * - NDJSON numbers are kept as their literal text (`1e3` stays `1e3` and is refused as an
 *   amount, never read as 1000); a key given twice in a row is refused.
 * - CSV follows RFC 4180: a quoted field ends at its closing quote, which must be followed by the
 *   delimiter or the end of the line; a quote inside an unquoted field is refused. The delimiter
 *   is `,` or `;` (pt-BR spreadsheets), taken from the header line; with `;`, amounts may use
 *   comma decimals (`15,50`), as `--amount` accepts.
 * - Header names: amount, amountCents, to, splitTo, splitFee, ref, note (case, `_`, `-` and
 *   spaces ignored), and the Portuguese valor, centavos, destino, destinoSplit, taxaSplit,
 *   referencia or pedido, nota or observacao (accents ignored too).
 */
import { JsonNumber, parseJsonExact } from './json-exact.js';

export interface InputRow {
  /** 1-based among data rows */
  row: number;
  /** 1-based line of the file where it starts */
  line: number;
  fields: Record<string, string>;
}

export const ROW_FIELDS = ['amount', 'amountCents', 'to', 'splitTo', 'splitFee', 'ref', 'note'] as const;

export type RowsResult = { ok: true; rows: InputRow[] } | { ok: false; errors: string[] };

/** RFC 4180 records: quoted fields may hold delimiters, quotes ("") and line breaks. */
function csvRecords(text: string, delimiter: string): Array<{ line: number; cells: string[] }> | string {
  const out: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let startLine = 1;
  let pos = 0;
  let fieldStarted = false;
  const endRecord = () => {
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '')) out.push({ line: startLine, cells });
    cells = [];
    cell = '';
    fieldStarted = false;
  };
  while (pos < text.length) {
    const char = text[pos]!;
    if (quoted) {
      if (char === '"' && text[pos + 1] === '"') {
        cell += '"';
        pos += 2;
        continue;
      }
      if (char === '"') {
        quoted = false;
        pos += 1;
        // a closed quote ends the field: "15"00 is not 1500
        const next = text[pos];
        if (
          next !== undefined &&
          next !== delimiter &&
          next !== '\n' &&
          !(next === '\r' && text[pos + 1] === '\n')
        )
          return `line ${line}: a quoted field is followed by ${JSON.stringify(next)}; expected ${JSON.stringify(delimiter)} or the end of the line`;
        continue;
      }
      if (char === '\n') line += 1;
      cell += char;
      pos += 1;
      continue;
    }
    if (char === '"') {
      if (fieldStarted)
        return `line ${line}: a quote inside an unquoted field; quote the whole field and double the quote ("")`;
      quoted = true;
      fieldStarted = true;
      pos += 1;
      continue;
    }
    if (char === delimiter) {
      cells.push(cell);
      cell = '';
      fieldStarted = false;
      pos += 1;
      continue;
    }
    if (char === '\r' && text[pos + 1] === '\n') {
      pos += 1;
      continue;
    }
    if (char === '\n') {
      endRecord();
      line += 1;
      startLine = line;
      pos += 1;
      continue;
    }
    cell += char;
    fieldStarted = true;
    pos += 1;
  }
  if (quoted) return `line ${startLine}: a quoted field is not closed`;
  if (cell !== '' || cells.length > 0) endRecord();
  return out;
}

/** Column names as a pt-BR merchant's spreadsheet may have them. */
const ALIASES: Record<string, (typeof ROW_FIELDS)[number]> = {
  valor: 'amount',
  centavos: 'amountCents',
  destino: 'to',
  destinosplit: 'splitTo',
  taxasplit: 'splitFee',
  referencia: 'ref',
  reference: 'ref',
  pedido: 'ref',
  nota: 'note',
  observacao: 'note',
};

function canonicalField(name: string): string | undefined {
  const normalised = name
    .trim()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[_\s-]/g, '');
  return ROW_FIELDS.find((f) => f.toLowerCase() === normalised) ?? ALIASES[normalised];
}

/**
 * The delimiter of a CSV file, from its header line: `;` when the header has a semicolon (a
 * pt-BR spreadsheet), else `,`. A header with both is refused: no column name holds either.
 */
export function csvDelimiter(text: string): ',' | ';' | { error: string } {
  const header = (/^[^\r\n]*/.exec(text)?.[0] ?? '').replace(/"[^"]*"/g, '');
  const semi = header.includes(';');
  if (semi && header.includes(',')) {
    return { error: 'header: it has both "," and ";"; separate the columns with one of them' };
  }
  return semi ? ';' : ',';
}

export function parseCsv(text: string): RowsResult {
  const body = text.replace(/^\uFEFF/, '');
  const delimiter = csvDelimiter(body);
  if (typeof delimiter !== 'string') return { ok: false, errors: [delimiter.error] };
  const records = csvRecords(body, delimiter);
  if (typeof records === 'string') return { ok: false, errors: [records] };
  if (records.length === 0)
    return { ok: false, errors: ['the file is empty: expected a header line and rows'] };
  const [header, ...data] = records;
  const names: string[] = [];
  const errors: string[] = [];
  for (const raw of header!.cells) {
    const field = canonicalField(raw);
    if (!field)
      errors.push(`header: unknown column ${JSON.stringify(raw)}: expected ${ROW_FIELDS.join(', ')}`);
    else if (names.includes(field)) errors.push(`header: column ${field} appears twice`);
    names.push(field ?? raw);
  }
  if (errors.length) return { ok: false, errors };
  const rows: InputRow[] = [];
  data.forEach((rec, index) => {
    // missing trailing cells are empty; more cells than columns is a mistake
    if (rec.cells.length > names.length) {
      errors.push(
        `row ${index + 1} (line ${rec.line}): has ${rec.cells.length} cells, the header has ${names.length}${delimiter === ',' ? ' (for comma decimals such as 15,50, separate the columns with ";" or quote the amount)' : ''}`,
      );
      return;
    }
    const fields: Record<string, string> = Object.create(null);
    rec.cells.forEach((cell, cellIndex) => {
      if (cell.trim() !== '') fields[names[cellIndex]!] = cell.trim();
    });
    rows.push({ row: index + 1, line: rec.line, fields });
  });
  if (errors.length) return { ok: false, errors };
  if (rows.length === 0) return { ok: false, errors: ['the file has a header but no rows'] };
  return { ok: true, rows };
}

export function parseNdjson(text: string): RowsResult {
  const rows: InputRow[] = [];
  const errors: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  let rowNumber = 0;
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    rowNumber += 1;
    const where = `row ${rowNumber} (line ${index + 1})`;
    const parsed = parseJsonExact(raw);
    if (!parsed.ok) {
      errors.push(`${where}: not valid JSON: ${parsed.reason}`);
      return;
    }
    const value = parsed.value;
    if (!value || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumber) {
      errors.push(`${where}: expected a JSON object`);
      return;
    }
    // a row's own fields, in an object without a prototype: a field the row lacks is absent,
    // whatever Object.prototype holds
    const fields: Record<string, string> = Object.create(null);
    for (const [key, given] of Object.entries(value)) {
      const field = canonicalField(key);
      if (!field) {
        errors.push(`${where}: unknown field ${JSON.stringify(key)}: expected ${ROW_FIELDS.join(', ')}`);
        continue;
      }
      if (given === null) continue;
      if (Object.hasOwn(fields, field))
        errors.push(`${where}: field ${field} is given twice (as ${JSON.stringify(key)})`);
      // a number as written: 1e3 stays "1e3" and is refused as --amount would refuse it
      else if (given instanceof JsonNumber) fields[field] = given.text;
      else if (typeof given === 'string') fields[field] = given.trim();
      else errors.push(`${where}: field ${field} must be a string or a number`);
    }
    rows.push({ row: rowNumber, line: index + 1, fields });
  });
  if (errors.length) return { ok: false, errors };
  if (rows.length === 0) return { ok: false, errors: ['the input has no rows'] };
  return { ok: true, rows };
}

export function parseRows(text: string, format: 'csv' | 'ndjson' | 'auto'): RowsResult {
  const detected = format === 'auto' ? (text.trimStart().startsWith('{') ? 'ndjson' : 'csv') : format;
  return detected === 'csv' ? parseCsv(text) : parseNdjson(text);
}

/** Largest batch input read: checked on the bytes, before any decoding. */
export const MAX_INPUT_BYTES = 10 * 1024 * 1024;

/**
 * The bytes of a batch file as text: the size is checked before anything is decoded, and the
 * bytes must be UTF-8 (a spreadsheet's "CSV UTF-8"); a stray byte is refused, not guessed at.
 */
export function decodeRowsInput(
  bytes: Uint8Array,
  maxBytes: number = MAX_INPUT_BYTES,
): { ok: true; text: string } | { ok: false; error: string } {
  if (bytes.byteLength > maxBytes)
    return { ok: false, error: `it has ${bytes.byteLength} bytes; at most ${maxBytes} are read` };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      error: 'it is not UTF-8 text; save it as "CSV UTF-8" (or NDJSON) and try again',
    };
  }
}
