import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

// .ci/run runs the suite on several Node versions by putting one first on PATH. These checks make
// sure such a run really tests that version: vitest itself, and every `node` a test or lbrl starts.

describe('the Node this run tests', () => {
  it('is the one asked for (LBRL_TEST_NODE, set by .ci/run)', () => {
    const wanted = process.env.LBRL_TEST_NODE;
    if (wanted) expect(process.versions.node.split('.')[0]).toBe(wanted);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(20);
  });

  it('is the `node` on PATH, which shells and #!/usr/bin/env node scripts start', () => {
    const onPath = execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    expect(onPath).toBe(process.version);
  });

  it('runs lbrl with no warning of its own: a create against the embedded sandbox, then a get', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const made = await runBin(
      ['deposit', 'create', '--amount', '2.50', '--to', LQ, '--yes', '--no-input', '--json'],
      env,
    );
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    const got = await runBin(['deposit', 'get', id, '--json'], env);
    expect(got.stderr).toBe('');
    expect((JSON.parse(got.stdout) as { amountInCents: number }).amountInCents).toBe(250);
  });
});
