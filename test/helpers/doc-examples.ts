/**
 * The examples of the docs that show a command and its output, read from the Markdown as it is
 * written and run in process against the embedded sandbox (test/cmd/docs-examples.test.ts). The
 * syntax and the normalisation are in docs/development.md, "Examples in the docs".
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from './cli.js';
import { tempDir } from './temp.js';

/** One `$ ` line of an example and what the page shows under it. */
export interface Step {
  /** the line after `$ `, without its comment */
  command: string;
  /** the exit code the line ends with: `(exit N)` at its end, else 0 */
  exit: number;
  /** the lines shown under it, up to the next `$ ` line */
  shown: string;
}

export interface Example {
  /** page:line of the block's opening fence */
  where: string;
  /** the settings of its `<!-- example … -->` line */
  settings: Record<string, string>;
  steps: Step[];
}

export interface NotRun {
  where: string;
  reason: string;
}

const EXAMPLE_LINE = /^<!-- example( [^>]*)? -->$/;
const NOT_RUN_LINE = /^<!-- example not run: (.+) -->$/;

/** The settings of an `<!-- example … -->` line: `key=value` words (a value may be quoted). */
function settingsOf(words: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const m of words.matchAll(/(\S+?)=(?:"([^"]*)"|(\S+))/g)) settings[m[1]!] = m[2] ?? m[3]!;
  return settings;
}

/** A `$ ` line's command, without its `# comment` (outside quotes), and its `(exit N)`. */
export function commandOf(line: string): { command: string; exit: number } {
  const exit = /\(exit (\d+)\)\s*$/.exec(line);
  let quote = '';
  let end = line.length;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) quote = c === quote ? '' : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
      end = i;
      break;
    }
  }
  const command = line
    .slice(0, end)
    .replace(/\(exit \d+\)\s*$/, '')
    .trim();
  return { command, exit: exit ? Number(exit[1]) : 0 };
}

/** Every example of a page (a fenced block with `$ ` lines), and every block marked not run. */
export function examplesOf(file: string, text: string): { examples: Example[]; notRun: NotRun[] } {
  const examples: Example[] = [];
  const notRun: NotRun[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```/.test(lines[i]!)) continue;
    const open = i;
    const close = lines.findIndex((line, j) => j > open && /^```\s*$/.test(line));
    const body = lines.slice(open + 1, close);
    i = close;
    let before = open - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = lines[before] ?? '';
    const where = `${file}:${open + 1}`;
    const skipped = NOT_RUN_LINE.exec(marker);
    if (skipped) {
      notRun.push({ where, reason: skipped[1]! });
      continue;
    }
    if (!body.some((line) => line.startsWith('$ '))) continue;
    const settings = settingsOf(EXAMPLE_LINE.exec(marker)?.[1] ?? '');
    const steps: Step[] = [];
    for (const line of body) {
      if (line.startsWith('$ ')) steps.push({ ...commandOf(line.slice(2)), shown: '' });
      else if (steps.length > 0) steps[steps.length - 1]!.shown += `${line}\n`;
      else throw new Error(`${where}: output before the first "$ " line`);
    }
    for (const step of steps) step.shown = step.shown.replace(/\n+$/, '\n').replace(/^\n$/, '');
    examples.push({ where, settings, steps });
  }
  return { examples, notRun };
}

/** The values that differ from run to run: ids, txids (64 hex digits) and loopback ports. */
const VARYING =
  /(?<id>\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b)|(?<txid>\b[0-9a-f]{64}\b)|(?<=\b127\.0\.0\.1:)(?<port>\d+\b)/g;

interface Varying {
  key: string;
  at: number;
  length: number;
}

function varying(text: string): Varying[] {
  return [...text.matchAll(VARYING)].map((m) => {
    const [kind, value] = Object.entries(m.groups!).find(([, v]) => v !== undefined)!;
    return { key: `${kind}:${value}`, at: m.index, length: m[0].length };
  });
}

/** The key of a whole word that is an id or a txid, as bound. */
function keyOfWord(word: string): string | undefined {
  const [found] = varying(word);
  return found && found.at === 0 && found.length === word.length ? found.key : undefined;
}

/**
 * What the page shows stands for what was printed: each id, txid and loopback port shown is bound
 * to the one printed at the same place, and a value shown twice must be printed the same twice
 * (one shown value, one printed value, for the whole example). Returns the shown text with every
 * bound value replaced, to be compared whole with what was printed.
 */
export function bindShown(shown: string, printed: string, bound: Map<string, string>): string {
  const wanted = varying(shown);
  const got = varying(printed);
  const taken = new Set(bound.values());
  for (let i = 0; i < Math.min(wanted.length, got.length); i++) {
    const w = wanted[i]!.key;
    const g = got[i]!.key;
    if (w.split(':')[0] !== g.split(':')[0]) break;
    if (!bound.has(w) && !taken.has(g)) {
      bound.set(w, g);
      taken.add(g);
    }
  }
  let out = '';
  let last = 0;
  for (const w of wanted) {
    const to = bound.get(w.key);
    out +=
      shown.slice(last, w.at) + (to ? to.slice(to.indexOf(':') + 1) : shown.slice(w.at, w.at + w.length));
    last = w.at + w.length;
  }
  return out + shown.slice(last);
}

