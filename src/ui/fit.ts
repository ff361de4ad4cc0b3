/**
 * Lines that fit a terminal without breaking a figure. A terminal wraps a line wider than itself
 * wherever the edge falls, in the middle of an amount (`R$ 1.188.0` / `00.000,00`): a reader takes
 * the pieces for two figures. Here a line is made of pieces that are never broken (a name, an
 * amount, a count): those that do not fit beside the one before go to the next line, indented
 * when the indent leaves the piece whole. Only a piece wider than the terminal itself still wraps.
 */

/** Columns a text takes (its code points: what these views print is one column each). */
export function widthOf(text: string): number {
  return [...text].length;
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
