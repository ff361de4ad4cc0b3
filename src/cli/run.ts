/**
 * What a run of one command does once its words are read, whoever read them (the commander program,
 * cli/program.ts, or the direct path of a plain `deposit get`, cli/direct.ts): the definition's
 * conflicts checked, its `run` on the factory made on first use, the ledger's fault, and how an
 * error ends the run. Nothing here loads commander.
 */
import type { CommandDef, CommandEntry } from '../commands/define.js';
import { flagName } from '../commands/define.js';
import type { Context } from '../context.js';
import { EXIT, LbrlError, usageError } from '../errors.js';
import type { CommandRuntime, GlobalOptions } from '../factory/factory.js';

/** What a run learns while its words are read: the command's factory, the global flags, a usage error's words. */
export interface RunState {
  runtime?: CommandRuntime;
  globals: GlobalOptions;
  usageMessage?: string;
  failedPath: string;
}

/** The words of one command, read: its own flags, its operands, the program's flags. */
export interface ReadCommand {
  opts: Record<string, unknown>;
  operands: unknown[];
  globals: GlobalOptions;
}

/**
 * Run a command's definition on what was read: its conflicts checked first (a usage error), then
 * `run`, then the ledger's fault (what it could not take, kept locally: exit 6).
 */
export async function runDefinition(
  full: CommandDef | undefined,
  read: ReadCommand,
  ctx: Context,
  state: RunState,
  registry: readonly CommandEntry[],
): Promise<void> {
  if (!full?.run) throw new Error('the manifest is stale: run npm run build');
  const { opts } = read;
  for (const conflict of full.conflicts ?? []) {
    const active =
      'set' in conflict.when
        ? opts[conflict.when.set] !== undefined
        : opts[conflict.when.unset] === undefined;
    const given = conflict.forbids.filter((k) => opts[k] !== undefined && opts[k] !== false);
    if (active && given.length > 0) throw usageError(conflict.message(given.map(flagName)));
  }
  state.globals = read.globals;
  await full.run({
    opts: opts as never,
    args: read.operands.slice(0, full.args.length),
    ctx,
    registry,
    factory: async (use) => {
      if (!state.runtime) {
        const { openRuntime } = await import('../factory/factory.js');
        state.runtime = openRuntime(ctx, state.globals);
      }
      if (use?.creatingProfile) state.runtime.allowNewProfile();
      return state.runtime.factory;
    },
  });
  const fault = await state.runtime?.factory.ledger().fault();
  if (fault) throw fault;
}

/** What a run that a command ended with an error (not commander's) says, and its exit code. */
export async function failedRun(
  error: unknown,
  argv: readonly string[],
  ctx: Context,
  state: RunState,
): Promise<number> {
  const failure =
    error instanceof LbrlError
      ? error
      : new LbrlError(
          `unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
          'service',
        );
  if (failure.exitCode === EXIT.interrupted && ctx.signal.aborted && failure.message === 'interrupted') {
    if (!state.globals.json) ctx.stderr.write('\n');
    return EXIT.interrupted;
  }
  // what the ledger could not take is kept locally: said, whatever else ended the command
  const spooled = await state.runtime?.factory.ledger().fault();
  if (spooled) state.runtime?.factory.printer.alarm(`warning: ${spooled.message}`);
  printFailure(failure, argv, ctx, state);
  return failure.exitCode;
}

/** An error as the one handler prints it: through the factory's printer once there is one. */
export function printFailure(
  failure: LbrlError,
  argv: readonly string[],
  ctx: Context,
  state: RunState,
): void {
  if (state.runtime) state.runtime.showError(failure);
  else if (argv.includes('--json')) {
    ctx.stderr.write(
      `${JSON.stringify({ error: { type: failure.type, message: failure.message, exitCode: failure.exitCode } })}\n`,
    );
  } else ctx.stderr.write(`error: ${failure.message}\n`);
}

/** The end of every run: clients, the ledger and the sandbox closed, what the redactor held back out. */
export async function endRun(ctx: Context, state: RunState): Promise<void> {
  try {
    await state.runtime?.close();
  } finally {
    // what the redacting streams held back (it might have been the start of a secret) is out now
    ctx.stdout.flush?.();
    ctx.stderr.flush?.();
  }
}
