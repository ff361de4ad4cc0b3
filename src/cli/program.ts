/**
 * The commander program, wired from the command manifest (commands/manifest.ts, generated at build
 * from the definitions each command module exports): flags, help, examples, and one lazy import()
 * per command, whose definition brings its conflicts' messages and its `run`. Loaded by cli.ts for
 * every run but a plain `deposit get` (cli/direct.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { type CommandEntry, type FlagDef, programEntry } from '../commands/define.js';
import { MANIFEST as COMMANDS } from '../commands/manifest.js';
import { terminalHelp } from '../commands/shared/help-text.js';
import { helpTopics, topicTerminal } from '../commands/shared/help-topics.js';
import { redactedFromTheStart } from '../commands/shared/redaction.js';
import type { Context } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { endRun, failedRun, printFailure, type RunState, runDefinition } from './run.js';

export const VERSION: string = pkg.version;

/** Help is wrapped at this width whatever the terminal (bin/lbrl.js prints it from dist/help.json). */
const HELP_WIDTH = 80;

const GROUP_PATHS = new Set(COMMANDS.filter((c) => !c.load).map((c) => c.path));

/** `lbrl help deposit create` is `lbrl deposit create --help`; bare `lbrl` and groups print their help. */
function normaliseArgv(argv: string[]): string[] {
  const helpAt = argv.indexOf('help');
  if (
    helpAt >= 0 &&
    argv.slice(0, helpAt).every((w) => GROUP_PATHS.has(argv.slice(0, argv.indexOf(w) + 1).join(' ')))
  ) {
    return withoutHelpOfUnknown([...argv.slice(0, helpAt), ...argv.slice(helpAt + 1), '--help']);
  }
  if (GROUP_PATHS.has(argv.join(' '))) return [...argv, '--help'];
  return withoutHelpOfUnknown(argv);
}

const KNOWN_PATHS = new Set(COMMANDS.filter((c) => !c.hidden).map((c) => c.path));
const GLOBAL_VALUE_FLAGS = new Set(
  programEntry(COMMANDS)
    .flags.filter((f) => f.flags.includes('<'))
    .flatMap((f) => f.flags.split(/[ ,]+/)),
);

/**
 * `lbrl nope --help` (and so `lbrl help nope`) is an unknown command, as gh says, not the help of
 * the group above it with exit 0: without the --help, commander names the word and what it may be.
 */
function withoutHelpOfUnknown(argv: string[]): string[] {
  if (!argv.includes('--help') && !argv.includes('-h')) return argv;
  let path = '';
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--help' || word === '-h' || word === '--') return argv;
    if (word.startsWith('-')) {
      if (GLOBAL_VALUE_FLAGS.has(word)) i++;
      continue;
    }
    // past a command, the words are its arguments
    if (!GROUP_PATHS.has(path)) return argv;
    const next = path ? `${path} ${word}` : word;
    if (!KNOWN_PATHS.has(next)) return argv.filter((a) => a !== '--help' && a !== '-h');
    path = next;
  }
  return argv;
}

/** The help topics, as the program's help lists them. */
function topicList(): string {
  const topics = helpTopics();
  const width = Math.max(...topics.map((topic) => topic.name.length));
  const lines = topics.map((topic) => `  ${topic.name.padEnd(width)}  ${topic.summary}`);
  return `\nHelp topics (lbrl help <topic>):\n${lines.join('\n')}`;
}

/**
 * `lbrl help <topic>` (exit-codes, environment, json), global flags anywhere (`--no-color`,
 * `--profile <name>`): printed, and true; anything else: false.
 */
function printedTopic(argv: string[], ctx: Context): boolean {
  const words = argv.filter((word, i) => !word.startsWith('-') && !GLOBAL_VALUE_FLAGS.has(argv[i - 1] ?? ''));
  const topic = words.length === 2 && words[0] === 'help' && helpTopics().find((t) => t.name === words[1]);
  if (!topic) return false;
  ctx.stdout.write(topicTerminal(topic, HELP_WIDTH));
  ctx.stdout.flush?.();
  return true;
}

/**
 * The spellings of the program's own flags (`--json`, `-q`, `--no-color`, ...), and those that
 * take a value, which may also be written `--profile=work`.
 */
