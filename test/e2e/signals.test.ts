/**
 * Ctrl-C and SIGTERM end a run with 130 (`lbrl help exit-codes`), also when the stream lbrl then
 * writes to is already closed (a pager quit, a log pipe gone): the closed stream used to decide
 * the code (1 for stderr, 0 for stdout, as `| head` ends a run). A real process: signals and
 * pipes are the point. `sandbox serve` is a run that waits until stopped and says so on stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { BIN, codeCacheEnv } from '../helpers/bin.js';
import { tempDir } from '../helpers/temp.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

it.each([
  ['SIGINT', 'display'],
  ['SIGTERM', 'display'],
  ['SIGTERM', 'sandbox serve'],
] as const)('%s to %s whose stderr is closed: exit 130', async (signal, command) => {
  const child = spawn(process.execPath, [BIN, ...command.split(' '), '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: tempDir(),
      LBRL_CONFIG_DIR: tempDir(),
      ...codeCacheEnv(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const ended = new Promise<[number | null, string | null]>((resolve) =>
    child.on('exit', (code, sig) => resolve([code, sig])),
  );
  // serving: its address on stdout, and how to stop it on stderr
  let out = '';
  let err = '';
  await new Promise<void>((resolve, reject) => {
    const ready = () => out.includes('http://') && err.includes('Ctrl-C to stop') && resolve();
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      ready();
    });
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      ready();
    });
    child.on('exit', () => reject(new Error(`${command} ended before serving: ${out}${err}`)));
  });
  child.stderr!.destroy();
  // the reading end is closed before the signal comes
  await new Promise((r) => setTimeout(r, 100));
  expect(child.exitCode).toBeNull();
  child.kill(signal);
  expect(await ended).toEqual([130, null]);
});
