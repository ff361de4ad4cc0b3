import { afterAll, vi } from 'vitest';
import { removeTempDirs } from './helpers/temp.js';

// Run before every test file, also where files share a worker and its modules (vitest.config.ts):
// what a file changed of the process is put back when it ends.
const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  // each test file cleans up the temporary directories it made
  removeTempDirs();
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
  process.exitCode = undefined;
});
