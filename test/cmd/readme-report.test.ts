/**
 * The README's `deposit report --csv-br` example is what the tool writes: its four deposits of
 * 2026-11-24 (R$ 12,50 and R$ 35,00 finalized, R$ 50,00 failed, R$ 20,00 expired) written to a
 * history as lbrl writes it, the report run in process, and the README's block compared whole.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dayTradeInProcess, HOUR, NOW } from '../helpers/day-trade.js';

function readmeBlock(command: string): string {
  const readme = fs.readFileSync(new URL('../../docs/end-of-day.md', import.meta.url), 'utf8');
  const start = readme.indexOf(`$ ${command}\n`);
  expect(start).toBeGreaterThan(-1);
  const body = readme.slice(start + command.length + 3);
  return body.slice(0, body.indexOf('```'));
}

describe("the README's report example", () => {
  it('--csv-br: the columns and rows the tool writes, header and all', async () => {
    const world = dayTradeInProcess();
    // 2026-11-24 in São Paulo: a day after the helper's clock
    const at = -20;
    world.write([
      world.created(1, at, { cents: 1250 }),
      world.created(2, at, { cents: 5000 }),
      world.created(3, at, { cents: 2000 }),
      world.created(4, at, { cents: 3500 }),
      world.status(1, 'FINALIZED', at - 1),
      world.status(2, 'FAILED', at - 1),
      world.expired(3, at - 2),
      world.status(4, 'FINALIZED', at - 1),
    ]);
    const r = await world.report({ csvBr: true }, { now: NOW + 30 * HOUR });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\r\n/g, '\n')).toBe(readmeBlock('lbrl deposit report --csv-br'));
  });
});
