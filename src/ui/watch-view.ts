/** What a person or a script sees while deposits are watched. */
import type { GetResponse } from '../api/models.js';
import type { Context } from '../context.js';
import { formatCents } from '../domain/money.js';
import { type LocalFields, withLocalFields } from '../domain/text/reference.js';
import { safeText } from '../domain/text/safe-text.js';
import { isPaid } from '../domain/values.js';
import { fitted, labelled, packed, terminalColumns, widthOf, wordsOf, wordWrapped } from './fit.js';
import type { Printer } from './output.js';
import { knownSize, mayRedraw, withSafeWidth } from './progress.js';
import { explorerLink, type RenderMode } from './render.js';
import { colorStatus } from './status-color.js';
import { localTime, timeZoneOf } from './zone-time.js';

/** What the view needs of a command: the streams, the printer and the output mode. */
export interface ViewSettings {
  /** where the requests go decides what is said of a settlement, never the answer */
  renderMode(): RenderMode;
  /** the terminal: its streams (TTY, size), TERM, CI and TZ, and the clock */
  ctx: Pick<Context, 'stdout' | 'stderr' | 'env' | 'now'>;
  printer: Printer;
  globals: { json?: boolean | undefined; quiet?: boolean | undefined };
  /** the reference and note lbrl's ledger keeps with a deposit (none when it has none) */
  localOf?(id: string): LocalFields;
}

interface Spinner {
  text: string;
  start(): unknown;
  stop(): unknown;
  clear(): unknown;
  render(): unknown;
}

function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}

/** What a watch saw of each deposit: enough to say how each one ended. */
export class WatchLog {
  readonly last = new Map<string, GetResponse>();
  readonly gone = new Set<string>();
  /** given their last look past expire-after, still waiting: recorded EXPIRED */
  readonly expired = new Set<string>();

  constructor(readonly ids: string[]) {}

  status(id: string): string | undefined {
    return this.last.get(id)?.status;
  }
}

/**
 * The line of a paid moment: `Paid      R$ 35,00 at 2026-11-22 06:15:01 -03:00`, then `after`. On
 * a terminal narrower than that, its pieces on lines of their own (ui/fit.ts): the amount never cut.
 */
export function paidLine(
  deposit: GetResponse,
  now: number,
  timeZone: string | undefined,
  fit: { columns?: number | undefined; after?: string } = {},
): string {
  const amount = formatCents(deposit.amountInCents);
  const [day = '', ...time] = localTime(deposit.confirmedAt ?? now, timeZone).split(' ');
  const after = fit.after ?? '';
  const paid = `Paid      ${amount} at ${[day, ...time].join(' ')}`;
  const whole = after ? `${paid}  ${after}` : paid;
  const columns = fit.columns || Number.POSITIVE_INFINITY;
  // what follows goes under the line first; only then is the line itself taken apart
  // what follows is prose (`(deposit <id>, ref …)`): broken between its words, the id whole
  if (widthOf(whole) > columns && widthOf(paid) <= columns)
    return [paid, ...packed(wordsOf(after), columns - 2, ' ', '').map((line) => `  ${line}`)].join('\n');
  return fitted(whole, ['Paid', amount, `at ${day}`, time.join(' '), ...wordsOf(after)], columns).join('\n');
}

/** What a status change's line says: when, which deposit, the move, its txid and reference. */
export interface StatusChange {
  when: string;
  id: string;
  previous: string | undefined;
  /** the new status, coloured as shown */
  status: string;
  txid: string | undefined;
  /** `ref …`, or '' */
  ref: string;
}

/**
 * A status change: `when  id  PREV -> STATUS  txid …  ref …` on one line. On a terminal narrower
 * than that (`columns`), its pieces on lines of their own (ui/fit.ts): the time split from its
 * day, the id, the txid and any word of the reference never cut; one wider than the terminal
 * on a line of its own, whole.
 */
export function statusChangeLine(change: StatusChange, columns: number | undefined): string {
  const { when, id, previous, status, txid, ref } = change;
  const move = previous ? `${previous} -> ${status}` : status;
  const whole = `${when}  ${id}  ${move}${txid ? `  txid ${txid}` : ''}${ref ? `  ${ref}` : ''}`;
  if (!columns) return whole;
  const space = when.indexOf(' ');
  const pieces = [
    ...(widthOf(when) + 2 <= columns || space < 0 ? [when] : [when.slice(0, space), when.slice(space + 1)]),
    id,
    ...movePieces(previous, status, columns),
    ...(txid ? labelled('txid', txid, columns) : []),
    ...(ref ? (widthOf(ref) + 2 <= columns ? [ref] : wordsOf(ref)) : []),
  ];
  return fitted(whole, pieces, columns).join('\n');
}

/**
 * A status change's move as pieces: whole when it fits, else the arrow with the status it leaves,
 * else all three apart (SETTLEMENT_CREATED -> at 20 columns).
 */
