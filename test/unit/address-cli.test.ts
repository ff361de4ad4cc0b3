/** A huge address is refused in milliseconds wherever it comes from: --to, or a CSV cell. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { cpuTimedAsync } from '../helpers/cpu.js';
import { TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;
beforeEach(async () => {
  server = await startServer((_req, res) => json(res, 500, {}));
  env = { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN };
});
afterEach(() => server.close());

describe('long addresses are refused before any decoding', () => {
  it.each([131_000, 1_000_000])('--to of %i characters', async (n) => {
    const [r, ms] = await cpuTimedAsync(() =>
      runCli(['deposit', 'create', '--amount', '10', '--to', 'Q'.repeat(n)], { env }),
    );
    expect(ms).toBeLessThan(1000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`it is ${n} characters long; a Liquid address has at most 1000`);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
  });

  it('a 200 KB address cell in a CSV', async () => {
    const file = path.join(tempDir(), 'rows.csv');
    fs.writeFileSync(file, `amount,to\n10,${'V'.repeat(200_000)}\n`);
    const [r, ms] = await cpuTimedAsync(() => runCli(['deposit', 'create', '--from', file], { env }));
    expect(ms).toBeLessThan(1000);
    expect(r.stderr).toContain('it is 200000 characters long; a Liquid address has at most 1000');
    expect(server.requests).toHaveLength(0);
  });
});
