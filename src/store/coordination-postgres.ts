/**
 * Several hosts on one ledger in PostgreSQL (the tables of ledger-schema.ts's second migration).
 * Loaded only when the ledger setting is a database URL. One connection per command.
 *
 * - A lease is a row of lbrl_leases: a name, its holder, an expiry on the database's clock (so the
 *   hosts' clocks do not matter). It is taken by one atomic conditional upsert: free, expired, or
 *   already ours. A holder renews it a few times per lease; one that dies (kill -9, a pulled
 *   cable) stops renewing, and another takes it once it expired.
 * - A request budget is a row of lbrl_request_budgets: the next free moment. Each request takes
 *   the next slot (one upsert), spaced 60/requests-per-minute seconds apart, whichever host asks:
 *   together the hosts' watches spend at most the profile's requests-per-minute.
 * - listen's outbox is lbrl_outbox, one row per record of the file outbox's NDJSON.
 * - Every deposit written notifies `lbrl_deposits` (a trigger), and `display clear` notifies
 *   `lbrl_display_clears`: displays LISTEN, so a charge made on any till shows within a second.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import type { LedgerUrl } from '../domain/ledger-url.js';
import { interrupted } from '../errors.js';
import type { LeadClock, RequestBudget } from './coordination-port.js';
import type { LedgerOptions } from './ledger-port.js';
import { endConnection, ledgerFault, migrate } from './ledger-postgres.js';
import { connectionSettings } from './ledger-tls.js';
import { loadPg } from './pg-client.js';

/** How long one statement may take before the connection is taken for lost. */
const QUERY_TIMEOUT_MS = 60_000;

/**
 * What a lost coordination connection had done: its statements are one each (no transaction
 * spans two), so the last was taken whole or not at all; the deposits' records are the ledger's
 * own connection's, said by it.
 */
const COORDINATION_CUT =
  'its last change to what the hosts share (a lease, the request budget, the outbox) was taken whole or not at all';

/** Who holds a lease: this host and process, and a random part (a pid is reused). */
export function holderName(): string {
  return `${os.hostname()} pid ${process.pid} ${crypto.randomBytes(4).toString('hex')}`;
}

/**
 * One connection to the ledger's database for the coordination of a command, its schema brought
 * forward first; failures are the ledger's one line (exit 6 when it cannot be reached).
 */
export class Coordinator {
  /** the connection's failure while idle: the next use reports it */
  private lost: Error | undefined;
  readonly holder = holderName();

  private constructor(
    readonly client: pg.Client,
    readonly where: string,
  ) {
    client.on('error', (error) => {
      this.lost = error;
    });
  }

  /** `role`: what the connection is for, in its application_name (`lbrl display`) unless the URL names one */
  static async open(
    url: LedgerUrl,
    shown: string,
    options: LedgerOptions,
    role: string,
  ): Promise<Coordinator> {
    const settings = connectionSettings(url, options.env, options.insecureSkipTlsVerify);
    const { applicationName, ...rest } = settings;
    // a statement that hangs (a pulled cable) fails within a minute, as the ledger's do: a watch
    // waiting on its budget, or a listen on its outbox, is never held for good
    const { Client } = await loadPg();
    const client = new Client({
      ...rest,
      application_name: url.applicationName ?? `${applicationName} ${role}`,
      keepAlive: true,
      query_timeout: QUERY_TIMEOUT_MS,
    });
    // made before it connects: pg emits 'error' when the line goes dead, even under a query
    // under way, and one with no listener would be thrown from the event, past every catch
    const coordinator = new Coordinator(client, shown);
    let connected = false;
    try {
      await client.connect();
      connected = true;
      await migrate(client, shown);
    } catch (error) {
      await client.end().catch(() => {});
      throw ledgerFault(error, shown, connected, COORDINATION_CUT);
    }
    coordinator.lost = undefined;
    return coordinator;
  }

