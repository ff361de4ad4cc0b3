/**
 * Several hosts on one ledger: what watch --pending, listen and display share when the ledger is a
 * database (store/coordination-postgres.ts), and what they do on one machine when it is the file
 * (store/coordination-file.ts: today's behaviour). Types only; store/coordination.ts opens the
 * one the `ledger` setting names.
 */
import type { HistoryEntry } from './history-records.js';
import type { OutboxStore } from './outbox.js';

/** The request budget every host's watch of a profile and service shares. */
export interface RequestBudget {
  /** Takes the next request's slot: how long to wait (ms) before sending it. */
  take(): Promise<number>;
}

/** `watch --pending` on several hosts: each deposit followed on one host at a time. */
export interface WatchCoordination {
  /**
   * Of these deposits, those this process follows now (a lease on each, kept until it hands
   * them in or closes), and how many another host follows. On several hosts each takes its fair
   * share: at most its part of the pending deposits among the hosts watching them.
   */
  claim(ids: string[]): Promise<{ mine: string[]; elsewhere: number }>;
  /** the shared budget; none on one machine (the watch's own pacing is the budget) */
  budget: RequestBudget | undefined;
  /**
   * Between rounds: hands in the deposits this watch saw end, and says which to follow as well
   * (its fair share grew: a host stopped, or a dead host's leases expired) and which to leave to
   * another host from now (more hosts came). None on one machine.
   */
  rebalance?(ended: string[]): Promise<{ add: string[]; drop: string[] }>;
  /** Releases what this process holds. */
  close(): Promise<void>;
}

/** How a listen waits while another host delivers, and notices that it stopped. */
export interface LeadClock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** a clock that does not jump */
  elapsed(): number;
  signal: AbortSignal;
}

/** The lead of a listen, held until `release`. */
export interface Lead {
  release(): Promise<void>;
  /** aborted when the lead is lost: nothing more may be sent */
  lost: AbortSignal;
  /**
   * Whether the lead is held right now, asked before each send: false once it is lost, and
   * when this process stalled past the time it may hold it unrenewed (it is then lost: `lost`
   * aborts at once). Without it, the lead is never taken from a running process.
   */
  holds?(): boolean;
}

/** `listen` on several hosts: one delivers, the others wait as standbys. */
export interface ListenCoordination {
  /**
   * Waits (a standby) until this process is the one delivering the profile's events; then it
   * holds the lead until `release`. `lost` is aborted when the lead is lost (the database
   * unreachable past the lease, another host took over): nothing more may be sent.
   */
  lead(clock: LeadClock): Promise<Lead>;
  /** The profile's outbox, or with several receivers one's own (its receiverKey), its records read. */
  outbox(receiver?: string): Promise<OutboxStore>;
  /** Every outbox of the profile, read: where --replay looks for an event. */
  replayable(): Promise<OutboxStore[]>;
  close(): Promise<void>;
}

/** `display` on several hosts: the newest charge of the profile, whoever created it, pushed. */
export interface DisplayFeed {
  /** The profile's newest deposit on the service, and what the ledger holds of `id`. */
  newest(): Promise<HistoryEntry | undefined>;
  recorded(id: string): Promise<HistoryEntry | undefined>;
  /**
   * Calls `changed` with a deposit's id whenever one of the profile's is written, on any host;
   * `dropped` once the connection that listens dropped (nothing is pushed until `relisten`).
   */
  subscribe(
    changed: (id: string) => void,
    cleared: (before: string) => void,
    dropped?: () => void,
  ): Promise<void>;
  /**
   * After a drop: listens again on a new connection. True when it did (what was written
   * meanwhile was not pushed: read it again); false when nothing had dropped. Throws when the
   * ledger cannot be reached yet.
   */
  relisten(): Promise<boolean>;
  /** The last `display clear` of the profile on any host (an ISO date), if any. */
  lastClear(): Promise<string | undefined>;
  /** `display clear`: every host's display of the profile withdraws what was created until `before`. */
  clear(before: string): Promise<void>;
  close(): Promise<void>;
}
