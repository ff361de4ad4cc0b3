import { scopeOnTarget } from '../../deposits/ports.js';
/**
 * The coordination of several hosts (store/coordination.ts) as the factory's profile names it:
 * its ledger setting, its scope, and LBRL_LEASE_MS (tests only). Closed when the command ends.
 */
import type { Factory } from '../../factory/factory.js';
import {
  type CoordinationOptions,
  openDisplayFeed,
  openListenCoordination,
  openWatchCoordination,
} from '../../store/coordination.js';
import { FILE_WATCH, FileListen } from '../../store/coordination-file.js';
import type { DisplayFeed, ListenCoordination, WatchCoordination } from '../../store/coordination-port.js';

/** LBRL_LEASE_MS: a whole number of milliseconds (50 to 600000), for tests; anything else is ignored. */
export function leaseMsOf(env: Record<string, string | undefined>): number | undefined {
  const text = env.LBRL_LEASE_MS;
  if (text === undefined || !/^\d{2,6}$/.test(text)) return undefined;
  const ms = Number(text);
  return ms >= 50 && ms <= 600_000 ? ms : undefined;
}

function optionsOf(factory: Factory): CoordinationOptions {
  const setting = factory.ledger().setting();
  return {
    dir: factory.config().dir,
    warn: (line) => factory.printer.warn(line),
    env: factory.ctx.env,
    insecureSkipTlsVerify: Boolean(factory.globals.insecureSkipTlsVerify) && setting.kind === 'postgres',
    profile: factory.profileName,
    service: scopeOnTarget(factory.profileName, factory.target()).target,
    leaseMs: leaseMsOf(factory.ctx.env),
  };
}

function closing<T extends { close(): Promise<void> }>(onClose: Factory['onClose'], opened: T): T {
  onClose(() => opened.close());
  return opened;
}

export async function watchCoordinationOf(factory: Factory, perMinute: number): Promise<WatchCoordination> {
  if (factory.ledger().setting().kind === 'file') return FILE_WATCH;
  return closing(
    (close) => factory.onClose(close),
    await openWatchCoordination(factory.ledger().setting(), optionsOf(factory), perMinute),
  );
}

export async function listenCoordinationOf(factory: Factory): Promise<ListenCoordination> {
  // the file's needs no service (listen --replay reads the outbox alone)
  if (factory.ledger().setting().kind === 'file')
    return new FileListen(factory.config().dir, factory.profileName, (line) => factory.printer.warn(line));
  return closing(
    (close) => factory.onClose(close),
    await openListenCoordination(factory.ledger().setting(), optionsOf(factory)),
  );
}

export async function displayFeedOf(factory: Factory): Promise<DisplayFeed | undefined> {
  // the file has none, and display clear needs no service for it
  if (factory.ledger().setting().kind === 'file') return undefined;
  const feed = await openDisplayFeed(factory.ledger().setting(), optionsOf(factory));
  return feed && closing((close) => factory.onClose(close), feed);
}
