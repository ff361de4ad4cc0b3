import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

type Decode = (
  data: Uint8ClampedArray,
  width: number,
  height: number,
  options?: { inversionAttempts: 'dontInvert' | 'attemptBoth' },
) => { data: string } | null;
const mod = jsQRModule as unknown as { default?: Decode };
export const jsQR: Decode = typeof mod.default === 'function' ? mod.default : (mod as unknown as Decode);

/** Decode a QR code from a PNG (an independent decoder from npm). */
export function decodePng(bytes: Buffer): string | undefined {
  const png = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/**
 * What a terminal shows, as pixels: each character is one module wide and two tall; the
 * glyph's ink is light on a dark theme and dark on a light one. Then decode it.
 */
export function decodeTerminal(text: string, theme: 'dark' | 'light', scale = 4): string | undefined {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const width = Math.max(...lines.map((l) => [...l].length));
  const cells: boolean[][] = []; // true = ink
  for (const line of lines) {
    const chars = [...line];
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (let i = 0; i < width; i++) {
      const ch = chars[i] ?? ' ';
      top.push(ch === '█' || ch === '▀');
      bottom.push(ch === '█' || ch === '▄');
    }
    cells.push(top, bottom);
  }
  // a margin of plain terminal background around it all
  const margin = 2;
  const h = (cells.length + 2 * margin) * scale;
  const w = (width + 2 * margin) * scale;
  const data = new Uint8ClampedArray(w * h * 4);
  const inkLevel = theme === 'dark' ? 255 : 0;
  const bgLevel = 255 - inkLevel;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const r = Math.floor(y / scale) - margin;
      const c = Math.floor(x / scale) - margin;
      const ink = r >= 0 && c >= 0 && r < cells.length && c < width ? cells[r]![c]! : false;
      const v = ink ? inkLevel : bgLevel;
      const i = (y * w + x) * 4;
      data[i] = data[i + 1] = data[i + 2] = v;
      data[i + 3] = 255;
    }
  }
  // no inversion: a rendering with its colours the wrong way round must not pass
  return jsQR(data, w, h, { inversionAttempts: 'dontInvert' })?.data;
}

/**
 * A whole terminal screen as a PNG, row for row (blank rows kept): each character one module
 * wide and two tall, block characters as ink (light on a dark theme, dark on a light one).
 */
export function screenPng(screen: string, theme: 'dark' | 'light', scale = 4): Buffer {
  const lines = screen.replace(/\n$/, '').split('\n');
  const width = Math.max(...lines.map((l) => [...l].length));
  const margin = 2;
  const rows = lines.length * 2;
  const w = (width + 2 * margin) * scale;
  const h = (rows + 2 * margin) * scale;
  const png = new PNG({ width: w, height: h });
  const chars = lines.map((l) => [...l]);
  const inkLevel = theme === 'dark' ? 255 : 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const r = Math.floor(y / scale) - margin;
      const c = Math.floor(x / scale) - margin;
      const ch = r >= 0 && c >= 0 && r < rows ? (chars[Math.floor(r / 2)]![c] ?? ' ') : ' ';
      const ink = r % 2 === 0 ? ch === '█' || ch === '▀' : ch === '█' || ch === '▄';
      const v = ink ? inkLevel : 255 - inkLevel;
      const i = (y * w + x) * 4;
      png.data[i] = png.data[i + 1] = png.data[i + 2] = v;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** zbarimg's reading of a screen (another decoder than jsQR, as a phone's would be), or undefined. */
export function zbarScreen(screen: string, theme: 'dark' | 'light'): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-zbar-'));
  const file = path.join(dir, 'screen.png');
  try {
    fs.writeFileSync(file, screenPng(screen, theme));
    return execFileSync('zbarimg', ['--raw', '-q', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).replace(/\n$/, '');
  } catch {
    return undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
