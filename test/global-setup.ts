import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the V8 code cache directory every run of the built lbrl in this test run shares */
    codeCacheHome: string;
  }
}

/**
 * One code cache for every run of the built program in the test run (test/helpers/bin.ts), as a
 * user's machine has one: each command compiles once, not once per test, and no run writes into
 * the real ~/.cache. The code cache's own behaviour is tested apart, with caches of its own.
 */
export default function setup(project: TestProject): () => void {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-test-cache-'));
  project.provide('codeCacheHome', home);
  return () => fs.rmSync(home, { recursive: true, force: true });
}
