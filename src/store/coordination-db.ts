/**
 * watch --pending, listen and display on several hosts, through the ledger's database (the rows
 * and their rules: store/coordination-postgres.ts). Loaded only for a database ledger.
 */
import type pg from 'pg';
import { LbrlError } from '../errors.js';
import type {
  DisplayFeed,
  Lead,
  LeadClock,
  ListenCoordination,
  RequestBudget,
  WatchCoordination,
} from './coordination-port.js';
import { type Coordinator, type KeptAlive, keepAlive, waitForLease } from './coordination-postgres.js';
import type { HistoryEntry } from './history-records.js';
import { PostgresLedger } from './ledger-postgres.js';
import { foldOutbox, type OutboxRecord, type OutboxState, type OutboxStore } from './outbox.js';

/** What the coordination of one command is about: its profile and service, the lease's length. */
export interface CoordinationScope {
  profile: string;
  /** the history's key of the service (its base URL) */
  service: string;
  leaseMs: number;
  warn(line: string): void;
}

/** How long a watch that comes waits for a host over its share to give some up (between requests). */
const SHARE_WAIT_MS = 10_000;

/** What a host holds of a pass's deposits, and the fair share it may hold. */
interface Balance {
  share: number;
  /** another host holds more than its share: it gives the excess up between its rounds */
  overShare: boolean;
}

/**
 * Each deposit of a watch --pending followed by one host at a time (a lease per deposit), and the
 * deposits shared fairly: every host watching the profile's deposits on the service says it is
 * there (a presence lease), and holds at most ceil(pending / hosts) of them, counting those it saw
 * end. Between its requests (once a second at most) a host hands in what ended (a `done` marker, so no other host asks about
 * it again), gives up what is over its share (more hosts came) and takes free ones up to it (a
 * host stopped, or a dead host's leases expired). A host that comes while another holds more than
 * its share waits up to 10 s for it to give some up.
 */
export class PostgresWatch implements WatchCoordination {
  /** the pending deposits of this pass, as this host read them */
  private pool: string[] = [];
  private readonly following = new Set<string>();
  private readonly done = new Set<string>();
  /** ended deposits not handed in yet (the database could not be reached) */
  private unreported: string[] = [];
  private kept: KeptAlive | undefined;

  constructor(
    private readonly coordinator: Coordinator,
    private readonly scope: CoordinationScope,
    readonly budget: RequestBudget,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  private leaseOf(id: string): string {
    return `watch ${this.scope.service} ${id}`;
  }

  private get hosts(): string {
    return `watch-host ${this.scope.profile} ${this.scope.service} `;
  }

  private held(): string[] {
    return [
      `${this.hosts}${this.coordinator.holder}`,
      ...[...this.following].map((id) => this.leaseOf(id)),
      ...[...this.done].map((id) => `done ${this.leaseOf(id)}`),
    ];
  }

  async claim(ids: string[]): Promise<{ mine: string[]; elsewhere: number }> {
    this.pool = [...new Set(ids)];
    await this.coordinator.take(this.held(), this.scope.leaseMs);
    this.kept = keepAlive(
      this.coordinator,
      () => this.held(),
      this.scope.leaseMs,
      (why) =>
        this.scope.warn(
          `warning: the leases of this watch on its deposits are lost (${why}): another host may follow them too`,
        ),
    );
    const waitUntil = performance.now() + SHARE_WAIT_MS;
    for (;;) {
      const { share, overShare } = await this.balance([]);
      if (this.following.size >= share || !overShare || performance.now() >= waitUntil) break;
      await this.sleep(Math.min(250, this.scope.leaseMs / 10));
    }
    const mine = ids.filter((id) => this.following.has(id));
    return { mine, elsewhere: ids.length - mine.length };
  }

  async rebalance(ended: string[]): Promise<{ add: string[]; drop: string[] }> {
    const before = new Set(this.following);
    try {
      await this.balance([...this.unreported, ...ended]);
      this.unreported = [];
    } catch {
      // the database out of reach for now: the leases ride on (keepAlive says when they are lost)
      this.unreported.push(...ended);
    }
    return {
      add: [...this.following].filter((id) => !before.has(id)),
      drop: [...before].filter((id) => !this.following.has(id)),
    };
  }

  /** Hands in what ended, then gives up what is over the share or takes free ones up to it. */
  private async balance(ended: string[]): Promise<Balance> {
    const { coordinator } = this;
    const { leaseMs } = this.scope;
    const finished = ended.filter((id) => this.following.has(id));
    if (finished.length > 0) {
      // the marker first: another host never finds the deposit free and unmarked
      await coordinator.take(
        finished.map((id) => `done ${this.leaseOf(id)}`),
        leaseMs,
      );
      for (const id of finished) {
        this.following.delete(id);
        this.done.add(id);
      }
      await coordinator.release(finished.map((id) => this.leaseOf(id)));
    }
    const hosts = Math.max(1, await coordinator.countLive(this.hosts));
    const share = Math.ceil(this.pool.length / hosts);
    const mine = this.following.size + this.done.size;
    if (mine > share) {
      const drop = [...this.following].slice(-(mine - share));
      for (const id of drop) this.following.delete(id);
      await coordinator.release(drop.map((id) => this.leaseOf(id)));
    } else if (mine < share) {
      const free = this.pool.filter((id) => !this.following.has(id) && !this.done.has(id));
      const taken = new Set(
        await coordinator.takeFree(
          free.map((id) => this.leaseOf(id)),
          leaseMs,
          share - mine,
        ),
      );
      for (const id of free) if (taken.has(this.leaseOf(id))) this.following.add(id);
    }
    const holdings = await coordinator.holdings(this.pool.map((id) => this.leaseOf(id)));
    holdings.delete(coordinator.holder);
    return { share, overShare: [...holdings.values()].some((held) => held > share) };
  }

  async close(): Promise<void> {
    this.kept?.stop();
    // the done markers are left to expire: a host still in its pass does not ask about them again
    const given = [
      `${this.hosts}${this.coordinator.holder}`,
      ...[...this.following].map((id) => this.leaseOf(id)),
    ];
    await this.coordinator.release(given).catch(() => {});
    await this.coordinator.close();
  }
}

/**
 * listen's outbox as rows: appends are queued in order on the command's connection, and sync()
 * settles once the database committed every append before it (an event is sent only then).
 */
export class PostgresOutbox implements OutboxStore {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly coordinator: Coordinator,
    readonly name: string,
    private readonly state: OutboxState,
  ) {}

