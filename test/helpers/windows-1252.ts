/**
 * Bytes of Windows-1252 read as text, from the WHATWG encoding standard's index (Node's
 * TextDecoder reads the label `windows-1252` as Latin-1, 0x80-0x9F as controls, so it cannot be
 * the judge). The five bytes that stand for nothing are read as U+FFFD.
 */
const HIGH = '€\ufffd‚ƒ„…†‡ˆ‰Š‹Œ\ufffdŽ\ufffd\ufffd‘’“”•–—˜™š›œ\ufffdžŸ';

export function readWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes)
    text += byte >= 0x80 && byte <= 0x9f ? HIGH[byte - 0x80] : String.fromCharCode(byte);
  return text;
}
