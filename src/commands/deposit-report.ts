import {
  createdFilter,
  type Period,
  type Report,
  type ReportSums,
  reportAccumulator,
  reportsByServiceAccumulator,
  type ServiceReport,
} from '../deposits/ledger.js';
import { formatCents } from '../domain/money.js';
import {
  CSV_BR,
  CSV_RFC,
  type CsvDialect,
  centsField,
  csvRecord,
  textField,
} from '../domain/text/csv-write.js';
import { safeText } from '../domain/text/safe-text.js';
import { invalidValue, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import type { History } from '../store/history.js';
import { fitted, outputColumns, packed, widthOf } from '../ui/fit.js';
import { localClock, offsetText, timeZoneOf, zoneOffsetMs } from '../ui/zone-time.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { SINCE, UNTIL } from './shared/flag-parts.js';
import {
  ALL_SERVICES,
  coverage,
  type HistoryOutputOptions,
  historyOutputOf,
  serviceShown,
} from './shared/history-output.js';
import { parseSpan } from './shared/when.js';

const REPORT_FLAGS = [
  SINCE,
  UNTIL,
  {
    flags: '--by <period>',
    help: 'one row per day (the default) or month, in local time',
    complete: ['day', 'month'],
  },
  { flags: '--csv', help: 'CSV (RFC 4180, dot decimal) on stdout' },
  { flags: '--csv-br', help: 'CSV for a Brazilian spreadsheet: ; separated, comma decimal' },
  ALL_SERVICES,
] as const satisfies readonly FlagDef[];

export type ReportOptions = OptionsOf<typeof REPORT_FLAGS>;

/** The CSV columns: a period, the counts, then sums in reais. */
const CSV_COLUMNS: Array<[string, keyof ReportSums, 'count' | 'cents']> = [
  ['created', 'createdCount', 'count'],
  ['finalized', 'finalizedCount', 'count'],
  ['failed', 'failedCount', 'count'],
  ['expired', 'expiredCount', 'count'],
  ['pending', 'pendingCount', 'count'],
  ['charged', 'createdCents', 'cents'],
  ['gross', 'grossCents', 'cents'],
  ['fees', 'feeCents', 'cents'],
  ['net', 'netCents', 'cents'],
  ['split', 'splitCents', 'cents'],
  ['destination', 'destinationCents', 'cents'],
  ['verified', 'verifiedCount', 'count'],
  ['verified_net', 'verifiedNetCents', 'cents'],
  ['unchecked', 'uncheckedCount', 'count'],
  ['unchecked_net', 'uncheckedNetCents', 'cents'],
  ['unproven', 'unprovenCount', 'count'],
  ['unproven_net', 'unprovenNetCents', 'cents'],
  ['mismatched', 'mismatchCount', 'count'],
  ['mismatched_net', 'mismatchNetCents', 'cents'],
];

/** All `deposit report` needs (gh's Options struct): the factory's getters fill it in; a test hands plain values. */
export interface ReportCommandOptions extends HistoryOutputOptions<Pick<History, 'fold'>> {
  flags: ReportOptions;
}

/** The factory's getters, narrowed to what `deposit report` uses. */
export function reportOptionsOf(flags: ReportOptions, factory: Factory): ReportCommandOptions {
  return {
    flags,
    ...historyOutputOf(factory),
  };
}

/** The sums of each day (or month) of the deposits recorded, as a table, JSON or CSV. */
export async function runReport(options: ReportCommandOptions): Promise<void> {
  const opts = options.flags;
  const formats = [options.json && '--json', opts.csv && '--csv', opts.csvBr && '--csv-br'].filter(Boolean);
  if (formats.length > 1) throw usageError(`${formats.join(' and ')} cannot go together: choose one format`);
  let by: Period = 'day';
  if (opts.by !== undefined) {
    if (opts.by !== 'day' && opts.by !== 'month') throw invalidValue('--by', opts.by, 'day or month');
    by = opts.by;
  }
  const span = parseSpan(opts, options);
  const zone = timeZoneOf(options.ctx.env);
  const periodOf = localDayOf(zone);
  const service = serviceShown(options, opts.allServices);
  const history = await options.history();
  const filter = createdFilter({ profile: options.profileName, baseUrl: service, ...span });
  // every service's deposits: one report per service, never one sum of sandbox and live money
  if (opts.allServices) {
    const acc = reportsByServiceAccumulator(by, periodOf);
    const reports = acc.finish(history.fold(filter, acc.start, acc.visit));
    return printServiceReports(reports, { options, by, span, zone });
  }
  const acc = reportAccumulator(by, periodOf);
  const report = acc.finish(history.fold(filter, acc.start, acc.visit));
  const printer = options.printer;
  if (options.json) {
    printer.json({
      ...reportHead(options, service, by, span, zone),
      periods: report.periods,
      total: report.total,
    });
    return;
  }
  if (opts.csv || opts.csvBr) {
    const dialect: CsvDialect = opts.csv ? CSV_RFC : CSV_BR;
    options.ctx.stdout.write(
      csvRecord([by, ...CSV_COLUMNS.map(([name]) => name)], dialect) + csvRows(report, dialect),
    );
    return;
  }
  if (options.service) printer.infoFitted(`deposits of ${coverage(options.profileName, service)}`);
  if (report.total.createdCount === 0) {
    printer.infoFitted(`no deposits recorded for profile ${options.profileName} in that time`);
    return;
  }
  for (const line of humanReport(report, options)) printer.out(line);
}

/** The local date of a moment, once per quarter hour (every offset is a multiple of 15 minutes). */
function localDayOf(zone: ReturnType<typeof timeZoneOf>): (ms: number) => string {
  const quarters = new Map<number, string>();
  return (ms) => {
    const quarter = Math.floor(ms / 900_000);
    let day = quarters.get(quarter);
    if (day === undefined) quarters.set(quarter, (day = localClock(quarter * 900_000, zone)));
    return day;
  };
}

type Span = ReturnType<typeof parseSpan>;

/** What a --json report says first: whose deposits, which service, which periods, in which zone. */
function reportHead(
  options: ReportCommandOptions,
  service: string | undefined,
  by: Period,
  span: Span,
  zone: ReturnType<typeof timeZoneOf>,
) {
  const when = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    profile: options.profileName,
    service: service ?? null,
    by,
    since: when(span.since),
    until: when(span.until),
    timeZone: offsetText(zoneOffsetMs(options.ctx.now(), zone)),
  };
}

