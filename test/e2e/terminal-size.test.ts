/**
 * Pseudo-terminals of no size: `script`, `docker exec -t` and `ssh -tt` from a script give 0
 * columns and 0 rows. There lbrl draws nothing over (no spinner), writes plain lines, and still
 * ends on --timeout, on SIGTERM, and when the terminal goes away.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, codeCacheEnv } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** A sandbox that never pays by itself, with one deposit waiting. */
function newSandboxWithDeposit(): { env: Record<string, string>; id: string } {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    TERM: 'xterm-256color',
    ...codeCacheEnv(),
  };
  const run = (args: string[]) => execFileSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  run(['config', 'set', 'sandbox-autopay', 'off']);
  const id = run(['deposit', 'create', '--amount', '1', '--to', LQ, '-q', '--no-input']).trim();
  return { env, id };
}

// one for the whole file (two runs of lbrl to make): the deposit only ever waits, whoever watches it
let sandbox: { env: Record<string, string>; id: string };
beforeAll(() => {
  sandbox = newSandboxWithDeposit();
});

interface PtyRun {
  child: ChildProcess;
  output: () => string;
  ended: Promise<number>;
}

/** `command` in a real pty (util-linux script) of `columns` x `rows`. */
function inPty(command: string, env: Record<string, string>, columns: number, rows: number): PtyRun {
  let out = '';
  const child = spawn('script', ['-qfec', `stty cols ${columns} rows ${rows}; ${command}`, '/dev/null'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (d: Buffer) => {
    // a spinner that redraws forever would fill memory: keep only a bounded amount
    if (out.length < 2_000_000) out += d.toString('utf8');
  });
  const ended = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { child, output: () => out, ended };
}

async function waitFor(run: PtyRun, pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(run.output());
    if (m) return m;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${pattern}; got ${run.output().slice(-500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe('a terminal of no size', () => {
  it.each([
    [0, 0],
    [0, 24],
    [80, 0],
  ])(
    'watch --timeout 1 in a %ix%i pty: plain lines, no spinner, ends on time with 124',
    async (columns, rows) => {
      const { env, id } = sandbox;
      const started = Date.now();
      const run = inPty(`node ${BIN} deposit watch ${id} --timeout 1; echo "[exit $?]"`, env, columns, rows);
      await waitFor(run, /\[exit \d+\]/, 8_000);
      const elapsed = Date.now() - started;
      const out = run.output();
      expect(out).toContain('[exit 124]');
      expect(out).toContain('WAITING_PAYMENT');
      expect(out).not.toMatch(SPINNER);
      // no cursor movement: a line is never redrawn
      expect(out).not.toMatch(/\u001b\[\d*[AGK]/);
      expect(out.length).toBeLessThan(4_000);
      // the second of --timeout, node's start and the sandbox's, not more
      expect(elapsed).toBeLessThan(5_000);
    },
  );

  it('create --watch --timeout 1 in a 0x0 pty: the charge, plain lines, no spinner, 124 on time', async () => {
    const { env } = sandbox;
    const started = Date.now();
    const run = inPty(
      `node ${BIN} deposit create --amount 1 --to ${LQ} --watch --timeout 1 --yes --no-input; echo "[exit $?]"`,
      env,
      0,
      0,
    );
    await waitFor(run, /\[exit \d+\]/, 8_000);
    const out = run.output();
    expect(out).toContain('[exit 124]');
    expect(out).toContain('PIX copy-paste');
    expect(out).not.toMatch(SPINNER);
    expect(out).not.toMatch(/\u001b\[\d*[AGK]/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('SIGTERM ends a watch in a 0x0 pty within a second, with 130', async () => {
    const { env, id } = sandbox;
    const run = inPty(
      `node ${BIN} deposit watch ${id} & echo "[pid $!]"; wait $!; echo "[exit $?]"`,
      env,
      0,
      0,
    );
    const pid = Number((await waitFor(run, /\[pid (\d+)\]/))[1]);
    await waitFor(run, /WAITING_PAYMENT/);
    const sent = Date.now();
    process.kill(pid, 'SIGTERM');
    await waitFor(run, /\[exit \d+\]/, 3_000);
    expect(Date.now() - sent).toBeLessThan(1_000);
    expect(run.output()).toContain('[exit 130]');
  });

  it('a watch whose pty is closed ends instead of running on', async () => {
    const { env, id } = sandbox;
    const run = inPty(`node ${BIN} deposit watch ${id} & echo "[pid $!]"; wait $!`, env, 0, 0);
    const pid = Number((await waitFor(run, /\[pid (\d+)\]/))[1]);
    await waitFor(run, /WAITING_PAYMENT/);
    run.child.kill('SIGKILL');
    await run.ended;
    const end = Date.now() + 3_000;
    let alive = true;
    while (alive && Date.now() < end) {
      try {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 25));
      } catch {
        alive = false;
      }
    }
    if (alive) process.kill(pid, 'SIGKILL');
    expect(alive).toBe(false);
  });
});

describe('a terminal that hangs up', () => {
  // the session leader, as a login shell is: on the hang-up it passes SIGHUP on to its job (as
  // bash does) and writes down how the job ended (whole, by a rename: the test reads it as it appears)
  const LEADER = `
    const fs = require('node:fs');
    const [out, ...args] = process.argv.slice(1);
    const job = require('node:child_process').spawn(process.execPath, args, { stdio: 'inherit' });
    process.on('SIGHUP', () => job.kill('SIGHUP'));
    job.on('exit', (code, signal) => { fs.writeFileSync(out + '.part', JSON.stringify({ code, signal })); fs.renameSync(out + '.part', out); process.exit(0); });
  `;
  it.each([
    ['sandbox serve', ['sandbox', 'serve', '--port', '0'], /sandbox serving/],
    ['listen', ['listen', '--forward-to', 'http://127.0.0.1:9/hooks'], /listening:/],
    ['display', ['display', '--port', '0'], /http:\/\/127\.0\.0\.1:\d+\/\?k=/],
  ])(
    '%s ends by the hang-up itself, not by a crash of Node at exit (SIGABRT, a core file)',
    async (_n, args, ready) => {
      const { env } = sandbox;
      const dir = tempDir();
      const out = `${dir}/ended.json`;
      const quoted = [out, BIN, ...args].map((a) => `'${a}'`).join(' ');
      const run = inPty(`cd ${dir}; exec node -e "${LEADER.replace(/\n\s*/g, ' ')}" ${quoted}`, env, 0, 0);
      await waitFor(run, ready);
      run.child.kill('SIGKILL');
      const end = Date.now() + 3_000;
      while (!fs.existsSync(out) && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      const ended = JSON.parse(fs.readFileSync(out, 'utf8')) as {
        code: number | null;
        signal: string | null;
      };
      expect(ended.signal ?? ended.code).toBe('SIGHUP');
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('core'))).toEqual([]);
    },
  );
});
