/**
 * The help topics, as gh's `gh help environment`: `lbrl help exit-codes`, `lbrl help environment`,
 * `lbrl help json`. Each is a short text and a table; the terminal, docs/commands/lbrl-help-*.md,
 * the man pages and the generated blocks of docs/using.md and docs/scripting.md all come from here
 * (npm run build). The exit codes come from EXIT_CODES and EXIT_MEANINGS (errors.ts): no copy.
 */
import { EXIT_CODES, exitCodeTable } from '../../errors.js';
import { markdownHelp, plainText, roffHelp, roffText, terminalHelp, wrapWords } from './help-text.js';

export interface HelpTopic {
  readonly name: string;
  /** one line, as a command's description */
  readonly summary: string;
  /** long-help markup (help-text.ts) */
  readonly intro: string;
  readonly heads: readonly [string, string];
  readonly rows: readonly (readonly [string, string])[];
  readonly outro?: string;
}

const code = (texts: readonly string[]) => texts.map((text) => `\`${text}\``).join(', ');

function exitCodesTopic(): HelpTopic {
  return {
    name: 'exit-codes',
    summary: 'what each exit code of lbrl means',
    intro: `How a command ended is its exit code, the same for people and scripts. With --json, an error is also one line on stderr: \`{"error":{"type":"…","message":"…","exitCode":N}}\`; each code below lists the error types that end with it.`,
    heads: ['code', 'meaning'],
    rows: exitCodeTable().map((row) => [
      String(row.code),
      row.types.length > 0 ? `${row.meaning}. Error types: ${code(row.types)}.` : `${row.meaning}.`,
    ]),
  };
}

const ENVIRONMENT: HelpTopic = {
  name: 'environment',
  summary: 'the environment variables lbrl reads',
  intro:
    'A flag beats the environment, and the environment beats the profile. With neither a base URL nor a token known, lbrl serves itself from its embedded sandbox; with only one of the two it refuses (exit 2), never falling back to the sandbox.',
  heads: ['variable', 'meaning'],
  rows: [
    [
      'LBRL_TOKEN',
      "the access token; beats the profile's stored token (`auth login`), and is held to the same rules",
    ],
    ['LBRL_BASE_URL', "the service's base URL; beats the profile's, and `--base-url` beats it"],
    ['LBRL_PROFILE', 'the profile to use (else the one named "default"); `--profile` beats it'],
    [
      'LBRL_CONFIG_DIR',
      "the directory of the config file, the local history, the sandbox's data, the batch claims and the display's state (default `$XDG_CONFIG_HOME/lbrl`, else `~/.config/lbrl`)",
    ],
    [
      'LBRL_LEDGER_URL',
      "where the ledger is: `file` or a PostgreSQL URL (`postgres://user:password@host:port/db`); beats the profile's `ledger` setting; its password is a secret like the token",
    ],
    [
      'LBRL_LEASE_MS',
      'for tests: the length in milliseconds (50 to 600000) of every lease several hosts take in a database ledger (`watch --pending`, `listen`); by default 60 s and 15 s',
    ],
    ['PGPASSWORD', "the ledger database's password when its URL has none (libpq's convention); a secret"],
    [
      'PGHOST',
      "the ledger database's host when its URL names none (libpq's convention; a directory is a Unix socket)",
    ],
    ['PGPORT', "the ledger database's port when its URL names none (libpq's convention)"],
    ['PGUSER', "the ledger database's user when its URL names none (libpq's convention)"],
    ['PGDATABASE', "the ledger database's name when its URL names none (libpq's convention)"],
    [
      'PGSSLMODE',
      "the ledger database's `sslmode` when its URL has none: `disable`, `require`, `verify-ca` or `verify-full`",
    ],
    ['HOME', 'the home directory, under which `~/.config/lbrl` and `~/.cache/lbrl` are'],
    ['XDG_CONFIG_HOME', 'where the config directory is when `LBRL_CONFIG_DIR` is not set'],
    [
      'XDG_CACHE_HOME',
      'where the code cache is: `$XDG_CACHE_HOME/lbrl`, else `~/.cache/lbrl` (always safe to remove)',
    ],
    ['NO_COLOR', 'set and not empty: no colour (as `--no-color`)'],
    ['FORCE_COLOR', 'set, and not `0` or `false`: colour even in a pipe; it wins over the rest'],
    ['TERM', '`dumb`: no colour, no spinner, no counter view'],
    ['CI', 'set, and not empty, `false` or `0`: never prompt, never animate'],
    [
      'COLUMNS',
      "when stdout is not a terminal: the width `list`'s table, `report` and `reconcile` are laid out in (unset: no limit; a terminal's own width wins)",
    ],
    [
      'TZ',
      "the time zone of the times shown to people, of dates such as `--since 2026-11-20`, and of the report's days",
    ],
  ],
};

