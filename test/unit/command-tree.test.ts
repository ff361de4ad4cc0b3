import { describe, expect, it } from 'vitest';
import { treeFor } from '../../src/cli/program.js';
import { MANIFEST } from '../../src/commands/manifest.js';
import { runCli, tempDir } from '../helpers/cli.js';

const paths = (argv: string[]) => treeFor(argv).map((entry) => entry.path);
const EVERY = MANIFEST.map((entry) => entry.path);

describe('the commander tree a run builds', () => {
  it('a run of one command builds that command and the groups above it, nothing else', () => {
    expect(paths(['deposit', 'get', 'x', '--json'])).toEqual(['', 'deposit', 'deposit get']);
    expect(paths(['--json', '--profile', 'work', 'deposit', 'list', '--limit', '3'])).toEqual([
      '',
      'deposit',
      'deposit list',
    ]);
    expect(paths(['--profile=work', '-q', '--no-color', 'config', 'get', 'base-url'])).toEqual([
      '',
      'config',
      'config get',
    ]);
    // a command with commands under it: the next word decides which runs
    expect(paths(['display', 'clear'])).toEqual(['', 'display', 'display clear']);
    expect(paths(['display'])).toEqual(['', 'display']);
    expect(paths(['display', '--port', '8080'])).toEqual(EVERY);
    // past the command, the words are its own: an option there does not matter
    expect(paths(['deposit', 'create', '--amount', '5', '--bogus'])).toEqual([
      '',
      'deposit',
      'deposit create',
    ]);
  });

  it('help, an unknown word, an unknown flag before the command, or -- build every command', () => {
    for (const argv of [
      [],
      ['deposit'],
      ['deposit', 'get', '--help'],
      ['-h', 'deposit', 'get'],
      ['deposit', 'gett', 'x'],
      ['deposti', 'get'],
      ['--bogus', 'deposit', 'get', 'x'],
      ['deposit', '--amount', 'get'],
      ['--json=1', 'deposit', 'get'],
      // --profile takes the next word: `get` is then the first command word
      ['--profile', 'deposit', 'get', 'x'],
      ['--', 'deposit', 'get'],
      ['help', 'deposit', 'get'],
    ])
      expect(paths(argv), argv.join(' ')).toEqual(EVERY);
  });

  it('what commander says from the siblings and the program is the same on a run of one command', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const typo = await runCli(['deposit', 'get', 'x', '--jsn'], { env });
    expect([typo.code, typo.stdout, typo.stderr]).toEqual([
      2,
      '',
      "error: unknown option '--jsn' (Did you mean --json?) (see lbrl deposit get --help)\n",
    ]);
    const unknown = await runCli(['--bogus', 'deposit', 'get', 'x'], { env });
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      "error: unknown option '--bogus' (see lbrl --help)\n",
    ]);
    const sibling = await runCli(['deposit', 'gett', 'x'], { env });
    expect(sibling.code).toBe(2);
    expect(sibling.stderr).toContain('(Did you mean get?)');
  });
});
