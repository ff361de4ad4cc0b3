/**
 * Every help page, rendered in process through the program (commander's tree, built from the
 * manifest), compared with the three places it is read elsewhere: dist/help.json (what bin/lbrl.js
 * prints for `<path> --help` without loading the program), the generated docs/commands/*.md and
 * the man pages. The Markdown and roff pages are read back into their parts (description, long
 * help, arguments, options, commands, examples) and each part must say what the terminal page says.
 * The one run of the built program that prints a page is test/smoke/help-pages.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MANIFEST } from '../../src/commands/manifest.js';
import { pageName } from '../../src/commands/shared/manual.js';
import { runCli } from '../helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The parts of a help page that every form of it must hold. */
interface Parts {
  description: string;
  /** the long help's words, in order (code spans and markup taken away) */
  long: string;
  args: Record<string, string>;
  options: Record<string, string>;
  global: Record<string, string>;
  commands: Record<string, string>;
  examples: string[];
}

const words = (text: string) => text.replace(/\s+/g, ' ').trim();
/** commander quotes a default (`(default: "0")`), the pages do not */
const unquotedDefault = (text: string) => text.replace(/\(default: "([^"]*)"\)/, '(default: $1)');

/** `  <term>   <text>` rows with their wrapped continuations, as commander lays them out. */
function rows(lines: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  let last = '';
  for (const line of lines) {
    const row = /^ {2}(\S.*?)(?: {2,}(.*))?$/.exec(line);
    if (row && !line.startsWith('    ')) {
      last = row[1]!;
      found[last] = row[2] ?? '';
    } else if (line.trim()) found[last] = `${found[last]} ${line.trim()}`;
  }
  return Object.fromEntries(Object.entries(found).map(([k, v]) => [k, unquotedDefault(words(v))]));
}

/** commander's -h of every command, which the generated pages list once or not at all */
function withoutHelp(options: Record<string, string>): Record<string, string> {
  const { '-h, --help': _help, ...rest } = options;
  return rest;
}

/** A page as `lbrl <path> --help` prints it, in its parts. */
function terminalParts(page: string): Parts {
  const [head, ...rest] = page.split(/\n(?=[A-Z][A-Za-z ]*(?: \([^)]*\))?:\n)/);
  const sections = new Map(
    rest.map((s) => [s.slice(0, s.indexOf(':\n')), s.slice(s.indexOf(':\n') + 2).split('\n')] as const),
  );
  const [, description = '', ...long] = head!.split('\n\n');
  const commands = rows(sections.get('Commands') ?? []);
  delete commands['help [command]'];
  const options = withoutHelp(rows(sections.get('Options') ?? []));
  // the program's own options are the global ones
  const isRoot = page.startsWith('Usage: lbrl [options] [command]');
  return {
    description: words(description),
    long: words(long.join(' ')),
    args: rows(sections.get('Arguments') ?? []),
    options: isRoot ? {} : options,
    global: isRoot ? options : withoutHelp(rows(sections.get('Global Options') ?? [])),
    commands: Object.fromEntries(Object.entries(commands).map(([k, v]) => [k.split(' ')[0]!, v])),
    examples: (sections.get('Examples') ?? []).filter(Boolean).map((line) => line.slice(2)),
  };
}

/** The sections of a generated page, by heading. */
function sectionsOf(text: string, heading: RegExp): Map<string, string> {
  const parts = text.split(heading);
  const map = new Map<string, string>([['', parts[0]!]]);
  for (let i = 1; i < parts.length; i += 2) map.set(parts[i]!, parts[i + 1]!);
  return map;
}

