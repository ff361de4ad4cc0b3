/**
 * The display's view of a database ledger: what the engine reads as it reads the history file,
 * kept current by the database's notifications (store/coordination-db.ts) instead of a look at a
 * file: a charge written on any host, or a `display clear` on any host, reaches this display at
 * once. Its signature is a count of the changes taken, so the engine reads it again only then.
 *
 * A push, not a poll: the ledger is read when it says something changed. A slow safety look
 * (every SAFETY_POLL_MS, on the injected clock) reads it again in case a notification was lost,
 * and when the connection that listens drops, another is opened at once (then at each safety look
 * until one is), and what was written meanwhile is read.
 */
import type { DisplayFeed } from '../store/coordination-port.js';
import type { CreatedRecord, HistoryEntry } from '../store/history-records.js';
import type { HistoryView } from './engine.js';

/** How often the display reads a database ledger without being told to: a safety net, not the way news comes. */
export const SAFETY_POLL_MS = 10_000;

/** The clock the safety look waits on, and the signal that ends it (the command's). */
export interface SafetyClock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal: AbortSignal;
}

export class PushedHistory implements HistoryView {
  /** never a file: the engine's signature of it is `signature()` */
  readonly file = '(ledger)';
  private version = 0;
  private newest: HistoryEntry | undefined;
  private readonly known = new Map<string, HistoryEntry>();
  private refreshing: Promise<void> = Promise.resolve();
  /** called after each change taken: the display looks at once, not at its next turn */
  onChange: () => void = () => {};
  private relistening: Promise<void> | undefined;
  /** the drop was said, and not yet mended */
  private saidDropped = false;

  constructor(
    private readonly feed: DisplayFeed,
    /** this machine's history file, read too: what a process here wrote only to it still shows */
    private readonly local: HistoryView,
    private readonly signatureOf: (file: string) => string,
    private readonly warn: (line: string) => void,
    /** the safety look's clock and interval; without it, none (tests of the push alone) */
    private readonly safety?: { clock: SafetyClock; everyMs: number },
  ) {}

  /** Listens first (nothing written meanwhile is missed), then reads the newest charge and the last clear. */
  async start(withdraw: (before: string) => void): Promise<void> {
    await this.feed.subscribe(
      (id) => this.refresh(id),
      (before) => withdraw(before),
      () => void this.relisten(),
    );
    const cleared = await this.feed.lastClear();
    if (cleared !== undefined) withdraw(cleared);
    this.refresh();
    await this.refreshing;
    if (this.safety) void this.lookNowAndThen(this.safety.clock, this.safety.everyMs);
  }

  /** The safety look: listening again if the connection dropped, and the ledger read again. */
  private async lookNowAndThen(clock: SafetyClock, everyMs: number): Promise<void> {
    while (!clock.signal.aborted) {
      try {
        await clock.sleep(everyMs, clock.signal);
      } catch {
        return;
      }
      if (clock.signal.aborted) return;
      await this.relisten();
      this.refresh();
      await this.refreshing;
    }
  }

  /** After a drop: a new connection listens, and what was written meanwhile is read. One at a time. */
  relisten(): Promise<void> {
    this.relistening ??= (async () => {
      try {
        if (await this.feed.relisten()) {
          if (this.saidDropped) this.warn('display: listening to the ledger again');
          this.saidDropped = false;
          this.refresh();
        }
      } catch (error) {
        if (!this.saidDropped)
          this.warn(
            `display: the ledger's connection dropped (${(error as Error).message}); trying again every ${Math.round((this.safety?.everyMs ?? SAFETY_POLL_MS) / 1000)} s`,
          );
        this.saidDropped = true;
      } finally {
        this.relistening = undefined;
      }
    })();
    return this.relistening;
  }

  /** Reads the newest charge again, and `id` when it is another: one read at a time, in order. */
  refresh(id?: string): void {
    this.refreshing = this.refreshing.then(async () => {
      try {
        this.newest = await this.feed.newest();
        if (id !== undefined && id !== this.newest?.id) {
          const entry = await this.feed.recorded(id);
          if (entry) this.known.set(id, entry);
        }
        this.version += 1;
        this.onChange();
      } catch (error) {
        this.warn(`display: cannot read the ledger: ${(error as Error).message}`);
      }
    });
  }

  signature(): string {
    return `pushed:${this.version}:${this.signatureOf(this.local.file)}`;
  }

  /** The newest of the ledger's and this machine's file's (one at most: the display asks for one). */
  entries(filter: (r: CreatedRecord) => boolean, opts: { limit: number }): HistoryEntry[] {
    const pushed = this.newest && filter(this.newest) ? this.newest : undefined;
    const here = this.local.entries(filter, { limit: 1 })[0];
    const newest = pushed && here ? (here.at > pushed.at ? here : pushed) : (pushed ?? here);
    return newest ? [newest].slice(0, opts.limit) : [];
  }

  recorded(id: string, target: string): HistoryEntry | undefined {
    const entry = this.newest?.id === id ? this.newest : this.known.get(id);
    return entry?.baseUrl === target ? entry : this.local.recorded(id, target);
  }
}
