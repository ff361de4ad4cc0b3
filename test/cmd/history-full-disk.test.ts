/**
 * A history on a full disk is found only when the created deposit is appended: the charge exists
 * at the service by then. The create says so plainly: the deposit is shown (it can be paid), and
 * stderr names the file, the error, and that the deposit is not in the history.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answeringDispatcher, jsonReply } from '../helpers/answering-dispatcher.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer, EX, ID } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const mounts: string[] = [];
afterEach(() => {
  for (const at of mounts.splice(0)) execFileSync('umount', [at]);
});

/** A config directory on a file system of two pages: a history of one page, the other one taken. */
function fullDisk(): { dir: string; file: string; before: Buffer } {
  const dir = tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8k,mode=0700', 'tmpfs', dir]);
  mounts.push(dir);
  const file = path.join(dir, 'history.ndjson');
  // one page exactly, lines of spaces are blank lines to a reader: the next append needs a new page
  const before = Buffer.from(`${' '.repeat(4095)}\n`);
  fs.writeFileSync(file, before, { mode: 0o600 });
  try {
    fs.writeFileSync(path.join(dir, 'filler'), Buffer.alloc(64 * 1024));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  return { dir, file, before };
}

describe('a history on a full disk', () => {
  it.each([[[]], [['--json']], [['-q']]])(
    'create %j: the charge is shown and said not recorded, with its id',
    async (extra) => {
      const { dir, file, before } = fullDisk();
      const service = answeringDispatcher((call) =>
        jsonReply(
          200,
          createAnswer({ amountInCents: 1000, lbrlAddress: JSON.parse(call.body!).lbrlAddress }),
        ),
      );
      const env = { ...liveEnv('https://pay.example.com'), LBRL_CONFIG_DIR: dir, HOME: dir };
      const r = await runCli(['deposit', 'create', '--amount', '10', '--to', EX, '--yes', ...extra], {
        env,
        client: { dispatcher: service.dispatcher },
      });
      expect(r.code).toBe(0);
      // the charge is shown, as it can be paid: its id on stdout, whatever the form
      expect(r.stdout).toContain(ID);
      expect(r.stderr.trim().split('\n').slice(0, 2)).toEqual([
        `warning: could not record in ${file}: ENOSPC: no space left on device, write`,
        `warning: deposit ${ID} exists at the service but is not in ${file}: list, watch --pending and --resume will not know it; keep its id, and follow it with lbrl deposit watch ${ID}`,
      ]);
      expect(service.calls).toHaveLength(1);
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    },
  );
});
