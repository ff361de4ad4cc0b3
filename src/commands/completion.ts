/**
 * Shell completion. The scripts are small and the same for every command: they hand the words
 * typed so far to `lbrl __complete`, which answers from the command definitions. What it prints
 * is data for the shell to offer, quoted by the shell, never evaluated.
 */

import { NETWORKS } from '../domain/liquid/networks.js';
import { parseDepositId, parseProfileName } from '../domain/values.js';
import { quoted, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { CONFIG_KEYS } from '../store/config.js';
import type { Printer } from '../ui/output.js';
import { type CommandEntry, type Completion, command, type FlagDef, listed, programEntry } from './define.js';
import { helpTopics } from './shared/help-topics.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

const BASH = `# lbrl completion for bash: source <(lbrl completion bash)
_lbrl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" kind="" line q
  COMPREPLY=()
  while IFS= read -r line; do
    if [ -z "$kind" ]; then kind="$line"; continue; fi
    printf -v q '%q' "$line"
    COMPREPLY+=("$q")
  done < <(command lbrl __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  if [ "$kind" = ":files" ]; then
    COMPREPLY=()
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
  fi
  return 0
}
complete -F _lbrl lbrl
`;

const ZSH = `#compdef lbrl
# lbrl completion for zsh: source <(lbrl completion zsh)
_lbrl() {
  local -a out
  out=("\${(@f)$(command lbrl __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "\${out[1]}" == ":files" ]]; then
    _files
  elif (( \${#out} > 1 )); then
    compadd -- "\${(@)out[2,-1]}"
  fi
}
if ! (( \${+functions[compdef]} )); then autoload -Uz compinit && compinit -u; fi
compdef _lbrl lbrl
`;

const FISH = `# lbrl completion for fish: lbrl completion fish | source
function __lbrl_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l out (command lbrl __complete -- $words (commandline -ct) 2>/dev/null)
    if test (count $out) -eq 0
        return
    end
    if test "$out[1]" = ":files"
        __fish_complete_path (commandline -ct)
    else if test (count $out) -gt 1
        printf '%s\\n' $out[2..-1]
    end
end
complete -c lbrl -f -a '(__lbrl_complete)'
`;

export function script(shell: string): string {
  if (shell === 'bash') return BASH;
  if (shell === 'zsh') return ZSH;
  if (shell === 'fish') return FISH;
  throw usageError(`unknown shell ${quoted(shell)}: expected bash, zsh or fish`);
}

const takesValue = (f: FlagDef) => f.flags.includes('<');
const names = (f: FlagDef) => f.flags.split(/[ ,]+/).filter((w) => w.startsWith('-'));

function subcommands(registry: readonly CommandEntry[], path: string): string[] {
  const depth = path === '' ? 1 : path.split(' ').length + 1;
  return registry
    .filter(
      (c) => !c.hidden && c.path.split(' ').length === depth && c.path.startsWith(path) && c.path !== '',
    )
    .map((c) => c.path.split(' ').at(-1)!);
}

/** A flag by what was typed: the command's, a global one, or (after a typo in the path) any. */
function findFlag(registry: readonly CommandEntry[], cmd: CommandEntry, word: string): FlagDef | undefined {
  for (const list of [cmd.flags, programEntry(registry).flags, ...registry.map((c) => c.flags)]) {
    const flag = list.find((x) => names(x).includes(word));
    if (flag) return flag;
  }
  return undefined;
}

/** What `config set <key> <TAB>` offers for each key; a key not here takes free text. */
function configValues(registry: readonly CommandEntry[]): Record<string, readonly string[]> {
  const qrStyle = findFlag(registry, programEntry(registry), '--qr-style')?.complete;
  return {
    network: NETWORKS,
    'qr-style': Array.isArray(qrStyle) ? qrStyle : [],
    'sandbox-autopay': ['off'],
    verify: ['on', 'off'],
    ledger: ['file'],
  };
}

/** What the position being typed takes: files (the shell lists them) or these values. */
export function candidates(
  registry: readonly CommandEntry[],
  words: string[],
  data: { profiles(): string[]; ids(): string[] },
): { files: true } | { files: false; values: string[] } {
  let cur = words.at(-1) ?? '';
  const byPath = new Map(registry.map((c) => [c.path, c]));
  const PROGRAM = byPath.get('')!;
  // `lbrl help <path>` takes a command path, word by word
  if (words[0] === 'help' && words.length > 1 && !cur.startsWith('-')) {
    const path = words.slice(1, -1).join(' ');
    const known = path === '' || (byPath.has(path) && !byPath.get(path)!.hidden);
    // and, at its first word, a help topic (exit-codes, environment, json)
    const topics = path === '' ? helpTopics().map((topic) => topic.name) : [];
    return {
      files: false,
      values: known ? [...subcommands(registry, path), ...topics].filter((s) => s.startsWith(cur)) : [],
    };
  }
  let cmd: CommandEntry = PROGRAM;
  const positionals: string[] = [];
  let pending: FlagDef | undefined;
  let options = true;
  for (const word of words.slice(0, -1)) {
    // bash splits `--flag=value` at the `=` (it is in COMP_WORDBREAKS): `--flag`, `=`, `value`
    if (pending && word === '=') continue;
    if (pending) pending = undefined;
    else if (word === '--') options = false;
    else if (options && word.startsWith('-')) {
      const flag = findFlag(registry, cmd, word);
      if (flag && takesValue(flag) && !word.includes('=')) pending = flag;
    } else {
      const sub = byPath.get(cmd.path ? `${cmd.path} ${word}` : word);
      if (sub && !sub.hidden && positionals.length === 0) cmd = sub;
      else positionals.push(word);
    }
  }
  const of = (kind: Completion): { files: true } | { files: false; values: string[] } => {
    if (kind === 'files') return { files: true };
    let values: readonly string[];
    if (typeof kind !== 'string') values = kind;
    else if (kind === 'profiles') values = data.profiles();
    else if (kind === 'ids') values = data.ids();
    else if (kind === 'config-keys') values = CONFIG_KEYS;
    else if (kind === 'config-value') values = configValues(registry)[positionals[0] ?? ''] ?? [];
    else values = [];
    return { files: false, values: values.filter((v) => v.startsWith(cur)) };
  };
  if (pending && cur === '=') cur = '';
  if (pending) return of(pending.complete ?? 'none');
  // zsh and fish hand `--flag=val` over whole: offer `--flag=value`
  const inline = options ? /^(--?[^=]+)=(.*)$/.exec(cur) : null;
  if (inline) {
    const flag = findFlag(registry, cmd, inline[1]!);
    if (!flag || !takesValue(flag) || flag.complete === 'files') return { files: false, values: [] };
    cur = inline[2]!;
    const values = of(flag.complete ?? 'none');
    return { files: false, values: values.files ? [] : values.values.map((v) => `${inline[1]}=${v}`) };
  }
  if (options && cur.startsWith('-')) {
    const flags = [...cmd.flags, ...(cmd === PROGRAM ? [] : PROGRAM.flags.slice(1))].flatMap(names);
    return { files: false, values: [...new Set([...flags, '--help'])].filter((v) => v.startsWith(cur)) };
  }
  const subs = positionals.length === 0 ? subcommands(registry, cmd.path) : [];
  const arg = cmd.args[Math.min(positionals.length, cmd.args.length - 1)];
  const variadic = arg?.name.includes('...');
  const more = arg && (positionals.length < cmd.args.length || variadic) ? of(arg.complete) : undefined;
  if (more?.files) return more;
  return { files: false, values: [...subs.filter((s) => s.startsWith(cur)), ...(more?.values ?? [])] };
}

/**
 * All `lbrl __complete` needs (gh's Options struct): the factory's getters fill it in (`completeOptionsOf`);
 * a test hands the words, the definitions, a printer on strings and lists of names.
 */
export interface CompleteCommandOptions {
  /** the words typed after lbrl, the last one being completed */
  words: string[];
  /** the definitions, the program first */
  commands: readonly CommandEntry[];
  printer: Printer;
  /** the profiles of the config file */
  profileNames(): string[];
  /** this profile's deposit ids in the history, newest first */
  recentIds(): string[];
}

/** The factory's getters, narrowed to what `__complete` uses. */
export function completeOptionsOf(
  words: string[],
  commands: readonly CommandEntry[],
  factory: Factory,
): CompleteCommandOptions {
  return {
    words,
    commands,
    printer: factory.printer,
    profileNames: () => factory.config().profileNames(),
    recentIds: () =>
      factory
        .ledger()
        .history()
        .recentIds((r) => r.profile === factory.profileName, 50),
  };
}

/**
 * `lbrl __complete -- <words>`: the first line says how (":files" or ":values"), then one value a
 * line; the candidates for the last word: profile names and deposit ids that pass their checks only.
 */
export function runComplete(options: CompleteCommandOptions): void {
  const result = candidates(options.commands, options.words, {
    profiles: () =>
      [...new Set(['default', ...options.profileNames()])].filter((n) => parseProfileName(n).ok),
    ids: () => options.recentIds().filter((id) => parseDepositId(id).ok),
  });
  options.printer.out(result.files ? ':files' : [':values', ...result.values].join('\n'));
}

export const COMPLETION = command({
  rank: 270,
  path: 'completion',
  description: 'print a shell completion script: source <(lbrl completion bash)',
  long: `It completes commands, options and the values each position takes: config keys and their values, profile names, fixed choices, file names, the ids of recent deposits, and, after \`lbrl help\`, command paths and help topics.

  source <(lbrl completion bash)     # or zsh
  lbrl completion fish | source`,
  args: [{ name: '<shell>', help: 'bash, zsh or fish', complete: SHELLS }],
  flags: [],
  examples: ['source <(lbrl completion bash)      # in ~/.bashrc', 'lbrl completion fish | source'],
  async run({ args: [shell], ctx }) {
    ctx.stdout.write(script(shell));
  },
});

export const COMPLETE = command({
  rank: 280,
  path: '__complete',
  description: 'the words a completion script offers for the command line so far',
  hidden: true,
  args: [
    {
      name: '[words...]',
      help: 'the words typed after lbrl, the last one being completed',
      complete: 'none',
    },
  ],
  flags: [],
  async run({ args: [words], factory, registry }) {
    return runComplete(completeOptionsOf(words, registry, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(COMPLETION, COMPLETE);
