import {
  createdFilter,
  type Period,
  type Report,
  type ReportSums,
  reportAccumulator,
} from '../deposits/ledger.js';
import { formatCents } from '../domain/money.js';
import { CSV_BR, CSV_RFC, type CsvDialect, centsField, csvRecord } from '../domain/text/csv-write.js';
import { invalidValue, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { localClock, offsetText, timeZoneOf, zoneOffsetMs } from '../ui/render.js';
import type { OptionsOf } from './define.js';
import type { REPORT_FLAGS } from './flags.js';
import { parseSpan } from './shared/when.js';

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
];

export async function run(opts: ReportOptions, session: Session): Promise<void> {
  const formats = [session.globals.json && '--json', opts.csv && '--csv', opts.csvBr && '--csv-br'].filter(
    Boolean,
  );
  if (formats.length > 1) throw usageError(`${formats.join(' and ')} cannot go together: choose one format`);
  let by: Period = 'day';
  if (opts.by !== undefined) {
    if (opts.by !== 'day' && opts.by !== 'month') throw invalidValue('--by', opts.by, 'day or month');
    by = opts.by;
  }
  const span = parseSpan(opts, session);
  const zone = timeZoneOf(session.ctx.env);
  // the local date of a moment, once per quarter hour (every offset is a multiple of 15 minutes)
  const quarters = new Map<number, string>();
  const acc = reportAccumulator(by, (ms) => {
    const quarter = Math.floor(ms / 900_000);
    let day = quarters.get(quarter);
    if (day === undefined) quarters.set(quarter, (day = localClock(quarter * 900_000, zone)));
    return day;
  });
  const report = acc.finish(
    session.history().fold(createdFilter({ profile: session.profileName, ...span }), acc.start, acc.visit),
  );
  const p = session.printer;
  if (session.globals.json) {
    const when = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    p.json({
      profile: session.profileName,
      by,
      since: when(span.since),
      until: when(span.until),
      timeZone: offsetText(zoneOffsetMs(session.ctx.now(), zone)),
      periods: report.periods,
      total: report.total,
    });
    return;
  }
  if (opts.csv || opts.csvBr) {
    const d: CsvDialect = opts.csv ? CSV_RFC : CSV_BR;
    let text = csvRecord([by, ...CSV_COLUMNS.map(([name]) => name)], d);
    const row = (period: string, s: ReportSums) =>
      csvRecord(
        [
          period,
          ...CSV_COLUMNS.map(([, key, kind]) => (kind === 'cents' ? centsField(s[key], d) : String(s[key]))),
        ],
        d,
      );
    for (const period of report.periods) text += row(period.period, period);
    text += row('total', report.total);
    session.ctx.stdout.write(text);
    return;
  }
  for (const line of humanReport(report, session)) p.out(line);
}

const BLOCKS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `value` out of `max` in at most `width` cells, in eighths of a block. */
export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + BLOCKS[eighths % 8];
}

function humanReport(report: Report, session: Session): string[] {
  const p = session.printer;
  const t = report.total;
  if (t.createdCount === 0) {
    p.info(`no deposits recorded for profile ${session.profileName} in that time`);
    return [];
  }
  const head = [
    report.by === 'day' ? 'DAY' : 'MONTH',
    'CREATED',
    'FINAL',
    'FAILED',
    'EXPIRED',
    'OPEN',
    'CHARGED',
    'NET',
  ];
  const rows = [...report.periods, { period: 'total', ...t }].map((s) => [
    s.period,
    String(s.createdCount),
    String(s.finalizedCount),
    String(s.failedCount),
    String(s.expiredCount),
    String(s.pendingCount),
    formatCents(s.createdCents),
    formatCents(s.netCents),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [p.c.bold(line(head))];
  rows.forEach((r, i) => {
    if (i === rows.length - 1) out.push(p.c.dim('-'.repeat(line(r).length)));
    out.push(i === rows.length - 1 ? p.c.bold(line(r)) : line(r));
  });
  out.push('');
  out.push(`Paid (finalized)   ${formatCents(t.grossCents)}`);
  out.push(`Fees               ${formatCents(t.feeCents)}`);
  out.push(`Net                ${formatCents(t.netCents)}`);
  out.push(`  to split         ${formatCents(t.splitCents)}`);
  out.push(`  to destination   ${formatCents(t.destinationCents)}`);
  out.push(
    `On chain           ${t.verifiedCount} verified (${formatCents(t.verifiedNetCents)}), ${t.uncheckedCount} not verified (${formatCents(t.uncheckedNetCents)}): lbrl deposit verify checks them`,
  );
  if (t.unknownAmountsCount > 0)
    out.push(
      p.c.magenta(
        `${t.unknownAmountsCount} finalized deposit(s) have no fee or net in the history: counted, not summed`,
      ),
    );
  // the picture: net received per period, in block characters
  const width = Math.max(10, Math.min(40, (session.ctx.stdout.columns || 80) - widths[0]! - 20));
  const max = Math.max(0, ...report.periods.map((s) => s.netCents));
  out.push('');
  out.push(p.c.bold(`Net received per ${report.by}`));
  for (const s of report.periods)
    out.push(
      `${s.period.padEnd(widths[0]!)}  ${p.c.green(bar(s.netCents, max, width).padEnd(width))}  ${formatCents(s.netCents)}`,
    );
  return out;
}
