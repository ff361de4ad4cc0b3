/**
 * The flags of every command, as data: commander's syntax, help, what each value completes to.
 * Each command module defines its command from these (and its handler), and takes its option
 * types from them (`OptionsOf<typeof CREATE_FLAGS>`), so a flag is declared once. This
 * module imports no command module: any of them may import it. Plain data, cheap to load.
 */
import { centsToDecimalText, MAX_CENTS, MIN_CENTS } from '../domain/money.js';
import type { SettleMode } from '../sandbox/chain.js';
import type { FlagDef, OptionsOf } from './define.js';

export const QR_STYLES = ['dark', 'light'] as const;
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
/**
 * How `sandbox pay --settle` may make the sandbox settle: the sandbox chain's own modes, written
 * here as data so that loading the flags does not load the chain; the compiler keeps them equal.
 */
export const SETTLE_CHOICES = [
  'ok',
  'amount',
  'asset',
  'address',
  'none',
] as const satisfies readonly SettleMode[];
type MissingSettleMode = Exclude<SettleMode, (typeof SETTLE_CHOICES)[number]>;
export const SETTLE_CHOICES_COMPLETE: [MissingSettleMode] extends [never] ? true : never = true;

const QR_STYLE = {
  flags: '--qr-style <style>',
  help: 'dark (light text on a dark terminal, the default) or light',
  complete: QR_STYLES,
} as const;

/** verify and watch --verify: a deposit lbrl has no record of may pay addresses the profile does not know. */
const TRUST_SERVICE_ADDRESS = {
  flags: '--trust-service-address',
  help: "accept the service's addresses for a deposit with no local record, even if none is the profile's",
} as const;

/** The program's own flags: every command takes them. */
export const PROGRAM_FLAGS = [
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

export const CREATE_FLAGS = [
  {
    flags: '--amount <reais>',
    help: `amount in reais: 1500, 15.5 or 15,50 (${centsToDecimalText(MIN_CENTS)} to ${centsToDecimalText(MAX_CENTS)})`,
  },
  { flags: '--amount-cents <n>', help: `amount in cents (${MIN_CENTS} to ${MAX_CENTS})` },
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
    flags: '--display',
    help: "show the charge on the profile's running customer display (lbrl display)",
  },
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
] as const satisfies readonly FlagDef[];

/**
 * `deposit create`'s flags as commander parses them: the create command takes them all, and
 * `deposit create --from` (deposit-batch.ts) the few a batch reads.
 */
export type CreateFlags = OptionsOf<typeof CREATE_FLAGS>;

export const GET_FLAGS = [
  { flags: '--qr', help: 'draw the QR code and print the copy-paste string' },
  { flags: '--qr-png <file>', help: 'write the QR code as a PNG file', complete: 'files' },
  QR_STYLE,
] as const satisfies readonly FlagDef[];

