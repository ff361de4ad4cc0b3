/** Shell completion scripts, made from the program's own commands and options. */
import { usageError } from '../errors.js';
import type { Session } from '../session.js';

export interface CommandSpec {
  name: string;
  options: string[];
  /** what its positional arguments complete to */
  args?: 'ids' | 'config-keys' | 'shells' | 'none';
  subcommands: CommandSpec[];
}

const CONFIG_KEYS = 'base-url network default-address split-address split-fee sandbox-autopay qr-style';
const VALUES: Record<string, string> = {
  '--qr-style': 'dark light',
};
const FILES = ['--from', '--qr-png'];

function bash(root: CommandSpec): string {
  const cases: string[] = [];
  // global options are accepted after a command too; --version only at the top
  const globals = root.options.filter((o) => o !== '--version' && o !== '-V' && o !== '--help');
  const entry = (path: string, c: CommandSpec, extra: string[]) => {
    const words = [...new Set([...c.subcommands.map((s) => s.name), ...c.options, ...extra])].join(' ');
    const args = c.args && c.args !== 'none' ? `; args=${c.args}` : '';
    cases.push(`    "${path}") words="${words}"${args} ;;`);
  };
  entry('', root, []);
  for (const c of root.subcommands) {
    entry(c.name, c, globals);
    for (const s of c.subcommands) entry(`${c.name} ${s.name}`, s, globals);
  }
  const values = Object.entries(VALUES)
    .map(([flag, v]) => `    ${flag}) COMPREPLY=($(compgen -W "${v}" -- "$cur")); return ;;`)
    .join('\n');
  return `# lbrl completion for bash: source <(lbrl completion bash)
_lbrl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="" words="" args="" i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      --profile|--base-url|--amount|--amount-cents|--to|--split-to|--split-fee|--qr-png|--qr-style|--from|--concurrency|--interval|--timeout|--limit|--port|--host) ((i++)) ;;
      -*) ;;
      *) if [ -z "$path" ]; then path="$w"; elif [ "\${path#* }" = "$path" ]; then path="$path $w"; fi ;;
    esac
  done
  case "$prev" in
    --profile) COMPREPLY=($(compgen -W "$(command lbrl __complete profiles 2>/dev/null)" -- "$cur")); return ;;
    ${FILES.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
${values}
  esac
  case "$path" in
${cases.join('\n')}
  esac
  if [[ "$cur" != -* ]]; then
    case "$args" in
      ids) words="$words $(command lbrl __complete ids 2>/dev/null)" ;;
      config-keys) words="$words ${CONFIG_KEYS}" ;;
      shells) words="$words bash zsh fish" ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _lbrl lbrl
`;
}

function zsh(root: CommandSpec): string {
  // zsh runs the bash script through bashcompinit: one logic for both shells
  return `#compdef lbrl
# lbrl completion for zsh: source <(lbrl completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(root).replace(/^# lbrl completion for bash.*\n/, '')}`;
}

function fish(root: CommandSpec): string {
  const lines = ['# lbrl completion for fish: lbrl completion fish | source', 'complete -c lbrl -f'];
  const flag = (o: string) => (o.startsWith('--') ? `-l ${o.slice(2)}` : `-s ${o.slice(1)}`);
  for (const o of root.options) lines.push(`complete -c lbrl ${flag(o)}`);
  lines.push(
    `complete -c lbrl -n __fish_use_subcommand -a '${root.subcommands.map((c) => c.name).join(' ')}'`,
  );
  lines.push(`complete -c lbrl -l profile -x -a '(lbrl __complete profiles 2>/dev/null)'`);
  for (const c of root.subcommands) {
    if (c.subcommands.length) {
      lines.push(
        `complete -c lbrl -n '__fish_seen_subcommand_from ${c.name}' -a '${c.subcommands.map((s) => s.name).join(' ')}'`,
      );
    }
    for (const s of c.subcommands) {
      const cond = `__fish_seen_subcommand_from ${c.name}; and __fish_seen_subcommand_from ${s.name}`;
      for (const o of s.options) lines.push(`complete -c lbrl -n '${cond}' ${flag(o)}`);
      if (s.args === 'ids')
        lines.push(`complete -c lbrl -n '${cond}' -a '(lbrl __complete ids 2>/dev/null)'`);
      if (s.args === 'config-keys') lines.push(`complete -c lbrl -n '${cond}' -a '${CONFIG_KEYS}'`);
    }
    if (c.args === 'shells')
      lines.push(`complete -c lbrl -n '__fish_seen_subcommand_from ${c.name}' -a 'bash zsh fish'`);
  }
  return `${lines.join('\n')}\n`;
}

export function script(shell: string, root: CommandSpec): string {
  if (shell === 'bash') return bash(root);
  if (shell === 'zsh') return zsh(root);
  if (shell === 'fish') return fish(root);
  throw usageError(`unknown shell ${JSON.stringify(shell)}: expected bash, zsh or fish`);
}

/** `lbrl __complete profiles|ids`: what the scripts ask for while a person types. */
export function values(kind: string, session: Session): void {
  const p = session.printer;
  if (kind === 'profiles') {
    const names = new Set(['default', ...session.store.profileNames()]);
    p.out([...names].join('\n'));
  } else if (kind === 'ids') {
    const ids = session.history().recentIds((r) => r.profile === session.profileName, 50);
    if (ids.length) p.out(ids.join('\n'));
  }
}
