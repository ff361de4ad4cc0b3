/**
 * What may be drawn over: a terminal of a known size. A pseudo-terminal of 0 columns or 0 rows
 * (`script`, `docker exec -t`, `ssh -tt` from a script) has no size to draw in: a spinner's "lines
 * to clear" is then Infinity, so there nothing is redrawn and plain lines are written instead.
 */
import { type Context, inCI, type OutStream } from '../context.js';

interface Sized extends OutStream {
  rows?: number | undefined;
}

/** Both a column count and a row count above 0: a terminal that can be drawn over. */
export function knownSize(stream: OutStream): boolean {
  const { columns, rows } = stream as Sized;
  return (
    typeof columns === 'number' &&
    typeof rows === 'number' &&
    Number.isFinite(columns) &&
    Number.isFinite(rows) &&
    columns > 0 &&
    rows > 0
  );
}

/** A line on stderr may be redrawn in place: a terminal of a known size, not CI, not TERM=dumb. */
export function mayRedraw(ctx: Pick<Context, 'stderr' | 'env'>, stream: OutStream = ctx.stderr): boolean {
  return Boolean(stream.isTTY) && knownSize(stream) && !inCI(ctx.env) && ctx.env.TERM !== 'dumb';
}

/**
 * One line of progress on stderr (`rows 2/3`), redrawn in place, and cleared before anything
 * else is printed (`above`), so a table on stdout never reads through it.
 */
export class ProgressLine {
  private shown = false;

  constructor(private readonly stream: OutStream) {}

  show(text: string): void {
    const columns = (this.stream as Sized).columns ?? 80;
    // never wider than the terminal: a wrapped line could not be cleared with one \r
    this.stream.write(`\r\u001b[K${text.slice(0, Math.max(1, columns - 1))}`);
    this.shown = true;
  }

  clear(): void {
    if (!this.shown) return;
    this.stream.write('\r\u001b[K');
    this.shown = false;
  }

  /** Write something else with the progress line out of the way. */
  above(write: () => void): void {
    this.clear();
    write();
  }
}

/**
 * The stream as a spinner sees it: a width of at least one column whatever the terminal says
 * meanwhile (resized to 0 while it spins), so its count of lines to clear is never Infinity.
 */
export function withSafeWidth<S extends OutStream>(stream: S): S {
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'columns') {
        const columns = (target as Sized).columns;
        return typeof columns === 'number' && Number.isFinite(columns) && columns >= 1 ? columns : 80;
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value);
    },
  });
}
