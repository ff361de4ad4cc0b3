/**
 * A CSV opened by LibreOffice Calc run headless, as a pt-BR user opens a `;`-separated UTF-8 file
 * (the filter options field notes give), read back cell by cell from the Flat ODS it saves.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './temp.js';

const run = promisify(execFile);

/** One cell: its type (`float`, `string`, `formula`, `empty`, ...) and its value (a number's, or the text shown). */
export type CalcCell = readonly [type: string, value: string];

/** Every row of the sheet with anything in it, each cell once per column it stands for. */
export async function openedByCalc(file: string): Promise<CalcCell[][]> {
  const out = tempDir();
  await run(
    'soffice',
    [
      `-env:UserInstallation=file://${tempDir()}`,
      '--headless',
      '--infilter=CSV:59,34,76,1,,1046',
      '--convert-to',
      'xml:OpenDocument Spreadsheet Flat XML',
      '--outdir',
      out,
      file,
    ],
    // LibreOffice starts in about 20 s here, and minutes on a loaded machine
    { timeout: 280_000 },
  );
  const xml = fs.readFileSync(path.join(out, `${path.basename(file).replace(/\.[^.]*$/, '')}.xml`), 'utf8');
  const rows = [...xml.matchAll(/<table:table-row[^>]*>([\s\S]*?)<\/table:table-row>/g)].map((row) =>
    [...row[1]!.matchAll(/<table:table-cell([^>]*?)(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)].flatMap(
      (cell) => {
        const attrs = cell[1]!;
        const repeat = Number(/number-columns-repeated="(\d+)"/.exec(attrs)?.[1] ?? 1);
        // a cell Calc computes is a formula, whatever its result's type
        const type = attrs.includes('table:formula')
          ? 'formula'
          : (/office:value-type="(\w+)"/.exec(attrs)?.[1] ?? 'empty');
        const value = /office:value="([^"]*)"/.exec(attrs)?.[1] ?? shownText(cell[2] ?? '');
        return Array.from({ length: repeat }, (): CalcCell => [type, value]);
      },
    ),
  );
  return rows.filter((row) => row.some(([type]) => type !== 'empty'));
}

/** The text of a cell's paragraphs, as Calc shows it: its spaces and tabs, its entities decoded. */
function shownText(cellXml: string): string {
  const paragraphs = [...cellXml.matchAll(/<text:p>([\s\S]*?)<\/text:p>|<text:p\/>/g)].map((p) =>
    (p[1] ?? '')
      .replace(/<text:s text:c="(\d+)"\/>/g, (_m, n: string) => ' '.repeat(Number(n)))
      .replace(/<text:s\/>/g, ' ')
      .replace(/<text:tab\/>/g, '\t')
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&apos;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&'),
  );
  return paragraphs.join('\n');
}