/** A report's CSV records: one per period, then its total; `service` (--all-services) as a last field. */
function csvRows(report: Report, dialect: CsvDialect, service?: string): string {
  const row = (period: string, sums: ReportSums) =>
    csvRecord(
      [
        period,
        ...CSV_COLUMNS.map(([, key, kind]) =>
          kind === 'cents' ? centsField(sums[key], dialect) : String(sums[key]),
        ),
        ...(service === undefined ? [] : [textField(safeText(service))]),
      ],
      dialect,
    );
  let text = '';
  for (const period of report.periods) text += row(period.period, period);
  return text + row('total', report.total);
}

/**
 * --all-services: each service's report apart. JSON: `services`, one `{service, periods, total}`
 * each; CSV: a last column `service`, each service's periods and its own total row; on a terminal,
 * a section per service under its name.
 */
function printServiceReports(
  reports: ServiceReport[],
  how: { options: ReportCommandOptions; by: Period; span: Span; zone: ReturnType<typeof timeZoneOf> },
): void {
  const { options, by } = how;
  const opts = options.flags;
  const printer = options.printer;
  if (options.json) {
    printer.json({
      ...reportHead(options, undefined, by, how.span, how.zone),
      services: reports.map(({ service, periods, total }) => ({ service, periods, total })),
    });
    return;
  }
  if (opts.csv || opts.csvBr) {
    const dialect: CsvDialect = opts.csv ? CSV_RFC : CSV_BR;
    let text = csvRecord([by, ...CSV_COLUMNS.map(([name]) => name), 'service'], dialect);
    for (const report of reports) text += csvRows(report, dialect, report.service);
    options.ctx.stdout.write(text);
    return;
  }
  if (options.service) printer.infoFitted(`deposits of ${coverage(options.profileName, undefined)}`);
  if (reports.length === 0) {
    printer.infoFitted(`no deposits recorded for profile ${options.profileName} in that time`);
    return;
  }
  reports.forEach((report, index) => {
    if (index > 0) printer.out('');
    const name = report.service === 'sandbox' ? 'the sandbox (no real money)' : safeText(report.service);
    printer.out(printer.outColor.bold(`Service: ${name}`));
    for (const line of humanReport(report, options)) printer.out(line);
  });
}

const BLOCKS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `value` out of `max` in at most `width` cells, in eighths of a block. */
export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + BLOCKS[eighths % 8];
}

/** Where the figures of the facts under the table start. */
const FACT_NAME_WIDTH = 19;

