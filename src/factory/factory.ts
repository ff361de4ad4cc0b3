/**
 * What a command is handed (gh's cmdutil.Factory): the command's streams and printer, the
 * program's flags, and lazy getters for the config, the profile, the target, a client, the
 * sandbox and the ledger. A command builds its own narrow options from these, once, at the top of
 * its handler; what is below sees only its options. Nothing here forwards to another member: a
 * setting of the profile is `settingOf(f.profile(), key)` (factory/settings.ts), a target's key
 * `targetKey(f.target())` (deposits/ports.ts).
 */
import type { ClientOptions, DepositClient } from '../api/client.js';
import type { Context } from '../context.js';
import { type Target, targetKey } from '../deposits/ports.js';
import { ledgerUrlSecrets } from '../domain/ledger-url.js';
import { blindingKeySecrets, webhookSecretSecrets } from '../domain/text/redact.js';
import { terminalSafe } from '../domain/text/safe-text.js';
import { LbrlError } from '../errors.js';
import { ConfigStore, configDir, type Profile, requireProfileExists } from '../store/config.js';
import { Printer } from '../ui/output.js';
import { LedgerLink } from './ledger-link.js';
import { networkSetting, sandboxDirOf, settingOf } from './settings.js';
import { profileNameOf, resolveTarget, type TargetInputs } from './target.js';

/** The program's own flags (commands/program.ts checks they are exactly these). */
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

/** What a client for the target may be made with, beside the context's own. */
export interface ClientOverrides {
  maxRetries?: number;
  onRetry?: ClientOptions['onRetry'];
  /** false: the command records nothing, so the ledger is not reached first */
  ledger?: false;
}

/** The embedded sandbox of a command, started on first use. */
export interface SandboxAccess {
  baseUrl: string;
  token: string;
}

export interface Factory {
  /** the command's context, its stdout and stderr redacting every write (Printer.guard) */
  readonly ctx: Context;
  readonly printer: Printer;
  /** the program's flags as given */
  readonly globals: GlobalOptions;
  /** --profile, LBRL_PROFILE or "default", checked as a name */
  readonly profileName: string;
  /** the config file (read when asked) */
  config(): ConfigStore;
  /** the profile, checked (a misspelt name or a damaged file is an error), its secrets kept out of output */
  profile(): Profile;
  /** the profile as the file has it, its settings unchecked: only for the commands that repair a damaged one */
  repairProfile(): Profile;
  /** where requests go (factory/target.ts) */
  target(): Target;
  /** a client for the target; the ledger is reached first unless `ledger: false`; the embedded sandbox started when it is the target */
  client(target?: Target, overrides?: ClientOverrides): Promise<DepositClient>;
  /** the embedded sandbox, started once per command however many clients use it */
  sandbox(): Promise<SandboxAccess>;
  /** the ledger: history, records, the database reached */
  ledger(): LedgerLink;
  /** something to close when the command ends (before the sandbox it may talk to) */
  onClose(close: () => Promise<void>): void;
}

/** The factory and what only the program's wiring (cli.ts) does with it. */
export interface CommandRuntime {
  readonly factory: Factory;
  /** config set and auth login: the profile may be new (they create it) */
  allowNewProfile(): void;
  /** the error as the one handler prints it, control characters escaped */
  showError(error: LbrlError): void;
  /** clients, the ledger and the sandbox closed, appends done */
  close(): Promise<void>;
}

/** A command's factory on a context and the program's flags; nothing is read until asked for. */
export function openRuntime(ctx: Context, globals: GlobalOptions): CommandRuntime {
  return new CommandFactory(ctx, globals);
}

