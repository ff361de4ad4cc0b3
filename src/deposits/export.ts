/**
 * `deposit export`: the ledger's deposits as files an accountant's software reads, one line (or
 * transaction) per deposit. Every figure comes from the ledger's integers (`figuresOf`, the
 * same the report sums), written by integer arithmetic: never through a float.
 *
 * - CSV (RFC 4180, or `;` and comma decimals as a Brazilian spreadsheet reads them): every
 *   deposit of the window, with its status; the merchant's words defused as spreadsheet text.
 * - OFX 1.02 (SGML, as Brazilian banks still export it): a statement of the finalized deposits,
 *   one CREDIT of the net each (FITID the deposit id). The fee is not a transaction of its own:
 *   the service keeps it before anything reaches the wallet, so the statement lists what arrived,
 *   and each MEMO says the gross and the fee (the journal books them apart).
 * - journal (hledger/ledger): one transaction per finalized deposit, the gross split into the
 *   fee, the split share and the destination's share.
 */
import { createHash } from 'node:crypto';
import { type CsvDialect, centsField, csvRecord, textField } from '../domain/text/csv-write.js';
import { terminalSafe } from '../domain/text/safe-text.js';
import { windows1252Text } from '../domain/text/windows-1252.js';
import { isHex32 } from '../domain/values.js';
import type { HistoryEntry } from '../store/history-records.js';
import { type DepositFigures, figuresOf, shownStatus } from './ledger.js';

/** What the chain said of a finalized deposit's settlement, in the report's four words. */
export type ChainVerdict = 'verified' | 'unproven' | 'mismatch' | 'not checked' | '';

/** One deposit as every export writes it. */
export interface ExportLine {
  id: string;
  ref?: string | undefined;
  note?: string | undefined;
  /** creation (ms): the window and the order are by it, as the report's */
  createdMs: number;
  /** when the service said the payment was confirmed (ms), when it did */
  confirmedMs?: number | undefined;
  status: string;
  gross: number;
  /** null when the ledger does not hold the fee and net (an older lbrl's record) */
  figures: DepositFigures | null;
  splitAddress: string | null;
  txid?: string | undefined;
  verdict: ChainVerdict;
  /** the service the deposit was made on: its base URL, or "sandbox" */
  service: string;
}

export function exportLineOf(entry: HistoryEntry): ExportLine {
  const status = shownStatus(entry);
  const final = entry.final as { confirmedAt?: unknown; settlement?: { liquidTxid?: unknown } } | undefined;
  const confirmed = typeof final?.confirmedAt === 'string' ? Date.parse(final.confirmedAt) : Number.NaN;
  const txid = final?.settlement?.liquidTxid;
  let verdict: ChainVerdict = '';
  if (status === 'FINALIZED')
    verdict = entry.verifiedAt
      ? 'verified'
      : entry.onChain === 'unproven' || entry.onChain === 'mismatch'
        ? entry.onChain
        : 'not checked';
  return {
    service: entry.baseUrl,
    id: entry.id,
    ref: entry.ref,
    note: entry.note,
    createdMs: Date.parse(entry.at),
    confirmedMs: Number.isFinite(confirmed) ? confirmed : undefined,
    status,
    gross: entry.amountInCents,
    figures: figuresOf(entry),
    splitAddress: entry.splitAddress ?? null,
    txid: isHex32(txid) ? txid : undefined,
    verdict,
  };
}

/** The finalized deposits whose figures the ledger holds: what OFX and the journal book. */
function booked(lines: ExportLine[]): Array<ExportLine & { figures: DepositFigures }> {
  return lines.filter(
    (line): line is ExportLine & { figures: DepositFigures } =>
      line.status === 'FINALIZED' && line.figures !== null,
  );
}

/** How local times are written: the local clock of a moment (`2026-11-15T10:30:00`) and its offset (ms). */
export interface LocalTimes {
  clock(ms: number): string;
  offsetMs(ms: number): number;
}

