/** Batch input: CSV with a header, or NDJSON; each row's fields as text. */

export interface InputRow {
  /** 1-based among data rows */
  row: number;
  /** 1-based line of the file where it starts */
  line: number;
  fields: Record<string, string>;
}

export const ROW_FIELDS = ['amount', 'amountCents', 'to', 'splitTo', 'splitFee'] as const;

export type RowsResult = { ok: true; rows: InputRow[] } | { ok: false; errors: string[] };

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks. */
function csvRecords(text: string): Array<{ line: number; cells: string[] }> | string {
  const out: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let startLine = 1;
  let i = 0;
  let fieldStarted = false;
  const endRecord = () => {
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '')) out.push({ line: startLine, cells });
    cells = [];
    cell = '';
    fieldStarted = false;
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (ch === '"') {
        quoted = false;
        i += 1;
        continue;
      }
      if (ch === '\n') line += 1;
      cell += ch;
      i += 1;
      continue;
    }
    if (ch === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i += 1;
      continue;
    }
    if (ch === ',') {
      cells.push(cell);
      cell = '';
      fieldStarted = false;
      i += 1;
      continue;
    }
    if (ch === '\r' && text[i + 1] === '\n') {
      i += 1;
      continue;
    }
    if (ch === '\n') {
      endRecord();
      line += 1;
      startLine = line;
      i += 1;
      continue;
    }
    cell += ch;
    fieldStarted = true;
    i += 1;
  }
  if (quoted) return `line ${startLine}: a quoted field is not closed`;
  if (cell !== '' || cells.length > 0) endRecord();
  return out;
}

function canonicalField(name: string): string | undefined {
  const n = name
    .trim()
    .toLowerCase()
    .replace(/[_\s-]/g, '');
  return ROW_FIELDS.find((f) => f.toLowerCase() === n);
}

export function parseCsv(text: string): RowsResult {
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  if (typeof records === 'string') return { ok: false, errors: [records] };
  if (records.length === 0)
    return { ok: false, errors: ['the file is empty: expected a header line and rows'] };
  const [header, ...data] = records;
  const names: string[] = [];
  const errors: string[] = [];
  for (const raw of header!.cells) {
    const f = canonicalField(raw);
    if (!f) errors.push(`header: unknown column ${JSON.stringify(raw)}: expected ${ROW_FIELDS.join(', ')}`);
    else if (names.includes(f)) errors.push(`header: column ${f} appears twice`);
    names.push(f ?? raw);
  }
  if (errors.length) return { ok: false, errors };
  const rows: InputRow[] = [];
  data.forEach((rec, index) => {
    // missing trailing cells are empty; more cells than columns is a mistake
    if (rec.cells.length > names.length) {
      errors.push(
        `row ${index + 1} (line ${rec.line}): has ${rec.cells.length} cells, the header has ${names.length}`,
      );
      return;
    }
    const fields: Record<string, string> = {};
    rec.cells.forEach((c, k) => {
      if (c.trim() !== '') fields[names[k]!] = c.trim();
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
  let n = 0;
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    n += 1;
    const where = `row ${n} (line ${index + 1})`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      errors.push(`${where}: not valid JSON`);
      return;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      errors.push(`${where}: expected a JSON object`);
      return;
    }
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      const f = canonicalField(k);
      if (!f) {
        errors.push(`${where}: unknown field ${JSON.stringify(k)}: expected ${ROW_FIELDS.join(', ')}`);
        continue;
      }
      if (v === null || v === undefined) continue;
      if (typeof v === 'number' && Number.isFinite(v)) fields[f] = String(v);
      else if (typeof v === 'string') fields[f] = v.trim();
      else errors.push(`${where}: field ${f} must be a string or a number`);
    }
    rows.push({ row: n, line: index + 1, fields });
  });
  if (errors.length) return { ok: false, errors };
  if (rows.length === 0) return { ok: false, errors: ['the input has no rows'] };
  return { ok: true, rows };
}

export function parseRows(text: string, format: 'csv' | 'ndjson' | 'auto'): RowsResult {
  const f = format === 'auto' ? (text.trimStart().startsWith('{') ? 'ndjson' : 'csv') : format;
  return f === 'csv' ? parseCsv(text) : parseNdjson(text);
}
