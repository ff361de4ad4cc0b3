/**
 * The merchant's words at their most hostile (test/helpers/journal-notes.ts), each a deposit's
 * reference and note in a ledger file, exported by the built program and read by the readers
 * people use: hledger (print, tags, and the queries an accountant types: `tag:note=`, `note:`,
 * `payee:`), ofxdump, and LibreOffice Calc. Each must read them as written, but for what its own
 * syntax reserves, written with the one look-alike the documentation names.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { openedByCalc } from '../helpers/calc.js';
import { EXPORT_TZ, exportId, exportLedger } from '../helpers/export-ledger.js';
import { HOSTILE_TEXTS, inDescription, inNoteTag } from '../helpers/journal-notes.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
const idOf = (n: number) => exportId(200 + n);
const regexOf = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

describe("the merchant's words, read by hledger, ofxdump and LibreOffice", () => {
  const dir = tempDir();
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: dir, TZ: EXPORT_TZ };
  const exported = async (format: string, name: string): Promise<string> => {
    const result = await runBin(['deposit', 'export', '--month', '2026-11', '--format', format], env);
    expect(result.code, result.stderr).toBe(0);
    const file = path.join(dir, name);
    fs.writeFileSync(file, result.stdout);
    return file;
  };

  beforeAll(() => {
    // a paid deposit of the month, once per text: the text its reference and its note
    const [created, finalized] = exportLedger().filter((r) => 'id' in r && r.id === exportId(2));
    const lines = HOSTILE_TEXTS.flatMap((text, n) => [
      JSON.stringify({ ...created, id: idOf(n), ref: text, note: text }),
      JSON.stringify({ ...finalized, id: idOf(n) }),
    ]);
    fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
  });

  it('hledger: checked strictly; each transaction its reference | note; tags only the export own', async () => {
    const file = await exported('journal', 'words.journal');
    await run('hledger', ['-f', file, 'check', '--strict']);
    const printed = (await run('hledger', ['-f', file, 'print'])).stdout;
    for (const [n, text] of HOSTILE_TEXTS.entries())
      expect(printed).toContain(
        `(${idOf(n)}) ${inDescription(text, 'ref')} | ${inDescription(text, 'note')}\n`,
      );
    const tags = (await run('hledger', ['-f', file, 'tags'])).stdout;
    expect(tags.trim().split('\n')).toEqual(['deposit', 'note', 'txid']);
    const values = (await run('hledger', ['-f', file, 'tags', 'note', '--values'])).stdout;
    expect(values.trim().split('\n').sort()).toEqual(HOSTILE_TEXTS.map(inNoteTag).sort());
    // no note's date dates a transaction
    const register = (await run('hledger', ['-f', file, 'register', '-O', 'csv', 'revenue:pix'])).stdout;
    const dates = register
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[1]);
    expect(new Set(dates)).toEqual(new Set(['"2026-11-01"']));
  }, 60_000);

  it('hledger: tag:note=, note: and payee: find each deposit by its words, and only it', async () => {
    const file = await exported('journal', 'find.journal');
    const codes = async (query: string) =>
      (await run('hledger', ['-f', file, 'print', query])).stdout
        .split('\n')
        .flatMap((line) => /^\d{4}-\d\d-\d\d \* \(([^)]+)\)/.exec(line)?.[1] ?? []);
    for (const [n, text] of HOSTILE_TEXTS.entries()) {
      const note = `^${regexOf(inDescription(text, 'note'))}$`;
      expect(await codes(`tag:note=${note}`), text).toEqual([idOf(n)]);
      expect(await codes(`note:${note}`), text).toEqual([idOf(n)]);
      expect(await codes(`payee:^${regexOf(inDescription(text, 'ref'))}$`), text).toEqual([idOf(n)]);
    }
  }, 120_000);

  it('ofxdump: each payee and memo as written (what Windows-1252 lacks written ?), no error', async () => {
    const file = path.join(dir, 'words.ofx');
    const out = fs.openSync(file, 'w');
    const result = spawnSync(
      process.execPath,
      [BIN, 'deposit', 'export', '--month', '2026-11', '--format', 'ofx'],
      {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', out, 'pipe'],
        encoding: 'utf8',
      },
    );
    fs.closeSync(out);
    expect(result.status, result.stderr).toBe(0);
    const { stdout, stderr } = await run('ofxdump', [file], { env: { ...process.env, TZ: EXPORT_TZ } });
    expect(
      stderr
        .split('\n')
        .filter((line) => /error|warning/i.test(line) && !/non SGML character|ignored character/.test(line)),
    ).toEqual([]);
    const transactions = stdout.split('ofx_proc_transaction():').slice(1);
    HOSTILE_TEXTS.forEach((text, n) => {
      const transaction = transactions.find((t) => t.includes(idOf(n)))!;
      // OFX 1.02's NAME holds 32 characters; libofx trims an element's leading spaces
      const shown = text.replace(/\t/g, '\\t').replace('🧀 Москва', '? ??????');
      expect(/Name of payee or transaction description: (.*)/.exec(transaction)?.[1], text).toBe(
        shown.trimStart().slice(0, 32).trimEnd(),
      );
      expect(/Extra transaction information \(memo\): (.*)/.exec(transaction)?.[1], text).toBe(
        `${shown} | ${shown} | bruto 15,50 | tarifa 0,15`.trimStart(),
      );
    });
  }, 60_000);

  it('LibreOffice: each reference and note a text cell as written, those it would convert led by a quote', async () => {
    const [header, ...rows] = await openedByCalc(await exported('csv-br', 'words.csv'));
    const names = header!.map(([, value]) => value);
    // what Calc would read as a number, a date or a formula: led by ' (the documented rule)
    const quoted = new Set(['[2020-01-01] [=2020-01-02]', 'R$ 15,50; 10%']);
    HOSTILE_TEXTS.forEach((text, n) => {
      const row = rows.find((r) => r[0]![1] === idOf(n))!;
      const expected = `${quoted.has(text) ? "'" : ''}${text.replace(/\t/g, '\\t')}`;
      expect(row[names.indexOf('reference')], text).toEqual(['string', expected]);
      expect(row[names.indexOf('note')], text).toEqual(['string', expected]);
    });
  }, 300_000);
});
