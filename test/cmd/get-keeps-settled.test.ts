/**
 * A settlement fact `deposit get` has seen is part of the deposit's record: a get that showed txid
 * A (exit 0) and a later get, in another process, that the service answers with txid B is a lie
 * said as such (exit 1), never a second truth; so is a payment seen (PIX_CONFIRMED) then WAITING_PAYMENT.
 * get records only what moves a deposit the history holds on (a later status, a settlement fact),
 * once: polling a waiting or settled deposit writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { createdThrough } from '../helpers/created-deposit.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const TX_A = 'a'.repeat(64);
const TX_B = 'b'.repeat(64);
const finalized = (txid: string) =>
  getAnswer({
    status: 'FINALIZED',
    settlement: { liquidTxid: txid, status: 'FINALIZED' },
    confirmedAt: '2026-11-22T10:05:00.000Z',
  });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A deposit created through a service whose get answers what `answer()` says now. */
async function service(answer: () => unknown) {
  const made = await createdThrough(answer);
  server = made.server;
  return made;
}

describe('deposit get keeps what it saw settle', () => {
  it('a txid shown by one get holds the next: another txid is refused (exit 1), the first still recorded', async () => {
    let now = finalized(TX_A);
    const { env, lines } = await service(() => now);
    const first = await runCli(['deposit', 'get', ID, '--quiet'], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('FINALIZED\n');
    expect(lines()).toHaveLength(2);
    expect(JSON.parse(lines()[1]!)).toMatchObject({ type: 'status', id: ID, status: 'FINALIZED' });
    now = finalized(TX_B);
    const lie = await runCli(['deposit', 'get', ID], { env });
    expect(lie.code).toBe(1);
    expect(lie.stdout).toBe('');
    expect(lie.stderr).toContain(`settlement.liquidTxid: expected ${TX_A}, as lbrl recorded it`);
    expect(lie.stderr).toContain(`service answered ${TX_B}`);
    expect(lines()).toHaveLength(2);
    const list = await runCli(['deposit', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)[0].facts).toEqual({
      'settlement.liquidTxid': TX_A,
      confirmedAt: '2026-11-22T10:05:00.000Z',
    });
  });

  it('a TX_SENT answer keeps its txid too: a FINALIZED one with another is refused', async () => {
    let now: unknown = getAnswer({
      status: 'TX_SENT',
      settlement: { liquidTxid: TX_A, status: 'PENDING' },
    });
    const { env } = await service(() => now);
    expect((await runCli(['deposit', 'get', ID, '--json'], { env })).code).toBe(0);
    now = finalized(TX_B);
    const lie = await runCli(['deposit', 'get', ID, '--json'], { env });
    expect(lie.code).toBe(1);
    expect(lie.stdout).toBe('');
  });

  it('polling writes nothing: a waiting deposit, and a settled one already recorded', async () => {
    let now: unknown = getAnswer();
    const { env, lines } = await service(() => now);
    for (let i = 0; i < 3; i++) expect((await runCli(['deposit', 'get', ID, '-q'], { env })).code).toBe(0);
    expect(lines()).toHaveLength(1);
    now = finalized(TX_A);
    for (let i = 0; i < 3; i++) expect((await runCli(['deposit', 'get', ID, '-q'], { env })).code).toBe(0);
    expect(lines()).toHaveLength(2);
  });

  it('a payment seen by one get holds the next: WAITING_PAYMENT again is refused (exit 1), nothing to pay shown', async () => {
    let now: unknown = getAnswer({ status: 'PIX_CONFIRMED' });
    const { env, lines } = await service(() => now);
    for (let i = 0; i < 2; i++) {
      const seen = await runCli(['deposit', 'get', ID, '-q'], { env });
      expect(seen.code).toBe(0);
      expect(seen.stdout).toBe('PIX_CONFIRMED\n');
    }
    // recorded once: polling at the same status writes nothing more
    expect(lines()).toHaveLength(2);
    expect(JSON.parse(lines()[1]!)).toMatchObject({ type: 'status', id: ID, status: 'PIX_CONFIRMED' });
    for (const back of ['WAITING_PAYMENT', 'PIX_CONFIRMED']) {
      now = getAnswer({ status: back });
      const lie = await runCli(['deposit', 'get', ID, '--qr'], { env });
      if (back === 'PIX_CONFIRMED') {
        expect(lie.code).toBe(0);
        continue;
      }
      expect(lie.code).toBe(1);
      expect(lie.stdout).toBe('');
      expect(lie.stderr).toContain(
        'status: expected PIX_CONFIRMED or a later status (a status never goes back), service answered WAITING_PAYMENT',
      );
    }
    // a later status moves the record on, and what was before it is held too
    now = getAnswer({ status: 'SETTLEMENT_CREATED', settlement: { status: 'CREATED' } });
    expect((await runCli(['deposit', 'get', ID, '-q'], { env })).code).toBe(0);
    now = getAnswer({ status: 'PIX_CONFIRMED' });
    expect((await runCli(['deposit', 'get', ID, '-q'], { env })).code).toBe(1);
    expect(lines()).toHaveLength(3);
  });

  it('a deposit the history does not hold is not recorded', async () => {
    server = await startServer((_req, res) => json(res, 200, finalized(TX_A)));
    const dir = tempDir();
    const env = { LBRL_CONFIG_DIR: dir, LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    expect((await runCli(['deposit', 'get', ID, '-q'], { env })).code).toBe(0);
    expect(fs.existsSync(path.join(dir, 'history.ndjson'))).toBe(false);
  });
});
