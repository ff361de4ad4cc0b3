/** The PIX QR code drawn in the terminal (qrcode-terminal), and as a PNG file (qrcode). */
import fs from 'node:fs';
import path from 'node:path';

export async function renderTerminalQr(text: string, style: 'dark' | 'light' = 'dark'): Promise<string> {
  const { default: qrcode } = await import('qrcode-terminal');
  let drawn = '';
  qrcode.generate(text, { small: true }, (out: string) => {
    drawn = out;
  });
  if (style === 'light') {
    // qrcode-terminal draws for a dark background; swap the half blocks for a light one.
    const swap: Record<string, string> = { '█': ' ', ' ': '█', '▀': '▄', '▄': '▀' };
    drawn = drawn
      .split('\n')
      .map((line) => [...line].map((ch) => swap[ch] ?? ch).join(''))
      .join('\n');
  }
  return drawn;
}

export async function qrPngFromText(text: string): Promise<Buffer> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function isPng(bytes: Buffer): boolean {
  return bytes.subarray(0, 8).equals(PNG_MAGIC);
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

/** Before a request is sent: will the PNG be writable there? */
export function checkWritableTarget(file: string): string | undefined {
  const dir = path.dirname(path.resolve(file));
  try {
    const st = fs.statSync(dir);
    if (!st.isDirectory()) return `${dir} is not a directory`;
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return `the directory ${dir} does not exist or is not writable`;
  }
  try {
    if (fs.statSync(file).isDirectory()) return `${file} is a directory`;
  } catch {
    // does not exist yet: fine
  }
  return undefined;
}