export const WATCH_FLAGS = [
  {
    flags: '--pending',
    help: 'watch the deposits in the local history not yet FINALIZED, FAILED or expired (expire-after)',
  },
  { flags: '--include-expired', help: 'with --pending: follow the deposits recorded EXPIRED too' },
  { flags: '--interval <seconds>', help: 'seconds between polls of a deposit (at least 1)' },
  { flags: '--timeout <duration>', help: 'give up (exit 124) after 90, 90s, 10m or 1h' },
  {
    flags: '--verify',
    help: 'done only once the settlement is verified on chain (1 mismatch, 7 unproven)',
  },
  { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  TRUST_SERVICE_ADDRESS,
] as const satisfies readonly FlagDef[];

export const LIST_STATUSES = [
  'WAITING_PAYMENT',
  'PIX_CONFIRMED',
  'SETTLEMENT_CREATED',
  'TX_SENT',
  'FINALIZED',
  'FAILED',
  'EXPIRED',
  'GONE',
] as const;

const SINCE = {
  flags: '--since <when>',
  help: 'created at or after: a date (2026-11-20, local), a time with offset, or a span back (7d, 12h)',
} as const;
const UNTIL = {
  flags: '--until <when>',
  help: 'created before: a date (2026-11-21 means up to its start), a time with offset, or a span back',
} as const;

export const VERIFY_FLAGS = [TRUST_SERVICE_ADDRESS] as const satisfies readonly FlagDef[];

export const LIST_FLAGS = [
  { flags: '--refresh', help: 'ask the service for the status of those not yet FINALIZED or FAILED' },
  { flags: '--limit <n>', help: 'at most this many (default 30)' },
  {
    flags: '--status <status>',
    help: 'only this status (repeat, or a comma list): WAITING_PAYMENT ... FAILED, EXPIRED, GONE',
    complete: LIST_STATUSES,
    repeatable: true,
  },
  SINCE,
  UNTIL,
  { flags: '--verified', help: 'only those whose settlement was verified on chain' },
  { flags: '--unverified', help: 'only those not (yet) verified on chain' },
] as const satisfies readonly FlagDef[];

export const REPORT_FLAGS = [
  SINCE,
  UNTIL,
  {
    flags: '--by <period>',
    help: 'one row per day (the default) or month, in local time',
    complete: ['day', 'month'],
  },
  { flags: '--csv', help: 'CSV (RFC 4180, dot decimal) on stdout' },
  { flags: '--csv-br', help: 'CSV for a Brazilian spreadsheet: ; separated, comma decimal' },
] as const satisfies readonly FlagDef[];

export const RECONCILE_FLAGS = [SINCE] as const satisfies readonly FlagDef[];

export const SEND_FLAGS = [
  { flags: '--to <liquid-address>', help: 'the address paid on the sandbox chain' },
  { flags: '--amount <reais>', help: 'the amount sent, in reais (0.01 to 6000.00)' },
] as const satisfies readonly FlagDef[];

export const LOGIN_FLAGS = [
  { flags: '--with-token', help: 'read the token from stdin' },
  { flags: '--no-verify', help: 'save without checking the token against the service' },
] as const satisfies readonly FlagDef[];

export const STATUS_FLAGS = [
  { flags: '--show-token', help: 'print the token itself' },
] as const satisfies readonly FlagDef[];

export const BLINDING_KEY_FLAGS = [
  { flags: '--address <liquid-address>', help: "the key is this address's (default: the whole wallet)" },
  { flags: '--clear', help: 'remove the stored keys (of --address, or all)' },
] as const satisfies readonly FlagDef[];

export const SERVE_FLAGS = [
  { flags: '--port <n>', help: 'port (0 picks a free one)', default: '0' },
  { flags: '--host <addr>', help: 'loopback address to listen on', default: '127.0.0.1' },
] as const satisfies readonly FlagDef[];

export const DISPLAY_LANGS = ['pt', 'en'] as const;

export const DISPLAY_FLAGS = [
  { flags: '--port <n>', help: 'port (default: the one this display used last, else a free one)' },
  {
    flags: '--host <addr>',
    help: 'address to listen on (default 127.0.0.1; 0.0.0.0 opens it to the local network)',
  },
  { flags: '--lang <lang>', help: 'the page in pt (Portuguese, the default) or en', complete: DISPLAY_LANGS },
  { flags: '--new-key', help: 'a new key in the URL: pages opened with the old one stop working' },
  { flags: '--verify', help: 'say "confirmed on the blockchain" once the settlement is verified' },
  { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  QR_STYLE,
] as const satisfies readonly FlagDef[];

export const PAY_FLAGS = [
  {
    flags: '--settle <how>',
    help: 'settle on the sandbox chain: ok (default), or wrongly: amount, asset, address, none',
    complete: SETTLE_CHOICES,
  },
] as const satisfies readonly FlagDef[];

export const LISTEN_FLAGS = [
  { flags: '--forward-to <url>', help: 'POST each event here (https://, or http:// on loopback)' },
  {
    flags: '--events <types>',
    help: 'only these event types, comma-separated (deposit.created,deposit.finalized,...)',
  },
  { flags: '--interval <seconds>', help: 'seconds between polls of a deposit (at least 1, default 3)' },
  {
    flags: '--verify',
    help: 'check each FINALIZED settlement on chain: deposit.verified or deposit.mismatch',
  },
  { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  { flags: '--print-secret', help: "print the profile's webhook signing secret (whsec_...) and exit" },
  { flags: '--replay <event-id>', help: 'send one event of the outbox again to --forward-to, and exit' },
] as const satisfies readonly FlagDef[];

/** The stories `sandbox trigger` tells. */
export const TRIGGER_SCENARIOS = ['paid', 'failed', 'paid-slowly', 'wrong-settlement', 'abandoned'] as const;

export const TRIGGER_FLAGS = [
  {
    flags: '--to <liquid-address>',
    help: "destination Liquid address (default: the profile's default-address, else a sandbox address)",
  },
  { flags: '--amount <reais>', help: 'amount in reais (default 10.00)' },
] as const satisfies readonly FlagDef[];

/** The argument of the commands that take one deposit. */
export const ID_ARG = { name: '<id>', help: 'deposit id', complete: 'ids' } as const;
