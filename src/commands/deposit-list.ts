import type { Context } from '../context.js';
import { listEntries, type RefusedAnswer, refreshEntries } from '../deposits/history.js';
import { createdFilter, entryFilter, type LedgerFilter, shownStatus } from '../deposits/ledger.js';
import type { DepositApi, Recorder, Target } from '../deposits/ports.js';
import { targetKey } from '../deposits/ports.js';
import { formatCents } from '../domain/money.js';
import { REF_MAX, readLocalText } from '../domain/text/reference.js';
import { safeText } from '../domain/text/safe-text.js';
import { parseWholeNumber, STATUSES } from '../domain/values.js';
import { invalidValue, LbrlError, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { settingOf } from '../factory/settings.js';
import type { History } from '../store/history.js';
import type { HistoryEntry } from '../store/history-records.js';
import { outputColumns } from '../ui/fit.js';
import { colorStatus } from '../ui/status-color.js';
import { localClock, offsetText, timeZoneOf, zoneOffsetMs } from '../ui/zone-time.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { expireAfterMs, reportPaidAfterExpiry } from './shared/expiry.js';
import { SINCE, UNTIL } from './shared/flag-parts.js';
import {
  ALL_SERVICES,
  coverage,
  type HistoryOutputOptions,
  historyOutputOf,
  serviceShown,
} from './shared/history-output.js';
import { parseSpan } from './shared/when.js';

/** The service's statuses, and the two lbrl records of its own: EXPIRED (expire-after) and GONE (a 404). */
const LIST_STATUSES = [...STATUSES, 'EXPIRED', 'GONE'] as const;

const LIST_FLAGS = [
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
  ALL_SERVICES,
  { flags: '--ref <text>', help: 'only those created with this reference (exactly)' },
] as const satisfies readonly FlagDef[];

export type ListOptions = OptionsOf<typeof LIST_FLAGS>;

function shorten(text: string, width: number): string {
  if (text.length <= width) return text;
  const head = Math.ceil((width - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (width - 1 - head))}`;
}

/** --status values: repeated or comma separated, any case; each must be a status lbrl knows. */
function parseStatuses(values: string[] | undefined): Set<string> | undefined {
  if (!values) return undefined;
  const out = new Set<string>();
  for (const value of values)
    for (const part of value.split(',')) {
      const status = part.trim().toUpperCase();
      if (!(LIST_STATUSES as readonly string[]).includes(status))
        throw invalidValue('--status', part, `one of ${LIST_STATUSES.join(', ')}`);
      out.add(status);
    }
  return out;
}

/**
 * All `deposit list` needs (gh's Options struct): the factory's getters fill it in (`listOptionsOf`); a
 * test hands a history on plain records, a fake client, a clock and a printer on plain strings.
 */
export interface ListCommandOptions extends HistoryOutputOptions<Pick<History, 'entries' | 'file'>> {
  flags: ListOptions;
  /** --refresh: asks the service, records the answers */
  refresh: {
    /** where requests go, as the history records it (throws when the target is configured by half) */
    targetKey(): string;
    /** the service's client, made only when a deposit is still open */
    client(): Promise<DepositApi>;
    recorder: Recorder;
    /** the profile's expire-after, checked as it is read */
    expireAfterMs(): number;
    /** a deposit recorded expired was found paid: said loudly */
    paidAfterExpiry(id: string, status: string, expiredAt: string): void;
  };
  /** where an empty list says it looked: the ledger (its URL without the password) for a database; the file when not given */
  ledgerShown?(): string | undefined;
}

/** The factory's getters, narrowed to what `deposit list` uses. */
export function listOptionsOf(flags: ListOptions, factory: Factory): ListCommandOptions {
  let target: Target | undefined;
  const chosen = () => (target ??= factory.target());
  const alarmOutput = { printer: factory.printer, globals: factory.globals, ctx: factory.ctx };
  return {
    flags,
    ...historyOutputOf(factory),
    refresh: {
      targetKey: () => targetKey(chosen()),
      client: () => factory.client(chosen()),
      recorder: factory.ledger(),
      expireAfterMs: () => expireAfterMs({ setting: (key) => settingOf(factory.profile(), key) }),
      paidAfterExpiry: (id, status, expiredAt) => reportPaidAfterExpiry(alarmOutput, id, status, expiredAt),
    },
    ledgerShown: () => {
      const setting = factory.ledger().setting();
      return setting.kind === 'postgres' ? `the ledger at ${setting.shown}` : undefined;
    },
  };
}

export function ledgerFilter(
  opts: ListOptions,
  world: { profileName: string; ctx: Pick<Context, 'now' | 'env'>; service?(): string },
): LedgerFilter {
  if (opts.verified && opts.unverified) throw usageError('--verified and --unverified cannot go together');
  let ref: string | undefined;
  if (opts.ref !== undefined) {
    const read = readLocalText(opts.ref, REF_MAX);
    if (!read.ok) throw invalidValue('--ref', opts.ref, read.expected);
    ref = read.value;
  }
  return {
    ref,
    profile: world.profileName,
    baseUrl: serviceShown(world, opts.allServices),
    ...parseSpan(opts, world),
    statuses: parseStatuses(opts.status),
    verified: opts.verified ? true : opts.unverified ? false : undefined,
  };
}

/** The deposits recorded, newest first, filtered; with --refresh, their status asked again. */
export async function runList(options: ListCommandOptions): Promise<void> {
  const opts = options.flags;
  let limit = 30;
  if (opts.limit !== undefined) {
    const parsed = parseWholeNumber(opts.limit, 1, 10_000);
    if (!parsed.ok) throw invalidValue('--limit', opts.limit, parsed.expected);
    limit = parsed.value;
  }
  const filter = ledgerFilter(opts, options);
  const where = entryFilter(filter);
  const history = await options.history();
  const entries = where
    ? history.entries(createdFilter(filter), { limit, where })
    : filter.since !== undefined ||
        filter.until !== undefined ||
        filter.baseUrl !== undefined ||
        filter.ref !== undefined
      ? history.entries(createdFilter(filter), { limit })
      : listEntries(history, options.profileName, limit);
  if (options.service && !options.json)
    options.printer.infoFitted(`deposits of ${coverage(options.profileName, filter.baseUrl)}`);
  let refused: RefusedAnswer[] = [];
  if (opts.refresh) {
    const refresh = options.refresh;
    const target = refresh.targetKey();
    refused = await refreshEntries(entries, {
      api: () => refresh.client(),
      target,
      recorder: refresh.recorder,
      now: options.ctx.now,
      notes: options.printer,
      expireAfterMs: refresh.expireAfterMs(),
      paidAfterExpiry: (e, status) => refresh.paidAfterExpiry(e.id, status, e.expiredAt!),
    });
  }
  const refusedById = new Map(refused.map((r) => [r.id, r.error.message]));
  const filtered =
    Boolean(where) || filter.since !== undefined || filter.until !== undefined || filter.ref !== undefined;
  const file = options.ledgerShown?.() ?? history.file;
  printEntries(entries, options, { filtered, file, refused: refusedById });
  if (refused.length > 0) {
    // every deposit was shown; the run still fails: an answer was a lie
    throw new LbrlError(
      `${refused.length} deposit(s) answered with what lbrl refuses (shown ${REFUSED}, last known status kept, nothing recorded): ${refused.map((r) => r.id).join(', ')}`,
      refused.some((r) => r.error.type === 'mismatch') ? 'mismatch' : 'contract',
    );
  }
}

/** What a refused answer's deposit shows for its status. */
const REFUSED = 'ANSWER_REFUSED';

/** The entries as JSON, tab-separated lines in a pipe, or a table on a terminal. */
function printEntries(
  entries: HistoryEntry[],
  options: ListCommandOptions,
  how: { filtered: boolean; file: string; refused: ReadonlyMap<string, string> },
): void {
  const printer = options.printer;
  if (options.json) {
    // what the checks keep (the create answer's fields, a final answer's settlement) is not shown
    printer.json(
      entries.map(({ v: _v, type: _t, answer: _a, final: _f, ...rest }) =>
        how.refused.has(rest.id) ? { ...rest, answerRefused: how.refused.get(rest.id) } : rest,
      ),
    );
    return;
  }
  if (entries.length === 0) {
    printer.infoFitted(
      `no deposits recorded for profile ${options.profileName}${how.filtered ? ' that match' : ''} in ${how.file}`,
    );
    return;
  }
  if (!printer.stdoutIsTTY) {
    // gh's convention for pipes: tab-separated, no header, full values (times in UTC, as scripts
    // read them); a reference as a sixth field when the deposit has one, so the five stay where they were
    // --all-services: each deposit's service as the sixth field (then the reference), so no
    // sandbox charge in a pipe is read as money received
    for (const entry of entries)
      printer.out(
        [
          entry.id,
          entry.at,
          entry.amountInCents,
          entry.destinationAddress,
          how.refused.has(entry.id) ? REFUSED : shownStatus(entry),
        ]
          .concat(options.flags.allServices ? [entry.baseUrl] : [])
          .concat(entry.ref !== undefined ? [entry.ref] : [])
          .map((x) => safeText(String(x)))
          .join('\t'),
      );
    return;
  }
  // a terminal (a pipe got the lines above): its width, 80 when it says none (ui/fit.ts outputColumns)
  for (const line of table(entries, options, outputColumns(options.ctx.stdout, options.ctx.env), how.refused))
    printer.out(line);
}

interface Column {
  header: string;
  cells: string[];
  align?: 'right';
  /** the least useful go first when the terminal is narrow */
  drop: number;
  /** the narrowest it may be made, shortening its cells; its full width when not given */
  min?: number;
  color?: boolean;
}

/**
 * The table a terminal shows: every column lined up under its header, fitted to the width by
 * shortening the time to minutes (its offset once, in the header) and the status's words, then
 * dropping the destination, the year, the verification mark, and on a very narrow terminal the
 * time and then the amount. The id is never cut: it is what the other commands take. The history is a file anyone may
 * have edited: its values are shown escaped.
 */
function table(
  entries: HistoryEntry[],
  options: ListCommandOptions,
  width: number,
  refused: ReadonlyMap<string, string>,
): string[] {
  const printer = options.printer;
  const zone = timeZoneOf(options.ctx.env);
  const offsets = new Set(entries.map((e) => zoneOffsetMs(Date.parse(e.at) || 0, zone)));
  const oneOffset = offsets.size === 1 ? offsetText([...offsets][0]!) : undefined;
  const time = (entry: HistoryEntry, seconds: boolean, withOffset: boolean, year: boolean) => {
    const ms = Date.parse(entry.at);
    if (!Number.isFinite(ms)) return safeText(entry.at);
    const clock = localClock(ms, zone)
      .replace('T', ' ')
      .slice(year ? 0 : 5, seconds ? 19 : 16);
    return withOffset ? `${clock} ${offsetText(zoneOffsetMs(ms, zone))}` : clock;
  };
  // the cells are escaped already: a value from a hand-edited history (holding a backslash once
  // escaped) is shown as it is, uncoloured, not escaped twice past its column's width
  const paint = (cell: string) => (cell.includes('\\') ? cell : colorStatus(printer.outColor, cell));
  const status = (entry: HistoryEntry, long: boolean) =>
    refused.has(entry.id) ? refusedCell(entry, long) : statusCell(entry, long);
  // a column of its own once a settlement was checked on chain (deposit verify, watch --verify):
  // verified, or what a later check found instead (pending, not-found, mismatch...)
  const anyVerified = entries.some((e) => e.verifiedAt || e.onChain);
  const build = (level: number): Column[] => {
    const cols: Column[] = [
      { header: 'ID', cells: entries.map((e) => safeText(e.id)), drop: 99 },
      {
        // the offset in the header when every row shares it (the usual case), else in each cell
        header: oneOffset && level >= 1 ? `CREATED ${oneOffset}` : 'CREATED',
        cells: entries.map((e) => time(e, level < 1, !(oneOffset && level >= 1), level < 4)),
        drop: 98,
      },
      {
        // narrow: the currency once, in the header
        header: level >= 2 ? 'R$' : 'AMOUNT',
        cells: entries.map((e) => formatCents(e.amountInCents).replace(level >= 2 ? 'R$ ' : '', '')),
        align: 'right',
        drop: 97,
      },
      { header: 'STATUS', cells: entries.map((e) => status(e, level < 2)), drop: 96, color: true },
    ];
    // narrower than any of that (a split pane): the time, then the amount, go too; the id stays
    if (level >= 6) cols.splice(1, 1);
    if (level >= 7) cols.splice(1, 1);
    // every service's deposits (--all-services): which one each belongs to, never dropped
    if (options.flags.allServices) cols.push(serviceColumn(entries));
    if (anyVerified && level < 5)
      cols.push({
        header: 'ON CHAIN',
        cells: entries.map((e) => (e.verifiedAt ? 'verified' : safeText(e.onChain ?? ''))),
        drop: 2,
      });
    // the merchant's reference, when any deposit shown has one: before the destination, after it to go
    if (entries.some((e) => e.ref !== undefined) && level < 4)
      cols.push({
        header: 'REF',
        cells: entries.map((e) => safeText(e.ref ?? '')),
        drop: 3,
        min: Math.min(12, ...entries.map((e) => safeText(e.ref ?? '').length).filter((n) => n > 0)),
      });
    if (level < 3)
      cols.push({
        header: 'DESTINATION',
        cells: entries.map((e) => safeText(e.destinationAddress)),
        drop: 1,
        min: 24,
      });
    return cols;
  };
  const { cols, widths } = fitColumns(build, width);
  // narrower than an id and its status (a 40-column pane): each deposit on two lines
  if (totalWidth(cols, widths) > width)
    return twoLineRows(entries, width, paint, { withService: options.flags.allServices === true, status });
  return rendered(entries, cols, widths, { bold: (x) => printer.outColor.bold(x), paint });
}

/** The SERVICE column (--all-services): the base URL without its https:// (every live one has it), the host telling them apart. */
function serviceColumn(entries: HistoryEntry[]): Column {
  const cells = entries.map((e) => safeText(e.baseUrl.replace(/^https:\/\//, '')));
  return { header: 'SERVICE', cells, drop: 95, min: Math.min(24, ...cells.map((cell) => cell.length)) };
}

/** A deposit whose answer was refused: marked so, with the status last known before it. */
function refusedCell(entry: HistoryEntry, long: boolean): string {
  return long
    ? `${REFUSED} (last known: ${statusCell(entry, false)})`
    : `REFUSED/${statusCell(entry, false).replace('WAITING_PAYMENT', 'WAITING')}`;
}

/** A deposit's status as its cell shows it: EXPIRED (a local verdict) over the service's last. */
function statusCell(entry: HistoryEntry, long: boolean): string {
  if (!entry.expiredAt) return safeText(entry.status);
  return long
    ? `EXPIRED (local; service: ${safeText(entry.status)})`
    : `EXPIRED/${safeText(entry.status).replace('WAITING_PAYMENT', 'WAITING')}`;
}

const columnWidths = (cols: Column[]) =>
  cols.map((c) => Math.max(c.header.length, ...c.cells.map((x) => x.length)));
const totalWidth = (cols: Column[], widths: number[]) =>
  widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1);

/** The widest level of columns that fits: the destination, then the reference, shorten before anything is dropped. */
function fitColumns(build: (level: number) => Column[], width: number): { cols: Column[]; widths: number[] } {
  let cols = build(0);
  let widths = columnWidths(cols);
  for (let level = 0; level <= 7; level++) {
    cols = build(level);
    widths = columnWidths(cols);
    // the destination shortens first, then the reference, each down to its least
    for (const header of ['DESTINATION', 'REF', 'SERVICE']) {
      const index = cols.findIndex((c) => c.header === header);
      const over = totalWidth(cols, widths) - width;
      if (index !== -1 && over > 0) widths[index] = Math.max(cols[index]!.min!, widths[index]! - over);
    }
    if (totalWidth(cols, widths) <= width) break;
  }
  return { cols, widths };
}

/** Each deposit on two lines (three when the amount and status do not fit together): the id whole on the first. */
function twoLineRows(
  entries: HistoryEntry[],
  width: number,
  paint: (cell: string) => string,
  how: { withService: boolean; status: (entry: HistoryEntry, long: boolean) => string },
): string[] {
  const out: string[] = [];
  const withService = how.withService;
  for (const entry of entries) {
    const shown = how.status(entry, false);
    const amount = formatCents(entry.amountInCents);
    out.push(safeText(entry.id));
    const cell = shorten(shown, Math.max(1, width - 2));
    // the amount beside the status when both fit, else on its own line (a 20-column pane): never cut, never dropped
    if (4 + amount.length + cell.length <= width) out.push(`  ${amount}  ${paint(cell)}`);
    else out.push(2 + amount.length <= width ? `  ${amount}` : amount, `  ${paint(cell)}`);
    // --all-services: the service on a third line
    if (withService) out.push(`  ${shorten(safeText(entry.baseUrl), Math.max(1, width - 2))}`);
  }
  return out;
}

/** The table's lines: its header in bold, then a line a deposit, each cell cut or padded to its column. */
function rendered(
  entries: HistoryEntry[],
  cols: Column[],
  widths: number[],
  style: { bold: (text: string) => string; paint: (cell: string) => string },
): string[] {
  const line = (cells: string[], color: boolean) =>
    cells
      .map((text, columnIndex) => {
        const columnWidth = widths[columnIndex]!;
        const cell = shorten(text, columnWidth);
        const padded =
          cols[columnIndex]!.align === 'right' ? cell.padStart(columnWidth) : cell.padEnd(columnWidth);
        return color && cols[columnIndex]!.color ? padded.replace(cell, style.paint(cell)) : padded;
      })
      .join('  ')
      .trimEnd();
  const out = [
    style.bold(
      line(
        cols.map((c) => c.header),
        false,
      ),
    ),
  ];
  for (let row = 0; row < entries.length; row++)
    out.push(
      line(
        cols.map((c) => c.cells[row]!),
        true,
      ),
    );
  return out;
}

export const DEPOSIT_LIST = command({
  rank: 60,
  path: 'deposit list',
  description: 'the deposits this machine created, newest first, with their last known status',
  long: `The service has no list, so lbrl keeps its own history of the deposits it created (in the config directory). \`--refresh\` asks the service about those not yet terminal. The filters (\`--status\`, \`--since\`, \`--until\`, \`--verified\`) read the history from its end and stop at \`--limit\` matches. On a terminal the table fits its width; in a pipe, tab-separated lines with no header.`,
  flags: LIST_FLAGS,
  examples: [
    'lbrl deposit list',
    'lbrl deposit list --status EXPIRED --since 7d',
    "lbrl deposit list --ref 'mesa 12'",
    'lbrl deposit list --status FINALIZED --unverified --since 2026-11-01 --until 2026-12-01',
    'lbrl deposit list --refresh --json | jq -r \'.[] | select(.status != "FINALIZED") | .id\'',
  ],
  async run({ opts, factory }) {
    return runList(listOptionsOf(opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_LIST);
