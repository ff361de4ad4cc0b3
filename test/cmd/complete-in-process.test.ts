/**
 * `lbrl __complete` as a function of narrow options (runComplete): the words typed, the manifest's
 * definitions, a printer on plain strings and the lists of profile names and deposit ids it would
 * read. No factory, no config file, no history. What the shell is handed is asserted: the first
 * line (":files" or ":values") and one value a line. The real shells are in test/e2e/completion.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runComplete } from '../../src/commands/completion.js';
import { MANIFEST } from '../../src/commands/manifest.js';
import { ID } from '../helpers/fixtures.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

function complete(words: string[], lists: { profiles?: string[]; ids?: string[] } = {}) {
  const term = plainTerminal();
  const asked = { profiles: 0, ids: 0 };
  runComplete({
    words,
    commands: MANIFEST,
    printer: term.printer,
    profileNames: () => {
      asked.profiles++;
      return lists.profiles ?? [];
    },
    recentIds: () => {
      asked.ids++;
      return lists.ids ?? [];
    },
  });
  expect(term.stderr).toBe('');
  return { lines: term.stdout.split('\n').slice(0, -1), asked };
}

describe('__complete, in process', () => {
  it('commands and subcommands, from the definitions', () => {
    expect(complete(['de']).lines).toEqual([':values', 'deposit']);
    expect(complete(['deposit', 'cr']).lines).toEqual([':values', 'create']);
  });

  it('lbrl help <TAB>: command paths and the help topics; past a command, only its subcommands', () => {
    expect(complete(['help', 'e']).lines).toEqual([':values', 'environment', 'exit-codes']);
    expect(complete(['help', 'j']).lines).toEqual([':values', 'json']);
    expect(complete(['help', 'de']).lines).toEqual([':values', 'deposit']);
    expect(complete(['help', 'deposit', 'e']).lines).toEqual([':values', 'export']);
    expect(complete(['help', 'deposit', 'x']).lines).toEqual([':values']);
  });

  it('options of the command, and a setting name for config set', () => {
    expect(complete(['deposit', 'create', '--amo']).lines).toEqual([':values', '--amount', '--amount-cents']);
    expect(complete(['config', 'set', 'net']).lines).toEqual([':values', 'network']);
  });

  it("profile names: default always, the config file's, and only names lbrl accepts", () => {
    const r = complete(['deposit', 'get', '--profile', ''], {
      profiles: ['work', '$(touch x)', 'default', 'a b'],
    });
    expect(r.lines).toEqual([':values', 'default', 'work']);
    expect(r.asked).toEqual({ profiles: 1, ids: 0 });
  });

  it('deposit ids from the history, only ids lbrl accepts, and only when an id is wanted', () => {
    const r = complete(['deposit', 'watch', ID.slice(0, 4)], { ids: [ID, '`touch x`', 'not-an-id'] });
    expect(r.lines).toEqual([':values', ID]);
    expect(complete(['config', 'set', 'net'], { ids: [ID] }).asked.ids).toBe(0);
  });

  it('--qr-png wants a file: the shell completes files', () => {
    expect(complete(['deposit', 'get', ID, '--qr-png', '']).lines).toEqual([':files']);
  });
});
