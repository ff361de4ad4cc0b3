/**
 * One command's view of the world: the profile, where requests go (live or sandbox),
 * and the client to send them with.
 */
import path from 'node:path';
import { parseBaseUrl, parseToken, withoutCredentials } from './api/baseurl.js';
import type { ClientOptions, DepositClient } from './api/client.js';
import type { Context } from './context.js';
import type { RequestDefaults, Scope } from './deposits/ports.js';
import {
  type LedgerSetting,
  ledgerUrlSecrets,
  readLedgerSetting,
  shownLedgerUrl,
} from './domain/ledger-url.js';
import { isNetwork, type Network } from './domain/liquid/networks.js';
import { blindingKeySecrets, MIN_FRAGMENT_SECRET, webhookSecretSecrets } from './domain/text/redact.js';
import { terminalSafe } from './domain/text/safe-text.js';
import { parseProfileName } from './domain/values.js';
import { invalidValue, LbrlError, usageError } from './errors.js';
import type { ClaimWaitOptions, RowTurn } from './store/claims.js';
import {
  type ConfigKey,
  ConfigStore,
  configDir,
  DEFAULTS,
  type DefaultedKey,
  type Profile,
  requireProfileExists,
} from './store/config.js';
import { History } from './store/history.js';
import type { HistoryEntry, StoredRecord } from './store/history-records.js';
import { openLedger } from './store/ledger.js';
import { ledgerCopyDir } from './store/ledger-copy-dir.js';
import type { LedgerMirror } from './store/ledger-mirror.js';
import type { Ledger } from './store/ledger-port.js';
import { embeddedSandboxRefusal } from './store/ledger-rules.js';
import { Printer } from './ui/output.js';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  input?: boolean;
  verbose?: boolean;
  insecureSkipTlsVerify?: boolean;
}

export type Target =
  | { mode: 'live'; baseUrl: string; token: string; baseUrlFrom: string; tokenFrom: string }
  | { mode: 'sandbox' };

/** The tokens `lbrl sandbox serve` makes (newSandboxToken in sandbox/store.ts). */
const STANDING_SANDBOX_TOKEN = /^sbx_[0-9a-f]{32}$/;

export class Session {
  readonly printer: Printer;
  readonly profileName: string;
  readonly store: ConfigStore;
  private clients: DepositClient[] = [];
  private sandboxUrl: { baseUrl: string; token: string } | undefined;
  private closers: Array<() => Promise<void>> = [];
  /** where the profile's name came from, for the error when it does not exist */
  private readonly profileFrom: string;
  /** set by the commands that create a profile (config set, auth login): a new name is theirs to make */
  private mayCreateProfile = false;
  private profileChecked = false;

  /** the command's context, its stdout and stderr redacting every write (Printer.guard) */
  readonly ctx: Context;

  constructor(
    ctx: Context,
    readonly globals: GlobalOptions,
  ) {
    this.printer = new Printer(ctx, {
      json: Boolean(globals.json),
      quiet: Boolean(globals.quiet),
      color: globals.color !== false,
      verbose: Boolean(globals.verbose),
    });
    this.ctx = this.printer.guard(ctx);
    const profileText = globals.profile ?? ctx.env.LBRL_PROFILE ?? 'default';
    const parsed = parseProfileName(profileText);
    if (!parsed.ok)
      throw invalidValue(
        globals.profile !== undefined ? '--profile' : 'LBRL_PROFILE',
        profileText,
        parsed.expected,
      );
    this.profileName = parsed.value;
    this.profileFrom = globals.profile !== undefined ? '--profile' : 'LBRL_PROFILE';
    this.store = new ConfigStore(configDir(ctx.env, ctx.homedir), (line) => this.printer.warn(line));
    this.printer.addSecret(ctx.env.LBRL_TOKEN);
    for (const secret of ledgerUrlSecrets(ctx.env.LBRL_LEDGER_URL)) this.printer.addSecret(secret);
    this.printer.addSecret(ctx.env.PGPASSWORD);
  }

