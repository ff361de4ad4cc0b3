import { scopeOnTarget } from '../../deposits/ports.js';
/**
 * The coordination of several hosts (store/coordination.ts) as the factory's profile names it:
 * its ledger setting, its scope, and LBRL_LEASE_MS (tests only). Closed when the command ends.
 */

import type { WebhookPoster } from '../../api/webhook-post.js';
import type { WorkShare } from '../../deposits/watch.js';
import type { Factory } from '../../factory/factory.js';
import {
  type CoordinationOptions,
  openDisplayFeed,
  openListenCoordination,
  openWatchCoordination,
} from '../../store/coordination.js';
import { FILE_WATCH, FileListen } from '../../store/coordination-file.js';
import type {
  DisplayFeed,
  Lead,
  ListenCoordination,
  WatchCoordination,
} from '../../store/coordination-port.js';

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

/**
 * watch --pending's share of the deposits with the other hosts, `ids` (the deposits its end lines
 * name) kept to those it follows: one left to another host is not this watch's to report.
 */
export function workShareOf(
  coordination: WatchCoordination | undefined,
  ids: string[],
): WorkShare | undefined {
  const rebalance = coordination?.rebalance?.bind(coordination);
  if (!rebalance) return undefined;
  return {
    rebalance: async (ended) => {
      const change = await rebalance(ended);
      const dropped = new Set(change.drop);
      ids.splice(0, ids.length, ...ids.filter((id) => !dropped.has(id)), ...change.add);
      return change;
    },
  };
}

/**
 * listen's poster, held to its lead: an event is sent only while the lead is held at that moment
 * (a process back from a stall past its lease sends nothing: its lead is lost, and listen ends).
 */
export function leadPoster(poster: WebhookPoster, lead: Lead): WebhookPoster {
  const holds = lead.holds?.bind(lead);
  if (!holds) return poster;
  return {
    post: async (url, headers, body, signal) =>
      holds()
        ? poster.post(url, headers, body, signal)
        : { kind: 'failure', reason: 'this listen lost the lead: not sent', ms: 0 },
    close: () => poster.close(),
  };
}