/** Text cut at spaces into lines of at most `width` characters (a word longer than that alone on its line). */
function wrapped(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** The totals, one fact a line. */
function factLines(total: ReportSums, columns: number, printer: ReportCommandOptions['printer']): string[] {
  const out: string[] = [];
  // one fact a line, its figure beside its name when the terminal holds both (80 columns do),
  // else under it (a 40-column pane), its count under it too when need be (20): no figure is cut
  const fact = (name: string, figure: string, count?: number) => {
    const counted = count === undefined ? figure : `${figure} (${count})`;
    const one = `${name.padEnd(FACT_NAME_WIDTH)}${counted}`;
    if (widthOf(one) <= columns) out.push(one);
    else {
      const under = packed([figure, count === undefined ? '' : `(${count})`], columns - 2, ' ', '');
      out.push(name.trimEnd(), ...under.map((text) => (widthOf(text) + 2 <= columns ? `  ${text}` : text)));
    }
  };
  fact('Paid (finalized)', formatCents(total.grossCents));
  fact('Fees', formatCents(total.feeCents));
  fact('Net', formatCents(total.netCents));
  fact('  to split', formatCents(total.splitCents));
  fact('  to destination', formatCents(total.destinationCents));
  fact('Verified on chain', formatCents(total.verifiedNetCents), total.verifiedCount);
  fact('Unproven', formatCents(total.unprovenNetCents), total.unprovenCount);
  fact('Mismatched', formatCents(total.mismatchNetCents), total.mismatchCount);
  fact('Not yet checked', formatCents(total.uncheckedNetCents), total.uncheckedCount);
  if (total.uncheckedCount > 0)
    for (const part of wrapped('lbrl deposit verify checks them', columns - 2))
      out.push(printer.outColor.dim(`  ${part}`));
  if (total.unknownAmountsCount > 0)
    for (const part of wrapped(
      `${total.unknownAmountsCount} finalized deposit(s) have no fee or net in the history: counted, not summed`,
      columns,
    ))
      out.push(printer.outColor.magenta(part));
  return out;
}

function humanReport(report: Report, options: ReportCommandOptions): string[] {
  const printer = options.printer;
  const total = report.total;
  const columns = outputColumns(options.ctx.stdout, options.ctx.env);
  // the table fits the terminal: the least useful columns go first, the period and NET stay
  const all: Array<{ head: string; cell: (s: ReportSums) => string; drop: number }> = [
    { head: 'CREATED', cell: (s) => String(s.createdCount), drop: 5 },
    { head: 'FINAL', cell: (s) => String(s.finalizedCount), drop: 6 },
    { head: 'FAILED', cell: (s) => String(s.failedCount), drop: 2 },
    { head: 'EXPIRED', cell: (s) => String(s.expiredCount), drop: 1 },
    { head: 'OPEN', cell: (s) => String(s.pendingCount), drop: 3 },
    { head: 'CHARGED', cell: (s) => formatCents(s.createdCents), drop: 4 },
    { head: 'NET', cell: (s) => formatCents(s.netCents), drop: 99 },
  ];
  const sums = [...report.periods, { period: 'total', ...total }];
  const layout = (dropped: number) => {
    const kept = all.filter((c) => c.drop > dropped);
    const head = [report.by === 'day' ? 'DAY' : 'MONTH', ...kept.map((c) => c.head)];
    const rows = sums.map((s) => [s.period, ...kept.map((c) => c.cell(s))]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    return { head, rows, widths, total: widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) };
  };
  let table = layout(0);
  for (let dropped = 1; table.total > columns && dropped <= 6; dropped++) table = layout(dropped);
  const { head, rows, widths } = table;
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  // a row wider than the terminal even at the day and NET (20 columns): its cells on lines of their own, never an amount cut
  const rowLines = (cells: string[]) => fitted(line(cells), cells, columns);
  const out = rowLines(head).map((text) => printer.outColor.bold(text));
  rows.forEach((row, index) => {
    const last = index === rows.length - 1;
    if (last) out.push(printer.outColor.dim('-'.repeat(Math.min(columns, line(row).length))));
    for (const text of rowLines(row)) out.push(last ? printer.outColor.bold(text) : text);
  });
  out.push('');
  out.push(...factLines(total, columns, printer));
  // the picture: net received per period, in block characters
  const amounts = Math.max(...report.periods.map((s) => formatCents(s.netCents).length));
  // the bar takes what the period and the amount leave, 40 at most; none when nothing is left
  const width = Math.max(0, Math.min(40, columns - widths[0]! - 4 - amounts));
  const max = Math.max(0, ...report.periods.map((s) => s.netCents));
  out.push('');
  out.push(printer.outColor.bold(`Net received per ${report.by}`));
  for (const periodSums of report.periods) {
    const net = formatCents(periodSums.netCents);
    if (width > 0)
      out.push(
        `${periodSums.period.padEnd(widths[0]!)}  ${printer.outColor.green(bar(periodSums.netCents, max, width).padEnd(width))}  ${net}`,
      );
    else
      out.push(
        ...fitted(`${periodSums.period.padEnd(widths[0]!)}  ${net}`, [periodSums.period, net], columns),
      );
  }
  return out;
}

export const DEPOSIT_REPORT = command({
  rank: 70,
  path: 'deposit report',
  description: 'the sums of the day (or month): charged, paid, fees, net, split, verified on chain',
  long: `The profile's deposits in the local history, summed by the local day (or month) of their creation: counts, the amount charged, and over the finalized the gross, fees, net, the split's share and the destination's, and what verification on chain proved. Every sum is a whole number of cents, never a float. \`--json\`, \`--csv\` and \`--csv-br\` (for a Brazilian spreadsheet) are for other programs; on a terminal, a table and a bar per period.`,
  flags: REPORT_FLAGS,
  examples: [
    'lbrl deposit report --since 7d',
    'lbrl deposit report --by month --since 2026-01-01 --csv-br > vendas.csv',
    "lbrl deposit report --since 1d --json | jq '.total.netCents'",
  ],
  async run({ opts, factory }) {
    return runReport(reportOptionsOf(opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_REPORT);
