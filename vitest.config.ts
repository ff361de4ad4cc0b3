import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The tests that run lbrl in this process (runCli, the library, the domain). */
const IN_PROCESS = ['unit', 'cmd', 'lib', 'money'].map((dir) => `test/${dir}/**/*.test.ts`);

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
      {
        // everything else, the black-box tests of the built program above all, each file apart
        test: { ...common, name: 'isolated', include: ['test/**/*.test.ts'], exclude: IN_PROCESS },
      },
    ],
  },
});
