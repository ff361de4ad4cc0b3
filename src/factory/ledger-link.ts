/**
 * A command's link to the ledger (store/ledger*.ts): the history it reads (the file, or this
 * host's copy of a database ledger), what it records, and the database reached, caught up and
 * closed. The factory makes one per command (`Factory.ledger()`); what it records names the
 * command's service.
 */
import type { Context } from '../context.js';
import { type Target, targetKey } from '../deposits/ports.js';
import type { LedgerSetting } from '../domain/ledger-url.js';
import { LbrlError } from '../errors.js';
import type { ClaimWaitOptions, RowTurn } from '../store/claims.js';
import type { Profile } from '../store/config.js';
import { History } from '../store/history.js';
import { checkHistoryToAppend } from '../store/history-encoding.js';
import type { HistoryEntry, StoredRecord } from '../store/history-records.js';
import { openLedger } from '../store/ledger.js';
import { ledgerCopyDir, namingTheLedger } from '../store/ledger-copy-dir.js';
import type { LedgerMirror } from '../store/ledger-mirror.js';
import type { Ledger, LedgerOptions } from '../store/ledger-port.js';
import { embeddedSandboxRefusal } from '../store/ledger-rules.js';
import type { Printer } from '../ui/output.js';
import { resolveLedger } from './target.js';

/** What the link reads of its command: the factory's getters, narrowed. */
export interface LedgerLinkDeps {
  ctx: Context;
  printer: Printer;
  /** the config's directory: the file history, the spool and the copies of database ledgers live there */
  dir: string;
  insecureSkipTlsVerify: boolean;
  /** the profile, checked (a misspelt or damaged one is an error before any history is read) */
  profile(): Profile;
  /** the command's target: what is recorded names its service */
  target(): Target;
  onClose(close: () => Promise<void>): void;
}

export class LedgerLink {
  private historyStore: History | undefined;
  /** the ledger in a database, once reach() opened it, and this host's copy of it */
  private database: Ledger | undefined;
  private mirror: LedgerMirror | undefined;
  /** the ledger could not take what was recorded (kept in the spool): the command ends with it */
  private spooled: LbrlError | undefined;
  /** the database appends under way (an event handler may not wait for its own) */
  private readonly writes: Promise<void>[] = [];

  constructor(private readonly deps: LedgerLinkDeps) {}

  /** Where the ledger lives, checked as it is read: LBRL_LEDGER_URL, the profile, the default. */
  setting(): LedgerSetting {
    return resolveLedger(this.deps.ctx.env, () => this.deps.profile().ledger);
  }

  /**
   * The history the command reads: the file history, or, when the ledger is a database, this
   * host's copy of it (store/ledger-mirror.ts), as of the last time reach() or a record
   * brought it up to date.
   */
  history(): History {
    // the profile read (and checked) first: a damaged config file is an error here too, not an
    // empty list reported as success
    this.deps.profile();
    if (!this.historyStore) {
      const setting = this.setting();
      const warn = (line: string) => this.deps.printer.warn(line);
      // a database ledger: this host's copy of it (the copy's machinery loads when the ledger is
      // reached), its warnings naming the ledger's records
      const dir = setting.kind === 'postgres' ? ledgerCopyDir(this.deps.dir, setting.shown) : this.deps.dir;
      const said = setting.kind === 'postgres' ? namingTheLedger(warn, dir, setting.shown) : warn;
      this.historyStore = this.mirror ? this.mirror.history() : new History(dir, said);
    }
    return this.historyStore;
  }

