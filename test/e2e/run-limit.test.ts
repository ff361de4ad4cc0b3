/**
 * The test harness's limit on a run of the built program (test/helpers/bin.ts). Node's execFile
 * `timeout` closes the child's pipes before it signals it, and lbrl takes a closed stdout as `| head`
 * does (exit 0): a run cut short on a loaded machine came back as a clean run with its last lines
 * missing, which is how `watch --pending` over half a million lines once "lost" its last deposit
 * (history.test.ts). A run past its limit is reported as killed, never as a result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runBinAt } from '../helpers/bin.js';
import { tempDir } from '../helpers/temp.js';

it('a run past its limit rejects, saying it was killed, instead of a clean exit without its last line', async () => {
  // as lbrl ends on a closed stdout (src/main.ts) and rides out a SIGTERM until it can say so
  const slow = path.join(tempDir(), 'slow.js');
  fs.writeFileSync(
    slow,
    [
      "process.stdout.on('error', () => process.exit(0));",
      "process.on('SIGTERM', () => {});",
      "console.log('first');",
      "setTimeout(() => console.log('last'), 60_000);",
    ].join('\n'),
  );
  await expect(runBinAt(slow, [], {}, undefined, { limitMs: 1000 })).rejects.toThrow(
    'was still running after 1 s and was killed by the test',
  );
});
