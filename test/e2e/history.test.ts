import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { tempDir } from '../helpers/cli.js';
import { LQ } from '../helpers/fixtures.js';

describe('the history under concurrent and killed processes', () => {
  it('twenty creates started at once on one config directory are all recorded', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runBin(['deposit', 'create', '--amount-cents', String(i + 1), '--to', LQ, '-q'], env),
      ),
    );
    expect(runs.every((r) => r.code === 0)).toBe(true);
    const list = await runBin(['deposit', 'list', '--json', '--limit', '100'], env);
    const entries = JSON.parse(list.stdout);
    expect(entries).toHaveLength(20);
    expect(new Set(entries.map((e: { id: string }) => e.id))).toEqual(
      new Set(runs.map((r) => r.stdout.trim())),
    );
    expect(list.stderr).not.toContain('damaged');
  }, 60_000);

  it('a kill -9 in the middle of a batch loses nothing: --resume finishes it without duplicates', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    await runBin(['config', 'set', 'sandbox-autopay', 'off'], env);
    const rows = Array.from({ length: 40 }, (_, i) => JSON.stringify({ amountCents: i + 1, to: LQ })).join(
      '\n',
    );
    const file = path.join(tempDir(), 'rows.ndjson');
    fs.writeFileSync(file, rows);
    const child = spawnBin(['deposit', 'create', '--from', file, '--concurrency', '2'], env);
    await waitForOutput(child, /"row":3,/);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));

    const list = await runBin(['deposit', 'list', '--json', '--limit', '100'], env);
    expect(list.code).toBe(0);
    const before = JSON.parse(list.stdout).length;
    expect(before).toBeGreaterThanOrEqual(3);

    const resumed = await runBin(['deposit', 'create', '--from', file, '--resume'], env);
    expect(resumed.code).toBe(0);
    const lines = resumed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(40);
    expect(lines.filter((l) => l.resumed).length).toBe(before);
    const ids = new Set(lines.map((l) => l.deposit.id));
    expect(ids.size).toBe(40);
    // the sandbox holds exactly one deposit per row: a row sent before the kill was not made twice
    const stored = fs
      .readdirSync(path.join(env.LBRL_CONFIG_DIR, 'sandbox', 'deposits'))
      .filter((f) => f.endsWith('.json'));
    expect(stored).toHaveLength(40);
  }, 60_000);
});