  /**
   * Every command that reads or writes the history calls this first. For a database ledger:
   * connect (a fault is one line, exit 6, before anything is sent), move in what an earlier
   * command kept in the spool, and bring this host's copy up to date. For the file: nothing.
   */
  async reach(): Promise<void> {
    const setting = this.setting();
    if (setting.kind === 'file' || this.database) return;
    // the embedded sandbox is this machine's own: a shared ledger takes none of its charges
    if (this.deps.target().mode === 'sandbox') throw embeddedSandboxRefusal(setting.shown);
    const { printer, dir } = this.deps;
    const warn = (line: string) => printer.warn(line);
    // the connection begins first, so the server starts its process while the rest loads; the
    // copy's first page of news is read with the schema's version, in one round trip
    let expected: ReturnType<LedgerMirror['expectedPage']> | undefined;
    const opening = this.open(setting, () => expected ?? this.mirror?.expectedPage());
    // the copy's code and the spool's loaded once the event loop turned, while the server
    // authenticates: the socket asks to connect at that turn, and loading them first (node:crypto
    // with the copy) put the connection off by ms; loaded after it, the spool's waited for the answer
    const copied = new Promise((turned) => setImmediate(turned))
      .then(() => import('../store/ledger-mirror.js'))
      .then(({ LedgerMirror }) => {
        this.mirror ??= new LedgerMirror(dir, setting.shown, warn);
        // the copy's position read while the server authenticates, not after: only a hint of the
        // page to read first (catchUp reads the position again, and asks anew if it moved)
        expected = this.mirror.expectedPage();
        return import('../store/ledger-spool.js');
      });
    const [database, { moveSpoolIn }] = await Promise.all([opening, copied]);
    this.database = database;
    const moved = await moveSpoolIn(dir, database, warn, (line) => printer.alarm(line));
    if (moved > 0)
      printer.info(`moved ${moved} record(s) kept here while the ledger was unreachable into the ledger`);
    await this.catchUp();
  }

  /**
   * Before a create (or any command that records) sends (Recorder.ready): the file history is one
   * lbrl can append to (no link, hard link, directory, FIFO, read-only file, UTF-16 text:
   * store/history-encoding.ts), so no charge is made that could not be recorded.
   */
  ready(): void {
    if (this.checkedReady || this.setting().kind !== 'file') return;
    checkHistoryToAppend(this.history().file, (line) => this.deps.printer.warn(line));
    // once a command: the factory's every client asks it (a watch makes more than one)
    this.checkedReady = true;
  }
  private checkedReady = false;

  /** The history, once the ledger is reached and this host's copy of it is up to date. */
  async reachedHistory(): Promise<History> {
    await this.reach();
    return this.history();
  }

  /** --resume on a database ledger: the row claimed in the database (store/ledger-port.ts claimRow). */
  async claimRow(
    row: Parameters<NonNullable<Ledger['claimRow']>>[0],
    wait: ClaimWaitOptions,
  ): Promise<RowTurn> {
    await this.reach();
    return this.database!.claimRow!(row, wait);
  }