  static async open(coordinator: Coordinator, name: string, warn: (line: string) => void) {
    const rows = await coordinator.using(async (client) => {
      const found = await client.query<{ line: string }>(
        'select line from lbrl_outbox where outbox = $1 order by seq',
        [name],
      );
      return found.rows;
    });
    const { state, damaged } = foldOutbox(rows.map((row) => row.line));
    if (damaged > 0)
      warn(`warning: skipped ${damaged} damaged record(s) in the outbox ${name} of the ledger`);
    return new PostgresOutbox(coordinator, name, state);
  }

  load(): OutboxState {
    return this.state;
  }

  private queue(work: (client: pg.Client) => Promise<unknown>): void {
    if (this.failure !== undefined) throw this.failure;
    this.chain = this.chain
      .then(() => this.coordinator.using(work))
      .then(
        () => {},
        (error: unknown) => {
          this.failure ??= error;
        },
      );
  }

  append(records: OutboxRecord[]): void {
    if (records.length === 0) return;
    const lines = records.map((record) => JSON.stringify(record));
    this.queue((client) =>
      client.query(
        `insert into lbrl_outbox (outbox, line)
         select $1, line from unnest($2::text[]) with ordinality as given(line, place) order by place`,
        [this.name, lines],
      ),
    );
  }

  async sync(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    await this.chain;
    if (this.failure !== undefined) throw this.failure;
  }

  rewrite(records: OutboxRecord[]): void {
    const lines = records.map((record) => JSON.stringify(record));
    // one statement: the old records or the new ones, never a mix
    this.queue((client) =>
      client.query(
        `with gone as (delete from lbrl_outbox where outbox = $1)
         insert into lbrl_outbox (outbox, line)
         select $1, line from unnest($2::text[]) with ordinality as given(line, place) order by place`,
        [this.name, lines],
      ),
    );
  }

  /** Everything queued, written (or failed). */
  settled(): Promise<void> {
    return this.chain;
  }

  close(): void {}
}

/** The lease of listen on a profile and service, by one host at a time; the others stand by. */
export class PostgresListen implements ListenCoordination {
  private readonly outboxes: PostgresOutbox[] = [];

  constructor(
    private readonly coordinator: Coordinator,
    private readonly scope: CoordinationScope,
  ) {}

  private get prefix(): string {
    return `${this.scope.profile} ${this.scope.service}`;
  }

  async lead(clock: LeadClock): Promise<Lead> {
    const { leaseMs, profile } = this.scope;
    const name = `listen ${this.prefix}`;
    await waitForLease(this.coordinator, name, leaseMs, clock, (holder) =>
      this.scope.warn(
        `standby: ${holder} delivers the events of profile ${profile} (${this.scope.service}); this listen sends nothing, and takes over within ${Math.ceil((leaseMs * 4) / 3 / 1000)} s of it stopping`,
      ),
    );
    const lost = new AbortController();
    const kept = keepAlive(
      this.coordinator,
      () => [name],
      leaseMs,
      (why) =>
        lost.abort(
          new LbrlError(
            `listen lost the lead on the events of profile ${profile} (${why}); it stops sending: start it again to stand by`,
            'network',
          ),
        ),
    );
    return {
      lost: lost.signal,
      holds: () => kept.fresh(),
      release: async () => {
        kept.stop();
        await Promise.all(this.outboxes.map((outbox) => outbox.settled()));
        if (!lost.signal.aborted) await this.coordinator.release([name]).catch(() => {});
      },
    };
  }