const JSON_SHAPES: HelpTopic = {
  name: 'json',
  summary: 'what --json prints, command by command',
  intro:
    "With --json, stdout is exactly one JSON document, or one JSON line per event (NDJSON) where the table says so; notes, progress and errors go to stderr. The service's objects are printed as the service returned them.",
  heads: ['command', 'stdout with `--json`'],
  rows: [
    [
      'deposit create',
      'the create answer as returned: `id, status, amount, amountInCents, feeAmount, netAmount, qrCode, qrCodeText, destinationAddress, splitAddress, splitPercent, createdAt` (and any field the service adds)',
    ],
    ['deposit create --dry-run', '`{"request": {"amountInCents": 150000, "lbrlAddress": "…"}}`'],
    [
      'deposit get',
      'the get answer as returned: the fields above without `qrCode`, plus `settlement` (`null` or `{liquidTxid, status}`) and `confirmedAt`',
    ],
    ['deposit watch', 'NDJSON: one get answer per observed status change'],
    ['deposit create --watch', 'NDJSON: the create answer, then the watch lines'],
    [
      'deposit create --from',
      'NDJSON in row order: `{"row":N,"deposit":{…}}`, `{"row":N,"error":{"type","message","exitCode"}}`, or with `--resume` `{"row":N,"deposit":{"id","status"},"resumed":true}`; with `--dry-run` `{"row":N,"request":{…}}`',
    ],
    [
      'deposit verify',
      '`{"deposits": [{id, status, outcome, txid, settledWith, report}]}`: `outcome` is `verified`, `unproven`, `pending`, `mismatch`, `not-settled` or `not-found`; `report` is `{txid, verdict, confirmations, requiredConfirmations, asset, checks, outputs}` (amounts in base units as strings; never a key or blinding factor)',
    ],
    [
      'deposit list',
      'an array, newest first: `{id, profile, baseUrl, at, amountInCents, destinationAddress, splitAddress, splitFee, status, statusAt, batchKey?, verifiedAt?, expiredAt?}` (`baseUrl` is `"sandbox"` for the sandbox; `status` is the service\'s last known, `expiredAt` says lbrl gave up on it)',
    ],
    [
      'deposit report',
      '`{profile, by, since, until, timeZone, periods: [{period, …sums}], total: {…sums}}`, the sums of docs/end-of-day.md',
    ],
    [
      'deposit reconcile',
      '`{"matched": [], "missing": [], "unmatched": [], "paidAfterExpiry": [], "unproven": [], "pending": [], "elsewhere": []}`, the entries of docs/end-of-day.md',
    ],
    [
      'auth status',
      '`{profile, mode, baseUrl, baseUrlSource, tokenSource, token (masked), network, configFile}`',
    ],
    ['config list', '`{profile, base-url, network, …, token: "set" or null}`'],
    ['any error', 'stderr, one line: `{"error":{"type":"usage","message":"…","exitCode":2}}`'],
  ],
  outro: `Error types: ${code(Object.keys(EXIT_CODES))} (\`endpoint\`: the base URL leads to something other than the Deposit service; \`unproven\` and \`settlement_pending\`: on-chain verification); \`lbrl help exit-codes\` gives the exit code of each.

Without --json and without a terminal, \`deposit list\` prints tab-separated lines with no header (\`id, created, amountInCents, destination, status\`, the status \`EXPIRED\` for a deposit lbrl gave up on), and \`watch\` one plain line per status change: \`2026-11-22T10:00:05Z  <id>  WAITING_PAYMENT -> PIX_CONFIRMED\`.`,
};

/** Every help topic, in the order help lists them. */
export function helpTopics(): HelpTopic[] {
  return [ENVIRONMENT, exitCodesTopic(), JSON_SHAPES];
}

/** A table's rows for the terminal: a narrow key beside its text, a wide one above it. */
function terminalRows(topic: HelpTopic, width: number): string {
  const keyWidth = Math.max(...topic.rows.map(([key]) => key.length));
  if (keyWidth <= 16) {
    const indent = ' '.repeat(keyWidth + 4);
    return topic.rows
      .map(([key, text]) =>
        wrapWords(plainText(text), width, `  ${key.padEnd(keyWidth)}  `, indent).join('\n'),
      )
      .join('\n');
  }
  return topic.rows
    .map(([key, text]) => [`  ${key}`, ...wrapWords(plainText(text), width, '      ')].join('\n'))
    .join('\n');
}

/** `lbrl help <topic>` as the terminal shows it. */
export function topicTerminal(topic: HelpTopic, width = 80): string {
  const parts = [terminalHelp(topic.intro, width), terminalRows(topic, width)];
  if (topic.outro) parts.push(terminalHelp(topic.outro, width));
  return `${parts.join('\n\n')}\n`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The topic's table in Markdown (what docs/using.md and docs/scripting.md embed). */
export function topicTableMarkdown(topic: HelpTopic): string {
  // a variable or a command as code; a code number, or "any error", as it is
  const key = (text: string) => (/^\d+$|^any /.test(text) ? text : `\`${text}\``);
  return [
    `| ${topic.heads[0]} | ${topic.heads[1]} |`,
    '|---|---|',
    ...topic.rows.map(([k, text]) => `| ${key(k)} | ${cell(text)} |`),
  ].join('\n');
}

/** The topic as Markdown: its text, its table, what follows. */
export function topicMarkdown(topic: HelpTopic): string {
  const parts = [markdownHelp(topic.intro), topicTableMarkdown(topic)];
  if (topic.outro) parts.push(markdownHelp(topic.outro));
  return parts.join('\n\n');
}

/** The topic as roff: its text, its table as tagged paragraphs. */
export function topicRoff(topic: HelpTopic): string {
  const rows = topic.rows.map(([key, text]) => `.TP\n.B ${roffText(key)}\n${roffText(text)}`);
  return [roffHelp(topic.intro), ...rows, ...(topic.outro ? [roffHelp(topic.outro)] : [])].join('\n');
}
