/**
 * A history lbrl could not append to (a symbolic link, a hard link, a directory, a FIFO, a
 * read-only file) stops every command that records before its first request: one line naming the
 * file, what is wrong and what to do, exit 1, nothing sent, so no charge is made at the service
 * that the ledger would not hold. A link is still never followed, nor is what it points to touched.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { EX } from '../helpers/fixtures.js';
import { noNetwork } from '../helpers/no-network.js';
import { tempDir } from '../helpers/temp.js';

const ID = '00000000-0000-4000-8000-000000000001';
const LINE = `${JSON.stringify({
  v: 1,
  type: 'created',
  id: ID,
  profile: 'default',
  baseUrl: 'https://pay.example.com',
  at: '2026-11-23T12:00:00.000Z',
  amountInCents: 1000,
  destinationAddress: EX,
  splitAddress: null,
  splitFee: null,
  status: 'WAITING_PAYMENT',
})}\n`;

const mounts: string[] = [];
afterEach(() => {
  for (const at of mounts.splice(0)) execFileSync('umount', [at]);
});

/** A history file that lbrl must not write, in `dir`; what it is made from, to check untouched. */
type Plant = (file: string) => { victim?: string; why: RegExp };
const PLANTS: Array<[string, Plant]> = [
  [
    'a symbolic link',
    (file) => {
      const victim = path.join(tempDir(), 'victim');
      fs.writeFileSync(victim, LINE, { mode: 0o600 });
      fs.symlinkSync(victim, file);
      return { victim, why: /it is a symbolic link, and lbrl never follows a link for its history; replace/ };
    },
  ],
  [
    'a hard link',
    (file) => {
      const victim = path.join(tempDir(), 'victim');
      fs.writeFileSync(victim, LINE, { mode: 0o600 });
      fs.linkSync(victim, file);
      return {
        victim,
        why: /it has 2 names \(hard links\), so writing or chmod-ing it would change another file too; copy it/,
      };
    },
  ],
  [
    'a directory',
    (file) => {
      fs.mkdirSync(file);
      return { why: /it is not a regular file; remove it/ };
    },
  ],
  [
    'a FIFO',
    (file) => {
      execFileSync('mkfifo', ['-m', '600', file]);
      return { why: /it is not a regular file; remove it/ };
    },
  ],
  [
    'a read-only file',
    (file) => {
      fs.writeFileSync(file, LINE, { mode: 0o600 });
      if (process.geteuid?.() === 0) {
        // root writes whatever the mode: a file system mounted read-only is what refuses it then
        const dir = path.dirname(file);
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', dir]);
        mounts.push(dir);
        fs.writeFileSync(file, LINE, { mode: 0o600 });
        execFileSync('mount', ['-o', 'remount,ro', dir]);
      } else fs.chmodSync(file, 0o400);
      return {
        why: /lbrl cannot write it \((EACCES|EROFS)\), so what this command makes or learns could not be recorded; nothing was sent\. To go on, (make it writable|set LBRL_CONFIG_DIR)/,
      };
    },
  ],
];

const COMMANDS = [
  ['deposit', 'create', '--amount', '10', '--to', EX, '--yes'],
  ['deposit', 'create', '--amount', '10', '--to', EX, '--yes', '--json'],
  ['deposit', 'create', '--amount', '10', '--to', EX, '--yes', '-q'],
  ['deposit', 'create', '--from', 'rows.csv'],
  ['deposit', 'get', ID],
  ['deposit', 'watch', ID],
  ['deposit', 'list', '--refresh'],
];

describe('a history lbrl cannot append to', () => {
  it.each(PLANTS)(
    '%s: every command that records refuses it in one line before any request',
    async (_n, plant) => {
      const dir = tempDir();
      const file = path.join(dir, 'history.ndjson');
      const rows = path.join(tempDir(), 'rows.csv');
      fs.writeFileSync(rows, `amount,to\n10,${EX}\n12,${EX}\n`);
      const { victim, why } = plant(file);
      for (const args of COMMANDS) {
        const net = noNetwork();
        const env = { ...liveEnv('https://pay.example.com'), LBRL_CONFIG_DIR: dir, HOME: dir };
        const shown = args.join(' ');
        const r = await runCli(
          args.map((a) => (a === 'rows.csv' ? rows : a)),
          { env, client: net.client },
        );
        const said = args.includes('--json')
          ? JSON.parse(r.stderr).error.message
          : r.stderr.split('\n').find((line) => line.startsWith('error:'));
        // list --refresh says first what it lists (read from the history), then the refusal
        if (!args.includes('--json'))
          expect(
            r.stderr.split('\n').filter((line) => line.startsWith('error:')),
            shown,
          ).toHaveLength(1);
        expect(said, shown).toMatch(
          new RegExp(`^(error: )?refusing ${file.replace(/[.]/g, '\\.')}: ${why.source}`),
        );
        expect(r.code, shown).toBe(1);
        expect(r.stdout, shown).toBe('');
        expect(net.requests(), shown).toEqual([]);
        if (victim) expect(fs.readFileSync(victim, 'utf8'), shown).toBe(LINE);
      }
    },
  );
});
