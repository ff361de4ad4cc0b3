/**
 * The journal keeps the merchant's words as written wherever hledger's syntax allows: the
 * reference and the note are the description (`REF | NOTE`, hledger's own payee and note), the
 * note again the value of the `note:` tag; only what that syntax reserves is written with its one
 * look-alike (`;` in a description, `|` in a reference, `,` in a tag's value). hledger's own
 * reading of the same lines is test/e2e/export-readers.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { csvExport, JOURNAL_LOOKALIKES, journalExport, ofxExport } from '../../src/deposits/export.js';
import { CSV_BR } from '../../src/domain/text/csv-write.js';
import {
  FULLWIDTH_BAR,
  FULLWIDTH_SEMICOLON,
  HOSTILE_TEXTS,
  hostileId,
  hostileLines,
  inDescription,
  inNoteTag,
  LOW_COMMA,
  UTC_TIMES,
} from '../helpers/journal-notes.js';

describe("journal: the merchant's words", () => {
  const text = journalExport(hostileLines(), 'lbrl export', UTC_TIMES);

  it('the look-alikes are the ones the readers are told of', () => {
    expect(JOURNAL_LOOKALIKES).toEqual({ ';': FULLWIDTH_SEMICOLON, '|': FULLWIDTH_BAR, ',': LOW_COMMA });
  });

  it('each transaction: the reference and note as its description, the note as its tag, as written but for those', () => {
    HOSTILE_TEXTS.forEach((words, n) => {
      expect(text).toContain(
        `2026-11-10 * (${hostileId(n)}) ${inDescription(words, 'ref')} | ${inDescription(words, 'note')}\n` +
          `    ; deposit: ${hostileId(n)}\n    ; note: ${inNoteTag(words)}\n    ; txid: ${'ab'.repeat(32)}\n`,
      );
    });
  });

  it('written out for three of them, so the rule above is not only checked against itself', () => {
    expect(text).toContain(
      '(00000000-0000-4000-8000-000000000001) mesa 7, pago: sim | mesa 7, pago: sim\n    ; deposit: 00000000-0000-4000-8000-000000000001\n    ; note: mesa 7‚ pago: sim\n',
    );
    expect(text).toContain('(00000000-0000-4000-8000-000000000005) a ｜ b ｜ c | a | b | c\n');
    expect(text).toContain(
      '(00000000-0000-4000-8000-000000000012) a\\b "q" \'s\' | a\\b "q" \'s\'\n    ; deposit: 00000000-0000-4000-8000-000000000012\n    ; note: a\\b "q" \'s\'\n',
    );
  });

  it('no note: the description is the reference alone; no reference: PIX and the id', () => {
    const [first] = hostileLines();
    const lines = [
      { ...first!, note: undefined },
      { ...first!, id: hostileId(1), ref: undefined },
    ];
    const out = journalExport(lines, 'lbrl export', UTC_TIMES);
    expect(out).toContain(`(${hostileId(0)}) mesa 7, pago: sim\n    ; deposit: ${hostileId(0)}\n    ; txid:`);
    expect(out).toContain(`(${hostileId(1)}) PIX 00000000 | mesa 7, pago: sim\n`);
  });
});

describe("CSV and OFX: the merchant's words as typed", () => {
  const lines = hostileLines();

  it('a backslash stays one backslash (a control character, which only an edited ledger holds, its escape)', () => {
    const csv = csvExport(lines, CSV_BR, UTC_TIMES);
    expect(csv).toContain(`;"a\\b ""q"" 's'";"a\\b ""q"" 's'";`);
    expect(csv).toContain(';tab\\there;tab\\there;');
    const ofx = ofxExport(lines, {
      account: 'default',
      now: Date.parse('2026-11-30T00:00:00Z'),
      times: UTC_TIMES,
    });
    expect(ofx).toContain(`<MEMO>a\\b "q" 's' | a\\b "q" 's' | bruto 10,00 | tarifa 1,00\r\n`);
  });
});
