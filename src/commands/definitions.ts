/**
 * Every command of lbrl, defined once: flags, arguments, help, examples, conflicts, what each
 * value completes to, and the handler, which imports its command module only when it runs.
 * Plain data, cheap to load: start-up reads it for every command.
 */
import type { GlobalOptions } from '../session.js';
import { CONFIG_KEYS } from '../store/config.js';
import type { LoginOptions } from './auth.js';
import { type CommandDef, type Completion, command, type FlagDef, type OptionsOf } from './define.js';
import type { BatchOptions } from './deposit-batch.js';
import type { CreateOptions } from './deposit-create.js';
import type { GetOptions } from './deposit-get.js';
import type { ListOptions } from './deposit-list.js';
import type { WatchFlags } from './deposit-watch.js';
import type { ServeOptions } from './sandbox.js';

const LQ_EXAMPLE =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

export const QR_STYLES = ['dark', 'light'] as const;
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

const QR_STYLE = {
  flags: '--qr-style <style>',
  help: 'dark (light text on a dark terminal, the default) or light',
  complete: QR_STYLES,
} as const;
const ID_ARG = { name: '<id>', help: 'deposit id', complete: 'ids' } as const;
const KEY_ARG = { name: '<key>', help: CONFIG_KEYS.join(', '), complete: 'config-keys' } as const;

export const PROGRAM = command({
  path: '',
  description:
    'Create PIX charges settled in a BRL-pegged asset on the Liquid Network, and follow them until done.',
  flags: [
    { flags: '-V, --version', help: 'print the version' },
    {
      flags: '--profile <name>',
      help: 'config profile (env LBRL_PROFILE, default "default")',
      complete: 'profiles',
    },
    { flags: '--base-url <url>', help: 'service base URL (env LBRL_BASE_URL)' },
    { flags: '--json', help: 'machine-readable output on stdout' },
    { flags: '-q, --quiet', help: 'print only the essential value; no notes on stderr' },
    { flags: '--no-color', help: 'no colour (also NO_COLOR)' },
    { flags: '--no-input', help: 'never prompt' },
    { flags: '--verbose', help: 'trace HTTP requests and answers on stderr (token redacted)' },
    {
      flags: '--insecure-skip-tls-verify',
      help: 'do not check the service TLS certificate (unsafe: for test servers only)',
    },
  ],
  examples: [
    `lbrl deposit create --amount 1500 --to ${LQ_EXAMPLE} --watch`,
    '# CI: no config file needed, never prompts',
    'LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit get "$ID" --json | jq -r .status',
  ],
});

/** The Session's GlobalOptions are exactly the program's flags. */
export type ProgramOptions = Omit<OptionsOf<typeof PROGRAM.flags>, 'version'>;

/** What only a single create takes, with --from: each kind refused with the reason it does not apply. */
const FROM_VALUES = ['amount', 'amountCents', 'to', 'splitTo', 'splitFee'];
const FROM_WATCH = ['watch', 'interval', 'timeout', 'verify'];
const FROM_QR = ['qrPng', 'qrStyle'];

