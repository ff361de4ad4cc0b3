/**
 * An answer's bytes as text. JSON on the wire is UTF-8 (RFC 8259); a body in another charset
 * (UTF-16 or UTF-32, with its byte order mark or not; Latin-1 or any other a content-type names)
 * read as UTF-8 is garbage, and a message quoting it is garbage too. So the charset is found
 * (its byte order mark, the pattern of zero bytes RFC 4627 reads, the content-type's charset)
 * and named, for the caller to refuse the answer as not UTF-8.
 */

// node:buffer's own check, in C++: a TextDecoder made to throw cost a get about 1.5M
// instructions more to make and run
import { isUtf8 } from 'node:buffer';

export interface BodyText {
  /** the bytes read as UTF-8 (what is not UTF-8 replaced), for traces */
  text: string;
  /** why the body is not UTF-8, naming its charset when something says it; absent when it is */
  notUtf8?: string;
}

const BOMS: Array<[number[], string]> = [
  [[0x00, 0x00, 0xfe, 0xff], 'UTF-32BE'],
  [[0xff, 0xfe, 0x00, 0x00], 'UTF-32LE'],
  [[0xfe, 0xff], 'UTF-16BE'],
  [[0xff, 0xfe], 'UTF-16LE'],
];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, at) => bytes[at] === byte);
}

/** The charset JSON text in another encoding shows in its first four bytes (RFC 4627, section 3). */
function zeroPattern(bytes: Uint8Array): string | undefined {
  if (bytes.length < 4) return undefined;
  const zero = [0, 1, 2, 3].map((at) => bytes[at] === 0);
  const pattern = zero.map((z) => (z ? '0' : 'x')).join('');
  return { '000x': 'UTF-32BE', x000: 'UTF-32LE', '0x0x': 'UTF-16BE', x0x0: 'UTF-16LE' }[pattern];
}

/** The charset a content-type names, when it names one: `application/json; charset=utf-16`. */
function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]{1,40})/i.exec(contentType ?? '');
  return match?.[1];
}

/** The body as text, and whether it is UTF-8 (the header's charset is believed only when the bytes are not). */
export function bodyText(bytes: Uint8Array, contentType: string | undefined): BodyText {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const bom = BOMS.find(([prefix]) => startsWith(bytes, prefix));
  if (bom) return { text, notUtf8: `it is ${bom[1]} (by its byte order mark)` };
  const zeros = zeroPattern(bytes);
  if (zeros) return { text, notUtf8: `it is ${zeros} (by its zero bytes)` };
  if (isUtf8(bytes)) return { text };
  const declared = declaredCharset(contentType);
  if (declared && !/^utf-?8$/i.test(declared))
    return { text, notUtf8: `it is ${declared.replace(/[^\w.:-]/g, '?')} (by its content-type)` };
  return { text, notUtf8: 'its bytes are not valid UTF-8' };
}
