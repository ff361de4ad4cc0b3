/**
 * Every command of lbrl, defined once: its flags (from flags.ts, whence the command modules take
 * their option types too), arguments, help, examples, conflicts, what each value completes to,
 * and the handler, which imports its command module only when it runs.
 * Plain data, cheap to load: start-up reads it for every command.
 */
import type { GlobalOptions } from '../session.js';
import { CONFIG_KEYS } from '../store/config.js';
import { type CommandDef, command, type OptionsOf } from './define.js';
import {
  BLINDING_KEY_FLAGS,
  CREATE_FLAGS,
  DISPLAY_FLAGS,
  GET_FLAGS,
  LIST_FLAGS,
  LISTEN_FLAGS,
  LOGIN_FLAGS,
  PAY_FLAGS,
  PROGRAM_FLAGS,
  RECONCILE_FLAGS,
  REPORT_FLAGS,
  SEND_FLAGS,
  SERVE_FLAGS,
  SHELLS,
  STATUS_FLAGS,
  TRIGGER_FLAGS,
  TRIGGER_SCENARIOS,
  VERIFY_FLAGS,
  WATCH_FLAGS,
} from './flags.js';

const LQ_EXAMPLE =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

const ID_ARG = { name: '<id>', help: 'deposit id', complete: 'ids' } as const;
const KEY_ARG = { name: '<key>', help: CONFIG_KEYS.join(', '), complete: 'config-keys' } as const;

export const PROGRAM = command({
  path: '',
  description:
    'Create PIX charges settled in a BRL-pegged asset on the Liquid Network, and follow them until done.',
  flags: PROGRAM_FLAGS,
  examples: [
    `lbrl deposit create --amount 1500 --to ${LQ_EXAMPLE} --watch`,
    '# CI: no config file needed, never prompts',
    'LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit get "$ID" --json | jq -r .status',
  ],
});

/** The Session's GlobalOptions are exactly the program's flags. */
export type ProgramOptions = Omit<OptionsOf<typeof PROGRAM_FLAGS>, 'version'>;

/** What only a single create takes, with --from: each kind refused with the reason it does not apply. */
const FROM_VALUES = ['amount', 'amountCents', 'to', 'splitTo', 'splitFee'];
const FROM_WATCH = ['watch', 'interval', 'timeout', 'verify'];
const FROM_QR = ['qrPng', 'qrStyle', 'display'];

export const DEPOSIT_CREATE = command({
  path: 'deposit create',
  description: 'create a PIX charge paid out to a Liquid address',
  flags: CREATE_FLAGS,
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
  flags: GET_FLAGS,
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
  flags: WATCH_FLAGS,
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
  flags: VERIFY_FLAGS,
  examples: [
    'lbrl deposit verify <id>',
    'lbrl config set-blinding-key < blinding-key.txt    # to check confidential amounts',
    'lbrl deposit verify <id> --json | jq -r .deposits[0].outcome',
    '# exit codes: 0 verified, 1 mismatch, 4 unknown id, 6 explorer unreachable, 7 unproven, 8 pending',
  ],
  async run({ opts, args: [ids], session }) {
    return (await import('./deposit-verify.js')).run(ids, opts, await session());
  },
});

export const DEPOSIT_LIST = command({
  path: 'deposit list',
  description: 'the deposits this machine created, newest first, with their last known status',
  flags: LIST_FLAGS,
  examples: [
    'lbrl deposit list',
    'lbrl deposit list --status EXPIRED --since 7d',
    'lbrl deposit list --status FINALIZED --unverified --since 2026-11-01 --until 2026-12-01',
    'lbrl deposit list --refresh --json | jq -r \'.[] | select(.status != "FINALIZED") | .id\'',
  ],
  async run({ opts, session }) {
    return (await import('./deposit-list.js')).run(opts, await session());
  },
});

export const DEPOSIT_REPORT = command({
  path: 'deposit report',
  description: 'the sums of the day (or month): charged, paid, fees, net, split, verified on chain',
  flags: REPORT_FLAGS,
  examples: [
    'lbrl deposit report --since 7d',
    'lbrl deposit report --by month --since 2026-01-01 --csv-br > vendas.csv',
    "lbrl deposit report --since 1d --json | jq '.total.netCents'",
  ],
  async run({ opts, session }) {
    return (await import('./deposit-report.js')).run(opts, await session());
  },
});

export const DEPOSIT_RECONCILE = command({
  path: 'deposit reconcile',
  description: "check what the profile's addresses received on chain against the finalized deposits",
  flags: RECONCILE_FLAGS,
  examples: [
    'lbrl deposit reconcile --since 1d',
    "lbrl deposit reconcile --json | jq '.unmatched'",
    '# exit codes: 0 everything matches, 1 something missing, unmatched or paid after expiry, 6 explorer unreachable',
  ],
  async run({ opts, session }) {
    return (await import('./deposit-reconcile.js')).run(opts, await session());
  },
});

