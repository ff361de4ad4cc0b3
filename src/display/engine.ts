/**
 * What the customer's screen shows, kept current: the profile's newest deposit (from the local
 * history, which every lbrl process appends to: its size and time are looked at a few times a
 * second, and read from its end only when they change), followed on the service with the watch's
 * own machinery (every answer checked, statuses recorded, transient failures ridden out), and,
 * with --verify, its settlement checked on chain.
 */
import fs from 'node:fs';
import type { GetResponse } from '../api/models.js';
import {
  type DepositApi,
  type FlowClock,
  type Notes,
  type Recorder,
  recordLater,
  type Scope,
} from '../deposits/ports.js';
import { watchDeposits } from '../deposits/watch.js';
import { type Focus, type Screen, type ScreenRules, screenOf } from '../domain/display.js';
import { isPaid, STATUS_ORDER } from '../domain/values.js';
import { LbrlError } from '../errors.js';
import { type CreatedRecord, type HistoryEntry, statusRecord } from '../store/history-records.js';
import { processAlive, readWithdrawn, type Withdrawn } from './state.js';

export interface HistoryView {
  readonly file: string;
  entries(filter: (r: CreatedRecord) => boolean, opts: { limit: number }): HistoryEntry[];
  recorded(id: string, target: string): HistoryEntry | undefined;
}

export interface EngineDeps {
  history: HistoryView;
  scope: Scope;
  api: DepositApi;
  recorder: Recorder;
  clock: FlowClock;
  notes: Notes;
  rules: ScreenRules;
  /** the service is asked about the deposit shown this often */
  pollMs: number;
  /** the history's size and time are looked at this often */
  historyPollMs: number;
  /** --verify: whether a FINALIZED deposit's settlement is proven (false: not yet; a throw: it is not) */
  settled?: ((deposit: GetResponse) => Promise<boolean>) | undefined;
  /** the QR code of a copy-paste string, as an SVG document */
  qrSvg(text: string): Promise<string>;
  /** the history file's signature; changes when it is appended to */
  signature?: (file: string) => string;
  /**
   * The profile's list of charges withdrawn from the screen (an interrupted create, `display
   * clear`): looked at with the history, and a charge on it is never offered.
   */
  withdrawnFile?: string;
  /** asked at each look at the history: the rules as the settings say now (shop-name, expire-after) */
  rulesNow?: () => ScreenRules;
}

/** After a failure the service watch is started again this much later. */
const RESTART_MS = 10_000;

export function fileSignature(file: string): string {
  try {
    const stats = fs.statSync(file);
    return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return '';
  }
}

const time = (iso: string | undefined, fallback: number) => {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : fallback;
};

/** How far along a status is; FAILED (and anything unknown) ends a deposit, so it ranks last. */
const rank = (status: string) =>
  STATUS_ORDER.includes(status) ? STATUS_ORDER.indexOf(status) : STATUS_ORDER.length;

export class DisplayEngine {
  private focus: (Focus & { id: string }) | undefined;
  private newest: string | undefined;
  private signature = '';
  private screen: Screen;
  private shown = '';
  private readonly listeners = new Set<(screen: Screen) => void>();
  private readonly svgs = new Map<string, string>();
  private watching: AbortController | undefined;
  /** when the watch of the deposit shown may start again after it failed, on the clock that does not jump */
  private restartAt = Number.NEGATIVE_INFINITY;
  private withdrawn: Withdrawn = { ids: new Set(), before: undefined, followers: new Map() };
  private withdrawnSignature = '';
  /** the service of the deposit shown when not the display's own: others follow it, not this */
  private foreignTarget: string | undefined;
  private rules: ScreenRules;

  /**
   * Durations (the wait before the watch starts again) on the clock that does not jump: a wall
   * clock stepped back a day must not hold the screen's watch back for a day.
   */
  private elapsed(): number {
    const { clock } = this.deps;
    return clock.monotonic ? clock.monotonic() : clock.now();
  }

