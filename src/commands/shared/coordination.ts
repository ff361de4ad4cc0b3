/**
 * The coordination of several hosts (store/coordination.ts) as the Session's profile names it:
 * its ledger setting, its scope, and LBRL_LEASE_MS (tests only). Closed when the command ends.
 */

import type { WebhookPoster } from '../../api/webhook-post.js';
import type { WorkShare } from '../../deposits/watch.js';
import type { Session } from '../../session.js';
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

function optionsOf(session: Session): CoordinationOptions {
  const setting = session.ledger();
  return {
    dir: session.store.dir,
    warn: (line) => session.printer.warn(line),
    env: session.ctx.env,
    insecureSkipTlsVerify: Boolean(session.globals.insecureSkipTlsVerify) && setting.kind === 'postgres',
    profile: session.profileName,
    service: session.scope().target,
    leaseMs: leaseMsOf(session.ctx.env),
  };
}

function closing<T extends { close(): Promise<void> }>(session: Session, opened: T): T {
  session.onClose(() => opened.close());
  return opened;
}

export async function watchCoordinationOf(session: Session, perMinute: number): Promise<WatchCoordination> {
  if (session.ledger().kind === 'file') return FILE_WATCH;
  return closing(session, await openWatchCoordination(session.ledger(), optionsOf(session), perMinute));
}

export async function listenCoordinationOf(session: Session): Promise<ListenCoordination> {
  // the file's needs no service (listen --replay reads the outbox alone)
  if (session.ledger().kind === 'file')
    return new FileListen(session.store.dir, session.profileName, (line) => session.printer.warn(line));
  return closing(session, await openListenCoordination(session.ledger(), optionsOf(session)));
}

export async function displayFeedOf(session: Session): Promise<DisplayFeed | undefined> {
  // the file has none, and display clear needs no service for it
  if (session.ledger().kind === 'file') return undefined;
  const feed = await openDisplayFeed(session.ledger(), optionsOf(session));
  return feed && closing(session, feed);
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