function movePieces(previous: string | undefined, status: string, columns: number): string[] {
  if (!previous) return [status];
  const whole = `${previous} -> ${status}`;
  if (widthOf(whole) + 2 <= columns) return [whole];
  return widthOf(`${previous} ->`) + 2 <= columns ? [`${previous} ->`, status] : [previous, '->', status];
}

/** Where a settlement can be seen: the explorer's page of its transaction, or why there is none. */
export function settlementLines(deposit: GetResponse, mode: RenderMode): string[] {
  const txid = deposit.settlement?.liquidTxid;
  if (!txid) return [];
  const link = explorerLink(deposit, mode);
  return [
    `Txid      ${txid}`,
    `Explorer  ${link ?? (mode.sandbox ? 'none: the sandbox chain is not public (lbrl deposit verify checks it)' : 'none known for this network')}`,
  ];
}

/**
 * One line per deposit saying how its watch ended, given what ended the watch (nothing, or
 * the error it ended with).
 */
export function endLines(
  log: WatchLog,
  ending: { type: string } | undefined,
  leftForLater: ReadonlySet<string> = new Set(),
): string[] {
  return log.ids
    .filter((id) => !leftForLater.has(id))
    .map((id) => {
      const status = log.status(id);
      if (log.gone.has(id))
        return `deposit ${id} unknown to the service (404): asked again by the next --pending`;
      if (log.expired.has(id)) return `deposit ${id} EXPIRED: still WAITING_PAYMENT past expire-after`;
      if (status === 'FINALIZED' || status === 'FAILED') return `deposit ${id} ${status}`;
      const at = status ? `at ${status}` : 'before any answer';
      if (ending?.type === 'watch_timeout') return `deposit ${id} timed out ${at}`;
      if (ending?.type === 'interrupted') return `deposit ${id} interrupted ${at}`;
      if (ending?.type === 'output_closed') return `deposit ${id} left ${at}: stdout closed`;
      return `deposit ${id} not followed to the end (${ending?.type ?? 'stopped'}) ${at}`;
    });
}

/** Fits deposits/watch.ts's WatchEvents (ui does not import the flows). */
export class WatchView {
  private spinner: Spinner | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly started: number;
  private readonly states = new Map<string, string | undefined>();
  private readonly paid = new Set<string>();
  private readonly timeZone: string | undefined;

  private constructor(
    private readonly viewSettings: ViewSettings,
    private readonly now: () => number,
    ids: string[],
  ) {
    this.started = now();
    this.timeZone = timeZoneOf(viewSettings.ctx.env);
    for (const id of ids) this.states.set(id, undefined);
  }

  /**
   * The spinner runs only when a person watches: both streams are terminals, no CI, no --json.
   * It starts with its text, and its clock is drawn again every second from the context's clock
   * (the polling keeps its own interval).
   */
  static async open(viewSettings: ViewSettings, ids: string[] = []): Promise<WatchView> {
    const view = new WatchView(viewSettings, viewSettings.ctx.now, ids);
    const { ctx, globals, printer } = viewSettings;
    // a terminal of 0 columns or rows has no size to redraw in: plain lines there
    const animate =
      printer.stdoutIsTTY && mayRedraw(ctx) && knownSize(ctx.stdout) && !globals.json && !globals.quiet;
    if (animate) {
      const { default: ora } = await import('ora');
      view.spinner = ora({
        stream: withSafeWidth(ctx.stderr) as unknown as NodeJS.WritableStream,
        isEnabled: true,
        discardStdin: false,
        // ora paints with its own chalk, which knows nothing of --no-color or of stderr: lbrl's rule
        color: printer.errColor.level > 0 ? 'magenta' : false,
        text: view.spinnerText(),
      }) as unknown as Spinner;
      view.spinner.start();
      view.timer = setInterval(() => view.redraw(), 1000);
      view.timer.unref?.();
    }
    return view;
  }

  private get onTerminal(): boolean {
    return this.viewSettings.printer.stdoutIsTTY;
  }

  /**
   * The spinner's one line: at most four deposits' short ids and statuses, then the clock; on a
   * terminal too narrow for that, fewer of them (the others counted), then only the count, then
   * only the clock: a line the spinner redraws never wraps, so it never leaves a piece behind.
   */
  private spinnerText(): string {
    const count = this.states.size;
    const parts = [...this.states].map(([id, s]) => `${id.slice(0, 8)} ${s ?? '…'}`);
    const time = clock(this.now() - this.started);
    // the spinner's mark and its space take two columns; the last one is left free
    const room = (terminalColumns(this.viewSettings.ctx.stderr) ?? Number.POSITIVE_INFINITY) - 3;
    const candidates: string[] = [];
    for (let shown = Math.min(4, parts.length); shown >= 1; shown--)
      candidates.push(
        `${parts.slice(0, shown).join(' · ')}${count > shown ? ` (+${count - shown})` : ''}  ${time}`,
      );
    candidates.push(`watching${count > 0 ? ` ${count}` : ''}  ${time}`, time);
    return candidates.find((text) => widthOf(text) <= room) ?? time;
  }

