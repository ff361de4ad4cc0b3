/**
 * The notes a view writes on stderr (list's and report's first line, watch --pending's, the
 * embedded sandbox's) broken between words on a narrow terminal, whole runs of main() in process
 * with stderr a terminal of 20, 40 and 80 columns: no word cut at the edge, an id or a path on a
 * line of its own when it is wider than the terminal; in a pipe, the one line as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sandboxEnv } from '../helpers/env.js';

const COVERAGE = 'deposits of profile default on the sandbox (--all-services for every service)';
const terminal = (columns: number) => ({ stdoutTTY: true, stderrTTY: true, columns, rows: 10 });

describe('a view on a narrow terminal says what it covers in whole words', () => {
  it.each([
    [20, ['deposits of profile', 'default on the', 'sandbox', '(--all-services for', 'every service)']],
    [40, ['deposits of profile default on the', 'sandbox (--all-services for every', 'service)']],
    [80, [COVERAGE]],
  ])('at %i columns: list and report', async (columns, lines) => {
    for (const view of [
      ['deposit', 'list'],
      ['deposit', 'report'],
    ]) {
      const env = sandboxEnv();
      const r = await runCli(view, { env, ...terminal(columns) });
      expect(r.code, view.join(' ')).toBe(0);
      expect(r.stderr.split('\n').slice(0, lines.length), view.join(' ')).toEqual(lines);
    }
  });

  it('the path of an empty history, wider than 20 columns, on a line of its own', async () => {
    const env = sandboxEnv();
    const file = path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson');
    const r = await runCli(['deposit', 'list'], { env, ...terminal(20) });
    const said = r.stderr.split('\n');
    expect(said).toContain(file);
    expect(said.join(' ')).toContain(`no deposits recorded for profile default in ${file}`);
  });

  it('watch --pending at 20 columns', async () => {
    const env = sandboxEnv();
    fs.writeFileSync(path.join(env.LBRL_CONFIG_DIR!, 'history.ndjson'), '', { mode: 0o600 });
    const r = await runCli(['deposit', 'watch', '--pending'], { env, ...terminal(20) });
    expect(r.stderr.split('\n').slice(0, 3)).toEqual(['deposits of profile', 'default on the', 'sandbox']);
  });

  it('in a pipe: the one line', async () => {
    const r = await runCli(['deposit', 'list'], { env: sandboxEnv(), columns: 20 });
    expect(r.stderr.split('\n')[0]).toBe(COVERAGE);
  });
});
