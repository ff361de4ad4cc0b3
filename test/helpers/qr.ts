import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const mod = jsQRModule as unknown as { default?: Decode };
export const jsQR: Decode = typeof mod.default === 'function' ? mod.default : (mod as unknown as Decode);

/** Decode a QR code from a PNG (an independent decoder from npm). */
export function decodePng(bytes: Buffer): string | undefined {
  const png = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}