  /** Draw the spinner's text again from the clock. */
  redraw(): void {
    if (!this.spinner) return;
    // the terminal lost its size meanwhile (resized to 0): no more drawing over, plain lines on
    if (!knownSize(this.viewSettings.ctx.stderr)) {
      this.spinner.stop();
      this.spinner = undefined;
      return;
    }
    this.spinner.text = this.spinnerText();
  }

  private above(write: () => void): void {
    this.spinner?.clear();
    write();
    this.spinner?.render();
  }

  /** A line for a person: on stdout when it is a terminal, else on stderr (stdout stays one line per change). */
  private note(text: string): void {
    const printer = this.viewSettings.printer;
    if (this.onTerminal) this.above(() => printer.out(text));
    else printer.info(text);
  }

  /** A deposit's reference and note, read from the ledger once per deposit. */
  private localOf(id: string): LocalFields {
    let local = this.local.get(id);
    if (!local) this.local.set(id, (local = this.viewSettings.localOf?.(id) ?? {}));
    return local;
  }
  private readonly local = new Map<string, LocalFields>();

  change(deposit: GetResponse, raw: unknown, previous: string | undefined): void {
    const { printer, globals } = this.viewSettings;
    this.states.set(deposit.id, deposit.status);
    const local = this.localOf(deposit.id);
    if (globals.json) {
      printer.json(withLocalFields(raw, local));
      return;
    }
    if (globals.quiet) return;
    // a terminal shows the local time; a pipe keeps the UTC stamp scripts read
    const when = this.onTerminal
      ? localTime(this.now(), this.timeZone)
      : new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const ref = local.ref !== undefined ? `  ref ${safeText(local.ref)}` : '';
    const columns = this.onTerminal ? terminalColumns(this.viewSettings.ctx.stdout) : undefined;
    const line = statusChangeLine(
      {
        when,
        id: deposit.id,
        previous,
        status: colorStatus(printer.outColor, deposit.status),
        txid: deposit.settlement?.liquidTxid ?? undefined,
        ref: ref.trim(),
      },
      columns,
    );
    this.above(() => printer.out(line));
    if (isPaid(deposit.status) && !this.paid.has(deposit.id)) {
      this.paid.add(deposit.id);
      const after = `(deposit ${deposit.id}${ref ? `,${ref.slice(1)}` : ''})`;
      const columns = this.onTerminal
        ? (this.viewSettings.ctx.stdout as { columns?: number }).columns
        : undefined;
      const line = paidLine(deposit, this.now(), this.timeZone, { columns, after });
      this.note(
        this.onTerminal
          ? line
              .split('\n')
              .map((part) => printer.outColor.green.bold(part))
              .join('\n')
          : line,
      );
      if (this.onTerminal) this.viewSettings.ctx.stdout.write('\u0007');
    }
    if (deposit.status === 'FINALIZED') {
      // several deposits: their notes interleave, so each settlement says whose it is
      const whose = this.states.size > 1 ? `  (deposit ${deposit.id})` : '';
      const [txid, explorer] = settlementLines(deposit, this.viewSettings.renderMode());
      // a narrow terminal: the label above the txid or the link, each whole (ui/fit.ts)
      const narrowed = (line: string) => wordWrapped(line, columns).join('\n');
      if (txid) this.note(narrowed(`${txid}${whose}`));
      if (explorer) this.note(narrowed(explorer));
    }
    this.redraw();
  }

  gone(id: string): void {
    this.above(() =>
      this.viewSettings.printer.warnFitted(
        `deposit ${id}: the service does not know it (404); nothing is recorded, and the next --pending asks again`,
      ),
    );
  }

  expired(id: string): void {
    this.states.set(id, 'EXPIRED');
    const { printer, globals } = this.viewSettings;
    // --json: a line of its own on stderr, as the last looks left are (stdout keeps the service's answers)
    if (globals.json) {
      if (!globals.quiet) printer.err(JSON.stringify({ notice: { type: 'expired', depositId: id } }));
      return;
    }
    this.above(() =>
      this.viewSettings.printer.infoFitted(
        `deposit ${id}: still WAITING_PAYMENT past the profile's expire-after; recorded EXPIRED (local), so --pending leaves it from now on`,
      ),
    );
  }

  slowed(perMinute: number): void {
    this.above(() =>
      this.viewSettings.printer.warn(
        `the service asked to slow down: at most ${perMinute} request(s) a minute now`,
      ),
    );
  }

  retry(reason: string, delayMs: number, _failingForMs?: number): void {
    this.above(() => this.viewSettings.printer.warn(`retrying in ${Math.ceil(delayMs / 1000)} s: ${reason}`));
  }

  tick(_states: ReadonlyMap<string, string | undefined>, _elapsedMs: number): void {
    this.redraw();
  }

  /** Clear the spinner and give the cursor back, whatever ended the watch. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }
}
