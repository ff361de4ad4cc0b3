/** The counter view of a created deposit, when a person looks at a terminal that can hold it. */
import type { CreateResponse } from '../../api/models.js';
import { type Context, inCI } from '../../context.js';
import type { LocalFields } from '../../domain/text/reference.js';
import { CounterView, planCounter } from '../../ui/counter.js';
import { type QrStyle, qrMatrix } from '../../ui/counter-qr.js';
import type { Printer } from '../../ui/output.js';
import { renderDeposit } from '../../ui/render.js';
import { queryBackground } from '../../ui/terminal-background.js';
import { timeZoneOf } from '../../ui/zone-time.js';

export interface CounterChoice {
  printer: Printer;
  /** the terminal: stdout (TTY, size, resizes), stdin (the background query), TERM, CI, TZ, and the clock */
  ctx: Pick<Context, 'stdout' | 'stdin' | 'env' | 'now'>;
  /** --profile as given, for the command that sets the style */
  profile: string | undefined;
  /** followed on screen: the view may take every row, the cursor parked at its end */
  watch: boolean;
  style: QrStyle;
  /** the style given by flag or setting, which always wins over the terminal's answer */
  chosenStyle: string | undefined;
  /** the requests went to the embedded sandbox (never taken from the answer) */
  sandbox: boolean;
  /** the reference and note given with the charge (lbrl's ledger) */
  local?: LocalFields;
  /** how long the terminal may take to say its background */
  backgroundQueryMs?: number;
}

/**
 * On a terminal that can redraw (stdout a TTY, not CI, TERM not dumb, its size known): print the
 * deposit and its copy-paste string, and return the counter view, not yet drawn; or, when the
 * terminal is too small for the code, print it without the code and say so ('printed').
 * Elsewhere undefined: the caller prints as for a pipe.
 */
export async function showCounter(
  deposit: CreateResponse,
  choice: CounterChoice,
): Promise<CounterView | 'printed' | undefined> {
  const { ctx, printer } = choice;
  const out = ctx.stdout as { isTTY?: boolean; columns?: number; rows?: number };
  if (!out.isTTY || inCI(ctx.env) || ctx.env.TERM === 'dumb' || !out.columns || !out.rows) return undefined;
  const timeZone = timeZoneOf(ctx.env);
  const modules = await qrMatrix(deposit.qrCodeText);
  // a view that is not followed ends with a line for the next command and one for the prompt
  const size = { columns: out.columns, rows: out.rows };
  const layout = planCounter(size, modules.length, deposit.amountInCents, choice.watch ? 0 : 2);
  printer.out(
    renderDeposit(printer.outColor, deposit, { sandbox: choice.sandbox, timeZone, local: choice.local }),
  );
  printer.out('PIX copy-paste:');
  printer.out(deposit.qrCodeText);
  if ('tooSmall' in layout) {
    // followed, the view may take every row: say so when that is what it lacks
    const followed =
      !choice.watch && !('tooSmall' in planCounter(size, modules.length, deposit.amountInCents));
    printer.warn(
      `${layout.tooSmall}: enlarge it,${followed ? ' add --watch (followed, the view may take every row),' : ''} or write the code to a file with --qr-png <file>`,
    );
    return 'printed';
  }
  let style = choice.style;
  if (choice.chosenStyle === undefined) {
    const answered = await queryBackground(ctx.stdin as never, ctx.stdout, choice.backgroundQueryMs);
    style = answered ?? 'dark';
    // a guess is said, once, with the setting that makes it no guess
    if (!answered)
      printer.info(
        `note: the terminal did not say its background colour, so the QR code is drawn for a dark one; if it looks inverted, set the style: lbrl config set qr-style light${choice.profile !== undefined ? ` --profile ${choice.profile}` : ''} (or dark)`,
      );
  }
  return new CounterView({
    layout,
    modules,
    style,
    deposit: {
      id: deposit.id,
      amountInCents: deposit.amountInCents,
      sandbox: choice.sandbox,
      status: deposit.status,
      ...(choice.local?.ref !== undefined ? { ref: choice.local.ref } : {}),
    },
    colors: printer.outColor,
    timeZone,
    now: ctx.now,
    write: (text) => ctx.stdout.write(printer.redact(text)),
    resizes: (run) => {
      const stream = ctx.stdout as Partial<NodeJS.WriteStream>;
      if (typeof stream.on !== 'function') return () => {};
      const onResize = () => {
        // resized to no size (0 columns or rows): too small for any layout, so nothing is drawn
        run({ columns: stream.columns || 0, rows: stream.rows || 0 });
      };
      stream.on('resize', onResize);
      return () => stream.off?.('resize', onResize);
    },
  });
}