const mdRows = (text = '') =>
  Object.fromEntries(
    [...text.matchAll(/^- `([^`]+)`: (.*)$/gm)].map((m) => [
      m[1]!.replace(/^[<[](.*?)(?:\.\.\.)?[>\]]$/, '$1'),
      m[2]!,
    ]),
  );

/** A docs/commands/*.md page in its parts. */
function markdownParts(text: string): Parts {
  const sections = sectionsOf(text, /^## (.*)\n/m);
  const [, description = '', ...long] = sections.get('')!.trim().split('\n\n');
  return {
    description: words(description),
    long: words(
      long
        .join('\n')
        .replace(/^```\w*$/gm, '')
        .replace(/`([^`]+)`/g, '$1'),
    ),
    args: mdRows(sections.get('Arguments')),
    options: mdRows(sections.get('Options')),
    global: withoutHelp(mdRows(sections.get('Options of every command'))),
    commands: Object.fromEntries(
      [...(sections.get('Commands') ?? '').matchAll(/^- \[lbrl (?:\S+ )*?(\S+)\]\([^)]+\): (.*)$/gm)].map(
        (m) => [m[1]!, m[2]!],
      ),
    ),
    examples: /```sh\n([\s\S]*?)\n```/.exec(sections.get('Examples') ?? '')?.[1]?.split('\n') ?? [],
  };
}

/** roff text as a reader sees it: escapes and font changes taken away. */
const unroff = (text: string) =>
  text
    .replace(/\\f[BIR]/g, '')
    .replace(/\\\[u([0-9A-F]{4,})\]/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/\\&/g, '')
    .replace(/\\-/g, '-')
    .replace(/\\e/g, '\\');

const roffRows = (text = '') =>
  Object.fromEntries(
    [...text.matchAll(/^\.TP\n(.*)\n(.*)$/gm)].map((m) => [
      unroff(m[1]!).replace(/^[<[](.*?)(?:\.\.\.)?[>\]]$/, '$1'),
      unroff(m[2]!),
    ]),
  );

/** A man page in its parts. */
function roffParts(text: string, name: string): Parts {
  const sections = sectionsOf(text, /^\.SH (.*)\n/m);
  const [description = '', ...long] = (sections.get('DESCRIPTION') ?? '').split(/^\.PP\n/m).filter(Boolean);
  const longText = long
    .join('\n')
    .replace(/^\.IP \\\(bu 2$/gm, '-')
    .replace(/^\.(RS 4|nf|fi|RE)$/gm, '');
  return {
    description: words(unroff(description)),
    long: words(unroff(longText)),
    args: roffRows(sections.get('ARGUMENTS')),
    options: roffRows(sections.get('OPTIONS')),
    global: roffRows(sections.get('OPTIONS OF EVERY COMMAND')),
    commands: Object.fromEntries(
      Object.entries(roffRows(sections.get('COMMANDS'))).map(([k, v]) => [
        k.replace(/\(1\)$/, '').slice(name.length + 1),
        v,
      ]),
    ),
    examples:
      /^\.nf\n([\s\S]*?)\n\.fi$/m
        .exec(sections.get('EXAMPLES') ?? '')?.[1]
        ?.split('\n')
        .map(unroff) ?? [],
  };
}

/** The subcommands a help page lists under "Commands:", without the implicit `help`. */
function subcommands(page: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(\n\n|$)/.exec(page)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((m) => m[1] as string)
    .filter((n) => n !== 'help');
}

/** Every command path, found by following the program's own help from the top. */
async function allPaths(): Promise<string[][]> {
  const found: string[][] = [];
  const visit = async (p: string[]) => {
    found.push(p);
    const r = await runCli([...p, '--help']);
    for (const sub of subcommands(r.stdout)) await visit([...p, sub]);
  };
  await visit([]);
  return found;
}

const PROGRAM_FLAGS = MANIFEST.find((entry) => entry.path === '')!.flags.map((f) => f.flags as string);
const pages = (): Record<string, string> => JSON.parse(read('dist/help.json'));

describe('every help page, rendered in process', () => {
  it('is the page the build wrote for bin/lbrl.js, for every command path and every way of asking', async () => {
    const paths = await allPaths();
    expect(paths.map((p) => p.join(' ')).sort()).toEqual(
      MANIFEST.filter((entry) => !entry.hidden)
        .map((entry) => entry.path)
        .sort(),
    );
    const built = pages();
    expect(
      Object.keys(built)
        .filter((key) => !key.startsWith('help '))
        .sort(),
    ).toEqual(paths.map((p) => p.join(' ')).sort());
    for (const p of paths) {
      const page = await runCli([...p, '--help']);
      expect({ p, ...page }).toMatchObject({ p, code: 0, stderr: '', stdout: built[p.join(' ')] });
      expect({ p, ...(await runCli([...p, '-h'])) }).toEqual({ p, ...page });
      expect({ p, ...(await runCli(['help', ...p])) }).toEqual({ p, ...page });
    }
    for (const topic of ['exit-codes', 'environment', 'json']) {
      const r = await runCli(['help', topic]);
      expect(r).toMatchObject({ code: 0, stderr: '', stdout: built[`help ${topic}`] });
    }
  });

  it('says what its docs/commands page and its man page say: description, long help, arguments, options, commands, examples', async () => {
    const checked: string[] = [];
    for (const entry of MANIFEST.filter((e) => !e.hidden)) {
      const page = await runCli([...entry.path.split(' ').filter(Boolean), '--help']);
      const shown = terminalParts(page.stdout);
      const name = pageName(entry.path);
      // commander shows a parent command's options among a subcommand's "Global Options" (display
      // clear lists display's); the manual lists the program's only
      const parent = MANIFEST.find((e) => e.path === entry.path.split(' ').slice(0, -1).join(' '));
      const inherited = entry.path && parent?.path ? parent.flags.map((f) => f.flags) : [];
      expect(
        Object.keys(shown.global).filter((flag) => !PROGRAM_FLAGS.includes(flag)),
        name,
      ).toEqual(inherited);
      for (const flag of inherited) delete shown.global[flag];
      expect(shown.description, name).toBe(words(entry.description));
      // a group's pages do not repeat the options of every command, which its --help does
      const expected = entry.load || entry.path === '' ? shown : { ...shown, global: {} };
      expect(markdownParts(read(`docs/commands/${name}.md`)), `docs/commands/${name}.md`).toEqual(expected);
      expect(roffParts(read(`docs/man/${name}.1`), name), `docs/man/${name}.1`).toEqual(expected);
      checked.push(name);
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it('bare lbrl and a bare group print their help on stdout and exit 0', async () => {
    for (const p of [[], ['deposit'], ['config'], ['sandbox'], ['ledger']]) {
      const r = await runCli(p);
      expect({ p, ...r }).toMatchObject({
        p,
        code: 0,
        stderr: '',
        stdout: (await runCli([...p, '--help'])).stdout,
      });
    }
  });

  it("an unknown option points to its own command's help", async () => {
    const r = await runCli(['deposit', 'create', '--bogus']);
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "error: unknown option '--bogus' (see lbrl deposit create --help)\n",
    });
  });

  it('wraps at 80 columns on any terminal, so the pages hold for a wide one too', async () => {
    const stdout = process.stdout as { isTTY?: boolean; columns?: number };
    const saved = { isTTY: stdout.isTTY, columns: stdout.columns };
    Object.assign(stdout, { isTTY: true, columns: 200 });
    try {
      const wide = await runCli(['deposit', 'create', '--help'], { stdoutTTY: true, columns: 200, rows: 50 });
      expect(wide.stdout).toBe(pages()['deposit create']);
    } finally {
      Object.assign(stdout, saved);
    }
  });

  it('options before the path, or an argument, still give the command its help', async () => {
    for (const argv of [
      ['--json', 'deposit', 'get', '--help'],
      ['deposit', 'get', 'abc', '--help'],
    ]) {
      const r = await runCli(argv);
      expect({ argv, ...r }).toMatchObject({ argv, code: 0, stderr: '', stdout: pages()['deposit get'] });
    }
  });

  it('lbrl help <unknown path> names the unknown word, exit 2, as <unknown path> --help does', async () => {
    for (const [p, message] of [
      [['nope'], "error: unknown command 'nope' (see lbrl --help)\n"],
      [['depost'], "error: unknown command 'depost' (Did you mean deposit?) (see lbrl --help)\n"],
      [
        ['deposit', 'crate'],
        "error: unknown command 'crate' (Did you mean create?) (see lbrl deposit --help)\n",
      ],
      [['config', 'nope'], "error: unknown command 'nope' (see lbrl config --help)\n"],
    ] as const) {
      const help = await runCli(['help', ...p]);
      expect({ p, ...help }).toMatchObject({ p, code: 2, stdout: '', stderr: message });
      expect(await runCli([...p, '--help'])).toEqual(help);
      expect(await runCli(['--profile', 'default', ...p, '-h'])).toEqual(help);
    }
    expect(await runCli(['help', 'exit-code'])).toMatchObject({ code: 2, stdout: '' });
  });
});
