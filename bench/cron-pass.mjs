// The README's cron pass over 1,000 charges due their last look and 3 live ones, pass after pass
// until none is left: each pass's exit code, requests, length on the injected clock (the watch's
// own waits: the service in process answers at once), what it left for later, and its CPU time.
//   node bench/cron-pass.mjs
import os from 'node:os';
import path from 'node:path';
import { bundleLikeLbrl, ROOT } from './lib.mjs';

const bundle = await bundleLikeLbrl(
  path.join(ROOT, 'bench/cron-pass-entry.ts'),
  path.join(os.tmpdir(), `lbrl-cron-pass-${process.pid}.mjs`),
);
const { cronPasses } = await import(bundle);
console.table(await cronPasses());
