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

/** How long a run may take before the test ends it: the test's own limit should be longer. */
const RUN_LIMIT_MS = 20_000;

/**
 * Run the built CLI as a user would, with only the environment given (plus PATH and a code cache).
 * A run still going after `limitMs` is killed and the promise rejects, saying so: it never comes
 * back as a result. (execFile's own `timeout` closes the child's pipes before its signal, and lbrl
 * takes a closed stdout as `| head` does and exits 0: a run cut short looked like a clean run
 * whose last lines were missing.)
 */
export function runBin(
  args: string[],
  env: Record<string, string>,
  input?: string,
  o: { limitMs?: number } = {},
): Promise<BinResult> {
  return runBinAt(BIN, args, env, input, o);
}

/** The same, for a copy of the built CLI at another place. */
export function runBinAt(
  bin: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
  o: { limitMs?: number } = {},
): Promise<BinResult> {
  const limitMs = o.limitMs ?? RUN_LIMIT_MS;
  return new Promise((resolve, reject) => {
    let killed = false;
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...baseEnv(), ...env } },
      (error, stdout, stderr) => {
        clearTimeout(limit);
        if (killed) {
          reject(
            new Error(
              `lbrl ${args.join(' ')} was still running after ${limitMs / 1000} s and was killed by the test; stdout so far ends ${JSON.stringify(stdout.slice(-300))}, stderr ${JSON.stringify(stderr.slice(-300))}`,
            ),
          );
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    const limit = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
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