const PROGRAM_FLAGS = new Set(programEntry(COMMANDS).flags.flatMap((f) => f.flags.split(/[ ,]+/)));
const BY_PATH = new Map(COMMANDS.map((entry) => [entry.path, entry]));

/**
 * The entries of the commander tree a run needs. For a run of one command (`deposit get <id>`,
 * reached through the program's own flags only), that command and the groups above it: commander
 * parses such a run along that chain alone, and building the whole tree (every command's options
 * and help) cost every run more than the command itself. Anything else needs every entry: help
 * (which lists the siblings), an unknown word (commander suggests a sibling), an unknown flag
 * before the command (commander then prints the program's help), `--`.
 */
export function treeFor(argv: readonly string[]): readonly CommandEntry[] {
  if (argv.includes('--help') || argv.includes('-h')) return COMMANDS;
  let path = '';
  const chain = () => {
    const words = path.split(' ');
    return words.map((_, at) => BY_PATH.get(words.slice(0, at).join(' '))!).concat(BY_PATH.get(path)!);
  };
  // a command with none under it: what follows is its own (operands, flags)
  const leaf = () => path !== '' && BY_PATH.get(path)?.load !== undefined && !HAS_CHILDREN.has(path);
  for (let i = 0; i < argv.length; i++) {
    if (leaf()) return chain();
    const word = argv[i]!;
    if (word.startsWith('-')) {
      const name = word.replace(/=.*$/s, '');
      if (!PROGRAM_FLAGS.has(name) || (name !== word && !GLOBAL_VALUE_FLAGS.has(name))) return COMMANDS;
      if (name === word && GLOBAL_VALUE_FLAGS.has(word)) i++;
      continue;
    }
    // a command with commands under it (`display`, `display clear`) is decided by the next word
    path = path ? `${path} ${word}` : word;
    if (!BY_PATH.has(path)) return COMMANDS;
  }
  return path !== '' && BY_PATH.get(path)?.load ? chain() : COMMANDS;
}

/** The paths that have commands under them. */
const HAS_CHILDREN = new Set(COMMANDS.map((c) => c.path.split(' ').slice(0, -1).join(' ')).filter(Boolean));

/** commander's output of one command: the fixed help width, the context's streams, errors kept. */
function outputOf(ctx: Context, state: RunState, path: string) {
  return {
    // like gh's and the Stripe CLI's: the same text on every terminal, so it can be kept ready
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
    writeOut: (s: string) => ctx.stdout.write(s),
    writeErr: (s: string) => ctx.stderr.write(s),
    outputError: (text: string) => {
      state.failedPath = path;
      state.usageMessage = text
        .replace(/^error: /, '')
        .trim()
        .replace(/\s*\n\s*/g, ' ');
    },
  };
}

/** A flag of the manifest as a commander Option (a repeatable one keeps its values' places). */
function optionOf(cmd: Command, flag: FlagDef): Option {
  const option = new Option(flag.flags, flag.help);
  if (flag.default !== undefined) option.default(flag.default);
  if (flag.repeatable)
    option.argParser((value: string, before: string[] | undefined) => {
      // commander parses in the order written: where this value stands among the other flag's
      if (flag.placedAfter !== undefined) {
        const owners = cmd.getOptionValue(flag.placedAfter) as string[] | undefined;
        const places = `${option.attributeName()}Places`;
        const known = (cmd.getOptionValue(places) as number[] | undefined) ?? [];
        cmd.setOptionValue(places, [...known, owners?.length ?? 0]);
      }
      return [...(before ?? []), value];
    });
  return option;
}

/** A command's help: its description, its long help, the program's topics, its examples. */
function describe(cmd: Command, def: CommandEntry): void {
  if (def.long)
    cmd.description(`${def.description}\n\n${terminalHelp(def.long, HELP_WIDTH)}`).summary(def.description);
  else cmd.description(def.description);
  // the program's help topics, then (last, as on every page) its examples
  if (def.path === '') cmd.addHelpText('after', topicList());
  if (def.examples) cmd.addHelpText('after', `\nExamples:\n${def.examples.map((e) => `  ${e}`).join('\n')}`);
}

/**
 * One command of the manifest on its commander Command: flags, its lazy action, and its help but
 * on a run of one command, which never prints help (treeFor).
 */