class CommandFactory implements Factory, CommandRuntime {
  readonly ctx: Context;
  readonly printer: Printer;
  readonly profileName: string;
  private readonly profileFrom: string;
  private readonly store: ConfigStore;
  private mayCreateProfile = false;
  private profileChecked = false;
  private link: LedgerLink | undefined;
  private clients: DepositClient[] = [];
  private sandboxUrl: SandboxAccess | undefined;
  private closers: Array<() => Promise<void>> = [];

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
    const { name, from } = profileNameOf(globals, ctx.env);
    this.profileName = name;
    this.profileFrom = from;
    this.store = new ConfigStore(configDir(ctx.env, ctx.homedir), (line) => this.printer.warn(line));
    this.printer.addSecret(ctx.env.LBRL_TOKEN);
    for (const secret of ledgerUrlSecrets(ctx.env.LBRL_LEDGER_URL)) this.printer.addSecret(secret);
    this.printer.addSecret(ctx.env.PGPASSWORD);
  }

  get factory(): Factory {
    return this;
  }

  allowNewProfile(): void {
    this.mayCreateProfile = true;
  }

  config(): ConfigStore {
    return this.store;
  }

  /** Every read of the profile (settings, target, history) starts here: a misspelt name is an error. */
  private requireProfile(): void {
    if (this.profileChecked || this.mayCreateProfile) return;
    requireProfileExists(this.store, this.profileName, this.profileFrom);
    this.profileChecked = true;
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

  repairProfile(): Profile {
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

  target(): Target {
    // a misspelt --profile must not quietly become the sandbox
    this.requireProfile();
    return resolveTarget({
      flags: this.globals,
      env: this.ctx.env,
      profileName: this.profileName,
      saved: () => this.profile(),
      configFile: this.store.file,
    });
  }

  ledger(): LedgerLink {
    this.link ??= new LedgerLink({
      ctx: this.ctx,
      printer: this.printer,
      dir: this.store.dir,
      insecureSkipTlsVerify: Boolean(this.globals.insecureSkipTlsVerify),
      profile: () => this.profile(),
      target: () => this.target(),
      onClose: (close) => this.onClose(close),
    });
    return this.link;
  }

  async client(target: Target = this.target(), overrides: ClientOverrides = {}): Promise<DepositClient> {
    // what the service answers is recorded: the ledger is reached first (exit 6 before any
    // request when it cannot be), and a file history checked as create checks it (Recorder.ready:
    // one lbrl can append to, not UTF-16), so no command asks and then finds it cannot record, or
    // reports a "not found" that hides it; only the commands that record nothing say ledger: false
    const { ledger, ...clientOverrides } = overrides;
    if (ledger !== false) {
      await this.ledger().reach();
      this.ledger().ready();
    }
    const { baseUrl, token } = target.mode === 'live' ? target : await this.sandbox();
    this.printer.addSecret(token);
    const { DepositClient } = await import('../api/client.js');
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
    const key = targetKey(target);
    const link = this.ledger();
    return Object.assign(client, {
      recorded: (id: string) => link.recorded(key, id),
      holds: (id: string) => link.holds(id, key),
      // an address no record holds must be of the profile's network (any, while the setting is unreadable)
      network: networkSetting(this.profile()),
    });
  }

  async sandbox(): Promise<SandboxAccess> {
    if (this.sandboxUrl) return this.sandboxUrl;
    const dir = sandboxDirOf(this.store.dir);
    const { startSandbox } = await import('../sandbox/embedded.js');
    const { qrPng } = await import('../ui/qrpng.js');
    const sandbox = await startSandbox({
      drawPng: qrPng,
      dir,
      autopay: settingOf(this.profile(), 'sandbox-autopay'),
      now: this.ctx.now,
    });
    this.closers.push(() => sandbox.close());
    this.printer.infoFitted(
      this.printer.errColor.bold(
        `sandbox: no account configured, using the embedded sandbox (no real money; data in ${dir})`,
      ),
    );
    this.sandboxUrl = { baseUrl: sandbox.baseUrl, token: sandbox.token };
    return this.sandboxUrl;
  }

  onClose(close: () => Promise<void>): void {
    this.closers.unshift(close);
  }

  showError(error: LbrlError): void {
    this.link?.ending();
    const { message, type, suggestion } = error;
    // a message lbrl writes over several lines (a batch's list of problems) keeps its lines;
    // within each, whatever a terminal would act on is escaped
    const safe = (text: string) => text.split('\n').map(terminalSafe).join('\n');
    const shown = new LbrlError(safe(message), type, suggestion && safe(suggestion));
    if (error.details) shown.details = error.details;
    this.printer.error(shown);
  }

  async close(): Promise<void> {
    await this.link?.settled();
    for (const client of this.clients) await client.close().catch(() => {});
    for (const close of this.closers) await close().catch(() => {});
  }
}

/** What target resolution reads, from a factory: for the commands that say where a setting came from (auth status, config get). */
export function targetInputsOf(factory: Factory): TargetInputs {
  return {
    flags: factory.globals,
    env: factory.ctx.env,
    profileName: factory.profileName,
    saved: () => factory.profile(),
    configFile: factory.config().file,
  };
}