  /** Runs `work`, mapping any failure to the one line a user sees. */
  async using<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    if (this.lost) throw ledgerFault(this.lost, this.where, true, COORDINATION_CUT);
    try {
      return await work(this.client);
    } catch (error) {
      throw ledgerFault(error, this.where, true, COORDINATION_CUT);
    }
  }

  /**
   * Takes or renews the leases `names` for `ms`: those free, expired, or ours already. Returns the
   * names this holder now has. Names are taken in order, so two hosts never wait on each other.
   */
  take(names: string[], ms: number): Promise<Set<string>> {
    const sorted = [...new Set(names)].sort();
    if (sorted.length === 0) return Promise.resolve(new Set());
    return this.using(async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `insert into lbrl_leases (name, holder, expires_at)
         select name, $2, clock_timestamp() + $3 * interval '1 millisecond'
           from unnest($1::text[]) with ordinality as given(name, place) order by place
         on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
           where lbrl_leases.holder = excluded.holder or lbrl_leases.expires_at < clock_timestamp()
         returning name`,
        [sorted, this.holder, ms],
      );
      return new Set(rows.map((row) => row.name));
    });
  }

  /**
   * Takes at most `limit` of the leases `names` that no one holds, skipping those whose `done`
   * marker (the same name after `done `) someone holds: a deposit that ended on another host is
   * not followed again. Returns the names taken.
   */
  takeFree(names: string[], ms: number, limit: number): Promise<string[]> {
    if (names.length === 0 || limit <= 0) return Promise.resolve([]);
    return this.using(async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `insert into lbrl_leases (name, holder, expires_at)
         select given.name, $2, clock_timestamp() + $3 * interval '1 millisecond'
           from unnest($1::text[]) as given(name)
          where not exists (select 1 from lbrl_leases held
                             where held.name in (given.name, 'done ' || given.name)
                               and held.expires_at >= clock_timestamp())
          order by given.name limit $4
         on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
           where lbrl_leases.expires_at < clock_timestamp()
         returning name`,
        [[...new Set(names)], this.holder, ms, limit],
      );
      return rows.map((row) => row.name);
    });
  }

  /** How many live leases each holder has among `names` and their `done` markers. */
  holdings(names: string[]): Promise<Map<string, number>> {
    return this.using(async (client) => {
      const { rows } = await client.query<{ holder: string; held: number }>(
        `select holder, count(*)::int as held from lbrl_leases
          where expires_at >= clock_timestamp()
            and (name = any($1::text[]) or name = any(array(select 'done ' || n from unnest($1::text[]) as n)))
          group by holder`,
        [names],
      );
      return new Map(rows.map((row) => [row.holder, row.held]));
    });
  }

  /** How many live leases are named `prefix` and something after it (the hosts present). */
  countLive(prefix: string): Promise<number> {
    return this.using(async (client) => {
      const { rows } = await client.query<{ live: number }>(
        `select count(*)::int as live from lbrl_leases
          where left(name, length($1)) = $1 and expires_at >= clock_timestamp()`,
        [prefix],
      );
      return rows[0]?.live ?? 0;
    });
  }

  /** Who holds lease `name` now, if anyone does (an expired lease is held by no one). */
  holderOf(name: string): Promise<string | undefined> {
    return this.using(async (client) => {
      const { rows } = await client.query<{ holder: string }>(
        'select holder from lbrl_leases where name = $1 and expires_at >= clock_timestamp()',
        [name],
      );
      return rows[0]?.holder;
    });
  }

  /** Gives the leases `names` up, if this holder has them. */
  release(names: string[]): Promise<void> {
    if (names.length === 0) return Promise.resolve();
    return this.using(async (client) => {
      await client.query('delete from lbrl_leases where holder = $1 and name = any($2::text[])', [
        this.holder,
        names,
      ]);
    });
  }

  /** The shared budget `name`: `perMinute` requests a minute, spaced evenly, across every host. */
  budget(name: string, perMinute: number): RequestBudget {
    const spacingMs = Math.ceil(60_000 / perMinute);
    return {
      take: () =>
        this.using(async (client) => {
          const { rows } = await client.query<{ wait: number }>(
            `insert into lbrl_request_budgets (name, next_at) values ($1, clock_timestamp() + $2 * interval '1 millisecond')
             on conflict (name) do update
               set next_at = greatest(lbrl_request_budgets.next_at, clock_timestamp()) + $2 * interval '1 millisecond'
             returning (extract(epoch from (next_at - clock_timestamp())) * 1000)::float8 - $2 as wait`,
            [name, spacingMs],
          );
          return Math.max(0, Math.ceil(Number(rows[0]?.wait ?? 0)));
        }),
    };
  }

  close(): Promise<void> {
    return endConnection(this.client);
  }
}

