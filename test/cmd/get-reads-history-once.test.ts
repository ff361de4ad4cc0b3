/**
 * A get reads the ledger's record of its deposit once: the expiry, the answer's check, the local
 * fields and what the answer settles anew all read that one record (it was read four times: four
 * searches from the end of a history that may hold 100,000 deposits). Before the request, the
 * history is opened once more for its first 4 bytes (not UTF-16: a history lbrl can record in,
 * as create checks it), which is no search.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { createdThrough } from '../helpers/created-deposit.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

/** The times a run opened the history file. */
async function historyOpens(run: () => Promise<unknown>): Promise<number> {
  const open = vi.spyOn(fs, 'openSync');
  await run();
  const opens = open.mock.calls.filter(([file]) => String(file).endsWith('history.ndjson')).length;
  open.mockRestore();
  return opens;
}

describe('deposit get reads the history once', () => {
  it('for a deposit it holds, and the answer is still checked against that record', async () => {
    let answer: unknown = getAnswer();
    const made = await createdThrough(() => answer);
    server = made.server;
    const { env } = made;
    let get = { code: -1, stdout: '', stderr: '', sleeps: [] as number[] };
    expect(
      await historyOpens(async () => (get = await runCli(['deposit', 'get', ID, '--json'], { env }))),
    ).toBe(2);
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toMatchObject({ id: ID, status: 'WAITING_PAYMENT' });
    // the record read is what the answer is held to: another amount than the one created is a lie
    answer = getAnswer({ amount: 1600, netAmount: 1584 });
    expect(
      await historyOpens(async () => (get = await runCli(['deposit', 'get', ID, '--json'], { env }))),
    ).toBe(2);
    expect(get.code).toBe(1);
    expect(get.stderr).toContain('cannot be trusted');
    // a final answer is recorded: the append opens it twice more (it reads what the history says
    // of the deposit, then opens it once to see whether its last line ended and to write)
    answer = getAnswer({ status: 'FAILED' });
    expect(await historyOpens(async () => (get = await runCli(['deposit', 'get', ID, '-q'], { env })))).toBe(
      4,
    );
    expect(get.stdout).toBe('FAILED\n');
    expect(JSON.parse(made.lines().at(-1)!)).toMatchObject({ type: 'status', id: ID, status: 'FAILED' });
  });

  it('for a deposit it does not hold', async () => {
    server = await startServer((_req, res) => json(res, 200, getAnswer()));
    const env = { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
    fs.writeFileSync(path.join(env.LBRL_CONFIG_DIR, 'history.ndjson'), '', { mode: 0o600 });
    let get = { code: -1, stdout: '', stderr: '', sleeps: [] as number[] };
    expect(
      await historyOpens(async () => (get = await runCli(['deposit', 'get', ID, '--json'], { env }))),
    ).toBe(2);
    expect(get.code, get.stderr).toBe(0);
  });
});
