import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/lbrl.js');

/** The test run's one code cache (test/global-setup.ts), for a run of the built program started elsewhere. */
export function codeCacheEnv(): { XDG_CACHE_HOME: string } {
  return { XDG_CACHE_HOME: inject('codeCacheHome') };
}

/** The environment every run starts from: PATH, and the shared code cache. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...codeCacheEnv() };
}

export interface BinResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a user would, with only the environment given (plus PATH and a code cache). */
export function runBin(args: string[], env: Record<string, string>, input?: string): Promise<BinResult> {
  return runBinAt(BIN, args, env, input);
}

/** The same, for a copy of the built CLI at another place. */
export function runBinAt(
  bin: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<BinResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...baseEnv(), ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

export function spawnBin(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: 'pipe',
  });
}

/** Wait for a spawned process to print a line matching the pattern. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; saw ${seen}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}
