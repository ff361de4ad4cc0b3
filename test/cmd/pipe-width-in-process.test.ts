/**
 * One rule for the width of every view when stdout is not a terminal (ui/fit.ts outputColumns):
 * COLUMNS when it is set, else no limit; on a terminal its own width, 80 when it says none. list
 * in a pipe writes its tab-separated lines whatever COLUMNS says (they have no width); report and
 * reconcile are held to the rule in report-width-in-process.test.ts and
 * reconcile-surplus-in-process.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputColumns } from '../../src/ui/fit.js';
import { runCli } from '../helpers/cli.js';
import { sandboxEnv } from '../helpers/env.js';
import { EX } from '../helpers/fixtures.js';

const ID = '00000000-0000-4000-8000-000000000001';

function withHistory(): Record<string, string> {
  const env = sandboxEnv();
  const record = {
    v: 1,
    type: 'created',
    id: ID,
    profile: 'default',
    baseUrl: 'sandbox',
    at: '2026-11-23T12:01:00.000Z',
    amountInCents: 1500,
    destinationAddress: EX,
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  };
  fs.writeFileSync(path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson'), `${JSON.stringify(record)}\n`, {
    mode: 0o600,
  });
  return env;
}

describe('the width of a view', () => {
  it('outputColumns: a terminal its width (80 unsaid); else COLUMNS, else no limit', () => {
    expect(outputColumns({ isTTY: true, columns: 40 }, { COLUMNS: '120' })).toBe(40);
    expect(outputColumns({ isTTY: true }, {})).toBe(80);
    expect(outputColumns({ isTTY: true, columns: 0 }, { COLUMNS: '30' })).toBe(80);
    expect(outputColumns({ isTTY: false, columns: 20 }, {})).toBe(Number.POSITIVE_INFINITY);
    expect(outputColumns({ isTTY: false }, { COLUMNS: ' 132 ' })).toBe(132);
    for (const value of ['', '0', '-1', '1e3', 'wide', '12.5', '999999'])
      expect(outputColumns({ isTTY: false }, { COLUMNS: value }), value).toBe(Number.POSITIVE_INFINITY);
  });

  it.each(['20', '200', undefined])(
    'list in a pipe with COLUMNS=%s: the tab-separated line, whole',
    async (columns) => {
      const env = { ...withHistory(), ...(columns ? { COLUMNS: columns } : {}) };
      const r = await runCli(['deposit', 'list'], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${ID}\t2026-11-23T12:01:00.000Z\t1500\t${EX}\tWAITING_PAYMENT\n`);
    },
  );

  it('list on a terminal that says no width: laid out at 80', async () => {
    const r = await runCli(['deposit', 'list'], {
      env: { ...withHistory(), COLUMNS: '20' },
      stdoutTTY: true,
    });
    expect(r.code).toBe(0);
    // its header is bold: what the terminal shows, without the style codes
    const lines = r.stdout
      .replace(/\u001b\[[0-9;]*m/g, '')
      .trimEnd()
      .split('\n');
    expect(lines[0]).toMatch(/^ID +CREATED/);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(80);
    expect(Math.max(...lines.map((line) => line.length))).toBeGreaterThan(40);
  });
});