export const DEPOSIT_CREATE = command({
  path: 'deposit create',
  description: 'create a PIX charge paid out to a Liquid address',
  flags: [
    { flags: '--amount <reais>', help: 'amount in reais: 1500, 15.5 or 15,50 (0.01 to 6000.00)' },
    { flags: '--amount-cents <n>', help: 'amount in cents (1 to 600000)' },
    {
      flags: '--to <liquid-address>',
      help: "destination Liquid address (default: the profile's default-address)",
    },
    { flags: '--split-to <liquid-address>', help: 'send part of the net amount to this address' },
    { flags: '--split-fee <percent>', help: 'the part for --split-to: 2.99%, 2.99 or 2,99' },
    { flags: '--no-split', help: "ignore the profile's split settings" },
    { flags: '--qr-png <file>', help: 'write the QR code PNG to this file', complete: 'files' },
    { flags: '--no-qr', help: 'do not draw the QR code in the terminal' },
    QR_STYLE,
    { flags: '--dry-run', help: 'check everything and show the request, send nothing' },
    { flags: '--yes', help: 'do not ask for confirmation' },
    {
      flags: '--watch',
      help: 'after creating, follow the deposit until FINALIZED or FAILED (exit codes of watch)',
    },
    { flags: '--interval <seconds>', help: 'with --watch: seconds between polls (at least 1, default 3)' },
    { flags: '--timeout <duration>', help: 'with --watch: give up (exit 124) after 90, 90s, 10m or 1h' },
    { flags: '--verify', help: 'with --watch: done only once the settlement is verified on chain' },
    { flags: '--no-verify', help: "with --watch: do not verify, whatever the profile's verify setting" },
    {
      flags: '--from <file>',
      help: 'create one deposit per row of a CSV (with a header) or NDJSON file; - for stdin',
      complete: 'files',
    },
    { flags: '--concurrency <n>', help: 'with --from: rows sent at once (default 4, at most 16)' },
    {
      flags: '--resume',
      help: 'with --from: skip the rows already created by an earlier run of the same file',
    },
  ],
  conflicts: [
    {
      when: { set: 'from' },
      forbids: FROM_WATCH,
      message: (flags) =>
        `a batch (--from) does not watch: it creates its rows and ends, so ${flags.join(', ')} cannot go with it; follow the deposits afterwards with lbrl deposit watch --pending`,
    },
    {
      when: { set: 'from' },
      forbids: FROM_VALUES,
      message: (flags) =>
        `--from takes each deposit's values from its row, so ${flags.join(', ')} cannot go with it: put them in the file's columns (amount or amountCents, to, splitTo, splitFee)`,
    },
    {
      when: { set: 'from' },
      forbids: FROM_QR,
      message: (flags) =>
        `a batch draws no QR codes, so ${flags.join(', ')} cannot go with --from: each row's qrCode is in its NDJSON line (--json), or use lbrl deposit get <id> --qr-png <file>`,
    },
    {
      when: { unset: 'from' },
      forbids: ['concurrency', 'resume'],
      message: () => '--concurrency and --resume go with --from <file>',
    },
    {
      when: { unset: 'watch' },
      forbids: ['interval', 'timeout', 'verify'],
      message: (flags) => `${flags.join(' and ')} go${flags.length === 1 ? 'es' : ''} with --watch`,
    },
  ],
  examples: [
    'lbrl deposit create --amount 1500 --to <address>',
    'lbrl deposit create --amount-cents 1550 --to <address> --split-to <address> --split-fee 2.99% --yes',
    '# at the counter: the QR and the amount full screen until paid, for at most 10 minutes',
    'lbrl deposit create --amount 35 --to <address> --watch --timeout 10m',
    '# CI: create, keep the id, wait for settlement',
    'id=$(LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit create --amount 1500 --to <address> --json | jq -r .id)',
    '# a batch: CSV with a header (amount,to,splitTo,splitFee) or NDJSON, one deposit per row',
    'lbrl deposit create --from charges.csv > results.ndjson',
    "lbrl deposit create --from charges.csv --resume | jq -c 'select(.error)'",
    '# --json prints the service object; an error is one line on stderr: {"error":{"type","message","exitCode"}}',
  ],
  async run({ opts, session }) {
    const { from } = opts;
    if (from !== undefined)
      return (await import('./deposit-batch.js')).run({ ...opts, from }, await session());
    return (await import('./deposit-create.js')).run(opts, await session());
  },
});

export const DEPOSIT_GET = command({
  path: 'deposit get',
  description: "show a deposit's status and settlement",
  args: [ID_ARG],
  flags: [
    { flags: '--qr', help: 'draw the QR code and print the copy-paste string' },
    { flags: '--qr-png <file>', help: 'write the QR code as a PNG file', complete: 'files' },
    QR_STYLE,
  ],
  examples: [
    'lbrl deposit get <id>',
    'lbrl deposit get <id> --json | jq -r .settlement.liquidTxid',
    'lbrl deposit get <id> --qr --qr-style light',
  ],
  async run({ opts, args: [id], session }) {
    return (await import('./deposit-get.js')).run(id, opts, await session());
  },
});

