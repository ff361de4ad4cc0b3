import type { Context } from '../context.js';
import {
  csvExport,
  type ExportLine,
  exportLineOf,
  journalExport,
  type LocalTimes,
  ofxExport,
} from '../deposits/export.js';
import { createdFilter } from '../deposits/ledger.js';
import { CSV_BR, CSV_RFC } from '../domain/text/csv-write.js';
import { windows1252Bytes } from '../domain/text/windows-1252.js';
import { invalidValue, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import type { History } from '../store/history.js';
import type { HistoryEntry } from '../store/history-records.js';
import { localClock, localTime, timeZoneOf, zoneOffsetMs } from '../ui/zone-time.js';
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
import { readerGoneEnd } from './shared/reader-gone.js';
import { parseSpan } from './shared/when.js';

const FORMATS = ['csv', 'csv-br', 'ofx', 'journal'] as const;
type ExportFormat = (typeof FORMATS)[number];

const EXPORT_FLAGS = [
  {
    flags: '--format <format>',
    help: 'csv (RFC 4180), csv-br (; and comma decimals), ofx (an OFX 1.02 statement) or journal (hledger)',
    complete: FORMATS,
  },
  {
    flags: '--month <YYYY-MM>',
    help: 'the deposits created in this month, in local time (instead of --since/--until)',
  },
  SINCE,
  UNTIL,
  ALL_SERVICES,
] as const satisfies readonly FlagDef[];

export type ExportOptions = OptionsOf<typeof EXPORT_FLAGS>;

/** All `deposit export` needs (gh's Options struct): the factory's getters fill it in; a test hands plain values. */
export interface ExportCommandOptions extends HistoryOutputOptions<Pick<History, 'fold'>> {
  flags: ExportOptions;
  /** the process's stdout hook, to end unfinished (141) should the reader go before the file is taken whole */
  ctx: HistoryOutputOptions<unknown>['ctx'] & Partial<Pick<Context, 'whenStdoutGone' | 'stderr'>>;
}

export function exportOptionsOf(flags: ExportOptions, factory: Factory): ExportCommandOptions {
  return { flags, ...historyOutputOf(factory) };
}

/** `2026-11` as the local window [2026-11-01, 2026-12-01), read as --since and --until are. */
function monthSpan(month: string, options: ExportCommandOptions): { since?: number; until?: number } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) throw invalidValue('--month', month, 'a month as YYYY-MM, such as 2026-11');
  const year = Number(match[1]);
  const next =
    Number(match[2]) === 12
      ? `${String(year + 1).padStart(4, '0')}-01`
      : `${match[1]}-${String(Number(match[2]) + 1).padStart(2, '0')}`;
  try {
    return parseSpan({ since: `${month}-01`, until: `${next}-01` }, options);
  } catch {
    // the window's ends are lbrl's, not the user's: the month is named (9999-12 ends in the year 10000)
    throw invalidValue('--month', month, 'a month as YYYY-MM, such as 2026-11, up to 9999-11');
  }
}

/** The window asked for: --month, or --since and --until, or everything. */
function exportSpan(options: ExportCommandOptions): { since?: number; until?: number } {
  const { flags } = options;
  if (flags.month === undefined) return parseSpan(flags, options);
  if (flags.since !== undefined || flags.until !== undefined)
    throw usageError('--month cannot go with --since or --until: it is a window of its own');
  return monthSpan(flags.month, options);
}

function chosenFormat(options: ExportCommandOptions): ExportFormat {
  const format = options.flags.format;
  if (format === undefined)
    throw usageError(
      `--format is required: ${FORMATS.join(', ')}`,
      'lbrl deposit export --month 2026-11 --format csv-br > vendas.csv',
    );
  if (!(FORMATS as readonly string[]).includes(format))
    throw invalidValue('--format', format, FORMATS.join(', '));
  if (options.json)
    throw usageError('--json does not go with deposit export: the file is in the --format chosen');
  return format as ExportFormat;
}

