/**
 * The QR code for the counter view, drawn from the `qrcode` package's module matrix with half
 * blocks: one module per column, two module rows per text row. Error correction level L (the
 * smallest code: a screen is not a crumpled receipt), so a PIX BR Code of 100-180 characters is
 * 41-45 modules, and the quiet zone is chosen by the layout (at least 1 module).
 */

export type QrStyle = 'dark' | 'light';

/** Modules of the QR code of `text` (true = dark), at error correction level L. */
export async function qrMatrix(text: string): Promise<boolean[][]> {
  const { default: QRCode } = await import('qrcode');
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'L' });
  const rows: boolean[][] = [];
  for (let y = 0; y < modules.size; y++) {
    const row: boolean[] = [];
    for (let x = 0; x < modules.size; x++) row.push(Boolean(modules.get(y, x)));
    rows.push(row);
  }
  return rows;
}

/** Columns and text rows a code of `size` modules takes with a quiet zone of `quiet` modules. */
export function qrBox(size: number, quiet: number): { width: number; height: number } {
  const side = size + 2 * quiet;
  return { width: side, height: Math.ceil(side / 2) };
}

/**
 * Text rows of the code. `dark` is for a dark terminal: the light modules and the quiet zone are
 * the glyphs' ink. `light` is for a light terminal: the dark modules are ink, the quiet zone is
 * the background. Beyond the code (a half row left over) is always the terminal's background.
 */
export function drawQr(modules: boolean[][], style: QrStyle, quiet: number): string[] {
  const moduleCount = modules.length;
  const side = moduleCount + 2 * quiet;
  const dark = (row: number, col: number) => {
    const moduleRow = row - quiet;
    const moduleCol = col - quiet;
    return moduleRow >= 0 && moduleCol >= 0 && moduleRow < moduleCount && moduleCol < moduleCount
      ? modules[moduleRow]![moduleCol]!
      : false;
  };
  const ink = (row: number, col: number) => {
    if (row >= side) return false;
    return style === 'dark' ? !dark(row, col) : dark(row, col);
  };
  const lines: string[] = [];
  for (let row = 0; row < side; row += 2) {
    let line = '';
    for (let col = 0; col < side; col++) {
      const top = ink(row, col);
      const bottom = ink(row + 1, col);
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(line);
  }
  return lines;
}
