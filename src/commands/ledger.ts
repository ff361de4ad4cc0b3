import type { Context } from '../context.js';
/**
 * `lbrl ledger status|import|export`: where the ledger lives (the `ledger` setting: the file
 * history, or PostgreSQL), and moving a history into a database and back out as NDJSON.
 */
import { usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import type { Ledger } from '../store/ledger-port.js';
import type { Printer } from '../ui/output.js';
import { command, group, listed } from './define.js';
import { readerGoneEnd } from './shared/reader-gone.js';

/** All the ledger commands need (gh's Options struct): the factory's getters fill it in; a test hands stores. */
export interface LedgerCommandOptions {
  printer: Printer;
  json: boolean;
  /** the configured ledger, opened (a database's schema created or brought forward) */
  open(): Promise<Ledger>;
  /** the file history of the config directory, whatever the setting says */
  openFile(): Promise<Ledger>;
  /** the process's stdout hook (`ledger export` ends unfinished, 141, should its reader go) */
  ctx?: Partial<Pick<Context, 'whenStdoutGone' | 'stderr'>>;
}

/** The factory's getters, narrowed to what the ledger commands use. */
export function ledgerOptionsOf(factory: Factory): LedgerCommandOptions {
  return {
    printer: factory.printer,
    json: factory.globals.json === true,
    open: () => factory.ledger().open(),
    openFile: () => factory.ledger().open({ kind: 'file' }),
    ctx: factory.ctx,
  };
}

/** What `ledger status` says. */
export interface LedgerStatus {
  store: 'file' | 'postgres';
  where: string;
  schemaVersion: number | null;
  deposits: number;
}

export async function runLedgerStatus(options: LedgerCommandOptions): Promise<void> {
  const ledger = await options.open();
  const status: LedgerStatus = {
    store: ledger.kind,
    where: ledger.where,
    schemaVersion: await ledger.schemaVersion(),
    deposits: await ledger.count(),
  };
  if (options.json) {
    options.printer.json(status);
    return;
  }
  options.printer.out(
    [
      `Store     ${status.store === 'file' ? 'file (the history in the config directory)' : 'PostgreSQL'}`,
      `Where     ${status.where}`,
      `Schema    ${status.schemaVersion ?? '-'}`,
      `Deposits  ${status.deposits}`,
    ].join('\n'),
  );
}

export async function runLedgerImport(options: LedgerCommandOptions): Promise<void> {
  const ledger = await options.open();
  if (!ledger.importRecords)
    throw usageError(
      'the ledger is the file history already: set the ledger to a database first (lbrl config set ledger postgres://user@host/db, or LBRL_LEDGER_URL)',
    );
  const file = await options.openFile();
  const { met, fresh } = await ledger.importRecords(file.records());
  const deposits = await ledger.count();
  if (options.json) {
    options.printer.json({ from: file.where, into: ledger.where, records: met, imported: fresh, deposits });
    return;
  }
  options.printer.info(
    `imported ${fresh} new record(s) of ${met} from ${file.where} into ${ledger.where}; it holds ${deposits} deposit(s)`,
  );
}

export async function runLedgerExport(options: LedgerCommandOptions): Promise<void> {
  const ledger = await options.open();
  // a reader gone before every record was taken (| head): the copy is cut, never exit 0
  const { whenStdoutGone, stderr } = options.ctx ?? {};
  if (whenStdoutGone && stderr)
    whenStdoutGone(
      () =>
        readerGoneEnd(
          { printer: options.printer, ctx: { stderr } },
          `every record was written: the ledger's copy on stdout is cut short`,
        ),
      { watchReader: false },
    );
  let lines: string[] = [];
  for await (const record of ledger.records()) {
    lines.push(JSON.stringify(record));
    if (lines.length >= 1000) {
      options.printer.out(lines.join('\n'));
      lines = [];
    }
  }
  if (lines.length > 0) options.printer.out(lines.join('\n'));
}

export const LEDGER_GROUP = group({
  rank: 170,
  path: 'ledger',
  description: 'where the history lives: the file, or PostgreSQL shared by several machines',
  long: `The history is what \`create\` and \`watch\` record and \`list\`, \`report\` and \`reconcile\` read. The \`ledger\` setting (or \`LBRL_LEDGER_URL\`) says where it lives: \`file\`, the default, in the config directory, or a PostgreSQL URL in libpq's form, whose password is never printed and whose certificates are always checked. \`import\` copies this machine's file history into the database, \`status\` says which store is in use, \`export\` writes it out as the file's lines.`,
  examples: [
    'lbrl config set ledger postgres://till@db.example.com/shop',
    'lbrl ledger import',
    'lbrl ledger status',
  ],
});

export const LEDGER_STATUS = command({
  rank: 171,
  path: 'ledger status',
  description: 'the store, its schema version and how many deposits it holds',
  long: `The store in use (the file, or PostgreSQL), where it is (a URL without its password), its schema version (\`-\` for the file) and how many deposits it holds. A database that is down or refuses the password is one line and exit 6.`,
  flags: [],
  examples: ['lbrl ledger status', 'lbrl ledger status --json'],
  async run({ factory }) {
    return runLedgerStatus(ledgerOptionsOf(await factory()));
  },
});

export const LEDGER_IMPORT = command({
  rank: 172,
  path: 'ledger import',
  description: "copy this machine's file history into the database (run again, it adds nothing twice)",
  long: `It runs in one transaction and takes each record once, so it can be run again after a failure or on every machine of the shop. With the ledger set to the file it is a usage error (exit 2): set it to a database first.`,
  flags: [],
  examples: ['LBRL_LEDGER_URL=postgres://till@db.example.com/shop lbrl ledger import'],
  async run({ factory }) {
    return runLedgerImport(ledgerOptionsOf(await factory()));
  },
});

export const LEDGER_EXPORT = command({
  rank: 173,
  path: 'ledger export',
  description: "write the ledger as the file history's NDJSON, on stdout",
  long: `One JSON line per record, as the file history holds them, whichever store is in use: a copy of a database's ledger that lbrl reads back as a history file, or a backup.`,
  flags: [],
  examples: ['lbrl ledger export > history.ndjson'],
  async run({ factory }) {
    return runLedgerExport(ledgerOptionsOf(await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(LEDGER_GROUP, LEDGER_STATUS, LEDGER_IMPORT, LEDGER_EXPORT);