/** One line per deposit of the window (created in it, as the report counts), in a format an accountant's software reads. */
export async function runExport(options: ExportCommandOptions): Promise<void> {
  const format = chosenFormat(options);
  const span = exportSpan(options);
  const zone = timeZoneOf(options.ctx.env);
  const times: LocalTimes = { clock: (ms) => localClock(ms, zone), offsetMs: (ms) => zoneOffsetMs(ms, zone) };
  // the service the profile uses now, as report counts it: sandbox money never in a live statement
  const service = serviceShown(options, options.flags.allServices);
  const lines = (await options.history())
    .fold(
      createdFilter({ profile: options.profileName, baseUrl: service, ...span }),
      () => [] as ExportLine[],
      (acc, entry: HistoryEntry) => acc.push(exportLineOf(entry)),
    )
    // oldest first, as a statement reads; the id where times tie, so the file is the same every time
    .sort((a, b) => a.createdMs - b.createdMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const printer = options.printer;
  if (options.service) printer.info(`deposits of ${coverage(options.profileName, service)}`);
  if (lines.length === 0)
    printer.info(`no deposits recorded for profile ${options.profileName} in that time: the file has none`);
  const unknown = lines.filter((line) => line.status === 'FINALIZED' && line.figures === null).length;
  if (unknown > 0)
    printer.warn(
      `warning: ${unknown} finalized deposit(s) have no fee or net in the history (created by an older lbrl): their figures are left out, as the report leaves them out of its sums`,
    );
  const when = (ms: number | undefined) => (ms === undefined ? 'any time' : localTime(ms, zone));
  let text: string;
  if (format === 'csv' || format === 'csv-br')
    text = csvExport(lines, format === 'csv' ? CSV_RFC : CSV_BR, times, options.flags.allServices === true);
  else if (format === 'ofx')
    text = ofxExport(lines, {
      account: options.profileName,
      since: span.since,
      until: span.until,
      now: options.ctx.now(),
      times,
      service: options.service?.(),
    });
  else
    text = journalExport(
      lines,
      `lbrl deposit export: profile ${options.profileName}, deposits created from ${when(span.since)} to ${when(span.until)}`,
      times,
    );
  // a reader gone before the whole file was taken (| head): the statement is cut, never exit 0
  const { whenStdoutGone, stderr } = options.ctx;
  if (whenStdoutGone && stderr)
    whenStdoutGone(
      () =>
        readerGoneEnd(
          { printer, ctx: { stderr } },
          `the export was taken whole: the ${format} file of ${lines.length} deposit(s) is cut short`,
        ),
      { watchReader: false },
    );
  // the OFX in the Windows-1252 its header declares; the other formats in UTF-8
  options.ctx.stdout.write(format === 'ofx' ? windows1252Bytes(text) : text);
}

export const DEPOSIT_EXPORT = command({
  rank: 75,
  path: 'deposit export',
  description: 'one line per deposit, for the accountant: CSV, OFX statement or hledger journal',
  long: `Every deposit created in the window, oldest first, on stdout. \`--month 2026-11\` is the local month (TZ), the window of \`--since 2026-11-01 --until 2026-12-01\`, as \`deposit report\` reads it, and each format's totals equal the report's to the cent: every figure comes from the ledger's integer cents.\n\n- \`csv\` (RFC 4180) and \`csv-br\` (\`;\` and comma decimals, for a pt-BR spreadsheet): one row per deposit with its id, reference, note, times, status, amounts, split, txid and on-chain check.\n- \`ofx\`: an OFX 1.02 bank statement, one CREDIT of the net per finalized deposit, its id the FITID (an import twice adds nothing; with \`--all-services\`, a deposit of another service than the profile's has a tag of that service after its id, so two services' deposits that share an id stay two credits).\n- \`journal\`: one hledger transaction per finalized deposit, the gross split into the fee, the split share and the destination.`,
  flags: EXPORT_FLAGS,
  examples: [
    'lbrl deposit export --month 2026-11 --format csv-br > vendas-2026-11.csv',
    'lbrl deposit export --month 2026-11 --format ofx > lbrl-2026-11.ofx',
    'lbrl deposit export --month 2026-11 --format journal > lbrl-2026-11.journal && hledger -f lbrl-2026-11.journal balance',
    'lbrl deposit export --since 7d --format csv | column -s, -t',
  ],
  async run({ opts, factory }) {
    return runExport(exportOptionsOf(opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_EXPORT);
