/**
 * docs/end-of-day.md shows `deposit list` and `deposit report` (on a terminal, and `--csv-br`) of
 * the sandbox day it walks through; each is run here on the same history, in process, at 80
 * columns in São Paulo, and must print exactly what the page shows. (The page's session itself,
 * with its random ids and txids, is the sandbox's; the outputs shown are what this history gives.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/store/history-records.js';
import { dayTradeInProcess, SERVICE } from '../helpers/day-trade.js';
import { brCode, LQ } from '../helpers/fixtures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = fs.readFileSync(path.join(ROOT, 'docs/end-of-day.md'), 'utf8');

/** What the page shows after `$ <command>` (up to the next `$ ` line or the end of its block). */
function shown(command: string): string {
  const block = [...page.matchAll(/```\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes(`$ ${command}\n`) || b.includes(`$ ${command} `));
  if (!block) throw new Error(`docs/end-of-day.md shows no "$ ${command}"`);
  const lines = block.split('\n');
  const start = lines.findIndex((line) => line === `$ ${command}` || line.startsWith(`$ ${command} `));
  const end = lines.findIndex((line, i) => i > start && line.startsWith('$ '));
  return `${lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .replace(/\n+$/, '')}\n`;
}

/** The day: four charges a second apart at 04:42 in São Paulo, as the page's session made them. */
const DAY = [
  { id: '4697b4e2-866d-4e33-b5bb-1bcffb71aad5', cents: 3500, status: 'FINALIZED' },
  { id: '975fa83f-cd9a-4e5b-baa5-9b1bab3563b3', cents: 2000, status: 'EXPIRED' },
  { id: '63e63466-c9c0-4f47-9788-78843b7b9f5f', cents: 5000, status: 'FAILED' },
  { id: 'a14a0761-5ffa-4513-a64c-98aa1f067f56', cents: 1250, status: 'FINALIZED' },
];
const CREATED = Date.parse('2026-11-24T07:42:10Z');
const NOW = Date.parse('2026-11-24T07:50:00Z');

function history(): StoredRecord[] {
  return DAY.flatMap(({ id, cents, status }, i): StoredRecord[] => {
    const at = new Date(CREATED + i * 1000).toISOString();
    const fee = Math.floor(cents / 100);
    const created = {
      v: 1,
      type: 'created',
      id,
      profile: 'default',
      baseUrl: SERVICE,
      at,
      amountInCents: cents,
      destinationAddress: LQ,
      splitAddress: null,
      splitFee: null,
      status: 'WAITING_PAYMENT',
      answer: {
        amount: cents / 100,
        feeAmount: fee / 100,
        netAmount: (cents - fee) / 100,
        splitPercent: null,
        qrCodeText: brCode(cents),
        createdAt: at,
      },
    } as StoredRecord;
    const later = new Date(CREATED + 120_000).toISOString();
    if (status === 'EXPIRED') return [created, { v: 1, type: 'expired', id, at: later } as StoredRecord];
    return [created, { v: 1, type: 'status', id, status, at: later } as StoredRecord];
  });
}

describe('docs/end-of-day.md: the outputs it shows are what lbrl prints', () => {
  it('deposit list, at 80 columns', async () => {
    const world = dayTradeInProcess();
    world.write(history());
    const r = await world.list({}, { columns: 80, now: NOW });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(shown('lbrl deposit list'));
  });

  it('deposit report, on a terminal and --csv-br', async () => {
    const world = dayTradeInProcess();
    world.write(history());
    const table = await world.report({}, { columns: 80, now: NOW });
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toBe(shown('lbrl deposit report'));
    const csv = await world.report({ csvBr: true }, { now: NOW });
    expect(csv).toMatchObject({ code: 0, stderr: '' });
    expect(csv.stdout.replace(/\r\n/g, '\n')).toBe(shown('lbrl deposit report --csv-br'));
  });
});
