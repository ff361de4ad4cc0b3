/**
 * The commander program: options, help, and one lazy import() per command. One handler
 * at the top turns every error into its message and exit code.
 */
import { Command, CommanderError, Option } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import type { CommandSpec } from './commands/completion.js';
import type { Context } from './context.js';
import { EXIT, LbrlError, usageError } from './errors.js';
import type { GlobalOptions, Session } from './session.js';

export const VERSION: string = pkg.version;

/** Help is wrapped at this width whatever the terminal (bin/lbrl.js prints it from dist/help.json). */
const HELP_WIDTH = 80;

type Action = (session: Session) => Promise<void> | void;

export async function main(argv: string[], ctx: Context): Promise<number> {
  let session: Session | undefined;
  let globals: GlobalOptions = {};
  let usageMessage: string | undefined;

  const program = new Command('lbrl');
  const run = async (cmd: Command, action: Action): Promise<void> => {
    globals = cmd.optsWithGlobals() as GlobalOptions;
    const { Session } = await import('./session.js');
    session = new Session(ctx, globals);
    await action(session);
  };

  program
    .description(
      'Create PIX charges settled in a BRL-pegged asset on the Liquid Network, and follow them until done.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'config profile (env LBRL_PROFILE, default "default")')
    .option('--base-url <url>', 'service base URL (env LBRL_BASE_URL)')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'print only the essential value; no notes on stderr')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt')
    .option('--verbose', 'trace HTTP requests and answers on stderr (token redacted)')
    .option(
      '--insecure-skip-tls-verify',
      'do not check the service TLS certificate (unsafe: for test servers only)',
    )
    .showHelpAfterError(false)
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      // like gh's and the Stripe CLI's: the same text on every terminal, so it can be kept ready
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      outputError: (s) => {
        usageMessage = s
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ');
      },
    });

  const deposit = program.command('deposit').description('create and follow deposits (PIX charges)');
  deposit
    .command('create')
    .description('create a PIX charge paid out to a Liquid address')
    .option('--amount <reais>', 'amount in reais: 1500, 15.5 or 15,50 (0.01 to 6000.00)')
    .option('--amount-cents <n>', 'amount in cents (1 to 600000)')
    .option('--to <liquid-address>', "destination Liquid address (default: the profile's default-address)")
    .option('--split-to <liquid-address>', 'send part of the net amount to this address')
    .option('--split-fee <percent>', 'the part for --split-to: 2.99%, 2.99 or 2,99')
    .option('--no-split', "ignore the profile's split settings")
    .option('--qr-png <file>', 'write the QR code PNG to this file')
    .option('--no-qr', 'do not draw the QR code in the terminal')
    .option('--qr-style <style>', 'dark (light text on a dark terminal, the default) or light')
    .option('--dry-run', 'check everything and show the request, send nothing')
    .option('--yes', 'do not ask for confirmation')
    .option('--watch', 'after creating, follow the deposit until FINALIZED or FAILED (exit codes of watch)')
    .option(
      '--from <file>',
      'create one deposit per row of a CSV (with a header) or NDJSON file; - for stdin',
    )
    .option('--concurrency <n>', 'with --from: rows sent at once (default 4, at most 16)')
    .option('--resume', 'with --from: skip the rows already created by an earlier run of the same file')
    .action(async function (this: Command) {
      const opts = this.opts();
      if (opts.from !== undefined) {
        const single = [
          'amount',
          'amountCents',
          'to',
          'splitTo',
          'splitFee',
          'watch',
          'qrPng',
          'qrStyle',
        ].filter((k) => opts[k] !== undefined);
        if (single.length > 0) {
          throw usageError(
            `--from cannot be combined with ${single.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}; put the values in the file`,
          );
        }
        await run(this, async (s) => (await import('./commands/deposit-batch.js')).run(opts as never, s));
        return;
      }
      if (opts.concurrency !== undefined || opts.resume)
        throw usageError('--concurrency and --resume go with --from <file>');
      await run(this, async (s) => (await import('./commands/deposit-create.js')).run(opts, s));
    });
  deposit
    .command('get')
    .description("show a deposit's status and settlement")
    .argument('<id>', 'deposit id')
    .option('--qr', 'draw the QR code and print the copy-paste string')
    .option('--qr-png <file>', 'write the QR code as a PNG file')
    .option('--qr-style <style>', 'dark (light text on a dark terminal, the default) or light')
    .action(async function (this: Command, id: string) {
      await run(this, async (s) => (await import('./commands/deposit-get.js')).run(id, this.opts(), s));
    });

  deposit
    .command('watch')
    .description('follow deposits until FINALIZED (exit 0) or FAILED (exit 5)')
    .argument('[id...]', 'deposit ids')
    .option('--pending', 'watch the deposits in the local history not yet FINALIZED or FAILED')
    .option('--interval <seconds>', 'seconds between polls of a deposit (at least 1)', undefined)
    .option('--timeout <duration>', 'give up (exit 124) after 90, 90s, 10m or 1h')
    .action(async function (this: Command, ids: string[]) {
      await run(this, async (s) => (await import('./commands/deposit-watch.js')).run(ids, this.opts(), s));
    });

  deposit
    .command('list')
    .description('the deposits this machine created, newest first, with their last known status')
    .option('--refresh', 'ask the service for the status of those not yet FINALIZED or FAILED')
    .option('--limit <n>', 'at most this many (default 30)')
    .action(async function (this: Command) {
      await run(this, async (s) => (await import('./commands/deposit-list.js')).run(this.opts(), s));
    });

  const auth = program.command('auth').description('store, show and remove the access token');
  auth
    .command('login')
    .description('save a base URL and token in the profile (checked with a harmless request)')
    .option('--with-token', 'read the token from stdin')
    .option('--no-verify', 'save without checking the token against the service')
    .action(async function (this: Command) {
      await run(this, async (s) => (await import('./commands/auth.js')).login(this.opts(), s));
    });
  auth
    .command('status')
    .description('show the profile, mode, base URL and where the token comes from')
    .option('--show-token', 'print the token itself')
    .action(async function (this: Command) {
      await run(this, async (s) => (await import('./commands/auth.js')).status(this.opts(), s));
    });
  auth
    .command('logout')
    .description("remove the profile's token")
    .action(async function (this: Command) {
      await run(this, async (s) => (await import('./commands/auth.js')).logout(s));
    });

  const config = program.command('config').description('read and change profile settings');
  const keys = 'base-url, network, default-address, split-address, split-fee, sandbox-autopay, qr-style';
  config
    .command('get')
    .description('print a setting')
    .argument('<key>', keys)
    .action(async function (this: Command, key: string) {
      await run(this, async (s) => (await import('./commands/config.js')).get(key, s));
    });
  config
    .command('set')
    .description('change a setting (the value is checked)')
    .argument('<key>', keys)
    .argument('<value>', 'the new value')
    .action(async function (this: Command, key: string, value: string) {
      await run(this, async (s) => (await import('./commands/config.js')).set(key, value, s));
    });
  config
    .command('unset')
    .description('remove a setting')
    .argument('<key>', keys)
    .action(async function (this: Command, key: string) {
      await run(this, async (s) => (await import('./commands/config.js')).unset(key, s));
    });
  config
    .command('list')
    .description("print the profile's settings")
    .action(async function (this: Command) {
      await run(this, async (s) => (await import('./commands/config.js')).list(s));
    });

  registerSandbox(program, run);

  program
    .command('completion')
    .description('print a shell completion script: source <(lbrl completion bash)')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async function (this: Command, shell: string) {
      const { script } = await import('./commands/completion.js');
      ctx.stdout.write(script(shell, commandSpec(program)));
    });
  program
    .command('__complete', { hidden: true })
    .argument('<kind>', 'profiles or ids')
    .action(async function (this: Command, kind: string) {
      await run(this, async (s) => (await import('./commands/completion.js')).values(kind, s));
    });
  program
    .command('__help-pages', { hidden: true })
    .description("the build: every command's --help, as JSON keyed by the command path")
    .action(async () => {
      ctx.stdout.write(`${JSON.stringify(await helpPages(program, ctx))}\n`);
    });

  for (const cmd of [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)]) {
    const path =
      cmd === program ? '' : cmd.parent === program ? cmd.name() : `${cmd.parent?.name()} ${cmd.name()}`;
    const examples = EXAMPLES[path];
    if (examples) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
    cmd.exitOverride();
    cmd.configureOutput(program.configureOutput());
  }

  const printError = (error: LbrlError) => {
    if (session) session.printer.error(error);
    else if (argv.includes('--json')) {
      ctx.stderr.write(
        `${JSON.stringify({ error: { type: error.type, message: error.message, exitCode: error.exitCode } })}\n`,
      );
    } else ctx.stderr.write(`error: ${error.message}\n`);
  };

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        return EXIT.ok;
      }
      if (error.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      const message = usageMessage ?? error.message.replace(/^error: /, '');
      printError(usageError(`${message} (see lbrl --help)`));
      return EXIT.usage;
    }
    const e =
      error instanceof LbrlError
        ? error
        : new LbrlError(
            `unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
            'service',
            EXIT.failure,
          );
    if (e.exitCode === EXIT.interrupted && ctx.signal.aborted && e.message === 'interrupted') {
      if (!globals.json) ctx.stderr.write('\n');
      return EXIT.interrupted;
    }
    printError(e);
    return e.exitCode;
  } finally {
    await session?.close();
  }
}

/**
 * The --help of every command, run through main() exactly as a user's `lbrl <path> --help` is,
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
    const code = await main([...path, '--help'], capture);
    if (code !== EXIT.ok || err !== '' || out === '') {
      throw new Error(`lbrl ${path.join(' ')} --help failed (exit ${code}): ${err}`);
    }
    pages[path.join(' ')] = out;
    for (const sub of cmd.commands) if (!sub.name().startsWith('__')) await visit(sub, [...path, sub.name()]);
  };
  await visit(program, []);
  return pages;
}

const LQ_EXAMPLE =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

/** Every command's help ends with examples: by hand, in CI, with jq, from cron, in batches. */
const EXAMPLES: Record<string, string[]> = {
  '': [
    `lbrl deposit create --amount 1500 --to ${LQ_EXAMPLE} --watch`,
    '# CI: no config file needed, never prompts',
    'LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit get "$ID" --json | jq -r .status',
  ],
  deposit: [
    'lbrl deposit create --amount 15,50 --to <address>',
    'lbrl deposit watch <id> --timeout 10m',
    'lbrl deposit list --refresh',
  ],
  'deposit create': [
    'lbrl deposit create --amount 1500 --to <address>',
    'lbrl deposit create --amount-cents 1550 --to <address> --split-to <address> --split-fee 2.99% --yes',
    '# CI: create, keep the id, wait for settlement',
    'id=$(LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit create --amount 1500 --to <address> --json | jq -r .id)',
    '# a batch: CSV with a header (amount,to,splitTo,splitFee) or NDJSON, one deposit per row',
    'lbrl deposit create --from charges.csv > results.ndjson',
    "lbrl deposit create --from charges.csv --resume | jq -c 'select(.error)'",
    '# --json prints the service object; an error is one line on stderr: {"error":{"type","message","exitCode"}}',
  ],
  'deposit get': [
    'lbrl deposit get <id>',
    'lbrl deposit get <id> --json | jq -r .settlement.liquidTxid',
    'lbrl deposit get <id> --qr --qr-style light',
  ],
  'deposit watch': [
    'lbrl deposit watch <id> --timeout 30m && echo settled',
    'lbrl deposit watch <id> --json | jq -r .status      # one line per status change',
    '# cron, every 10 minutes: follow whatever is pending, for at most 9',
    '*/10 * * * * lbrl deposit watch --pending --timeout 9m -q || echo "exit $?" >> ~/lbrl-watch.log',
    '# exit codes: 0 FINALIZED, 5 FAILED, 124 timed out, 3 auth, 4 unknown id, 6 unreachable, 130 Ctrl-C',
  ],
  'deposit list': [
    'lbrl deposit list',
    'lbrl deposit list --refresh --json | jq -r \'.[] | select(.status != "FINALIZED") | .id\'',
  ],
  'auth login': [
    'lbrl auth login --base-url https://pay.example.com',
    'printf %s "$TOKEN" | lbrl auth login --base-url https://pay.example.com --with-token --profile work',
  ],
  'auth status': ['lbrl auth status', 'lbrl auth status --json | jq -r .mode'],
  'auth logout': ['lbrl auth logout --profile work'],
  config: ['lbrl config set default-address <address>', 'lbrl config list --profile work'],
  'config set': [
    'lbrl config set network liquidtestnet --profile test',
    'lbrl config set sandbox-autopay off',
  ],
  'config get': ['lbrl config get network'],
  'config unset': ['lbrl config unset split-fee'],
  'config list': ['lbrl config list --json'],
  sandbox: ['lbrl sandbox serve --port 8080', 'lbrl sandbox pay <id>'],
  'sandbox serve': [
    'lbrl sandbox serve --port 8080 > sandbox.env &     # prints LBRL_BASE_URL=... and LBRL_TOKEN=...',
    'set -a; . ./sandbox.env; set +a; lbrl deposit create --amount 10 --to <address>',
  ],
  'sandbox pay': ['lbrl sandbox pay <id> && lbrl deposit watch <id>'],
  'sandbox fail': ['lbrl sandbox fail <id>'],
  completion: ['source <(lbrl completion bash)      # in ~/.bashrc', 'lbrl completion fish | source'],
};

const ARGS: Record<string, 'ids' | 'config-keys' | 'shells'> = {
  'deposit get': 'ids',
  'deposit watch': 'ids',
  'sandbox pay': 'ids',
  'sandbox fail': 'ids',
  'config get': 'config-keys',
  'config set': 'config-keys',
  'config unset': 'config-keys',
  completion: 'shells',
};

/** The program's commands and options, for completion scripts. */
function commandSpec(cmd: Command, path = ''): CommandSpec {
  const options = [
    ...new Set(cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x)))),
  ];
  options.push('--help');
  return {
    name: cmd.name(),
    options,
    args: ARGS[path] ?? 'none',
    subcommands: cmd.commands
      .filter((c) => !c.name().startsWith('__') && c.name() !== 'help')
      .map((c) => commandSpec(c, path ? `${path} ${c.name()}` : c.name())),
  };
}

function registerSandbox(program: Command, run: (cmd: Command, action: Action) => Promise<void>): void {
  const sandbox = program
    .command('sandbox')
    .description('the local sandbox of the service (no account, no real money)');
  sandbox
    .command('serve')
    .description('run the sandbox as a standing HTTP server; prints its base URL and token')
    .addOption(new Option('--port <n>', 'port (0 picks a free one)').default('0'))
    .addOption(new Option('--host <addr>', 'loopback address to listen on').default('127.0.0.1'))
    .action(async function (this: Command) {
      await run(this, async (s) => (await import('./commands/sandbox.js')).serve(this.opts(), s));
    });
  sandbox
    .command('pay')
    .description('simulate the payer: the deposit moves on to FINALIZED')
    .argument('<id>', 'deposit id')
    .action(async function (this: Command, id: string) {
      await run(this, async (s) => (await import('./commands/sandbox.js')).pay(id, s));
    });
  sandbox
    .command('fail')
    .description('end a deposit that is not yet terminal in FAILED')
    .argument('<id>', 'deposit id')
    .action(async function (this: Command, id: string) {
      await run(this, async (s) => (await import('./commands/sandbox.js')).fail(id, s));
    });
}
