/**
 * The direct path of the commonest scripted run, `lbrl deposit get <id>` with the program's flags
 * only (`--json`, `--profile work`, `--base-url=...`, `-q`, ...): read here word by word, the
 * command run without building commander's program (nor parsing the manifest). Anything else
 * (help, another flag, a second operand, a flag given twice, a value that looks like a flag, `--`)
 * is not plain, and the whole program reads it exactly as before: its errors and help are
 * commander's.
 */
import type { Context } from '../context.js';
import { EXIT } from '../errors.js';
import type { GlobalOptions } from '../factory/factory.js';
import { endRun, failedRun, type RunState, runDefinition } from './run.js';

/** A plain `deposit get`, read: its one operand and the program's flags, as commander would give them. */
export interface PlainGet {
  id: string;
  globals: GlobalOptions;
}

/** The program's flags without a value, and what each sets (commander's attribute names and values). */
const SWITCHES: Readonly<Record<string, Partial<GlobalOptions>>> = {
  '--json': { json: true },
  '-q': { quiet: true },
  '--quiet': { quiet: true },
  '--no-color': { color: false },
  '--no-input': { input: false },
  '--verbose': { verbose: true },
  '--insecure-skip-tls-verify': { insecureSkipTlsVerify: true },
};

/** The program's flags that take a value (`--profile work` or `--profile=work`). */
const VALUED: Readonly<Record<string, 'profile' | 'baseUrl'>> = {
  '--profile': 'profile',
  '--base-url': 'baseUrl',
};

/** What one word (and the next, for a flag that takes a value) sets; undefined when it is not plain. */
function readFlag(
  word: string,
  next: string | undefined,
): { set: Partial<GlobalOptions>; name: string; used: number } | undefined {
  const switched = SWITCHES[word];
  if (switched) return { set: switched, name: Object.keys(switched)[0]!, used: 1 };
  const equals = word.indexOf('=');
  const name = equals < 0 ? word : word.slice(0, equals);
  const key = VALUED[name];
  if (!key) return undefined;
  const value = equals < 0 ? next : word.slice(equals + 1);
  if (value === undefined || value === '' || value.startsWith('-')) return undefined;
  return { set: { [key]: value }, name: key, used: equals < 0 ? 2 : 1 };
}

/** argv as a plain `deposit get <id>`, or undefined: then the whole program reads it. */
export function plainGetOf(argv: readonly string[]): PlainGet | undefined {
  if (argv[0] !== 'deposit' || argv[1] !== 'get') return undefined;
  // commander's defaults of the negatable flags
  const globals: GlobalOptions = { color: true, input: true };
  const seen = new Set<string>();
  let id: string | undefined;
  for (let at = 2; at < argv.length; ) {
    const word = argv[at]!;
    if (!word.startsWith('-')) {
      if (id !== undefined || word === '') return undefined;
      id = word;
      at += 1;
      continue;
    }
    const flag = readFlag(word, argv[at + 1]);
    if (!flag || seen.has(flag.name)) return undefined;
    seen.add(flag.name);
    Object.assign(globals, flag.set);
    at += flag.used;
  }
  return id === undefined ? undefined : { id, globals };
}

/** Run a plain `deposit get` as the program would: the same definition, errors and end. */
export async function runPlainGet(plain: PlainGet, argv: readonly string[], ctx: Context): Promise<number> {
  const state: RunState = { globals: {}, failedPath: '' };
  try {
    const { definitions } = await import('../commands/deposit-get.js');
    const full = definitions.find((def) => def.path === 'deposit get');
    await runDefinition(full, { opts: {}, operands: [plain.id], globals: plain.globals }, ctx, state, []);
    return EXIT.ok;
  } catch (error) {
    return await failedRun(error, argv, ctx, state);
  } finally {
    await endRun(ctx, state);
  }
}