  /** For config set and auth login: the profile may be new (they create it). */
  creatingProfile(): this {
    this.mayCreateProfile = true;
    return this;
  }

  /** Every read of the profile (settings, target, history) starts here: a misspelt name is an error. */
  private requireProfile(): void {
    if (this.profileChecked || this.mayCreateProfile) return;
    requireProfileExists(this.store, this.profileName, this.profileFrom);
    this.profileChecked = true;
  }

  private historyStore: History | undefined;
  /** the ledger in a database, once useLedger opened it, and this host's copy of it */
  private database: Ledger | undefined;
  private mirror: LedgerMirror | undefined;
  /** the ledger could not take what was recorded (kept in the spool): the command ends with it */
  private spooled: LbrlError | undefined;
  /** the database appends under way (an event handler may not wait for its own) */
  private readonly writes: Promise<void>[] = [];

  /**
   * The history the command reads: the file history, or, when the ledger is a database, this
   * host's copy of it (store/ledger-mirror.ts), as of the last time useLedger or a record
   * brought it up to date.
   */
  history(): History {
    // the profile read (and checked) first: a damaged config file is an error here too, not an
    // empty list reported as success
    this.profile();
    if (!this.historyStore) {
      const setting = this.ledger();
      const warn = (line: string) => this.printer.warn(line);
      // a database ledger: this host's copy of it (the copy's machinery loads when the ledger is reached)
      const dir = setting.kind === 'postgres' ? ledgerCopyDir(this.store.dir, setting.shown) : this.store.dir;
      this.historyStore = this.mirror ? this.mirror.history() : new History(dir, warn);
    }
    return this.historyStore;
  }

  /**
   * Every command that reads or writes the history calls this first. For a database ledger:
   * connect (a fault is one line, exit 6, before anything is sent), move in what an earlier
   * command kept in the spool, and bring this host's copy up to date. For the file: nothing.
   */
  async useLedger(): Promise<void> {
    const setting = this.ledger();
    if (setting.kind === 'file' || this.database) return;
    // the embedded sandbox is this machine's own: a shared ledger takes none of its charges
    if (this.target().mode === 'sandbox') throw embeddedSandboxRefusal(setting.shown);
    const database = await this.ledgerStore(setting);
    this.database = database;
    const warn = (line: string) => this.printer.warn(line);
    const { LedgerMirror } = await import('./store/ledger-mirror.js');
    this.mirror ??= new LedgerMirror(this.store.dir, database.where, warn);
    const { moveSpoolIn } = await import('./store/ledger-spool.js');
    const moved = await moveSpoolIn(this.store.dir, database, warn, (line) => this.printer.alarm(line));
    if (moved > 0)
      this.printer.info(
        `moved ${moved} record(s) kept here while the ledger was unreachable into the ledger`,
      );
    await this.catchUp();
  }

  /** The history, once the ledger is reached and this host's copy of it is up to date. */
  async ledgerHistory(): Promise<History> {
    await this.useLedger();
    return this.history();
  }

  /** --resume on a database ledger: the row claimed in the database (store/ledger-port.ts claimRow). */
  async claimRow(
    row: Parameters<NonNullable<Ledger['claimRow']>>[0],
    wait: ClaimWaitOptions,
  ): Promise<RowTurn> {
    await this.useLedger();
    return this.database!.claimRow!(row, wait);
  }