  /**
   * For the commands that run until stopped (display, listen): this host's copy of a database
   * ledger caught up every `everyMs`, so a charge another host created is seen; a failed look
   * is said once until one succeeds again.
   */
  follow(everyMs: number): void {
    if (this.setting().kind !== 'postgres') return;
    const { ctx, printer } = this.deps;
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, ctx.signal, this.ended.signal]);
    this.deps.onClose(async () => stop.abort());
    void (async () => {
      let said = false;
      while (!signal.aborted) {
        try {
          await ctx.sleep(everyMs, signal);
          await this.catchUp();
          said = false;
        } catch (error) {
          if (signal.aborted) return;
          if (!said) printer.warn(`warning: ${(error as Error).message}; looking again`);
          said = true;
        }
      }
    })();
  }

  /**
   * The command is ending (its error about to be said): the copy is followed no more, so no
   * warning of a look that failed as the ledger's connection closed comes after the error line.
   */
  ending(): void {
    this.ended.abort();
  }
  private readonly ended = new AbortController();

  /** Brings this host's copy of a database ledger up to date (long-running commands call it as they poll). */
  async catchUp(): Promise<void> {
    if (!this.database || !this.mirror) return;
    await this.mirror.catchUp(this.database, this.deps.ctx);
    this.historyStore = undefined;
  }

  /** The fault a command ends with when the ledger could not take what it recorded: exit 6, once. */
  async fault(): Promise<LbrlError | undefined> {
    await this.settled();
    const fault = this.spooled;
    this.spooled = undefined;
    return fault;
  }

  /** Every append under way, done (or failed). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.writes);
  }

  /**
   * Record in the local history; a failure to record is a warning, never a lost result, and one
   * no option hides: list, --pending and --resume will not know the deposit.
   */
  record(records: StoredRecord[]): void | Promise<void> {
    if (this.setting().kind === 'postgres') {
      const write = this.recordInDatabase(records.map((record) => this.namingService(record)));
      this.writes.push(write.catch(() => {}));
      return write;
    }
    try {
      this.history().append(records.map((record) => this.namingService(record)));
    } catch (error) {
      const file = this.history().file;
      this.deps.printer.alarm(`warning: could not record in ${file}: ${(error as Error).message}`);
      // a charge made that the ledger does not hold: said plainly, with what keeps it followed
      for (const record of records)
        if (record.type === 'created')
          this.deps.printer.alarm(
            `warning: deposit ${record.id} exists at the service but is not in ${file}: list, watch --pending and --resume will not know it; keep its id, and follow it with lbrl deposit watch ${record.id}`,
          );
    }
  }

  /** Whether the history holds a deposit of this id on a target (any, when not given); false when it cannot be read. */
  holds(id: string, key?: string): boolean {
    try {
      return this.history().holds(id, key);
    } catch {
      return false;
    }
  }

  /** The history's record of a deposit on a target; undefined when it has none or cannot be read. */
  recorded(key: string, id: string): HistoryEntry | undefined {
    try {
      return this.history().recorded(id, key);
    } catch {
      return undefined;
    }
  }

  /**
   * The ledger, opened (a database's schema created or brought forward), closed when the command
   * ends; the configured one, or `setting` (the file history, for ledger import).
   */
  async open(setting: LedgerSetting = this.setting(), logFrom?: LedgerOptions['logFrom']): Promise<Ledger> {
    const { printer, ctx } = this.deps;
    this.deps.profile();
    const insecure = this.deps.insecureSkipTlsVerify && setting.kind === 'postgres';
    if (insecure)
      printer.alarm(
        "warning: TLS certificate checks are OFF (--insecure-skip-tls-verify): anyone in between can read the ledger's password and change its records",
      );
    const ledger = await openLedger(setting, {
      dir: this.deps.dir,
      warn: (line) => printer.warn(line),
      env: ctx.env,
      insecureSkipTlsVerify: insecure,
      logFrom,
    });
    this.deps.onClose(() => ledger.close());
    return ledger;
  }

  /**
   * A record about a deposit, naming the service it was learnt from (this command's target): one
   * id may be a deposit on the sandbox and another on a live service, and a status of one must
   * never move the other. A record that names one already is kept as it is.
   */
  private namingService(record: StoredRecord): StoredRecord {
    if (record.type === 'created' || record.type === 'attempt' || record.baseUrl !== undefined) return record;
    let service: string;
    try {
      service = targetKey(this.deps.target());
    } catch {
      return record;
    }
    return { ...record, baseUrl: service };
  }

  /**
   * Into the database, in one transaction; a deposit the ledger holds with another creation is
   * refused (thrown: the charge is not shown as payable). When the database cannot take them,
   * the records are kept in the spool (the next command that reaches it moves them in) and the
   * command ends with exit 6 saying so.
   */
  private async recordInDatabase(records: StoredRecord[]): Promise<void> {
    try {
      await this.reach();
      await this.database!.append(records);
    } catch (error) {
      if (error instanceof LbrlError && (error.type === 'mismatch' || error.type === 'usage')) throw error;
      const { spoolRecords } = await import('../store/ledger-spool.js');
      const said = error instanceof LbrlError ? error.message : String(error);
      // the lost connection's reason, without what the ledger said of the write (the spool keeps it)
      const reason = said.replace(/^(the connection to the ledger at .* was lost \(.*\)); [^;]*$/, '$1');
      const kept = spoolRecords(this.deps.dir, records, (line) => this.deps.printer.warn(line));
      if (kept.ok)
        this.spooled ??= new LbrlError(
          `the ledger could not take what this command recorded (${reason}); it is kept in ${kept.file} until the ledger can take it: the next command that reaches the ledger moves it in`,
          'network',
        );
      else this.deps.printer.alarm(`warning: could not record in ${kept.file} either: ${kept.error}`);
      return;
    }
    try {
      await this.catchUp();
    } catch {
      // recorded; this host's copy catches up at the next command
    }
  }
}
