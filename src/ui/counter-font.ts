/**
 * The amount in large type for the counter view: a 3x5 pixel font (digits, R, $, comma, dot)
 * drawn with half blocks, two pixel rows per text row, so a glyph is 3 text rows tall at
 * scale 1 and 5 at scale 2 (each pixel doubled). Only block characters, no colour: it reads
 * the same with NO_COLOR, on a light or a dark terminal.
 */

const GLYPHS: Record<string, string[]> = {
  '0': ['###', '#.#', '#.#', '#.#', '###'],
  '1': ['.#.', '##.', '.#.', '.#.', '###'],
  '2': ['###', '..#', '###', '#..', '###'],
  '3': ['###', '..#', '.##', '..#', '###'],
  '4': ['#.#', '#.#', '###', '..#', '..#'],
  '5': ['###', '#..', '###', '..#', '###'],
  '6': ['###', '#..', '###', '#.#', '###'],
  '7': ['###', '..#', '.#.', '.#.', '.#.'],
  '8': ['###', '#.#', '###', '#.#', '###'],
  '9': ['###', '#.#', '###', '..#', '###'],
  R: ['##.', '#.#', '##.', '#.#', '#.#'],
  $: ['.####', '#.#..', '.###.', '..#.#', '####.'],
  ',': ['..', '..', '..', '.#', '#.'],
  '.': ['.', '.', '.', '.', '#'],
  ' ': ['.', '.', '.', '.', '.'],
};

/** The pixel rows of a text (1 = ink), one blank column between glyphs; unknown characters are skipped. */
function pixels(text: string, scale: 1 | 2): boolean[][] {
  const rows: boolean[][] = [[], [], [], [], []];
  let first = true;
  for (const char of text) {
    const glyph = GLYPHS[char];
    if (!glyph) continue;
    for (let row = 0; row < 5; row++) {
      if (!first) rows[row]!.push(false);
      for (const p of glyph[row]!) rows[row]!.push(p === '#');
    }
    first = false;
  }
  if (scale === 1) return rows;
  return rows.flatMap((row) => {
    const wide = row.flatMap((p) => [p, p]);
    return [wide, [...wide]];
  });
}

/** Text rows of block characters; `ink` is drawn as the terminal's foreground. */
export function bigText(text: string, scale: 1 | 2 = 1): string[] {
  const pixelRows = pixels(text, scale);
  const width = pixelRows[0]!.length;
  const lines: string[] = [];
  for (let row = 0; row < pixelRows.length; row += 2) {
    let line = '';
    for (let col = 0; col < width; col++) {
      const top = pixelRows[row]![col]!;
      const bottom = pixelRows[row + 1]?.[col] ?? false;
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/** Columns the text takes in large type. */
export function bigTextWidth(text: string, scale: 1 | 2 = 1): number {
  return pixels(text, scale)[0]!.length;
}
