/**
 * The shape of a command definition (wrangler's createCommand): its flags and arguments with
 * their help and what each value completes to, its examples and conflicts, and its handler.
 * The commander wiring, the help pages, completion and the option types all come from it.
 * Types only and a helper: cheap to load.
 */
import type { Context } from '../context.js';
import type { Factory } from '../factory/factory.js';

/** What a value completes to. */
export type Completion =
  | 'none'
  | 'files'
  | 'profiles'
  | 'ids'
  | 'config-keys'
  /** the value of the config key named by the argument before it */
  | 'config-value'
  | readonly string[];

export interface FlagDef {
  /** commander's syntax: "--amount <reais>", "-q, --quiet", "--no-split" */
  readonly flags: string;
  readonly help: string;
  /** for a flag that takes a value; "none" when not given */
  readonly complete?: Completion;
  readonly default?: string;
  /** may be given more than once: the values, in order (`--status A --status B`) */
  readonly repeatable?: boolean;
  /**
   * A repeatable flag whose values each belong to the value of this other repeatable flag
   * written before it (`--forward-to A --events x --forward-to B --events y`): the handler gets,
   * beside the values, `<name>Places`: for each value, how many values of that flag came before
   * it (0: written before any).
   */
  readonly placedAfter?: string;
}

export interface ArgDef {
  /** "<id>", "[id...]" */
  readonly name: string;
  readonly help: string;
  readonly complete: Completion;
}

/** A rule between flags, checked before the handler runs. */
export interface Conflict {
  /** set: when this flag is given; unset: when it is not */
  readonly when: { readonly set: string } | { readonly unset: string };
  /** the flags (option names, camelCase) that may not be given then */
  readonly forbids: readonly string[];
  /** the message, given the offending flags as typed (--amount, --to) */
  readonly message: (flags: string[]) => string;
}

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** One flag's option: "--amount-cents <n>" -> { amountCents?: string }, "--no-qr" -> { qr?: boolean }. */
type OptionOf<F extends string> = F extends `${string}--no-${infer N}`
  ? { [K in Camel<N>]?: boolean }
  : F extends `${string}--${infer N} <${string}>`
    ? { [K in Camel<N>]?: string }
    : F extends `${string}--${infer N}`
      ? { [K in Camel<N>]?: boolean }
      : never;

type Merge<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? { [K in keyof I]: I[K] }
  : never;

/** A flag with a default always has a value. */
type OptionOfDef<D extends FlagDef> = D extends { repeatable: true }
  ? { [K in keyof OptionOf<D['flags']>]?: string[] }
  : D extends { default: string }
    ? Required<OptionOf<D['flags']>>
    : OptionOf<D['flags']>;

/** The options commander hands the handler, from the flags' own syntax. */
export type OptionsOf<F extends readonly FlagDef[]> = readonly FlagDef[] extends F
  ? Record<string, unknown> // any command's: what the wiring hands over
  : F extends readonly []
    ? Record<never, never>
    : Merge<OptionOfDef<F[number]>>;

type ArgOf<N extends string> = N extends `${string}...${string}`
  ? string[]
  : N extends `<${string}>`
    ? string
    : string | undefined;

/** The positional arguments, in order. */
export type ArgsOf<A extends readonly ArgDef[]> = readonly ArgDef[] extends A
  ? unknown[]
  : { [I in keyof A]: ArgOf<A[I]['name']> };

export interface Invocation<F extends readonly FlagDef[], A extends readonly ArgDef[]> {
  opts: OptionsOf<F>;
  args: ArgsOf<A>;
  ctx: Context;
  /**
   * The command's factory (factory/factory.ts), made on first use; `creatingProfile`: config set
   * and auth login may name a profile that does not exist yet (they create it).
   */
  factory(use?: { creatingProfile?: boolean }): Promise<Factory>;
  /** every command, as the manifest lists them (completion answers from it) */
  registry: readonly CommandEntry[];
}

export interface CommandDef<
  F extends readonly FlagDef[] = readonly FlagDef[],
  A extends readonly ArgDef[] = readonly ArgDef[],
> {
  /** where help lists it among its siblings: lower first (and the manifest's order) */
  readonly rank: number;
  /** "deposit create"; "" for the program itself */
  readonly path: string;
  readonly description: string;
  /**
   * The long help (gh's `Long`), under the description in `--help`, docs/commands/ and the man
   * page: paragraphs, "- " lists and two-space-indented commands (commands/shared/help-text.ts).
   */
  readonly long?: string;
  readonly hidden?: boolean;
  readonly flags: F;
  readonly args: A;
  readonly examples?: readonly string[];
  readonly conflicts?: readonly Conflict[];
  /** absent for a group: its subcommands are the commands */
  run?(call: Invocation<F, A>): Promise<void> | void;
}

/** A command, its types inferred from its own flags and arguments. */
export function command<const F extends readonly FlagDef[], const A extends readonly ArgDef[] = readonly []>(
  def: Omit<CommandDef<F, A>, 'args'> & { args?: A },
): CommandDef<F, A> {
  return { ...def, args: (def.args ?? []) as A };
}

/** A flag as typed: amountCents -> --amount-cents. */
export function flagName(option: string): string {
  return `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** A group: a word that only leads to its subcommands. */
export function group(def: {
  rank: number;
  path: string;
  description: string;
  long?: string;
  examples?: readonly string[];
}): CommandDef {
  return { ...def, flags: [], args: [] };
}

/**
 * A command as the generated manifest (commands/manifest.ts) holds it: its definition's data,
 * enough for the commander tree, help and completion without loading any command module, and
 * `load`, the one lazy import of its module, whose definition brings the conflict messages and `run`.
 */
export interface CommandEntry {
  readonly rank: number;
  readonly path: string;
  readonly description: string;
  readonly long?: string;
  readonly hidden?: boolean;
  readonly flags: readonly FlagDef[];
  readonly args: readonly ArgDef[];
  readonly examples?: readonly string[];
  readonly conflicts?: readonly { readonly when: Conflict['when']; readonly forbids: readonly string[] }[];
  /** absent for a group */
  readonly load?: () => Promise<{ readonly definitions: readonly CommandDef[] }>;
}

/** The program itself in a registry: the entry of path "" (its global flags), found by its path, not its place. */
export function programEntry(registry: readonly CommandEntry[]): CommandEntry {
  const program = registry.find((entry) => entry.path === '');
  if (!program) throw new Error('the command registry has no program entry');
  return program;
}

/** A definition's data as the manifest holds it (what the generator writes and the test compares). */
export function entryOf(def: CommandDef): Omit<CommandEntry, 'load'> {
  const { run: _run, conflicts, ...data } = def;
  return {
    ...data,
    ...(conflicts ? { conflicts: conflicts.map(({ when, forbids }) => ({ when, forbids })) } : {}),
  };
}

/** A module's `definitions`: its commands, each keeping its own types where it is defined. */
export function listed(...defs: readonly { readonly path: string }[]): readonly CommandDef[] {
  return defs as readonly CommandDef[];
}
