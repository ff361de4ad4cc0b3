/** What a person or a script sees while deposits are watched. */
import type { GetResponse } from '../api/models.js';
import { type Context, inCI } from '../context.js';
import type { Printer } from './output.js';
import { colorStatus } from './render.js';

/** What the view needs of a command: the streams, the printer and the output mode. */
export interface ViewSettings {
  ctx: Context;
  printer: Printer;
  globals: { json?: boolean | undefined; quiet?: boolean | undefined };
}

interface Spinner {
  text: string;
  start(): unknown;
  stop(): unknown;
  clear(): unknown;
  render(): unknown;
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

/** Fits deposits/watch.ts's WatchEvents (ui does not import the flows). */
export class WatchView {
  private spinner: Spinner | undefined;

  private constructor(
    private readonly session: ViewSettings,
    private readonly now: () => number,
  ) {}

  /** The spinner runs only when a person watches: both streams are terminals, no CI, no --json. */
  static async open(session: ViewSettings): Promise<WatchView> {
    const view = new WatchView(session, session.ctx.now);
    const { ctx, globals, printer } = session;
    const animate =
      printer.stdoutIsTTY && printer.stderrIsTTY && !inCI(ctx.env) && !globals.json && !globals.quiet;
    if (animate) {
      const { default: ora } = await import('ora');
      view.spinner = ora({
        stream: ctx.stderr as NodeJS.WritableStream,
        isEnabled: true,
        discardStdin: false,
        color: 'cyan',
      }) as unknown as Spinner;
      view.spinner.start();
    }
    return view;
  }

  private above(write: () => void): void {
    this.spinner?.clear();
    write();
    this.spinner?.render();
  }

  change(deposit: GetResponse, raw: unknown, previous: string | undefined): void {
    const { printer: p, globals } = this.session;
    if (globals.json) {
      p.json(raw);
      return;
    }
    if (globals.quiet) return;
    const when = new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const move = previous
      ? `${previous} -> ${colorStatus(p.c, deposit.status)}`
      : colorStatus(p.c, deposit.status);
    const txid = deposit.settlement?.liquidTxid ? `  txid ${deposit.settlement.liquidTxid}` : '';
    this.above(() => p.out(`${when}  ${deposit.id}  ${move}${txid}`));
  }

  retry(reason: string, delayMs: number, _failingForMs?: number): void {
    this.above(() => this.session.printer.warn(`retrying in ${Math.ceil(delayMs / 1000)} s: ${reason}`));
  }

  tick(states: ReadonlyMap<string, string | undefined>, elapsedMs: number): void {
    if (!this.spinner) return;
    const parts = [...states].map(([id, s]) => `${id.slice(0, 8)} ${s ?? '…'}`);
    this.spinner.text = `${parts.slice(0, 4).join(' · ')}${parts.length > 4 ? ` (+${parts.length - 4})` : ''}  ${clock(elapsedMs)}`;
  }

  /** Clear the spinner and give the cursor back, whatever ended the watch. */
  stop(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }
}