  async outbox(receiver?: string): Promise<OutboxStore> {
    const name = receiver === undefined ? this.prefix : `${this.prefix}~${receiver}`;
    const outbox = await PostgresOutbox.open(this.coordinator, name, this.scope.warn);
    this.outboxes.push(outbox);
    return outbox;
  }

  async replayable(): Promise<OutboxStore[]> {
    const names = await this.coordinator.using(async (client) => {
      const { rows } = await client.query<{ outbox: string }>(
        `select distinct outbox from lbrl_outbox where outbox = $1 or left(outbox, length($1) + 1) = $1 || '~' order by outbox`,
        [this.prefix],
      );
      return rows.map((row) => row.outbox);
    });
    if (!names.includes(this.prefix)) names.unshift(this.prefix);
    return Promise.all(names.map((name) => PostgresOutbox.open(this.coordinator, name, this.scope.warn)));
  }

  async close(): Promise<void> {
    await Promise.all(this.outboxes.map((outbox) => outbox.settled()));
    await this.coordinator.close();
  }
}

/** What a display does with what the database pushes. */
interface Pushed {
  changed(id: string): void;
  cleared(before: string): void;
  dropped(): void;
}

/**
 * The profile's deposits as the database has them, and what every host writes, pushed by NOTIFY
 * on a connection of its own. When that connection drops, the display is told at once and
 * `relisten` opens another and listens again.
 */
export class PostgresDisplayFeed implements DisplayFeed {
  private ledger: PostgresLedger;
  private pushed: Pushed | undefined;
  private dropped = false;
  private closed = false;

  constructor(
    private coordinator: Coordinator,
    private readonly scope: CoordinationScope,
    /** a new connection to the ledger, its schema checked */
    private readonly reopen: () => Promise<Coordinator>,
  ) {
    this.ledger = new PostgresLedger(coordinator.client, coordinator.where, scope.warn);
  }

  async newest(): Promise<HistoryEntry | undefined> {
    const { profile, service } = this.scope;
    return (await this.ledger.entries({ profile, baseUrl: service }, { limit: 1 }))[0];
  }

  recorded(id: string): Promise<HistoryEntry | undefined> {
    return this.ledger.recorded(id, this.scope.service);
  }

  async subscribe(
    changed: (id: string) => void,
    cleared: (before: string) => void,
    dropped: () => void = () => {},
  ): Promise<void> {
    this.pushed = { changed, cleared, dropped };
    await this.listen(this.coordinator);
  }

  private async listen(coordinator: Coordinator): Promise<void> {
    const { profile, service } = this.scope;
    const { client } = coordinator;
    client.on('notification', (message) => {
      let said: { profile?: unknown; baseUrl?: unknown; id?: unknown; before?: unknown };
      try {
        said = JSON.parse(message.payload ?? '') as typeof said;
      } catch {
        return;
      }
      if (said.profile !== profile || said.baseUrl !== service || coordinator !== this.coordinator) return;
      if (message.channel === 'lbrl_deposits' && typeof said.id === 'string') this.pushed?.changed(said.id);
      if (message.channel === 'lbrl_display_clears' && typeof said.before === 'string')
        this.pushed?.cleared(said.before);
    });
    const drop = () => {
      if (coordinator !== this.coordinator || this.dropped || this.closed) return;
      this.dropped = true;
      this.pushed?.dropped();
    };
    client.on('error', drop);
    client.on('end', drop);
    await coordinator.using(async (listening) => {
      await listening.query('listen lbrl_deposits');
      await listening.query('listen lbrl_display_clears');
    });
  }

  async relisten(): Promise<boolean> {
    if (!this.dropped || this.closed || !this.pushed) return false;
    const next = await this.reopen();
    const old = this.coordinator;
    this.coordinator = next;
    this.ledger = new PostgresLedger(next.client, next.where, this.scope.warn);
    try {
      await this.listen(next);
    } catch (error) {
      this.coordinator = old;
      await next.close();
      throw error;
    }
    this.dropped = false;
    await old.close();
    return true;
  }

  lastClear(): Promise<string | undefined> {
    return this.coordinator.using(async (client) => {
      const { rows } = await client.query<{ before: string }>(
        'select before from lbrl_display_clears where profile = $1 and base_url = $2',
        [this.scope.profile, this.scope.service],
      );
      return rows[0]?.before;
    });
  }

  clear(before: string): Promise<void> {
    return this.coordinator.using(async (client) => {
      await client.query(
        `with kept as (
           insert into lbrl_display_clears (profile, base_url, before) values ($1, $2, $3)
           on conflict (profile, base_url) do update set before = greatest(lbrl_display_clears.before, excluded.before)
           returning before)
         select pg_notify('lbrl_display_clears',
           json_build_object('profile', $1::text, 'baseUrl', $2::text, 'before', (select before from kept))::text)`,
        [this.scope.profile, this.scope.service, before],
      );
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return this.coordinator.close();
  }
}