export const AUTH_LOGIN = command({
  path: 'auth login',
  description: 'save a base URL and token in the profile (checked with a harmless request)',
  flags: LOGIN_FLAGS,
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
  flags: STATUS_FLAGS,
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
  description: 'print the value in force of a setting (where it comes from on stderr)',
  args: [KEY_ARG],
  flags: [],
  examples: ['lbrl config get network', 'lbrl config get esplora-url --json'],
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
  flags: BLINDING_KEY_FLAGS,
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
  flags: SERVE_FLAGS,
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
  flags: PAY_FLAGS,
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

export const SANDBOX_SEND = command({
  path: 'sandbox send',
  description: 'pay an address on the sandbox chain, matching no deposit (what reconcile reports)',
  flags: SEND_FLAGS,
  examples: ['lbrl sandbox send --to <address> --amount 12,34 && lbrl deposit reconcile'],
  async run({ opts, session }) {
    return (await import('./sandbox.js')).send(opts, await session());
  },
});

export const DISPLAY = command({
  path: 'display',
  description: "serve a screen that faces the customer: the waiting charge's QR code and amount, then Pago!",
  flags: DISPLAY_FLAGS,
  examples: [
    'lbrl display                      # this machine only; prints the URL (with its key) and its QR code',
    "lbrl display --host 0.0.0.0       # for a tablet on the shop's network: scan the QR code it prints",
    'lbrl config set shop-name "Padaria Central"',
    'lbrl deposit create --amount 15,50 --display',
  ],
  async run({ opts, session }) {
    return (await import('./display.js')).run(opts, await session());
  },
});

export const SANDBOX_TRIGGER = command({
  path: 'sandbox trigger',
  description: 'create a sandbox deposit and walk it through a story, for listen and your receiver',
  args: [{ name: '<scenario>', help: TRIGGER_SCENARIOS.join(', '), complete: TRIGGER_SCENARIOS }],
  flags: TRIGGER_FLAGS,
  examples: [
    'lbrl sandbox trigger paid               # created, pix_confirmed ... finalized',
    'lbrl sandbox trigger wrong-settlement   # with lbrl listen --verify: deposit.mismatch',
  ],
  async run({ opts, args: [scenario], session }) {
    return (await import('./sandbox-trigger.js')).run(scenario, opts, await session());
  },
});

export const LISTEN = command({
  path: 'listen',
  description: "send the profile's deposit events to a URL as signed webhooks (Standard Webhooks)",
  flags: LISTEN_FLAGS,
  examples: [
    'lbrl listen --forward-to http://localhost:4242/webhooks',
    'export LBRL_WEBHOOK_SECRET="$(lbrl listen --print-secret)"',
    'lbrl listen --forward-to https://shop.example/hooks --events deposit.finalized,deposit.failed --verify',
    'lbrl listen --forward-to http://localhost:4242/webhooks --replay evt_...',
  ],
  conflicts: [
    {
      when: { set: 'printSecret' },
      forbids: ['forwardTo', 'events', 'interval', 'verify', 'replay'],
      message: (flags) => `--print-secret prints the secret alone: leave out ${flags.join(', ')}`,
    },
    {
      when: { set: 'replay' },
      forbids: ['events', 'interval', 'verify'],
      message: (flags) => `--replay sends one event: leave out ${flags.join(', ')}`,
    },
  ],
  async run({ opts, session }) {
    return (await import('./listen.js')).run(opts, await session());
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

export const DEPOSIT_GROUP = group({
  path: 'deposit',
  description: 'create and follow deposits (PIX charges)',
  examples: [
    'lbrl deposit create --amount 15,50 --to <address>',
    'lbrl deposit watch <id> --timeout 10m',
    'lbrl deposit list --refresh',
  ],
});
export const AUTH_GROUP = group({ path: 'auth', description: 'store, show and remove the access token' });
export const CONFIG_GROUP = group({
  path: 'config',
  description: 'read and change profile settings',
  examples: ['lbrl config set default-address <address>', 'lbrl config list --profile work'],
});
export const SANDBOX_GROUP = group({
  path: 'sandbox',
  description: 'the local sandbox of the service (no account, no real money)',
  examples: ['lbrl sandbox serve --port 8080', 'lbrl sandbox pay <id>'],
});

/**
 * Every command and group, in the order help lists them. (Each keeps its own types above; the
 * wiring sees them all as CommandDef and hands over commander's options as they are.)
 */
export const COMMANDS: readonly CommandDef[] = [
  PROGRAM,
  DEPOSIT_GROUP,
  DEPOSIT_CREATE,
  DEPOSIT_GET,
  DEPOSIT_WATCH,
  DEPOSIT_VERIFY,
  DEPOSIT_LIST,
  DEPOSIT_REPORT,
  DEPOSIT_RECONCILE,
  AUTH_GROUP,
  AUTH_LOGIN,
  AUTH_STATUS,
  AUTH_LOGOUT,
  CONFIG_GROUP,
  CONFIG_GET,
  CONFIG_SET,
  CONFIG_UNSET,
  CONFIG_SET_BLINDING_KEY,
  CONFIG_LIST,
  SANDBOX_GROUP,
  SANDBOX_SERVE,
  SANDBOX_PAY,
  SANDBOX_FAIL,
  SANDBOX_SEND,
  DISPLAY,
  SANDBOX_TRIGGER,
  LISTEN,
  COMPLETION,
  COMPLETE,
] as CommandDef[];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when a global flag and GlobalOptions drift apart. */
export const GLOBALS_MATCH: Same<
  ProgramOptions,
  Required<GlobalOptions> extends infer R ? { [K in keyof R]?: R[K] } : never
> = true;
