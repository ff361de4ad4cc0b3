/**
 * The journal keeps the merchant's words as text: a note written into a comment never reads as
 * a tag (`name:value`, `date:`, ledger's `:name:`): each `:` of it is written `∶` (U+2236).
 * hledger's own reading of the same lines is test/e2e/export-readers.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { journalExport } from '../../src/deposits/export.js';
import { tagLikeLines, UTC_TIMES } from '../helpers/journal-notes.js';

describe('journal comments: the merchant text is no tag', () => {
  const text = journalExport(tagLikeLines(), 'lbrl export', UTC_TIMES);

  it('a note of the tag form is written with U+2236 for each colon, the rest as typed', () => {
    const notes = [...text.matchAll(/^ {4}; note: (.*)$/gm)].map((m) => m[1]);
    expect(notes).toEqual([
      'date∶2020-01-01',
      'x∶y',
      'mesa 7, pago∶sim',
      'mesa 7, pago∶sim, date∶2020-01-01',
      '∶vip∶cliente∶',
      'hora∶ 12∶30',
    ]);
  });

  it("the export's own tags keep their colon; the reference, a description (no tags there), is as typed", () => {
    expect(text).toContain(
      `2026-11-10 * (00000000-0000-4000-8000-000000000001) pedido:1\n    ; deposit: 00000000-0000-4000-8000-000000000001\n    ; note: date∶2020-01-01\n    ; txid: ${'ab'.repeat(32)}\n`,
    );
  });
});
