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
  for (const ch of text) {
    const glyph = GLYPHS[ch];
    if (!glyph) continue;
    for (let r = 0; r < 5; r++) {
      if (!first) rows[r]!.push(false);
      for (const p of glyph[r]!) rows[r]!.push(p === '#');
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
  const px = pixels(text, scale);
  const width = px[0]!.length;
  const lines: string[] = [];
  for (let r = 0; r < px.length; r += 2) {
    let line = '';
    for (let c = 0; c < width; c++) {
      const top = px[r]![c]!;
      const bottom = px[r + 1]?.[c] ?? false;
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
