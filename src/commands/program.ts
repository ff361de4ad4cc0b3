/**
 * The program itself (its global flags, its help) and the groups, the words that only lead to
 * their subcommands. Like every command module, it exports its `definitions`.
 */
import type { GlobalOptions } from '../factory/factory.js';
import type { FlagDef } from './define.js';
import { command, group, listed, type OptionsOf } from './define.js';

/** The program's own flags: every command takes them. */
const PROGRAM_FLAGS = [
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
] as const satisfies readonly FlagDef[];

const LQ_EXAMPLE =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';

export const PROGRAM = command({
  rank: 0,
  path: '',
  description:
    'Create PIX charges settled in a BRL-pegged asset on the Liquid Network, and follow them until done.',
  long: `lbrl creates PIX charges (Brazil's instant payments) that the Deposit service settles by sending a BRL-pegged asset on the Liquid Network to your Liquid address, and follows them until they are done. With no base URL and no token it serves itself from an embedded sandbox of the service: no account, no real money.

Live when a base URL and a token are both known (a flag, then the environment, then the profile); only one of the two is a usage error, never a silent fall back to the sandbox. stdout carries the result and nothing else; with --json it is exactly one JSON document (lbrl help json). The exit code says how a command ended (lbrl help exit-codes); the variables lbrl reads are in lbrl help environment.`,
  flags: PROGRAM_FLAGS,
  examples: [
    `lbrl deposit create --amount 1500 --to ${LQ_EXAMPLE} --watch`,
    '# CI: no config file needed, never prompts',
    'LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit get "$ID" --json | jq -r .status',
  ],
});

export const DEPOSIT_GROUP = group({
  rank: 10,
  path: 'deposit',
  description: 'create and follow deposits (PIX charges)',
  long: `A deposit is a PIX charge: \`create\` makes one and prints its QR code, \`get\`, \`watch\` and \`list\` follow it, \`verify\` proves its settlement on chain, and \`report\` and \`reconcile\` answer the questions of the end of the day from the local history, which \`create\` and \`watch\` keep.`,
  examples: [
    'lbrl deposit create --amount 15,50 --to <address>',
    'lbrl deposit watch <id> --timeout 10m',
    'lbrl deposit list --refresh',
  ],
});

export const AUTH_GROUP = group({
  rank: 90,
  path: 'auth',
  description: 'store, show and remove the access token',
  long: `The token and the base URL of the live service are kept per profile in the config file (mode 0600). \`LBRL_TOKEN\` and \`LBRL_BASE_URL\` beat what the profile holds. The token is never printed, except by \`auth status --show-token\`.`,
  examples: [
    'lbrl auth login --base-url https://pay.example.com --with-token < token.txt',
    'lbrl auth status --profile shop',
  ],
});

export const CONFIG_GROUP = group({
  rank: 130,
  path: 'config',
  description: 'read and change profile settings',
  long: `The settings of a profile (\`--profile\`, \`LBRL_PROFILE\`, else "default") live in \`config.json\` in the config directory: \`base-url\`, \`network\`, \`default-address\`, \`split-address\`, \`split-fee\`, \`sandbox-autopay\`, \`qr-style\`, the settings of verification on chain (\`esplora-url\`, \`asset-id\`, \`asset-precision\`, \`confirmations\`, \`verify\`) and of the day's trade (\`expire-after\`, \`requests-per-minute\`, \`shop-name\`). \`config set\` checks every value, and every command that reads one checks it again. The token is set only by \`auth login\`, blinding keys only by \`config set-blinding-key\`.`,
  examples: ['lbrl config set default-address <address>', 'lbrl config list --profile work'],
});

export const SANDBOX_GROUP = group({
  rank: 190,
  path: 'sandbox',
  description: 'the local sandbox of the service (no account, no real money)',
  long: `The sandbox implements the Deposit service's API with no bank behind it: its copy-paste strings are well-formed PIX BR Codes that no bank can pay, every deposit carries \`"sandbox": true\`, and payments are simulated (by itself \`sandbox-autopay\` seconds after creation, 5 by default, or with \`sandbox pay\`). lbrl uses it embedded when no base URL and no token are known; \`sandbox serve\` runs it for other programs. Its data is under the config directory, shared by every process.`,
  examples: ['lbrl sandbox serve --port 8080', 'lbrl sandbox pay <id>'],
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(PROGRAM, DEPOSIT_GROUP, AUTH_GROUP, CONFIG_GROUP, SANDBOX_GROUP);

/** The factory's GlobalOptions are exactly the program's flags. */
export type ProgramOptions = Omit<OptionsOf<typeof PROGRAM_FLAGS>, 'version'>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when a global flag and GlobalOptions drift apart. */
export const GLOBALS_MATCH: Same<
  ProgramOptions,
  Required<GlobalOptions> extends infer R ? { [K in keyof R]?: R[K] } : never
> = true;