  constructor(private readonly deps: EngineDeps) {
    this.rules = deps.rules;
    this.screen = { phase: 'idle', shop: deps.rules.shop };
    this.shown = JSON.stringify(this.screen);
  }

  /** Settings changed while it runs (shop-name, expire-after): the screen follows them at once. */
  setRules(rules: ScreenRules): void {
    this.rules = rules;
    this.update();
  }

  /**
   * Withdrawn from the screen: by id, or created at or before a `display clear`, or still waiting
   * while the create --watch that followed it is gone (it had no moment to withdraw it).
   */
  private isWithdrawn(id: string, createdAt: number, status = 'WAITING_PAYMENT'): boolean {
    const { ids, before, followers } = this.withdrawn;
    const follower = followers.get(id.toLowerCase());
    const abandoned = follower !== undefined && status === 'WAITING_PAYMENT' && !processAlive(follower);
    return ids.has(id.toLowerCase()) || (before !== undefined && createdAt <= before) || abandoned;
  }

  private readWithdrawn(): void {
    const file = this.deps.withdrawnFile;
    if (file === undefined) return;
    const sig = (this.deps.signature ?? fileSignature)(file);
    if (sig === this.withdrawnSignature) return;
    this.withdrawnSignature = sig;
    try {
      this.withdrawn = readWithdrawn(file, (line) => this.deps.notes.warn(line));
    } catch (error) {
      this.deps.notes.warn(`display: cannot read ${file}: ${(error as Error).message}`);
    }
  }

  current(): Screen {
    return this.screen;
  }

