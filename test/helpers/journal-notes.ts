/**
 * The merchant's words at their most hostile to an accounting file, for the export writers' tests
 * (test/unit/journal-comment.test.ts) and the real readers' (test/e2e/export-readers.test.ts):
 * what reads as a tag, a comment, a payee's end, a date, a formula or markup, accents, an emoji,
 * and what only an edited ledger holds (outer spaces, a tab). Each is a reference and a note.
 */
import type { ExportLine, LocalTimes } from '../../src/deposits/export.js';

export const HOSTILE_TEXTS = [
  'mesa 7, pago: sim',
  'date:2020-01-01, x:y, :vip:',
  'mesa 7; pago:sim, date:2020-01-01',
  'a; b; c',
  'a | b | c',
  '#42 [mesa 7] (balcão) {x}',
  '[2020-01-01] [=2020-01-02]',
  'ação “pão” 🧀 Москва',
  '  espaços  ',
  'tab\there',
  'R$ 15,50; 10%',
  'a\\b "q" \'s\'',
  '; comment',
  '* ! (x) =1',
  ',x,',
  'a & b <c> &amp;',
];

/** The journal's look-alikes (JOURNAL_LOOKALIKES), written out here so a test says what it expects. */
export const FULLWIDTH_SEMICOLON = '\uff1b';
export const FULLWIDTH_BAR = '\uff5c';
export const LOW_COMMA = '\u201a';

/** A text as a journal holds it in its description (the reference, or the note after ` | `). */
export function inDescription(text: string, part: 'ref' | 'note'): string {
  const one = text.trim().replace(/\t/g, '\\t').replace(/;/g, FULLWIDTH_SEMICOLON);
  return part === 'ref' ? one.replace(/\|/g, FULLWIDTH_BAR) : one;
}

/** A note as a journal holds it in its `note:` tag. */
export function inNoteTag(text: string): string {
  return text.trim().replace(/\t/g, '\\t').replace(/,/g, LOW_COMMA);
}

export const UTC_TIMES: LocalTimes = {
  clock: (ms) => new Date(ms).toISOString().slice(0, 19),
  offsetMs: () => 0,
};

export const hostileId = (n: number) => `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`;

/** One finalized export line per hostile text, the text its reference and its note. */
export function hostileLines(): ExportLine[] {
  return HOSTILE_TEXTS.map((text, n) => ({
    id: hostileId(n),
    ref: text,
    note: text,
    createdMs: Date.parse('2026-11-10T12:00:00Z') + n * 60_000,
    status: 'FINALIZED',
    gross: 1_000,
    figures: { gross: 1_000, fee: 100, net: 900, split: 0, destination: 900 },
    splitAddress: null,
    txid: 'ab'.repeat(32),
    verdict: 'verified',
    service: 'https://pay.example.com',
  }));
}
