/**
 * Finalized export lines whose merchant's words look like journal tags (`name:value`, `date:`,
 * ledger's `:name:`), for the journal writer's tests: none of them may become a tag.
 */
import type { ExportLine, LocalTimes } from '../../src/deposits/export.js';

export const TAG_LIKE_NOTES = [
  'date:2020-01-01',
  'x:y',
  'mesa 7, pago:sim',
  'mesa 7; pago:sim, date:2020-01-01',
  ':vip:cliente:',
  'hora: 12:30',
];

export const UTC_TIMES: LocalTimes = {
  clock: (ms) => new Date(ms).toISOString().slice(0, 19),
  offsetMs: () => 0,
};

export function tagLikeLines(): ExportLine[] {
  return TAG_LIKE_NOTES.map((note, n) => ({
    id: `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`,
    ref: `pedido:${n + 1}`,
    note,
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
