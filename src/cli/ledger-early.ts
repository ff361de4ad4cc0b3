/**
 * The program's entry begins the connection to a ledger in PostgreSQL (factory/ledger-early.ts)
 * before anything else loads, for the commands that reach the ledger; this reads which command
 * argv names, and the --profile it gives, word by word as commander would place them. Any other
 * run (--help, --version, config, auth, completion, a word it cannot place) begins nothing.
 */
import { beginLedgerConnection } from '../factory/ledger-early.js';

/**
 * The commands that reach the ledger (factory/ledger-link.ts reach or open) as they start. One
 * left out only starts later; one that turns out not to reach it drops the socket unsaid.
 */
const LEDGER_COMMANDS: ReadonlySet<string> = new Set([
  'deposit create',
  'deposit get',
  'deposit watch',
  'deposit verify',
  'deposit list',
  'deposit report',
  'deposit export',
  'deposit reconcile',
  'ledger status',
  'ledger import',
  'ledger export',
  'display',
  'sandbox trigger',
  'listen',
]);

/** The paths under a command of LEDGER_COMMANDS that do not reach the ledger as they start. */
const OTHER_COMMANDS: ReadonlySet<string> = new Set(['display clear']);

/** Words after which no connection is begun: help and version are answered without the ledger. */
const NO_LEDGER_WORDS: ReadonlySet<string> = new Set(['--help', '-h', '--version', '-V']);

/** The program's flags that take the next word as their value (when not written `--flag=value`). */
const PROGRAM_VALUED: ReadonlySet<string> = new Set(['--profile', '--base-url']);

/** The command's path (its first two words, or one) and the --profile given, or undefined: then nothing is begun. */
export function ledgerCommandOf(
  argv: readonly string[],
): { path: string; profile: string | undefined } | undefined {
  const words: string[] = [];
  let profile: string | undefined;
  for (let at = 0; at < argv.length; at++) {
    const word = argv[at]!;
    if (word === '--') break;
    if (NO_LEDGER_WORDS.has(word)) return undefined;
    if (word.startsWith('--profile=')) profile = word.slice('--profile='.length);
    else if (PROGRAM_VALUED.has(word)) {
      if (word === '--profile') profile = argv[at + 1];
      at += 1;
    } else if (!word.startsWith('-') && words.length < 2) words.push(word);
  }
  const joined = words.join(' ');
  if (OTHER_COMMANDS.has(joined)) return undefined;
  const path = [joined, words[0] ?? ''].find((candidate) => LEDGER_COMMANDS.has(candidate));
  return path === undefined ? undefined : { path, profile };
}

/** At the program's entry: for a command that reaches the ledger, its connection begun. */
export function connectLedgerEarly(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  home?: string,
): void {
  const command = ledgerCommandOf(argv);
  if (command) beginLedgerConnection({ profile: command.profile }, env, home);
}