  subscribe(listener: (screen: Screen) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * `deposit create --display`: show this deposit of the profile now. One of another service
   * (`target`: a create with LBRL_BASE_URL that this display was not started with) is shown as
   * the history has it, and what other lbrl processes record of it (its create --watch): this
   * display has no client for that service.
   */
  show(id: string, target?: string): boolean {
    this.readWithdrawn();
    const entry = this.lookUp(id, target);
    if (!entry || this.isWithdrawn(entry.id, time(entry.at, this.deps.clock.now()), entry.status))
      return false;
    this.focusOn(entry);
    this.foreignTarget = entry.baseUrl !== this.deps.scope.target ? entry.baseUrl : undefined;
    this.update();
    return true;
  }

  /** Until the clock's signal: follow the history and the deposit shown. */
  async run(): Promise<void> {
    const { clock } = this.deps;
    this.poll();
    while (!clock.signal.aborted) {
      try {
        await clock.sleep(this.deps.historyPollMs, clock.signal);
      } catch {
        break;
      }
      this.poll();
    }
    this.watching?.abort();
  }

  /** One look at the history (only when it changed) and at the clock. */
  poll(): void {
    const rules = this.deps.rulesNow?.();
    if (rules && JSON.stringify(rules) !== JSON.stringify(this.rules)) this.rules = rules;
    this.readWithdrawn();
    const sig = (this.deps.signature ?? fileSignature)(this.deps.history.file);
    if (sig !== this.signature) {
      this.signature = sig;
      this.readHistory();
    }
    this.update();
  }

  private mine = (created: CreatedRecord) =>
    created.profile === this.deps.scope.profile && created.baseUrl === this.deps.scope.target;

  private lookUp(id: string, target = this.deps.scope.target): HistoryEntry | undefined {
    try {
      const entry = this.deps.history.recorded(id, target);
      return entry && entry.profile === this.deps.scope.profile && entry.baseUrl === target
        ? entry
        : undefined;
    } catch (error) {
      this.deps.notes.warn(`display: cannot read the history: ${(error as Error).message}`);
      return undefined;
    }
  }

  private readHistory(): void {
    let newest: HistoryEntry | undefined;
    try {
      newest = this.deps.history.entries(this.mine, { limit: 1 })[0];
    } catch (error) {
      this.deps.notes.warn(`display: cannot read the history: ${(error as Error).message}`);
      return;
    }
    if (newest && newest.id !== this.newest) {
      // a deposit created since: it is what the customer pays now (unless it was withdrawn)
      this.newest = newest.id;
      if (!this.isWithdrawn(newest.id, time(newest.at, this.deps.clock.now()), newest.status)) {
        this.focusOn(newest);
        this.foreignTarget = undefined;
      }
      return;
    }
    // what other processes learnt of the deposit shown (a watch in the terminal, an expiry)
    const focus = this.focus;
    if (!focus) return;
    const entry = focus.id === newest?.id ? newest : this.lookUp(focus.id, this.foreignTarget);
    if (entry) this.merge(entry);
  }

  private focusOn(entry: HistoryEntry): void {
    this.watching?.abort();
    this.watching = undefined;
    const createdAt = time(entry.at, this.deps.clock.now());
    this.focus = {
      id: entry.id,
      amountInCents: entry.amountInCents,
      createdAt,
      qrCodeText: entry.answer?.qrCodeText,
      status: entry.status,
      statusAt: time(entry.statusAt, createdAt),
      expiredAt: entry.expiredAt !== undefined ? time(entry.expiredAt, this.deps.clock.now()) : undefined,
      chain:
        this.deps.settled && entry.status === 'FINALIZED'
          ? entry.verifiedAt
            ? 'verified'
            : 'pending'
          : 'off',
      chainAt: entry.verifiedAt !== undefined ? time(entry.verifiedAt, createdAt) : undefined,
    };
    if (!this.deps.settled && isPaid(entry.status)) this.focus.chain = 'off';
    this.restartAt = Number.NEGATIVE_INFINITY;
    this.drawQr(entry.answer?.qrCodeText);
  }

  private merge(entry: HistoryEntry): void {
    const focus = this.focus!;
    if (entry.expiredAt !== undefined && focus.expiredAt === undefined)
      focus.expiredAt = time(entry.expiredAt, this.deps.clock.now());
    if (rank(entry.status) > rank(focus.status))
      this.setStatus(entry.status, time(entry.statusAt, this.deps.clock.now()));
    if (entry.verifiedAt !== undefined && this.deps.settled && focus.chain !== 'verified') {
      focus.chain = 'verified';
      focus.chainAt = time(entry.verifiedAt, this.deps.clock.now());
    }
  }

  private setStatus(status: string, at: number): void {
    const focus = this.focus!;
    const before = focus.status;
    focus.status = status;
    // the result is held from when it first showed: later steps of the settlement do not extend it
    if (isPaid(before) !== isPaid(status) || status === 'FAILED') focus.statusAt = at;
    if (status === 'FINALIZED' && this.deps.settled && focus.chain === 'off') focus.chain = 'pending';
  }

  private drawQr(text: string | undefined): void {
    if (text === undefined || this.svgs.has(text)) return;
    this.deps.qrSvg(text).then(
      (svg) => {
        if (this.svgs.size > 16) this.svgs.clear();
        this.svgs.set(text, svg);
        this.update();
      },
      (error: unknown) =>
        this.deps.notes.warn(`display: cannot draw the QR code: ${(error as Error).message}`),
    );
  }

  /** The screen now; sent to every page when it changed. Starts or ends the service watch to suit. */
  update(): void {
    const now = this.deps.clock.now();
    // a charge the shop withdrew is never offered again: the screen goes back to the shop's name
    if (this.focus && this.isWithdrawn(this.focus.id, this.focus.createdAt, this.focus.status))
      this.focus = undefined;
    const screen = screenOf(this.focus, now, this.rules, (text) => this.svgs.get(text));
    const focus = this.focus;
    const live =
      focus !== undefined &&
      this.foreignTarget === undefined &&
      (screen.phase !== 'idle' || (focus.status === 'WAITING_PAYMENT' && focus.qrCodeText === undefined)) &&
      focus.untrustedAt === undefined &&
      focus.status !== 'FAILED' &&
      (focus.status !== 'FINALIZED' || focus.chain === 'pending');
    // never started again once the display is stopping (Ctrl-C): its requests would only be refused
    if (live && !this.watching && this.elapsed() >= this.restartAt && !this.deps.clock.signal.aborted)
      this.follow(focus!.id);
    if (!live && this.watching) {
      this.watching.abort();
      this.watching = undefined;
    }
    const json = JSON.stringify(screen);
    if (json === this.shown) return;
    this.shown = json;
    this.screen = screen;
    for (const listener of this.listeners) listener(screen);
  }

  /** A status the watch saw: recorded, and shown when the deposit is still the one on screen. */
  private changed(deposit: GetResponse, shown: boolean): void {
    const clock = this.deps.clock;
    recordLater(
      this.deps.recorder,
      [statusRecord(deposit.id, deposit.status, clock.now(), deposit)],
      (line) => this.deps.notes.warn(line),
    );
    if (!shown) return;
    const focus = this.focus!;
    if (focus.qrCodeText === undefined && deposit.qrCodeText) {
      focus.qrCodeText = deposit.qrCodeText;
      this.drawQr(deposit.qrCodeText);
    }
    if (rank(deposit.status) > rank(focus.status)) this.setStatus(deposit.status, clock.now());
    this.update();
  }

  /** The watch's machinery on the deposit shown, until it ends, another is shown, or the display stops. */
  private follow(id: string): void {
    const { clock, api } = this.deps;
    const stop = new AbortController();
    this.watching = stop;
    const onAbort = () => stop.abort();
    clock.signal.addEventListener('abort', onAbort, { once: true });
    const mine = () => this.focus?.id === id && this.watching === stop;
    const settled = this.deps.settled;
    watchDeposits(
      api,
      {
        ids: [id],
        intervalMs: this.deps.pollMs,
        now: clock.now,
        ...(clock.monotonic ? { monotonic: clock.monotonic } : {}),
        sleep: clock.sleep,
        random: clock.random,
        signal: stop.signal,
        settled:
          settled &&
          (async (deposit) => {
            const proven = await settled(deposit);
            if (proven && mine()) {
              this.focus!.chain = 'verified';
              this.focus!.chainAt = clock.now();
              this.update();
            }
            return proven;
          }),
      },
      {
        change: (deposit) => this.changed(deposit, mine()),
        retry: (reason, delayMs) =>
          this.deps.notes.warn(`display: ${reason}; asking again in ${Math.ceil(delayMs / 1000)} s`),
        tick: () => {},
      },
    )
      .catch((error: unknown) => {
        // stopped (Ctrl-C, another deposit shown): nothing to try again
        if (stop.signal.aborted || clock.signal.aborted) return;
        if (error instanceof LbrlError && error.type === 'interrupted') return;
        const message = error instanceof LbrlError ? error.message : String(error);
        if (mine() && settled && this.focus!.status === 'FINALIZED' && error instanceof LbrlError) {
          // the settlement contradicts the deposit, or could not be proven: never "confirmed"
          this.focus!.chain = 'failed';
          this.focus!.chainAt = clock.now();
          this.deps.notes.warn(`display: deposit ${id}: ${message}`);
          return;
        }
        const untrusted =
          error instanceof LbrlError && (error.type === 'mismatch' || error.type === 'contract');
        if (mine() && untrusted && !isPaid(this.focus!.status)) {
          // never go on inviting a payment the service's answers cannot be trusted about
          this.focus!.untrustedAt = clock.now();
          this.deps.notes.warn(`display: deposit ${id} is no longer offered: ${message}`);
          return;
        }
        this.deps.notes.warn(
          `display: following deposit ${id}: ${message}; trying again in ${RESTART_MS / 1000} s`,
        );
        this.restartAt = this.elapsed() + RESTART_MS;
      })
      .finally(() => {
        clock.signal.removeEventListener('abort', onAbort);
        if (this.watching === stop) this.watching = undefined;
        this.update();
      });
  }
}
