/**
 * Lines that fit a terminal without breaking a figure. A terminal wraps a line wider than itself
 * wherever the edge falls, in the middle of an amount (`R$ 1.188.0` / `00.000,00`): a reader takes
 * the pieces for two figures. Here a line is made of pieces that are never broken (a name, an
 * amount, a count): those that do not fit beside the one before go to the next line, indented
 * when the indent leaves the piece whole. Only a piece wider than the terminal itself still wraps.
 */

/** A colour or style code (SGR): it takes no column. */
const STYLE_CODE = /\u001b\[[0-9;]*m/g;

/** Columns a text takes (its code points: what these views print is one column each; colour codes none). */
export function widthOf(text: string): number {
  return [...text.replace(STYLE_CODE, '')].length;
}

/**
 * The words of a line of prose, each a piece never broken: split at its spaces, with `R$` kept
 * with the amount after it (an id, a txid, an address, a path or a flag has no space: whole).
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const word of text.split(' ')) {
    if (word === '') continue;
    const last = words.at(-1);
    if (last !== undefined && /(^|\W)R\$$/.test(last.replace(STYLE_CODE, '')))
      words[words.length - 1] = `${last} ${word}`;
    else words.push(word);
  }
  return words;
}

/**
 * A line of prose in lines of at most `columns`, broken only between words (wordsOf): a word
 * wider than the terminal (an id on a 20-column pane) on a line of its own, whole, the terminal's
 * to wrap. Unchanged when it fits, or when the width is unknown (not a terminal: 0 or undefined).
 */
export function wordWrapped(text: string, columns: number | undefined): string[] {
  if (!columns || columns < 1 || widthOf(text) <= columns) return [text];
  return packed(wordsOf(text), columns, ' ', '');
}

/** A terminal's width, when the stream is one of a known size; undefined else (a pipe, a 0-column pty). */
export function terminalColumns(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  const { columns } = stream;
  return stream.isTTY && typeof columns === 'number' && Number.isFinite(columns) && columns > 0
    ? columns
    : undefined;
}

/** `label value` as one piece when it fits in `columns` (indented), else the two apart, the value whole. */
export function labelled(label: string, value: string, columns: number): string[] {
  const whole = `${label} ${value}`;
  return widthOf(whole) + 2 <= columns ? [whole] : [label, value];
}

/** The pieces packed into lines of at most `columns`, each piece whole. */
export function packed(pieces: string[], columns: number, gap = '  ', indent = '  '): string[] {
  const lines: string[] = [];
  let line = '';
  for (const piece of pieces.filter((p) => p !== '')) {
    if (line === '') line = piece;
    else if (widthOf(line) + widthOf(gap) + widthOf(piece) <= columns) line = `${line}${gap}${piece}`;
    else {
      lines.push(line);
      line = widthOf(indent) + widthOf(piece) <= columns ? `${indent}${piece}` : piece;
    }
  }
  return line === '' ? lines : [...lines, line];
}

/** `whole` when it fits; else the pieces it is made of, packed (see `packed`). */
export function fitted(whole: string, pieces: string[], columns: number): string[] {
  return widthOf(whole) <= columns ? [whole] : packed(pieces, columns);
}

/**
 * The width a view (report, reconcile, list's table) is laid out in, one rule for all, as gh's:
 * on a terminal, its width (80 when it says none); when stdout is not a terminal (a pipe, a file),
 * COLUMNS when it is set to a width, else no limit: nothing is wrapped or dropped for a width
 * nobody sees. Infinity when there is no limit.
 */
export function outputColumns(
  stdout: { isTTY?: boolean; columns?: number },
  env: Record<string, string | undefined>,
): number {
  if (stdout.isTTY) return terminalColumns(stdout) ?? 80;
  const set = env.COLUMNS?.trim() ?? '';
  return /^[1-9]\d{0,4}$/.test(set) ? Number(set) : Number.POSITIVE_INFINITY;
}