function wire(cmd: Command, def: CommandEntry, ctx: Context, state: RunState, help: boolean): void {
  if (help) describe(cmd, def);
  for (const a of def.args) cmd.argument(a.name, a.help);
  for (const flag of def.flags) {
    if (flag.flags === '-V, --version') cmd.version(VERSION, flag.flags, flag.help);
    else cmd.addOption(optionOf(cmd, flag));
  }
  cmd.exitOverride();
  cmd.configureOutput(outputOf(ctx, state, def.path));
  const load = def.load;
  if (!load) return;
  cmd.action(async function (this: Command, ...operands: unknown[]) {
    // the command's own module, and only it: its definition has the messages and the handler
    const full = (await load()).definitions.find((d) => d.path === def.path);
    const read = { opts: this.opts(), operands, globals: this.optsWithGlobals() };
    await runDefinition(full, read, ctx, state, COMMANDS);
  });
}

/** The commander program of these entries (the program's first), each wired from the manifest. */
function programOf(entries: readonly CommandEntry[], ctx: Context, state: RunState): Command {
  const program = new Command('lbrl');
  program.helpOption('-h, --help', 'show help');
  const help = entries === COMMANDS;
  wire(program, programEntry(entries), ctx, state, help);
  program.showHelpAfterError(false).configureHelp({ showGlobalOptions: true });
  const made = new Map<string, Command>([['', program]]);
  for (const def of entries) {
    if (def.path === '') continue;
    const words = def.path.split(' ');
    const parent = made.get(words.slice(0, -1).join(' '))!;
    const cmd = parent.command(words.at(-1)!, def.hidden ? { hidden: true } : {});
    made.set(def.path, cmd);
    wire(cmd, def, ctx, state, help);
  }
  program
    .command('__help-pages', { hidden: true })
    .description("the build: every command's --help, as JSON keyed by the command path")
    .action(async () => {
      ctx.stdout.write(`${JSON.stringify(await helpPages(program, ctx))}\n`);
    });
  return program;
}

/** What a run that commander or a command ended with an error says, and its exit code. */
async function failed(error: unknown, argv: string[], ctx: Context, state: RunState): Promise<number> {
  if (!(error instanceof CommanderError)) return failedRun(error, argv, ctx, state);
  if (DONE_CODES.has(error.code)) return EXIT.ok;
  const message = state.usageMessage ?? error.message.replace(/^error: /, '');
  const where = ['lbrl', state.failedPath].filter(Boolean).join(' ');
  printFailure(usageError(`${message} (see ${where} --help)`), argv, ctx, state);
  return EXIT.usage;
}

/** commander's ends that are no failure: help or the version printed, a subcommand run. */
const DONE_CODES = new Set([
  'commander.helpDisplayed',
  'commander.version',
  'commander.help',
  'commander.executeSubCommandAsync',
]);

/** Run the program on argv, through commander; `ctx` redacts already (cli.ts). */
export async function runProgram(rawArgv: string[], ctx: Context): Promise<number> {
  if (printedTopic(rawArgv, ctx)) return EXIT.ok;
  const argv = normaliseArgv(rawArgv);
  const state: RunState = { globals: {}, failedPath: '' };
  try {
    await programOf(treeFor(argv), ctx, state).parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return await failed(error, argv, ctx, state);
  } finally {
    await endRun(ctx, state);
  }
}

/**
 * The --help of every command, run exactly as a user's `lbrl <path> --help` is,
 * so that bin/lbrl.js can print it without loading the program.
 */
async function helpPages(program: Command, ctx: Context): Promise<Record<string, string>> {
  const pages: Record<string, string> = {};
  const visit = async (cmd: Command, path: string[]): Promise<void> => {
    let out = '';
    let err = '';
    const capture: Context = {
      ...ctx,
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
    };
    const code = await runProgram([...path, '--help'], redactedFromTheStart(capture));
    if (code !== EXIT.ok || err !== '' || out === '') {
      throw new Error(`lbrl ${path.join(' ')} --help failed (exit ${code}): ${err}`);
    }
    pages[path.join(' ')] = out;
    for (const sub of cmd.commands) if (!sub.name().startsWith('__')) await visit(sub, [...path, sub.name()]);
  };
  await visit(program, []);
  for (const topic of helpTopics()) {
    let out = '';
    await runProgram(
      ['help', topic.name],
      redactedFromTheStart({ ...ctx, stdout: { write: (s: string) => (out += s) } }),
    );
    pages[`help ${topic.name}`] = out;
  }
  return pages;
}
