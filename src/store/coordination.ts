/**
 * Several hosts on one ledger (docs/several-tills.md, "Several hosts at once"): the coordination
 * of watch --pending, listen and display the `ledger` setting names. The file: today's behaviour
 * on one machine (store/coordination-file.ts). A database: leases, a shared request budget, the
 * outbox and notifications in it (store/coordination-db.ts), with the PostgreSQL client loaded
 * only then.
 */
import type { LedgerSetting } from '../domain/ledger-url.js';
import type { DisplayFeed, ListenCoordination, WatchCoordination } from './coordination-port.js';
import type { LedgerOptions } from './ledger-port.js';
import { EMBEDDED_SANDBOX_KEY, embeddedSandboxRefusal } from './ledger-rules.js';

/** How long a lease lasts unless renewed: a listen's standby takes over within 4/3 of it. */
export const LISTEN_LEASE_MS = 15_000;
/** A watch --pending's lease on a deposit: renewed while it runs, free this long after it died. */
export const WATCH_LEASE_MS = 60_000;

export interface CoordinationOptions extends LedgerOptions {
  profile: string;
  /** the history's key of the service */
  service: string;
  /**
   * LBRL_LEASE_MS, for tests only: every lease this long (a listen's standby then takes over
   * within 4/3 of it). Undocumented for users.
   */
  leaseMs?: number | undefined;
}

async function coordinator(
  setting: Extract<LedgerSetting, { kind: 'postgres' }>,
  options: CoordinationOptions,
  role: 'watch' | 'listen' | 'display',
) {
  if (options.service === EMBEDDED_SANDBOX_KEY) throw embeddedSandboxRefusal(setting.shown);
  const { Coordinator } = await import('./coordination-postgres.js');
  return Coordinator.open(setting.url, setting.shown, options, role);
}

function scopeOf(options: CoordinationOptions, leaseMs: number) {
  return {
    profile: options.profile,
    service: options.service,
    leaseMs: options.leaseMs ?? leaseMs,
    warn: options.warn,
  };
}

export async function openWatchCoordination(
  setting: LedgerSetting,
  options: CoordinationOptions,
  perMinute: number,
): Promise<WatchCoordination> {
  if (setting.kind === 'file') return (await import('./coordination-file.js')).FILE_WATCH;
  const opened = await coordinator(setting, options, 'watch');
  const { PostgresWatch } = await import('./coordination-db.js');
  const budget = opened.budget(`${options.profile} ${options.service}`, perMinute);
  return new PostgresWatch(opened, scopeOf(options, WATCH_LEASE_MS), budget);
}

export async function openListenCoordination(
  setting: LedgerSetting,
  options: CoordinationOptions,
): Promise<ListenCoordination> {
  if (setting.kind === 'file') {
    const { FileListen } = await import('./coordination-file.js');
    return new FileListen(options.dir, options.profile, options.warn);
  }
  const opened = await coordinator(setting, options, 'listen');
  const { PostgresListen } = await import('./coordination-db.js');
  return new PostgresListen(opened, scopeOf(options, LISTEN_LEASE_MS));
}

/** The display's feed of a database ledger; none for the file (the display reads the history). */
export async function openDisplayFeed(
  setting: LedgerSetting,
  options: CoordinationOptions,
): Promise<DisplayFeed | undefined> {
  if (setting.kind === 'file') return undefined;
  const opened = await coordinator(setting, options, 'display');
  const { PostgresDisplayFeed } = await import('./coordination-db.js');
  return new PostgresDisplayFeed(opened, scopeOf(options, LISTEN_LEASE_MS), () =>
    coordinator(setting, options, 'display'),
  );
}
