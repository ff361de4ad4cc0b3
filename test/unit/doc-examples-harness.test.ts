/**
 * The docs examples' harness itself (test/helpers/doc-examples.ts): how it reads a `$ ` line and a
 * block, and that what it binds cannot hide a difference: a value shown twice must be printed the
 * same twice, and two values shown apart must be printed apart.
 */
import { describe, expect, it } from 'vitest';
import { bindShown, commandOf, examplesOf } from '../helpers/doc-examples.js';

const A = '4697b4e2-866d-4e33-b5bb-1bcffb71aad5';
const B = '975fa83f-cd9a-4e5b-baa5-9b1bab3563b3';
const X = '6524cee9-61c6-45e9-b8ec-ad8c8eb3f23b';
const Y = 'e98af48c-afca-48e9-a620-844968cd6d8e';

describe('a $ line', () => {
  it('ends at a # outside quotes, and (exit N) at its end is the code it must end with', () => {
    expect(commandOf(`lbrl deposit watch --pending   # a minute later   (exit 5)`)).toEqual({
      command: 'lbrl deposit watch --pending',
      exit: 5,
    });
    expect(commandOf(`lbrl deposit create --note 'table #4' --amount 35`)).toEqual({
      command: `lbrl deposit create --note 'table #4' --amount 35`,
      exit: 0,
    });
  });
});

describe('a block', () => {
  it('is an example when it has $ lines; its settings and the not-run marker are read', () => {
    const page = [
      '<!-- example TZ=America/Sao_Paulo columns=80 -->',
      '```',
      '$ lbrl deposit list',
      'ID  STATUS',
      '$ lbrl deposit get x   (exit 2)',
      '```',
      '',
      '<!-- example not run: a real terminal -->',
      '```',
      'the screen',
      '```',
      '```sh',
      'lbrl deposit list   # no output shown: not an example',
      '```',
    ].join('\n');
    const { examples, notRun } = examplesOf('page.md', page);
    expect(notRun).toEqual([{ where: 'page.md:9', reason: 'a real terminal' }]);
    expect(examples).toEqual([
      {
        where: 'page.md:2',
        settings: { TZ: 'America/Sao_Paulo', columns: '80' },
        steps: [
          { command: 'lbrl deposit list', exit: 0, shown: 'ID  STATUS\n' },
          { command: 'lbrl deposit get x', exit: 2, shown: '' },
        ],
      },
    ]);
  });
});

describe('binding what varies', () => {
  it('binds each shown id to the printed one, for the whole example', () => {
    const bound = new Map<string, string>();
    expect(bindShown(`${A}\n`, `${X}\n`, bound)).toBe(`${X}\n`);
    expect(bindShown(`paid ${A}; ${B} open\n`, `paid ${X}; ${Y} open\n`, bound)).toBe(
      `paid ${X}; ${Y} open\n`,
    );
  });

  it('shows a difference when one shown value is printed as two, or two as one', () => {
    const bound = new Map<string, string>();
    bindShown(`${A}\n${B}\n`, `${X}\n${Y}\n`, bound);
    // A stands for X now: a line that prints Y where the page shows A differs
    expect(bindShown(`${A} FAILED\n`, `${Y} FAILED\n`, bound)).toBe(`${X} FAILED\n`);
    // two shown values for one printed: the second is not bound to it
    const fresh = new Map<string, string>();
    expect(bindShown(`${A} ${B}\n`, `${X} ${X}\n`, fresh)).not.toBe(`${X} ${X}\n`);
  });

  it('binds loopback ports and txids, and leaves every other text as it is', () => {
    const bound = new Map<string, string>();
    const txid = 'ab'.repeat(32);
    const printed = `read on http://127.0.0.1:40343/esplora: ${'cd'.repeat(32)}:0 R$ 12,34\n`;
    expect(bindShown(`read on http://127.0.0.1:1234/esplora: ${txid}:0 R$ 12,34\n`, printed, bound)).toBe(
      printed,
    );
    expect(bindShown('R$ 12,35\n', 'R$ 12,34\n', bound)).toBe('R$ 12,35\n');
  });
});
