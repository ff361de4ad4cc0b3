/** The PIX QR code drawn in the terminal (qrcode-terminal), and as a PNG file (qrcode). */
import fs from 'node:fs';
import path from 'node:path';
import { invalidValue, LbrlError } from '../errors.js';

/** Modules of a QR code (true = dark) as qrcode-terminal encodes the text. */
async function qrModules(text: string): Promise<boolean[][]> {
  const { default: qrcode } = await import('qrcode-terminal');
  qrcode.setErrorLevel('M');
  let drawn = '';
  qrcode.generate(text, { small: true }, (out: string) => {
    drawn = out;
  });
  // small mode: a glyph is two modules tall, drawn for a dark terminal ('█' both light)
  const halves: Record<string, [boolean, boolean]> = {
    '█': [false, false],
    '▀': [false, true],
    '▄': [true, false],
    ' ': [true, true],
  };
  const rows: boolean[][] = [];
  for (const line of drawn.split('\n').filter((l) => l.length > 0)) {
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const char of line) {
      const [upper, lower] = halves[char] ?? [false, false];
      top.push(upper);
      bottom.push(lower);
    }
    rows.push(top, bottom);
  }
  // drop qrcode-terminal's one-module border (and the half row above it), keep the code
  const size = rows[0]!.length - 2;
  return rows.slice(2, 2 + size).map((r) => r.slice(1, 1 + size));
}

export const QUIET_ZONE = 4;

/** --qr-style beats the profile's qr-style; dark (light text on a dark terminal) by default. */
export function qrStyle(flag: string | undefined, setting: string | undefined): 'dark' | 'light' {
  if (flag !== undefined && flag !== 'dark' && flag !== 'light') {
    throw invalidValue('--qr-style', flag, 'dark (for a dark terminal) or light (for a light one)');
  }
  return (flag ?? setting) === 'light' ? 'light' : 'dark';
}

/**
 * The QR code for a terminal, with the full four-module quiet zone, two modules per
 * character. `dark` is for light text on a dark background; `light` the reverse.
 */
export async function renderTerminalQr(text: string, style: 'dark' | 'light' = 'dark'): Promise<string> {
  const modules = await qrModules(text);
  const size = modules.length + 2 * QUIET_ZONE;
  const at = (row: number, col: number) => {
    const moduleRow = row - QUIET_ZONE;
    const moduleCol = col - QUIET_ZONE;
    return moduleRow >= 0 && moduleCol >= 0 && moduleRow < modules.length && moduleCol < modules.length
      ? modules[moduleRow]![moduleCol]!
      : false;
  };
  // the glyph's ink is light on a dark terminal, dark on a light one
  const ink = (dark: boolean) => (style === 'dark' ? !dark : dark);
  const lines: string[] = [];
  for (let row = 0; row < size; row += 2) {
    let line = '';
    for (let col = 0; col < size; col++) {
      const top = ink(at(row, col));
      const bottom = row + 1 < size ? ink(at(row + 1, col)) : style === 'dark';
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/** Write a file all at once: a temporary file in the same directory, then a rename. */
export function writeFileAtomic(file: string, bytes: Buffer | string, mode = 0o644): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, bytes, { mode });
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Before a request is sent: will --qr-png be writable there? Refuses (exit 2) if not. */
export function checkQrPngTarget(file: string): void {
  const refuse = (problem: string) =>
    invalidValue('--qr-png', file, `a file path in a writable directory (${problem})`);
  const dir = path.dirname(path.resolve(file));
  try {
    if (!fs.statSync(dir).isDirectory()) throw refuse(`${dir} is not a directory`);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    if (error instanceof LbrlError) throw error;
    throw refuse(`the directory ${dir} does not exist or is not writable`);
  }
  let isDir = false;
  try {
    isDir = fs.statSync(file).isDirectory();
  } catch {
    // does not exist yet: fine
  }
  if (isDir) throw refuse(`${file} is a directory`);
}
