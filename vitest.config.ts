import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Two tiers. `npm test` runs the fast one: the tests that run lbrl in this process (the domain, the
 * library, the commands on narrow options) and the smoke set, a few runs of the built program that
 * show it starts and does the main job on this Node. `npm run test:e2e` runs the rest: real
 * terminals, shells, the browser, several processes on one history, kill -9 and full disks.
 */
const IN_PROCESS = ['unit', 'cmd', 'lib', 'money'].map((dir) => `test/${dir}/**/*.test.ts`);
const SMOKE = ['test/smoke/**/*.test.ts'];
const E2E = ['test/e2e/**/*.test.ts'];

const common = {
  setupFiles: ['test/setup.ts'],
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 20_000,
  pool: 'forks',
} as const;

export default defineConfig({
  test: {
    // Many test files spend much of their time waiting on other processes (lbrl runs, shells,
    // terminals, a browser, the sandbox's real seconds): one worker more than the cores keeps the
    // cores busy. vitest's default (cores - 1) leaves one of two cores idle.
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        test: {
          ...common,
          name: 'in-process',
          include: IN_PROCESS,
          // Loading the program afresh for each file was half of these files' CPU time. They share
          // nothing through lbrl's modules (every run gets its context: clock, streams, env,
          // directories), and test/setup.ts puts back after each file what a file may change of
          // the process (timers, spies, stubs, the environment, the working directory).
          isolate: false,
        },
      },
      // the black-box tests of the built program, each file apart
      { test: { ...common, name: 'smoke', include: SMOKE } },
      // the end-to-end tier has a real PostgreSQL server (a throw-away cluster on loopback) for the run
      {
        test: {
          ...common,
          name: 'e2e',
          include: E2E,
          // real processes, shells, a browser and a database on 2 shared cores: a test's own
          // deadlines (within a second, within 30 s) are its assertions; vitest's is only a guard
          // against a hang, and at 20 s it failed tests that were merely slow on a busy machine
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: [...common.globalSetup, 'test/postgres-setup.ts'],
        },
      },
    ],
  },
});
