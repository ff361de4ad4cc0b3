/**
 * The counter view of `deposit create` on a terminal: the QR code, the amount in large type and
 * the status, laid out to fit the terminal (side by side, or stacked on a narrow one), and
 * redrawn in place while the deposit is watched, so the code never scrolls away. What the
 * customer checks (the amount) and scans (the code) stay on screen until the watch ends.
 */
import type { ChalkInstance } from 'chalk';
import type { GetResponse } from '../api/models.js';
import { formatCents } from '../domain/money.js';
import { safeText } from '../domain/text/safe-text.js';
import { isPaid } from '../domain/values.js';
import { bigText, bigTextWidth } from './counter-font.js';
import { drawQr, type QrStyle, qrBox } from './counter-qr.js';
import { localTime } from './zone-time.js';

/** A colour of the view's own (chalk's SGR): no width on the screen. */
const SGR = /\u001b\[[0-9;]*m/g;

export interface TerminalSize {
  columns: number;
  rows: number;
}

export interface CounterLayout {
  kind: 'side' | 'stacked';
  /** quiet zone of the code, in modules */
  quiet: number;
  /** the font's scale and the text drawn in it (`R$ 35,00`, or `35,00` when that is all that fits) */
  scale: 1 | 2;
  amountText: string;
  width: number;
  height: number;
}

/** Columns between the code and the text beside it. */
const GAP = 3;
/** The narrowest the text beside the code may be. */
const MIN_TEXT = 24;
/** Lines under the amount: the status, the paid moment and its steps, the deposit. */
const SIDE_LINES = 11;
const STACKED_LINES = 4;

/**
 * The largest arrangement that fits `rows` x `columns`: the widest quiet zone first (4 modules,
 * then 2, then 1), then the amount with `R$` in the larger font, side by side before stacked.
 * A string saying what it would need when nothing fits.
 */
export function planCounter(
  size: TerminalSize,
  modules: number,
  amountCents: number,
  /** rows kept free under the view (a plain create's next line and the prompt) */
  reserve = 0,
): CounterLayout | { tooSmall: string } {
  const full = formatCents(amountCents);
  const short = full.replace(/^R\$ /, '');
  const fonts: Array<[1 | 2, string]> = [
    [2, full],
    [1, full],
    [2, short],
    [1, short],
  ];
  const rows = size.rows - reserve;
  /** the smallest size of each arrangement, for the message when none fits */
  const least: Record<'side' | 'stacked', { width: number; height: number } | undefined> = {
    side: undefined,
    stacked: undefined,
  };
  for (const kind of ['side', 'stacked'] as const) {
    for (const quiet of [4, 2, 1]) {
      const box = qrBox(modules, quiet);
      for (const [scale, amountText] of fonts) {
        const textWidth = bigTextWidth(amountText, scale);
        // a short amount has its R$ on a line of its own
        const textHeight = (scale === 2 ? 5 : 3) + (amountText === short ? 1 : 0);
        const width =
          kind === 'side' ? box.width + GAP + Math.max(textWidth, MIN_TEXT) : Math.max(box.width, textWidth);
        const height =
          kind === 'side'
            ? Math.max(box.height, textHeight + SIDE_LINES)
            : box.height + textHeight + STACKED_LINES;
        const smallest = least[kind];
        if (quiet === 1 && (!smallest || width * height < smallest.width * smallest.height))
          least[kind] = { width, height };
        if (width <= size.columns && height <= rows) {
          // the text beside the code takes every column left
          return { kind, quiet, scale, amountText, width: kind === 'side' ? size.columns : width, height };
        }
      }
    }
  }
  const need = (l: { width: number; height: number } | undefined) => `${l!.width}x${l!.height + reserve}`;
  return {
    tooSmall: `the terminal (${size.columns}x${size.rows}) is too small for the QR code${reserve > 0 ? ` and the ${reserve} lines after it` : ''}, which needs at least ${need(least.side)} (or ${need(least.stacked)} with the amount under it)`,
  };
}

/** What the view shows of a deposit. */
export interface CounterDeposit {
  id: string;
  amountInCents: number;
  sandbox: boolean;
  /** as created (WAITING_PAYMENT), before any watch */
  status?: string;
  /** the merchant's reference (lbrl's ledger): which order the charge is for */
  ref?: string;
}

export interface CounterOptions {
  /** replaced when the terminal is resized */
  layout: CounterLayout;
  modules: boolean[][];
  style: QrStyle;
  deposit: CounterDeposit;
  colors: ChalkInstance;
  timeZone?: string | undefined;
  now(): number;
  write(text: string): void;
  /** draw again every second (the elapsed time); tests pass their own */
  every?: (ms: number, run: () => void) => () => void;
  /** calls `run` with the terminal's new size whenever it changes; gives back how to stop */
  resizes?: (run: (size: TerminalSize) => void) => () => void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const HUMAN: Record<string, string> = {
  WAITING_PAYMENT: 'Waiting for payment',
  PIX_CONFIRMED: 'Paid: settling',
  SETTLEMENT_CREATED: 'Paid: settlement created',
  TX_SENT: 'Paid: sent on Liquid',
};

function clip(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** The reference as the view shows it: as text, every control shown as an escape. */
function refText(deposit: CounterDeposit): string {
  return deposit.ref === undefined ? '' : `ref ${safeText(deposit.ref)}`;
}

function defaultEvery(ms: number, run: () => void): () => void {
  const timer = setInterval(run, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}

export class CounterView {
  private status: string | undefined;
  private paidAt: number | string | undefined;
  private readonly steps: Array<{ at: number; status: string }> = [];
  private retrying: string | undefined;
  private drawn = 0;
  /** followed: a spinner and a clock; else a still picture */
  private following = true;
  private readonly started: number;
  private stopTimer: (() => void) | undefined;
  private qr: string[];
  /** the terminal became too small: nothing is drawn until it is large enough again */
  private hidden = false;

  constructor(private readonly options: CounterOptions) {
    this.started = options.now();
    this.status = options.deposit.status;
    this.qr = drawQr(options.modules, options.style, options.layout.quiet);
  }

  /** Draw the view once, not followed: no spinner, no clock; the cursor goes to the line after it. */
  still(): void {
    this.following = false;
    this.draw();
    this.options.write('\n');
    this.drawn = 0;
  }

  /** Draw the view and keep its clock ticking. */
  start(): void {
    this.draw();
    const stopTicking = (this.options.every ?? defaultEvery)(1000, () => this.draw());
    const stopResizes = this.options.resizes?.((size) => this.resize(size));
    this.stopTimer = () => {
      stopTicking();
      stopResizes?.();
    };
  }

  /** The lines beside (or under) the code. */
  private textLines(width: number, stacked: boolean): string[] {
    const { colors, deposit, layout, timeZone } = this.options;

    const lines = bigText(layout.amountText, layout.scale);
    if (!layout.amountText.startsWith('R$')) lines.unshift('R$');
    const elapsed = elapsedText(this.options.now() - this.started);
    let head: string;
    if (this.status === 'FINALIZED') head = colors.green.bold(clip(`FINALIZED  ${elapsed}`, width));
    else if (this.status === 'FAILED') head = colors.red.bold(clip(`FAILED  ${elapsed}`, width));
    else {
      const frame = FRAMES[Math.floor((this.options.now() - this.started) / 1000) % FRAMES.length]!;
      const label = this.status === undefined ? 'Asking the service' : (HUMAN[this.status] ?? this.status);
      head = clip(this.following ? `${frame} ${label}  ${elapsed}` : label, width);
    }
    const amount = formatCents(deposit.amountInCents);
    const paid =
      this.paidAt !== undefined
        ? [
            colors.green.bold(clip(`PAID  ${amount}`, width)),
            clip(`at ${localTime(this.paidAt, timeZone)}`, width),
          ]
        : [];
    const retry = this.retrying ? colors.magenta(clip(this.retrying, width)) : '';
    if (stacked) {
      lines.push(head);
      lines.push(
        paid.length > 0 ? clip(`PAID ${amount} at ${localTime(this.paidAt!, timeZone)}`, width) : retry,
      );
      lines.push(clip(`deposit ${deposit.id}`, width));
      const notes = [deposit.sandbox ? 'sandbox: no real money' : '', refText(deposit)].filter(Boolean);
      lines.push(clip(notes.join('  '), width));
      return lines;
    }
    lines.push('', head, retry);
    lines.push(...(paid.length > 0 ? paid : ['', '']));
    const shown = this.steps.slice(-3);
    for (let i = 0; i < 3; i++) {
      const step = shown[i];
      lines.push(step ? clip(`${localTime(step.at, timeZone).slice(11, 19)}  ${step.status}`, width) : '');
    }
    lines.push(clip(refText(deposit), width), clip(`deposit ${deposit.id}`, width));
    lines.push(deposit.sandbox ? clip('sandbox: no real money', width) : '');
    return lines;
  }

  /** The whole view as text rows, `height` of them. */
  frame(): string[] {
    const { layout } = this.options;
    const qrWidth = this.qr[0]?.length ?? 0;
    if (layout.kind === 'stacked') {
      const text = this.textLines(layout.width, true);
      return [...this.qr, ...text].slice(0, layout.height);
    }
    const width = layout.width - qrWidth - GAP;
    const text = this.textLines(width, false);
    const rows: string[] = [];
    for (let i = 0; i < layout.height; i++) {
      const left = this.qr[i] ?? ' '.repeat(qrWidth);
      const right = text[i] ?? '';
      rows.push(right ? `${left}${' '.repeat(GAP)}${right}` : left);
    }
    return rows;
  }

  /**
   * Draw over the last drawing: back to its first row, each row written over the old one and the
   * rest of it cleared. Written over, not cleared first: a terminal that shows the frame half drawn
   * (it reads it in pieces) shows each row old or new, never blank, so the code, the same in
   * both, stays whole for a camera. A row as wide as the view needs no clearing (clearing at the
   * last column would take its last character). The cursor stays at the end of the last row, so
   * a view as tall as the terminal never scrolls.
   */
  draw(): void {
    if (this.hidden) return;
    const rows = this.frame();
    const { width } = this.options.layout;
    let out = '';
    if (this.drawn > 0) out += `\r${this.drawn > 1 ? `\u001b[${this.drawn - 1}A` : ''}`;
    out += rows
      .map((row) => {
        const text = row.trimEnd();
        return [...text.replace(SGR, '')].length < width ? `${text}\u001b[K` : text;
      })
      .join('\n');
    this.drawn = rows.length;
    this.options.write(out);
  }

  change(deposit: GetResponse, _raw: unknown, _previous: string | undefined): void {
    if (deposit.status !== this.status) {
      if (this.status !== undefined || deposit.status !== 'WAITING_PAYMENT') {
        this.steps.push({ at: this.options.now(), status: deposit.status });
      }
      this.status = deposit.status;
    }
    this.retrying = undefined;
    if (this.paidAt === undefined && isPaid(deposit.status)) {
      this.paidAt = deposit.confirmedAt ?? this.options.now();
      this.draw();
      this.options.write('\u0007');
      return;
    }
    this.draw();
  }

  retry(reason: string, delayMs: number): void {
    this.retrying = `retrying in ${Math.ceil(delayMs / 1000)} s: ${reason}`;
    this.draw();
  }

  tick(): void {
    this.draw();
  }

  /**
   * The terminal changed size: the screen is cleared and the view drawn again in the layout that
   * fits now; when none does, it says so once and draws nothing until one does (the watch goes on).
   */
  resize(size: TerminalSize): void {
    const layout = planCounter(size, this.options.modules.length, this.options.deposit.amountInCents);
    const clear = '\u001b[2J\u001b[H';
    this.drawn = 0;
    if ('tooSmall' in layout) {
      if (!this.hidden) this.options.write(`${clear}${layout.tooSmall}; enlarge it to see the code again\n`);
      this.hidden = true;
      return;
    }
    this.hidden = false;
    this.options.layout = layout;
    this.qr = drawQr(this.options.modules, this.options.style, layout.quiet);
    this.options.write(clear);
    this.draw();
  }

  /** The last drawing stays; the cursor goes to the line after it. */
  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
    if (this.hidden) {
      // no view on screen: the status, as a line
      this.hidden = false;
      this.options.write(`${this.status ?? 'not known'}\n`);
    } else if (this.drawn > 0) {
      this.draw();
      this.options.write('\n');
      this.drawn = 0;
    }
  }
}
