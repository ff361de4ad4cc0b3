/**
 * The paid moment of a watch (and of the counter view's last words) on a narrow terminal: at 20
 * columns (a 20x8 tmux pane) each piece on a line of its own, the amount whole; at 80 and 300 the
 * one line as before. No line is wider than the terminal but a piece wider than it.
 */
import { describe, expect, it } from 'vitest';
import type { GetResponse } from '../../src/api/models.js';
import { paidLine } from '../../src/ui/watch-view.js';
import { getAnswer, ID } from '../helpers/fixtures.js';

const deposit = getAnswer({
  amountInCents: 600_000,
  status: 'PIX_CONFIRMED',
  confirmedAt: '2026-11-22T09:15:01.000Z',
}) as unknown as GetResponse;
const NOW = Date.parse('2026-11-22T09:15:01Z');

describe('the paid line fits the terminal', () => {
  it.each([20, 40, 80, 300])('at %i columns the amount is never cut', (columns) => {
    const text = paidLine(deposit, NOW, 'UTC', { columns, after: `(deposit ${ID})` });
    const lines = text.split('\n');
    expect(lines.filter((line) => line.includes('R$ 6.000,00'))).toHaveLength(1);
    for (const line of lines.filter((l) => l.includes('R$')))
      expect(line.length).toBeLessThanOrEqual(columns);
    if (columns === 300)
      expect(lines).toEqual([`Paid      R$ 6.000,00 at 2026-11-22 09:15:01 +00:00  (deposit ${ID})`]);
  });

  it('at 20 columns: one piece a line', () => {
    expect(paidLine(deposit, NOW, 'UTC', { columns: 20 }).split('\n')).toEqual([
      'Paid  R$ 6.000,00',
      '  at 2026-11-22',
      '  09:15:01 +00:00',
    ]);
  });

  it('with no size (a pipe): the one line', () => {
    expect(paidLine(deposit, NOW, 'UTC')).toBe('Paid      R$ 6.000,00 at 2026-11-22 09:15:01 +00:00');
  });
});