/** `2026-11-15T10:30:00-03:00`: ISO 8601, local, with its offset. */
function isoLocal(ms: number, times: LocalTimes): string {
  if (!Number.isFinite(ms)) return '';
  const offset = times.offsetMs(ms);
  const abs = Math.abs(offset) / 60_000;
  const sign = offset < 0 ? '-' : '+';
  return `${times.clock(ms)}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export const CSV_EXPORT_COLUMNS = [
  'id',
  'reference',
  'note',
  'created',
  'confirmed',
  'status',
  'amount',
  'fee',
  'net',
  'split_address',
  'split',
  'destination',
  'settlement_txid',
  'on_chain',
] as const;

/**
 * The CSV: a header and one record per deposit, oldest first. `withService` (every service's
 * deposits, --all-services) adds a last column naming each one's service, so a sandbox charge in
 * the file is never read as real money.
 */
export function csvExport(
  lines: ExportLine[],
  dialect: CsvDialect,
  times: LocalTimes,
  withService = false,
): string {
  const money = (cents: number | undefined) => (cents === undefined ? '' : centsField(cents, dialect));
  // the ledger is a file anyone may edit: what a terminal or a spreadsheet would act on is shown as
  // text (a control character as its escape; a backslash, which the merchant may type, as typed)
  const text = (value: string | undefined) => textField(terminalSafe(value ?? ''));
  let out = csvRecord([...CSV_EXPORT_COLUMNS, ...(withService ? ['service'] : [])], dialect);
  for (const line of lines) {
    const figures = line.figures;
    out += csvRecord(
      [
        text(line.id),
        text(line.ref),
        text(line.note),
        isoLocal(line.createdMs, times),
        line.confirmedMs === undefined ? '' : isoLocal(line.confirmedMs, times),
        text(line.status),
        money(Number.isSafeInteger(line.gross) ? line.gross : undefined),
        money(figures?.fee),
        money(figures?.net),
        text(line.splitAddress ?? ''),
        money(line.splitAddress && figures ? figures.split : undefined),
        money(figures?.destination),
        text(line.txid),
        line.verdict,
        ...(withService ? [text(line.service)] : []),
      ],
      dialect,
    );
  }
  return out;
}

/** Text inside an OFX element: one line, no markup, at most `max` characters. */
function ofxText(value: string, max: number): string {
  // what Windows-1252 has kept (ã, ç, €, “”), anything else without its accent or written ?
  const plain = windows1252Text(terminalSafe(value))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  const chars = [...plain];
  // cut where no entity is split
  let cut = chars.slice(0, max).join('');
  const amp = cut.lastIndexOf('&');
  if (chars.length > max && amp !== -1 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  return cut;
}

/** An OFX date: the local clock and its offset in whole hours (`20261115103000[-3]`), else UTC. */
function ofxTime(ms: number, times: LocalTimes): string {
  const offset = times.offsetMs(ms);
  const whole = offset % 3_600_000 === 0;
  const clock = whole ? times.clock(ms) : new Date(ms).toISOString().slice(0, 19);
  const hours = whole ? offset / 3_600_000 : 0;
  return `${clock.replace(/[-:T]/g, '')}[${hours >= 0 ? `+${hours}` : hours}:GMT]`;
}

/** Integer cents with a dot decimal, as OFX and hledger's plain numbers read them. */
function dotCents(cents: number): string {
  return centsField(cents, { separator: ',', decimal: '.' });
}

/** What an OFX statement says of where it comes from and the time it covers. */
export interface StatementFacts {
  /** the account: the profile's name */
  account: string;
  /** the window asked for (ms), if any; else the deposits' own first and last */
  since?: number | undefined;
  until?: number | undefined;
  now: number;
  times: LocalTimes;
  /**
   * The service the statement is of (the profile's now): its deposits' FITIDs are their ids.
   * Unset, the first deposit's service.
   */
  service?: string | undefined;
}

/**
 * A transaction's FITID, unique in the statement and the same in every export of it: the deposit
 * id, and for a deposit of a service other than the statement's own (--all-services) a tag of that
 * service after it. An id is unique only within its service, and an importer drops a second
 * transaction with a FITID it has seen: two services' deposits that share an id are two credits.
 */
function fitid(line: ExportLine, ownService: string | undefined): string {
  if (ownService === undefined || line.service === ownService) return line.id;
  return `${line.id}.${createHash('sha256').update(line.service).digest('hex').slice(0, 8)}`;
}

/** One STMTTRN: a CREDIT of the deposit's net, its FITID, the gross and fee in its MEMO. */
function ofxTransaction(
  line: ExportLine & { figures: DepositFigures },
  times: LocalTimes,
  ownService: string | undefined,
): string[] {
  const { figures } = line;
  const memo = [
    line.ref,
    line.note,
    `bruto ${centsField(figures.gross, { separator: ';', decimal: ',' })}`,
    `tarifa ${centsField(figures.fee, { separator: ';', decimal: ',' })}`,
    ...(figures.split > 0 ? [`split ${centsField(figures.split, { separator: ';', decimal: ',' })}`] : []),
  ].filter((part): part is string => part !== undefined);
  return [
    '<STMTTRN>',
    '<TRNTYPE>CREDIT',
    `<DTPOSTED>${ofxTime(line.createdMs, times)}`,
    `<TRNAMT>${dotCents(figures.net)}`,
    `<FITID>${ofxText(fitid(line, ownService), 255)}`,
    `<NAME>${ofxText(line.ref ?? `PIX ${line.id.slice(0, 8)}`, 32)}`,
    `<MEMO>${ofxText(memo.join(' | '), 255)}`,
    '</STMTTRN>',
  ];
}

/**
 * The OFX 1.02 statement of the finalized deposits (SGML headers, BRL), oldest first. Its text
 * is in Windows-1252, as its header declares (`CHARSET:1252`, as Brazilian banks write it): the
 * merchant's accents are kept (libofx, what GnuCash and KMyMoney read OFX with, converts them and
 * reads them right), what that set lacks is written without its accent or as `?`. Written as
 * bytes with windows1252Bytes: a text of UTF-8 would be read as two characters per accent.
 */
export function ofxExport(lines: ExportLine[], facts: StatementFacts): string {
  const { times } = facts;
  const credits = booked(lines);
  const total = credits.reduce((sum, line) => sum + line.figures.net, 0);
  // a loop, not Math.min(...): a spread of 130,000 arguments overflows the stack
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const line of credits) {
    first = Math.min(first, line.createdMs);
    last = Math.max(last, line.createdMs);
  }
  const start = facts.since ?? (credits.length > 0 ? first : facts.now);
  // the window's end is exclusive, a statement's inclusive: its last second
  const end = Math.max(facts.until === undefined ? facts.now : facts.until - 1000, last);
  const ownService = facts.service ?? credits[0]?.service;
  const status = ['<STATUS>', '<CODE>0', '<SEVERITY>INFO', '</STATUS>'];
  const account = ofxText(facts.account.replace(/[^A-Za-z0-9_.-]/g, '-'), 22) || 'lbrl';
  const body = [
    '<OFX>',
    '<SIGNONMSGSRSV1>',
    '<SONRS>',
    ...status,
    `<DTSERVER>${ofxTime(facts.now, times)}`,
    '<LANGUAGE>POR',
    '</SONRS>',
    '</SIGNONMSGSRSV1>',
    '<BANKMSGSRSV1>',
    '<STMTTRNRS>',
    '<TRNUID>1',
    ...status,
    '<STMTRS>',
    '<CURDEF>BRL',
    '<BANKACCTFROM>',
    '<BANKID>LBRL',
    `<ACCTID>${account}`,
    '<ACCTTYPE>CHECKING',
    '</BANKACCTFROM>',
    '<BANKTRANLIST>',
    `<DTSTART>${ofxTime(start, times)}`,
    `<DTEND>${ofxTime(end, times)}`,
    ...credits.flatMap((line) => ofxTransaction(line, times, ownService)),
    '</BANKTRANLIST>',
    '<LEDGERBAL>',
    `<BALAMT>${dotCents(total)}`,
    `<DTASOF>${ofxTime(end, times)}`,
    '</LEDGERBAL>',
    '</STMTRS>',
    '</STMTTRNRS>',
    '</BANKMSGSRSV1>',
    '</OFX>',
  ];
  const header = [
    'OFXHEADER:100',
    'DATA:OFXSGML',
    'VERSION:102',
    'SECURITY:NONE',
    'ENCODING:USASCII',
    'CHARSET:1252',
    'COMPRESSION:NONE',
    'OLDFILEUID:NONE',
    'NEWFILEUID:NONE',
  ];
  return `${header.join('\r\n')}\r\n\r\n${body.join('\r\n')}\r\n`;
}

/** The accounts a journal books each deposit to (rename them with hledger's --alias). */
export const JOURNAL_ACCOUNTS = {
  gross: 'revenue:pix',
  fee: 'expenses:deposit fees',
  split: 'expenses:split',
  destination: 'assets:liquid:destination',
} as const;

/** An amount as the journal writes it: `R$ 1500,00`, `R$ -15,50` (the commodity directive says the comma is the decimal mark). */
function journalAmount(cents: number): string {
  return `R$ ${centsField(cents, { separator: ';', decimal: ',' })}`;
}

/**
 * The merchant's words in a journal, kept as written wherever hledger's syntax allows, and where
 * it does not, written with one fixed look-alike (JOURNAL_LOOKALIKES) rather than dropped or cut:
 * - in the description, `REF | NOTE` (hledger's own payee and note, what `tag:note=`, `note:`,
 *   `payee:` and `desc:` query), a `;` would start a comment: written `；` (U+FF1B); in the
 *   reference, a `|` would move where hledger's note starts: written `｜` (U+FF5C);
 * - in a tag's value (`; note: ...`, what `hledger tags --values` lists), a `,` ends the value and
 *   starts another tag: written `‚` (U+201A). Colons, semicolons, `#`, brackets, quotes, the rest of
 *   the line are a tag value's as written.
 * Outer spaces go (hledger trims them; lbrl trims them on input); a control character (which
 * only an edited ledger holds) is shown as its escape (terminalSafe), a backslash as typed.
 */
export const JOURNAL_LOOKALIKES = { ';': '\uff1b', '|': '\uff5c', ',': '\u201a' } as const;

function descriptionPart(value: string): string {
  return terminalSafe(value).trim().replace(/;/g, JOURNAL_LOOKALIKES[';']);
}

/** A transaction's description: the reference (or `PIX` and the id's start), then ` | ` and the note. */
function journalDescription(line: ExportLine): string {
  const payee =
    line.ref !== undefined
      ? descriptionPart(line.ref).replace(/\|/g, JOURNAL_LOOKALIKES['|'])
      : `PIX ${line.id.slice(0, 8)}`;
  return line.note === undefined ? payee : `${payee} | ${descriptionPart(line.note)}`;
}

function tagValue(value: string): string {
  return terminalSafe(value).trim().replace(/,/g, JOURNAL_LOOKALIKES[',']);
}

/** The hledger/ledger journal: the commodity directive, then one transaction per finalized deposit. */
export function journalExport(lines: ExportLine[], heading: string, times: LocalTimes): string {
  const out = [
    // a comment of the file's own: one line, read as nothing
    `; ${terminalSafe(heading)}`,
    'commodity R$ 1.000,00',
    // declared, so `hledger check --strict` accepts the file as it is
    ...Object.values(JOURNAL_ACCOUNTS).map((account) => `account ${account}`),
    '',
  ];
  const width = Math.max(...Object.values(JOURNAL_ACCOUNTS).map((account) => account.length)) + 4;
  const posting = (account: string, cents: number) => `    ${account.padEnd(width)}${journalAmount(cents)}`;
  for (const line of booked(lines)) {
    const { figures } = line;
    if (figures.fee + figures.net !== figures.gross) {
      // a ledger edited by hand: a transaction that does not balance would stop hledger at it
      out.push(
        `; deposit ${line.id}: its fee and net do not add up to its amount in the ledger; not booked`,
        '',
      );
      continue;
    }
    const date = times.clock(line.createdMs).slice(0, 10);
    out.push(`${date} * (${line.id}) ${journalDescription(line)}`);
    out.push(`    ; deposit: ${line.id}`);
    if (line.note !== undefined) out.push(`    ; note: ${tagValue(line.note)}`);
    if (line.txid) out.push(`    ; txid: ${line.txid}`);
    out.push(posting(JOURNAL_ACCOUNTS.destination, figures.destination));
    if (figures.split > 0) out.push(posting(JOURNAL_ACCOUNTS.split, figures.split));
    out.push(posting(JOURNAL_ACCOUNTS.fee, figures.fee));
    out.push(posting(JOURNAL_ACCOUNTS.gross, -figures.gross));
    out.push('');
  }
  return `${out.join('\n')}`;
}