export const DEPOSIT_WATCH = command({
  path: 'deposit watch',
  description: 'follow deposits until FINALIZED (exit 0) or FAILED (exit 5)',
  args: [{ name: '[id...]', help: 'deposit ids', complete: 'ids' }],
  flags: [
    { flags: '--pending', help: 'watch the deposits in the local history not yet FINALIZED or FAILED' },
    { flags: '--interval <seconds>', help: 'seconds between polls of a deposit (at least 1)' },
    { flags: '--timeout <duration>', help: 'give up (exit 124) after 90, 90s, 10m or 1h' },
    {
      flags: '--verify',
      help: 'done only once the settlement is verified on chain (1 mismatch, 7 unproven)',
    },
    { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  ],
  examples: [
    'lbrl deposit watch <id> --timeout 30m && echo settled',
    'lbrl deposit watch <id> --json | jq -r .status      # one line per status change',
    '# cron, every 10 minutes: follow whatever is pending, for at most 9',
    '*/10 * * * * lbrl deposit watch --pending --timeout 9m -q || echo "exit $?" >> ~/lbrl-watch.log',
    '# exit codes: 0 FINALIZED, 5 FAILED, 124 timed out, 3 auth, 4 unknown id, 6 unreachable, 130 Ctrl-C',
  ],
  async run({ opts, args: [ids], session }) {
    return (await import('./deposit-watch.js')).run(ids, opts, await session());
  },
});

export const DEPOSIT_VERIFY = command({
  path: 'deposit verify',
  description: "check deposits' settlements on the Liquid chain (an Esplora explorer)",
  args: [{ name: '<id...>', help: 'deposit ids', complete: 'ids' }],
  flags: [],
  examples: [
    'lbrl deposit verify <id>',
    'lbrl config set-blinding-key < blinding-key.txt    # to check confidential amounts',
    'lbrl deposit verify <id> --json | jq -r .deposits[0].outcome',
    '# exit codes: 0 verified, 1 mismatch, 4 unknown id, 6 explorer unreachable, 7 unproven, 8 pending',
  ],
  async run({ args: [ids], session }) {
    return (await import('./deposit-verify.js')).run(ids, await session());
  },
});

export const DEPOSIT_LIST = command({
  path: 'deposit list',
  description: 'the deposits this machine created, newest first, with their last known status',
  flags: [
    { flags: '--refresh', help: 'ask the service for the status of those not yet FINALIZED or FAILED' },
    { flags: '--limit <n>', help: 'at most this many (default 30)' },
  ],
  examples: [
    'lbrl deposit list',
    'lbrl deposit list --refresh --json | jq -r \'.[] | select(.status != "FINALIZED") | .id\'',
  ],
  async run({ opts, session }) {
    return (await import('./deposit-list.js')).run(opts, await session());
  },
});

export const AUTH_LOGIN = command({
  path: 'auth login',
  description: 'save a base URL and token in the profile (checked with a harmless request)',
  flags: [
    { flags: '--with-token', help: 'read the token from stdin' },
    { flags: '--no-verify', help: 'save without checking the token against the service' },
  ],
  examples: [
    'lbrl auth login --base-url https://pay.example.com',
    'printf %s "$TOKEN" | lbrl auth login --base-url https://pay.example.com --with-token --profile work',
  ],
  async run({ opts, session }) {
    return (await import('./auth.js')).login(opts, (await session()).creatingProfile());
  },
});

export const AUTH_STATUS = command({
  path: 'auth status',
  description: 'show the profile, mode, base URL and where the token comes from',
  flags: [{ flags: '--show-token', help: 'print the token itself' }],
  examples: ['lbrl auth status', 'lbrl auth status --json | jq -r .mode'],
  async run({ opts, session }) {
    return (await import('./auth.js')).status(opts, await session());
  },
});

export const AUTH_LOGOUT = command({
  path: 'auth logout',
  description: "remove the profile's token",
  flags: [],
  examples: ['lbrl auth logout --profile work'],
  async run({ session }) {
    return (await import('./auth.js')).logout(await session());
  },
});

export const CONFIG_GET = command({
  path: 'config get',
  description: 'print a setting',
  args: [KEY_ARG],
  flags: [],
  examples: ['lbrl config get network'],
  async run({ args: [key], session }) {
    return (await import('./config.js')).get(key, await session());
  },
});

export const CONFIG_SET = command({
  path: 'config set',
  description: 'change a setting (the value is checked)',
  args: [KEY_ARG, { name: '<value>', help: 'the new value', complete: 'config-value' }],
  flags: [],
  examples: ['lbrl config set network liquidtestnet --profile test', 'lbrl config set sandbox-autopay off'],
  async run({ args: [key, value], session }) {
    return (await import('./config.js')).set(key, value, (await session()).creatingProfile());
  },
});

export const CONFIG_UNSET = command({
  path: 'config unset',
  description: 'remove a setting',
  args: [KEY_ARG],
  flags: [],
  examples: ['lbrl config unset split-fee'],
  async run({ args: [key], session }) {
    return (await import('./config.js')).unset(key, await session());
  },
});

export const CONFIG_SET_BLINDING_KEY = command({
  path: 'config set-blinding-key',
  description: 'store a blinding key to unblind settlements (read from stdin or a hidden prompt)',
  flags: [
    { flags: '--address <liquid-address>', help: "the key is this address's (default: the whole wallet)" },
    { flags: '--clear', help: 'remove the stored keys (of --address, or all)' },
  ],
  examples: [
    '# a SLIP-77 master blinding key (Elements: dumpmasterblindingkey; Blockstream Green shows it)',
    'lbrl config set-blinding-key < master-blinding-key.txt',
    "# one address's key (Elements: dumpblindingkey <address>)",
    'elements-cli dumpblindingkey "$ADDR" | lbrl config set-blinding-key --address "$ADDR"',
    '# a CT descriptor: ct(slip77(<hex>),elwpkh(...))',
    'printf %s "$DESCRIPTOR" | lbrl config set-blinding-key',
  ],
  async run({ opts, session }) {
    return (await import('./config.js')).setBlindingKey(opts, await session());
  },
});

export const CONFIG_LIST = command({
  path: 'config list',
  description: "print the profile's settings",
  flags: [],
  examples: ['lbrl config list --json'],
  async run({ session }) {
    return (await import('./config.js')).list(await session());
  },
});

export const SANDBOX_SERVE = command({
  path: 'sandbox serve',
  description: 'run the sandbox as a standing HTTP server; prints its base URL and token',
  flags: [
    { flags: '--port <n>', help: 'port (0 picks a free one)', default: '0' },
    { flags: '--host <addr>', help: 'loopback address to listen on', default: '127.0.0.1' },
  ],
  examples: [
    'lbrl sandbox serve --port 8080 > sandbox.env &     # prints LBRL_BASE_URL=... and LBRL_TOKEN=...',
    'set -a; . ./sandbox.env; set +a; lbrl deposit create --amount 10 --to <address>',
  ],
  async run({ opts, session }) {
    return (await import('./sandbox.js')).serve(opts, await session());
  },
});

export const SANDBOX_PAY = command({
  path: 'sandbox pay',
  description: 'simulate the payer: the deposit moves on to FINALIZED',
  args: [ID_ARG],
  flags: [
    {
      flags: '--settle <how>',
      help: 'settle on the sandbox chain: ok (default), or wrongly: amount, asset, address, none',
      complete: ['ok', 'amount', 'asset', 'address', 'none'],
    },
  ],
  examples: [
    'lbrl sandbox pay <id> && lbrl deposit watch <id>',
    'lbrl sandbox pay <id> --settle amount    # one cent short on chain: deposit verify exits 1',
  ],
  async run({ opts, args: [id], session }) {
    return (await import('./sandbox.js')).pay(id, await session(), opts);
  },
});

export const SANDBOX_FAIL = command({
  path: 'sandbox fail',
  description: 'end a deposit that is not yet terminal in FAILED',
  args: [ID_ARG],
  flags: [],
  examples: ['lbrl sandbox fail <id>'],
  async run({ args: [id], session }) {
    return (await import('./sandbox.js')).fail(id, await session());
  },
});

export const COMPLETION = command({
  path: 'completion',
  description: 'print a shell completion script: source <(lbrl completion bash)',
  args: [{ name: '<shell>', help: 'bash, zsh or fish', complete: SHELLS }],
  flags: [],
  examples: ['source <(lbrl completion bash)      # in ~/.bashrc', 'lbrl completion fish | source'],
  async run({ args: [shell], ctx }) {
    const { script } = await import('./completion.js');
    ctx.stdout.write(script(shell));
  },
});

export const COMPLETE = command({
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
  async run({ args: [words], session }) {
    return (await import('./completion.js')).complete(words, COMMANDS, await session());
  },
});

/** A group: a word that only leads to its subcommands. */
function group(def: { path: string; description: string; examples?: readonly string[] }): CommandDef {
  return { ...def, flags: [], args: [] };
}

/** Groups: a word that only leads to its subcommands. */
export const GROUPS: readonly CommandDef[] = [
  group({
    path: 'deposit',
    description: 'create and follow deposits (PIX charges)',
    examples: [
      'lbrl deposit create --amount 15,50 --to <address>',
      'lbrl deposit watch <id> --timeout 10m',
      'lbrl deposit list --refresh',
    ],
  }),
  group({ path: 'auth', description: 'store, show and remove the access token' }),
  group({
    path: 'config',
    description: 'read and change profile settings',
    examples: ['lbrl config set default-address <address>', 'lbrl config list --profile work'],
  }),
  group({
    path: 'sandbox',
    description: 'the local sandbox of the service (no account, no real money)',
    examples: ['lbrl sandbox serve --port 8080', 'lbrl sandbox pay <id>'],
  }),
];

/**
 * Every command and group, in the order help lists them. (Each keeps its own types above; the
 * wiring sees them all as CommandDef and hands over commander's options as they are.)
 */
export const COMMANDS: readonly CommandDef[] = [
  PROGRAM,
  GROUPS[0]!,
  DEPOSIT_CREATE,
  DEPOSIT_GET,
  DEPOSIT_WATCH,
  DEPOSIT_VERIFY,
  DEPOSIT_LIST,
  GROUPS[1]!,
  AUTH_LOGIN,
  AUTH_STATUS,
  AUTH_LOGOUT,
  GROUPS[2]!,
  CONFIG_GET,
  CONFIG_SET,
  CONFIG_UNSET,
  CONFIG_SET_BLINDING_KEY,
  CONFIG_LIST,
  GROUPS[3]!,
  SANDBOX_SERVE,
  SANDBOX_PAY,
  SANDBOX_FAIL,
  COMPLETION,
  COMPLETE,
] as CommandDef[];

export type { Completion };

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when a global flag and GlobalOptions drift apart. */
export const GLOBALS_MATCH: Same<
  ProgramOptions,
  Required<GlobalOptions> extends infer R ? { [K in keyof R]?: R[K] } : never
> = true;

/** The options a command module reads that are not flags of its definition (never, when in step). */
type NotFlags<Declared, F extends readonly FlagDef[]> = Exclude<keyof Declared, keyof OptionsOf<F>>;

/** Fails to compile when a command module reads an option its definition does not have. */
export const OPTIONS_ARE_FLAGS: [
  NotFlags<CreateOptions, typeof DEPOSIT_CREATE.flags>,
  NotFlags<BatchOptions, typeof DEPOSIT_CREATE.flags>,
  NotFlags<GetOptions, typeof DEPOSIT_GET.flags>,
  NotFlags<WatchFlags, typeof DEPOSIT_WATCH.flags>,
  NotFlags<ListOptions, typeof DEPOSIT_LIST.flags>,
  NotFlags<LoginOptions, typeof AUTH_LOGIN.flags>,
  NotFlags<ServeOptions, typeof SANDBOX_SERVE.flags>,
] extends [never, never, never, never, never, never, never]
  ? true
  : false = true;
