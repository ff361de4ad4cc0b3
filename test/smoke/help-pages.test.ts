/**
 * The one run of the built program for help: bin/lbrl.js prints `<path> --help`, `-h` and
 * `help <topic|path>` from dist/help.json without starting the program, and those pages are the
 * program's own (test/cmd/help-pages-in-process.test.ts compares every page in process). What is
 * not a page (an unknown command) goes to the program.
 */
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { runCli } from '../helpers/cli.js';
import { sandboxEnv } from '../helpers/env.js';

describe('bin/lbrl.js --help', () => {
  it("prints the program's page for each way of asking, and leaves the rest to the program", async () => {
    for (const [asked, page] of [
      [
        ['deposit', 'create', '--help'],
        ['deposit', 'create', '--help'],
      ],
      [
        ['config', 'set', '-h'],
        ['config', 'set', '--help'],
      ],
      [
        ['help', 'deposit', 'get'],
        ['deposit', 'get', '--help'],
      ],
      [
        ['help', 'exit-codes'],
        ['help', 'exit-codes'],
      ],
    ]) {
      const program = await runCli(page!);
      expect(program).toMatchObject({ code: 0, stderr: '' });
      const bin = await runBin(asked!, sandboxEnv());
      expect({ asked, ...bin }).toEqual({ asked, code: 0, stdout: program.stdout, stderr: '' });
    }
    expect(await runBin(['depost', '--help'], sandboxEnv())).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: unknown command 'depost' (Did you mean deposit?) (see lbrl --help)\n",
    });
  });
});
