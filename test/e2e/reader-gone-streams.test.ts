/**
 * Every command that streams to stdout, cut off by its reader (`| head -1`) in a real bash
 * pipeline: a watch that waits between polls notices the pipe closed while it waits (within its
 * next poll, not at its next line hours later), and an export or a ledger copy larger than the
 * pipe holds is never ended 0 with part of the file: each ends 141 and says on stderr what was left.
 * reader-gone.test.ts has the watch's and the batch's words; here, the timing and the exports.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN, codeCacheEnv, runBin } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { createdRecord } from '../helpers/records-history.js';
import { tempDir } from '../helpers/temp.js';

/** `lbrl <args> | <reader>` in bash; lbrl's exit code (PIPESTATUS), its stderr, the reader's output, the time it took. */
function piped(
  args: string[],
  env: Record<string, string>,
  reader = 'head -1',
): Promise<{ out: string; stderr: string; code: number; ms: number }> {
  const errFile = path.join(tempDir(), 'stderr');
  const script = `"${process.execPath}" "${BIN}" "$@" 2>"$LBRL_TEST_ERR" | ${reader}; echo "lbrl exit \${PIPESTATUS[0]}" >&2`;
  const started = Date.now();
  const child = spawn('bash', ['-c', script, 'bash', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...codeCacheEnv(), ...env, LBRL_TEST_ERR: errFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let said = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('exit', () => {
      clearTimeout(guard);
      const match = /lbrl exit (\d+)/.exec(said);
      if (!match) return reject(new Error(`no exit code from the pipeline: ${said}`));
      resolve({
        out,
        stderr: fs.readFileSync(errFile, 'utf8'),
        code: Number(match[1]),
        ms: Date.now() - started,
      });
    });
  });
}

/** The error line: the last of stderr, one line, no stack. */
function lastError(stderr: string): string {
  expect(stderr).not.toContain('    at ');
  return stderr.trimEnd().split('\n').at(-1)!;
}

it('watch --interval 60 | head -1: the pipe closed while it waits ends it in seconds, 141, not at its next poll', async () => {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
  expect((await runBin(['config', 'set', 'sandbox-autopay', 'off'], env)).code).toBe(0);
  const created = await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env);
  const id = created.stdout.trim();
  const r = await piped(['deposit', 'watch', id, '--interval', '60'], env);
  expect(r.out).toMatch(new RegExp(`^\\S+  ${id}  WAITING_PAYMENT\\n$`));
  expect(r.code).toBe(141);
  // its next poll would have been a minute later
  expect(r.ms).toBeLessThan(30_000);
  expect(lastError(r.stderr)).toBe(
    'error: stdout closed (its reader went away) before the watch ended: the deposits it left are not known to be done',
  );
}, 60_000);

it('a watch whose reader stays to the end still ends 0', async () => {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
  expect((await runBin(['config', 'set', 'sandbox-autopay', '1'], env)).code).toBe(0);
  const created = await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env);
  const id = created.stdout.trim();
  const r = await piped(['deposit', 'watch', id, '--interval', '1'], env, 'cat');
  expect(r.out).toMatch(new RegExp(`^\\S+  ${id}  .*-> FINALIZED  txid [0-9a-f]{64}$`, 'm'));
  expect(r.code).toBe(0);
}, 60_000);

/** A history of `count` deposits: an export of it is far larger than a pipe holds (64 KiB). */
function bigHistory(count: number): Record<string, string> {
  const dir = tempDir();
  const lines = Array.from({ length: count }, (_, n) => {
    const id = `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`;
    const at = new Date(Date.parse('2026-11-02T12:00:00Z') + n * 60_000).toISOString();
    return `${JSON.stringify(createdRecord(id, { at, amountInCents: 100 + n, destinationAddress: LQ, baseUrl: 'sandbox' }))}\n`;
  });
  fs.writeFileSync(path.join(dir, 'history.ndjson'), lines.join(''), { mode: 0o600 });
  return { HOME: tempDir(), LBRL_CONFIG_DIR: dir, TZ: 'UTC' };
}

it.each(['csv', 'csv-br'])(
  'deposit export --format %s | head -1: 141, and it says the file is cut short',
  async (format) => {
    const env = bigHistory(3000);
    const whole = await runBin(['deposit', 'export', '--month', '2026-11', '--format', format], env);
    expect(whole.code).toBe(0);
    expect(whole.stdout.length).toBeGreaterThan(200_000);
    const r = await piped(['deposit', 'export', '--month', '2026-11', '--format', format], env);
    expect(r.out.split('\n')).toHaveLength(2);
    expect(r.code).toBe(141);
    expect(lastError(r.stderr)).toBe(
      `error: stdout closed (its reader went away) before the export was taken whole: the ${format} file of 3000 deposit(s) is cut short`,
    );
  },
  60_000,
);

it('ledger export | head -1: 141, and it says the copy is cut short', async () => {
  const env = bigHistory(3000);
  const r = await piped(['ledger', 'export'], env);
  expect(JSON.parse(r.out).type).toBe('created');
  expect(r.code).toBe(141);
  expect(lastError(r.stderr)).toBe(
    "error: stdout closed (its reader went away) before every record was written: the ledger's copy on stdout is cut short",
  );
}, 60_000);