/** Shell words, as sh splits them: spaces apart, quotes kept together and taken off. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** What one example printed, step by step, and what its page shows, with its values bound. */
export interface StepRun {
  command: string;
  printed: string;
  expected: string;
  code: number;
  exit: number;
}

/** One example's world: its directory (HOME), environment, clock and the values bound so far. */
interface World {
  dir: string;
  env: Record<string, string>;
  clock: { now: number };
  bound: Map<string, string>;
  /** the words of the commands so far and the ids and txids shown, for a word that abbreviates one */
  seen: string[];
}

/** A command's words as run: an abbreviation (`4697b4e2-…`) made whole, a shown value made the bound one. */
function argvOf(text: string, world: World, where: string): string[] {
  return shellWords(text).map((word) => {
    let full = word;
    if (word.endsWith('…')) {
      const matches = new Set(world.seen.filter((s) => s.startsWith(word.slice(0, -1))));
      if (matches.size !== 1)
        throw new Error(`${where}: "${word}" abbreviates ${matches.size} words shown before`);
      full = [...matches][0]!;
    }
    const to = world.bound.get(keyOfWord(full) ?? '');
    return to ? to.slice(to.indexOf(':') + 1) : full;
  });
}

/** One simple command of a line (`lbrl …`, `sleep N`, with `< file` and `| program …`): its output and code. */
async function runSimple(
  text: string,
  world: World,
  example: Example,
): Promise<{ out: string; code: number }> {
  const [lbrlPart, ...pipe] = text.split(' | ');
  const [commandPart, file] = lbrlPart!.split(' < ');
  const argv = argvOf(commandPart!, world, example.where);
  if (argv[0] === 'sleep') {
    world.clock.now += Number(argv[1]) * 1000;
    return { out: '', code: 0 };
  }
  if (argv[0] !== 'lbrl') throw new Error(`${example.where}: "${argv[0]}" is not a command the examples run`);
  let out = '';
  const columns = example.settings.columns;
  const r = await runCli(argv.slice(1), {
    env: world.env,
    clock: world.clock,
    client: { timeoutMs: 30_000, connectTimeoutMs: 30_000 },
    ...(file ? { stdin: fs.readFileSync(path.join(world.dir, file.trim()), 'utf8') } : {}),
    ...(columns ? { stdoutTTY: true, columns: Number(columns), rows: 24 } : {}),
    onOutput: (stream, written) => {
      if (stream === 'stderr' || pipe.length === 0) out += written;
    },
  });
  let code = r.code;
  if (pipe.length > 0) {
    const [program, ...args] = shellWords(pipe.join(' | '));
    const piped = spawnSync(program!, args, { input: r.stdout, encoding: 'utf8' });
    if (piped.error) throw piped.error;
    out += piped.stdout + piped.stderr;
    code = piped.status ?? 1; // a pipeline's code is its last program's, as in sh
  }
  // the example's home directory as a shell abbreviates it; a page shows no CR
  return { out: out.replaceAll(world.dir, '~').replace(/\r\n/g, '\n'), code };
}

/** One `$ ` line: `a && b` runs b after a success only, `a; b` runs both. */
async function runLine(
  command: string,
  world: World,
  example: Example,
): Promise<{ printed: string; code: number }> {
  const parts = command.split(/ (&&|;) /);
  let printed = '';
  let code = 0;
  for (let i = 0; i < parts.length; i += 2) {
    if (i > 0 && parts[i - 1] === '&&' && code !== 0) break;
    const r = await runSimple(parts[i]!, world, example);
    printed += r.out;
    code = r.code;
  }
  return { printed, code };
}

/**
 * Runs an example's steps in a fresh home directory (the config in its default place), each
 * `lbrl` in process on a clock that only sleeping (and `sleep N`) moves, after the examples it
 * continues (`after=<name>`) in the same world. `< file` reads a file of the example's settings
 * (`file:<name>=<text>`); `| program …` pipes stdout to a real program.
 */
export async function runExample(example: Example, prelude: Example[] = []): Promise<StepRun[]> {
  const first = prelude[0] ?? example;
  const dir = tempDir('lbrl-doc-');
  const world: World = {
    dir,
    env: { HOME: dir, NO_COLOR: '1', TZ: example.settings.TZ ?? first.settings.TZ ?? 'UTC' },
    clock: { now: Date.parse(first.settings.at ?? '2026-11-22T10:00:00Z') },
    bound: new Map(),
    seen: [],
  };
  const runs: StepRun[] = [];
  for (const ex of [...prelude, example]) {
    for (const [k, v] of Object.entries(ex.settings))
      if (k.startsWith('file:')) fs.writeFileSync(path.join(dir, k.slice(5)), v.replace(/\\n/g, '\n'));
    for (const step of ex.steps) {
      const { printed, code } = await runLine(step.command, world, ex);
      const expected = bindShown(step.shown, printed, world.bound);
      const shownValues = varying(step.shown).map((v) => v.key.slice(v.key.indexOf(':') + 1));
      for (const word of [...shellWords(step.command), ...shownValues])
        if (!word.endsWith('…')) world.seen.push(word);
      if (ex === example) runs.push({ command: step.command, printed, expected, code, exit: step.exit });
    }
  }
  return runs;
}

/** The pages whose examples are run: the README and docs/*.md (docs/commands/ is generated). */
export function docPages(root: string): string[] {
  return [
    'README.md',
    ...fs
      .readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}