  /**
   * For the commands that run until stopped (display, listen): this host's copy of a database
   * ledger caught up every `everyMs`, so a charge another host created is seen; a failed look
   * is said once until one succeeds again.
   */
  followLedger(everyMs: number): void {
    if (this.ledger().kind !== 'postgres') return;
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, this.ctx.signal]);
    this.onClose(async () => stop.abort());
    void (async () => {
      let said = false;
      while (!signal.aborted) {
        try {
          await this.ctx.sleep(everyMs, signal);
          await this.catchUp();
          said = false;
        } catch (error) {
          if (signal.aborted) return;
          if (!said) this.printer.warn(`warning: ${(error as Error).message}; looking again`);
          said = true;
        }
      }
    })();
  }

  /** Brings this host's copy of a database ledger up to date (long-running commands call it as they poll). */
  async catchUp(): Promise<void> {
    if (!this.database || !this.mirror) return;
    await this.mirror.catchUp(this.database, this.ctx);
    this.historyStore = undefined;
  }

  /** The fault a command ends with when the ledger could not take what it recorded: exit 6, once. */
  async ledgerFault(): Promise<LbrlError | undefined> {
    await Promise.allSettled(this.writes);
    const fault = this.spooled;
    this.spooled = undefined;
    return fault;
  }

  /**
   * The error as the one handler prints it: no control character of any message (a service's
   * words in it included) reaches the terminal raw; what was made safe before is not escaped again.
   */
  showError(error: LbrlError): void {
    const { message, type, suggestion } = error;
    // a message lbrl writes over several lines (a batch's list of problems) keeps its lines;
    // within each, whatever a terminal would act on is escaped
    const safe = (text: string) => text.split('\n').map(terminalSafe).join('\n');
    const shown = new LbrlError(safe(message), type, suggestion && safe(suggestion));
    if (error.details) shown.details = error.details;
    this.printer.error(shown);
  }

  /**
   * Record in the local history; a failure to record is a warning, never a lost result, and one
   * no option hides: list, --pending and --resume will not know the deposit.
   */
  record(records: StoredRecord[]): void | Promise<void> {
    if (this.ledger().kind === 'postgres') {
      const write = this.recordInDatabase(records.map((record) => this.namingService(record)));
      this.writes.push(write.catch(() => {}));
      return write;
    }
    try {
      this.history().append(records.map((record) => this.namingService(record)));
    } catch (error) {
      this.printer.alarm(`warning: could not record in ${this.history().file}: ${(error as Error).message}`);
    }
  }

  /**
   * A record about a deposit, naming the service it was learnt from (this session's target): one
   * id may be a deposit on the sandbox and another on a live service, and a status of one must
   * never move the other. A record that names one already is kept as it is.
   */
  private namingService(record: StoredRecord): StoredRecord {
    if (record.type === 'created' || record.type === 'attempt' || record.baseUrl !== undefined) return record;
    let service: string;
    try {
      service = Session.targetKey(this.target());
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
      await this.useLedger();
      await this.database!.append(records);
    } catch (error) {
      if (error instanceof LbrlError && (error.type === 'mismatch' || error.type === 'usage')) throw error;
      const { spoolRecords } = await import('./store/ledger-spool.js');
      const said = error instanceof LbrlError ? error.message : String(error);
      const reason = said.replace(/; what this command was writing was not recorded$/, '');
      const kept = spoolRecords(this.store.dir, records, (line) => this.printer.warn(line));
      if (kept.ok)
        this.spooled ??= new LbrlError(
          `the ledger could not take what this command recorded (${reason}); it is kept in ${kept.file} until the ledger can take it: the next command that reaches the ledger moves it in`,
          'network',
        );
      else this.printer.alarm(`warning: could not record in ${kept.file} either: ${kept.error}`);
      return;
    }
    try {
      await this.catchUp();
    } catch {
      // recorded; this host's copy catches up at the next command
    }
  }

  /** Where a target's deposits live, as the history records it. */
  static targetKey(target: Target): string {
    return target.mode === 'live' ? target.baseUrl : 'sandbox';
  }

  get sandboxDir(): string {
    return path.join(this.store.dir, 'sandbox');
  }

  profile(): Profile {
    this.requireProfile();
    const profile = this.store.profile(this.profileName);
    this.printer.addSecret(profile.token);
    for (const secret of ledgerUrlSecrets(profile.ledger)) this.printer.addSecret(secret);
    const webhook = profile['webhook-secret'];
    if (webhook) for (const secret of webhookSecretSecrets(webhook)) this.printer.addSecret(secret);
    for (const entry of profile['blinding-keys'] ?? []) {
      for (const secret of blindingKeySecrets(entry.key)) this.printer.addSecret(secret);
    }
    return profile;
  }

  /**
   * The profile as the file has it, its settings unchecked: only for the commands that repair a
   * damaged profile (config unset, config set-blinding-key --clear, auth logout).
   */
  profileForRepair(): Profile {
    this.requireProfile();
    const profile = this.store.rawProfile(this.profileName);
    if (typeof profile.token === 'string') this.printer.addSecret(profile.token);
    for (const secret of ledgerUrlSecrets(profile.ledger)) this.printer.addSecret(secret);
    const webhook = profile['webhook-secret'] as unknown;
    if (typeof webhook === 'string')
      for (const secret of webhookSecretSecrets(webhook)) this.printer.addSecret(secret);
    const keys = profile['blinding-keys'] as unknown;
    for (const entry of Array.isArray(keys) ? keys : [keys]) {
      const key = typeof entry === 'string' ? entry : (entry as { key?: unknown } | null)?.key;
      if (typeof key === 'string')
        for (const secret of blindingKeySecrets(key)) this.printer.addSecret(secret);
    }
    return profile;
  }

  /** The profile's value of a setting, or its default. */
  setting(key: DefaultedKey): string;
  setting(key: ConfigKey): string | undefined;
  setting(key: ConfigKey): string | undefined {
    return this.profile()[key] ?? DEFAULTS[key];
  }

  /** The settings a deposit request is checked against (the network is checked first). */
  requestDefaults(): RequestDefaults {
    return {
      network: this.network(),
      defaultAddress: this.setting('default-address'),
      splitAddress: this.setting('split-address'),
      splitFee: this.setting('split-fee'),
    };
  }

  /** This profile's deposits on a target, as the history records them. */
  scope(target: Target = this.target()): Scope {
    return { profile: this.profileName, target: Session.targetKey(target) };
  }

  network(): Network {
    const network = this.setting('network');
    if (!isNetwork(network))
      throw usageError(
        `the profile's network ${JSON.stringify(network)} is not liquid, liquidtestnet or elementsregtest`,
      );
    return network;
  }

  /** The base URL as given, unchecked, and where it came from: --base-url, LBRL_BASE_URL, the profile. */
  baseUrlSetting(): { value: string; from: string } | undefined {
    if (this.globals.baseUrl !== undefined) return { value: this.globals.baseUrl, from: '--base-url' };
    if (this.ctx.env.LBRL_BASE_URL !== undefined)
      return { value: this.ctx.env.LBRL_BASE_URL, from: 'LBRL_BASE_URL' };
    const saved = this.profile()['base-url'];
    return saved !== undefined ? { value: saved, from: `profile ${this.profileName}` } : undefined;
  }

  /** The ledger setting as given, unchecked, and where it came from: LBRL_LEDGER_URL, the profile, the default. */
  ledgerSetting(): { value: string; from: string } {
    const fromEnv = this.ctx.env.LBRL_LEDGER_URL;
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: 'LBRL_LEDGER_URL' };
    const saved = this.profile().ledger;
    return saved !== undefined
      ? { value: saved, from: 'ledger in the config' }
      : { value: 'file', from: 'default' };
  }

  /** Where the ledger lives, checked as it is read (a hand-edited file or a variable is checked too). */
  ledger(): LedgerSetting {
    const { value, from } = this.ledgerSetting();
    const parsed = readLedgerSetting(value);
    if (!parsed.ok) throw invalidValue(from, shownLedgerUrl(value), parsed.expected);
    return parsed.value;
  }

  /**
   * The ledger, opened (a database's schema created or brought forward), closed when the command
   * ends; the configured one, or `setting` (the file history, for ledger import).
   */
  async ledgerStore(setting: LedgerSetting = this.ledger()): Promise<Ledger> {
    this.profile();
    const insecure = Boolean(this.globals.insecureSkipTlsVerify) && setting.kind === 'postgres';
    if (insecure)
      this.printer.alarm(
        "warning: TLS certificate checks are OFF (--insecure-skip-tls-verify): anyone in between can read the ledger's password and change its records",
      );
    const ledger = await openLedger(setting, {
      dir: this.store.dir,
      warn: (line) => this.printer.warn(line),
      env: this.ctx.env,
      insecureSkipTlsVerify: insecure,
    });
    this.onClose(() => ledger.close());
    return ledger;
  }

  /** The token as given, unchecked, and where it came from: LBRL_TOKEN, then the config file. */
  tokenSetting(): { value: string; from: string } | undefined {
    if (this.ctx.env.LBRL_TOKEN !== undefined) return { value: this.ctx.env.LBRL_TOKEN, from: 'LBRL_TOKEN' };
    const saved = this.profile().token;
    return saved !== undefined ? { value: saved, from: this.store.file } : undefined;
  }

  /** Live when a base URL and a token are both known; sandbox when neither is. */
  /** How a deposit is shown: the embedded sandbox's as no real money; decided by the target alone. */
  renderMode(): { sandbox: boolean; serviceUrl?: string } {
    const target = this.target();
    if (target.mode === 'sandbox') return { sandbox: true };
    // a standing sandbox (lbrl sandbox serve) used as a profile: known by the token the user holds,
    // which it made (sbx_ and 32 hex digits, sandbox/store.ts), never by what an answer says
    return STANDING_SANDBOX_TOKEN.test(target.token)
      ? { sandbox: false, serviceUrl: target.baseUrl }
      : { sandbox: false };
  }

  target(): Target {
    // a misspelt --profile must not quietly become the sandbox
    this.requireProfile();
    const base = this.baseUrlSetting();
    let baseUrl = base?.value;
    const baseUrlFrom = base?.from ?? '';
    const tokenSetting = this.tokenSetting();
    const token = tokenSetting?.value;
    const tokenFrom = tokenSetting?.from ?? '';
    if (baseUrl !== undefined) {
      const parsed = parseBaseUrl(baseUrl);
      if (!parsed.ok)
        throw invalidValue(
          baseUrlFrom === `profile ${this.profileName}` ? 'base-url in the config' : baseUrlFrom,
          withoutCredentials(baseUrl),
          parsed.expected,
        );
      baseUrl = parsed.value;
    }
    if (token !== undefined) {
      const parsed = parseToken(token);
      if (!parsed.ok) throw usageError(`invalid token from ${tokenFrom}: expected ${parsed.expected}`);
      // a short token cannot be told apart from ordinary text, so it cannot be kept out of output
      if (token.length < MIN_FRAGMENT_SECRET)
        throw usageError(
          `invalid token from ${tokenFrom}: it is ${token.length} character(s); lbrl needs at least ${MIN_FRAGMENT_SECRET} to keep it out of everything it prints`,
        );
    }
    if (baseUrl !== undefined && token !== undefined)
      return { mode: 'live', baseUrl, token, baseUrlFrom, tokenFrom };
    if (baseUrl === undefined && token === undefined) return { mode: 'sandbox' };
    if (token !== undefined) {
      throw usageError(
        `a token is set (${tokenFrom === 'LBRL_TOKEN' ? 'LBRL_TOKEN' : `profile ${this.profileName}`}) but no base URL: pass --base-url, set LBRL_BASE_URL, or run lbrl auth login --base-url <url>`,
      );
    }
    throw usageError(
      `a base URL is set (${baseUrlFrom}) but no token: set LBRL_TOKEN or run lbrl auth login; for the sandbox, unset the base URL`,
    );
  }

  /** A client for the target; in sandbox mode the embedded service is started first. */
  async client(
    target: Target = this.target(),
    overrides: { maxRetries?: number; onRetry?: ClientOptions['onRetry']; ledger?: false } = {},
  ): Promise<DepositClient> {
    // what the service answers is recorded: the ledger is reached first (exit 6 before any
    // request when it cannot be); only the commands that record nothing say ledger: false
    const { ledger, ...clientOverrides } = overrides;
    if (ledger !== false) await this.useLedger();
    let baseUrl: string;
    let token: string;
    if (target.mode === 'live') {
      ({ baseUrl, token } = target);
    } else {
      ({ baseUrl, token } = await this.embeddedSandbox());
    }
    this.printer.addSecret(token);
    const { DepositClient } = await import('./api/client.js');
    await this.ctx.clientLoaded?.(baseUrl);
    const insecure = Boolean(this.globals.insecureSkipTlsVerify) && target.mode === 'live';
    if (insecure) {
      // not hidden by -q or --json: a connection anyone can read must never go unsaid
      this.printer.alarm(
        'warning: TLS certificate checks are OFF (--insecure-skip-tls-verify): anyone in between can read the token and change answers',
      );
    }
    const client = new DepositClient({
      baseUrl,
      token,
      sleep: this.ctx.sleep,
      random: this.ctx.random,
      now: this.ctx.now,
      signal: this.ctx.signal,
      // the trace shows the service's bodies: control characters as escapes, never acted on
      trace: this.globals.verbose ? (line) => this.printer.trace(terminalSafe(line)) : undefined,
      userAgent: 'lbrl',
      insecureSkipTlsVerify: insecure,
      ...clientOverrides,
      ...this.ctx.client,
    });
    this.clients.push(client);
    // every answer about a deposit lbrl created on this service is checked against its record
    const key = Session.targetKey(target);
    return Object.assign(client, {
      recorded: (id: string) => this.recorded(key, id),
      holds: (id: string) => this.holds(id, key),
    });
  }

  /** Whether the history holds a deposit of this id on a target (any, when not given); false when it cannot be read. */
  holds(id: string, targetKey?: string): boolean {
    try {
      return this.history().holds(id, targetKey);
    } catch {
      return false;
    }
  }

  /** The history's record of a deposit on a target; undefined when it has none or cannot be read. */
  recorded(targetKey: string, id: string): HistoryEntry | undefined {
    try {
      return this.history().recorded(id, targetKey);
    } catch {
      return undefined;
    }
  }

  /** Started once per command, however many clients use it (and the explorer of its chain). */
  async embeddedSandbox(): Promise<{ baseUrl: string; token: string }> {
    if (this.sandboxUrl) return this.sandboxUrl;
    const { startSandbox } = await import('./sandbox/embedded.js');
    const { qrPng } = await import('./ui/qrpng.js');
    const sandbox = await startSandbox({
      drawPng: qrPng,
      dir: this.sandboxDir,
      autopay: this.setting('sandbox-autopay'),
      now: this.ctx.now,
    });
    this.closers.push(() => sandbox.close());
    this.printer.info(
      this.printer.errColor.bold(
        `sandbox: no account configured, using the embedded sandbox (no real money; data in ${this.sandboxDir})`,
      ),
    );
    this.sandboxUrl = { baseUrl: sandbox.baseUrl, token: sandbox.token };
    return this.sandboxUrl;
  }

  /** Something to close when the command ends (before the sandbox it may talk to). */
  onClose(close: () => Promise<void>): void {
    this.closers.unshift(close);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.writes);
    for (const c of this.clients) await c.close().catch(() => {});
    for (const close of this.closers) await close().catch(() => {});
  }
}
