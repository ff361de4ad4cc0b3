import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/lbrl.js');

export interface BinResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a user would, with only the environment given (plus PATH). */
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
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 },
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
    env: { PATH: process.env.PATH ?? '', ...env },
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
