import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    pool: 'forks',
    // Many test files spend much of their time waiting on other processes (lbrl runs, shells,
    // terminals, a browser, the sandbox's real seconds): one worker more than the cores keeps the
    // cores busy. vitest's default (cores - 1) leaves one of two cores idle.
    maxWorkers: availableParallelism() + 1,
  },
});
