/**
 * A settlement fact one till saw is part of the deposit's record on every host sharing the ledger
 * in PostgreSQL: the office's get that the service answers with another transaction, or none, is
 * a lie said as such (exit 1), and the office's list, report and export state the till's facts.
 * Each host its own config directory, in process, against one database and one service.
 */
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { createdThrough } from '../helpers/created-deposit.js';
import { getAnswer, ID } from '../helpers/fixtures.js';
import { freshDatabase } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';

vi.setConfig({ testTimeout: 60_000 });

const TX_A = 'a'.repeat(64);
const TX_B = 'b'.repeat(64);
const settling = (txid?: string) =>
  getAnswer({
    status: 'SETTLEMENT_CREATED',
    settlement: { liquidTxid: txid ?? null, status: 'PENDING' },
  });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The till that created the deposit, and the office: two hosts of one ledger. */
async function tillAndOffice(answer: () => unknown) {
  const ledger = await freshDatabase(inject('postgresUrl'));
  const made = await createdThrough(answer, { LBRL_LEDGER_URL: ledger });
  server = made.server;
  const office = { ...made.env, LBRL_CONFIG_DIR: tempDir() };
  return { till: made.env, office };
}

describe('facts one till saw hold on every host', () => {
  it('a txid first seen at the same status, by the till, makes the office refuse another', async () => {
    let now: unknown = settling();
    const { till, office } = await tillAndOffice(() => now);
    const first = await runCli(['deposit', 'get', ID, '-q'], { env: till });
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe('SETTLEMENT_CREATED\n');
    now = settling(TX_A);
    expect((await runCli(['deposit', 'get', ID, '-q'], { env: till })).code).toBe(0);
    now = getAnswer({ status: 'TX_SENT', settlement: { liquidTxid: TX_B, status: 'PENDING' } });
    const lie = await runCli(['deposit', 'get', ID], { env: office });
    expect(lie.code).toBe(1);
    expect(lie.stdout).toBe('');
    expect(lie.stderr).toContain(`settlement.liquidTxid: expected ${TX_A}, as lbrl recorded it`);
    // and so does the till itself, and an answer naming none
    now = settling();
    expect((await runCli(['deposit', 'get', ID], { env: till })).code).toBe(1);
    const list = await runCli(['deposit', 'list', '--json'], { env: office });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)[0].facts).toEqual({ 'settlement.liquidTxid': TX_A });
  });

  it('a confirmation time the office saw holds for the till', async () => {
    const confirmed = '2026-11-22T10:05:00.000Z';
    let now: unknown = getAnswer({ status: 'PIX_CONFIRMED' });
    const { till, office } = await tillAndOffice(() => now);
    expect((await runCli(['deposit', 'get', ID, '-q'], { env: till })).code).toBe(0);
    now = getAnswer({ status: 'PIX_CONFIRMED', confirmedAt: confirmed });
    expect((await runCli(['deposit', 'get', ID, '-q'], { env: office })).code).toBe(0);
    now = getAnswer({ status: 'PIX_CONFIRMED', confirmedAt: '2026-11-22T11:00:00.000Z' });
    const lie = await runCli(['deposit', 'get', ID], { env: till });
    expect(lie.code).toBe(1);
    expect(lie.stderr).toContain(`confirmedAt: expected ${confirmed}, as lbrl recorded it`);
  });
});