/** Leases kept alive: `stop` ends the renewals; `fresh` says whether they are held right now. */
export interface KeptAlive {
  stop(): void;
  /**
   * True while the last renewal is recent by both clocks (the one that does not jump, and the
   * wall clock, which goes on while a machine sleeps); otherwise the leases are lost now (onLost
   * is called) and false. Asked before each step that only a holder may take: a process that
   * comes back from a stall finds out before it acts, not at its next renewal.
   */
  fresh(): boolean;
}

/**
 * Keeps leases alive: renewed five times a lease. `onLost` is called once when they cannot be:
 * no renewal went through for 0.6 of the lease (the database unreachable, or this process
 * stalled: this holder stops before the lease runs out for the others), or another holder has
 * one now.
 */
export function keepAlive(
  coordinator: Coordinator,
  names: () => string[],
  ms: number,
  onLost: (why: string) => void,
): KeptAlive {
  let renewedAt = performance.now();
  let renewedWallAt = Date.now();
  let stopped = false;
  let lost = false;
  const lose = (why: string) => {
    if (stopped) return;
    stopped = true;
    lost = true;
    clearInterval(timer);
    onLost(why);
  };
  const stale = () => performance.now() - renewedAt > ms * 0.6 || Date.now() - renewedWallAt > ms * 0.6;
  const timer = setInterval(
    () => {
      if (stale()) {
        lose(`the ledger at ${coordinator.where} could not be reached in time to renew its lease`);
        return;
      }
      const held = names();
      const sentAt = performance.now();
      const sentWallAt = Date.now();
      coordinator.take(held, ms).then(
        (taken) => {
          if (held.some((name) => !taken.has(name))) lose('another host took it over');
          else {
            renewedAt = Math.max(renewedAt, sentAt);
            renewedWallAt = Math.max(renewedWallAt, sentWallAt);
          }
        },
        () => {
          // not reached this time: lost only once too long has passed
        },
      );
    },
    Math.max(20, Math.floor(ms / 5)),
  );
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    fresh: () => {
      if (lost) return false;
      if (stopped) return true;
      if (stale())
        lose(
          `this process did not renew its lease for ${Math.round(Math.max(performance.now() - renewedAt, Date.now() - renewedWallAt) / 1000)} s (stalled)`,
        );
      return !lost;
    },
  };
}

/** A lease held while this process waits for it: said once on stderr, then taken when free. */
export async function waitForLease(
  coordinator: Coordinator,
  name: string,
  ms: number,
  clock: LeadClock,
  waiting: (holder: string) => void,
): Promise<void> {
  let said = false;
  for (;;) {
    if ((await coordinator.take([name], ms)).has(name)) return;
    if (!said) {
      said = true;
      waiting((await coordinator.holderOf(name)) ?? 'another host');
    }
    try {
      await clock.sleep(Math.max(50, Math.floor(ms / 3)), clock.signal);
    } catch {
      // Ctrl-C while waiting
    }
    if (clock.signal.aborted) throw interrupted();
  }
}
