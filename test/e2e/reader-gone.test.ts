/**
 * A watch whose reader went away (`| head -1`): stdout closes while deposits still wait, and the
 * watch must not end 0 (every deposit FINALIZED) as a list cut short by `| head` does. It ends
 * 141 (128 + SIGPIPE, as a shell reports any program a broken pipe stopped), says on stderr how
 * each deposit was left and how to follow it again. A real shell pipeline: the pipe is the point.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { BIN, codeCacheEnv, runBin } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A sandbox of its own that never pays by itself: the test pays, once the reader is gone. */
async function sandboxWorld(): Promise<Record<string, string>> {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
  expect((await runBin(['config', 'set', 'sandbox-autopay', 'off'], env)).code).toBe(0);
  return env;
}

async function created(env: Record<string, string>): Promise<string> {
  const r = await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env);
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

/**
 * `lbrl <args> | head -1` in bash with pipefail; `whenRead` runs once head has printed its line
 * (and so closed the pipe). Resolves with head's line, lbrl's stderr and lbrl's exit code.
 */
function throughHead(
  args: string[],
  env: Record<string, string>,
  whenRead: () => Promise<unknown>,
): Promise<{ line: string; stderr: string; code: number }> {
  const script = `"${process.execPath}" "${BIN}" "$@" 2>"$LBRL_TEST_ERR" | head -1; echo "lbrl exit \${PIPESTATUS[0]}" >&2`;
  const errFile = `${tempDir()}/stderr`;
  const child = spawn('bash', ['-c', script, 'bash', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...codeCacheEnv(), ...env, LBRL_TEST_ERR: errFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let line = '';
    let said = '';
    let paid = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      line += chunk.toString('utf8');
      if (!paid && line.endsWith('\n')) {
        paid = true;
        whenRead().catch(reject);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
    });
    child.on('exit', async () => {
      const match = /lbrl exit (\d+)/.exec(said);
      if (!match) return reject(new Error(`no exit code from the pipeline: ${said}`));
      const { readFile } = await import('node:fs/promises');
      resolve({ line, stderr: await readFile(errFile, 'utf8'), code: Number(match[1]) });
    });
  });
}

it('watch | head -1 while the deposit still settles: exit 141, how it was left and how to follow again on stderr', async () => {
  const env = await sandboxWorld();
  const id = await created(env);
  const r = await throughHead(['deposit', 'watch', id, '--interval', '1'], env, () =>
    runBin(['sandbox', 'pay', id], env),
  );
  expect(r.line).toMatch(new RegExp(`^\\S+  ${id}  WAITING_PAYMENT\\n$`));
  expect(r.code).toBe(141);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines.slice(-4)).toEqual([
    expect.stringMatching(new RegExp(`^deposit ${id} left at [A-Z_]+: stdout closed$`)),
    'the charge is still open: stopping the watch cancels nothing. Follow it again with:',
    `  lbrl deposit watch ${id}`,
    'error: stdout closed (its reader went away) before the watch ended: the deposits it left are not known to be done',
  ]);
  expect(r.stderr).not.toContain('    at ');
}, 60_000);

it('with --json the end is one JSON error line naming what is unfinished; a watch already done still ends 0', async () => {
  const env = await sandboxWorld();
  const id = await created(env);
  const r = await throughHead(['deposit', 'watch', id, '--interval', '1', '--json'], env, () =>
    runBin(['sandbox', 'pay', id], env),
  );
  expect(JSON.parse(r.line)).toMatchObject({ id, status: 'WAITING_PAYMENT' });
  expect(r.code).toBe(141);
  expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!)).toEqual({
    error: {
      type: 'output_closed',
      message:
        'stdout closed (its reader went away) before the watch ended: the deposits it left are not known to be done',
      exitCode: 141,
      unfinished: [id],
    },
  });
  // once FINALIZED, the watch's one line fits the pipe and it ends as it should, 0
  expect((await runBin(['deposit', 'watch', id, '--interval', '1', '-q'], env)).code).toBe(0);
  const done = await throughHead(['deposit', 'watch', id], env, async () => {});
  expect(done.line).toMatch(new RegExp(`^\\S+  ${id}  FINALIZED`));
  expect(done.code).toBe(0);
}, 60_000);
