/**
 * Windows-1252, the 8-bit character set an OFX 1.x statement declares (`CHARSET:1252`), as
 * Brazilian banks write theirs: ASCII, Latin-1's letters (ã, ç, é, ...) and, in 0x80-0x9F,
 * typographic marks (€, “ ”, –, —, …). What it cannot write is written as the nearest it can:
 * a letter without its accent, else `?`.
 */

/** The characters of 0x80-0x9F, by byte (five bytes stand for nothing). */
const HIGH: Record<number, number> = {
  8364: 0x80,
  8218: 0x82,
  402: 0x83,
  8222: 0x84,
  8230: 0x85,
  8224: 0x86,
  8225: 0x87,
  710: 0x88,
  8240: 0x89,
  352: 0x8a,
  8249: 0x8b,
  338: 0x8c,
  381: 0x8e,
  8216: 0x91,
  8217: 0x92,
  8220: 0x93,
  8221: 0x94,
  8226: 0x95,
  8211: 0x96,
  8212: 0x97,
  732: 0x98,
  8482: 0x99,
  353: 0x9a,
  8250: 0x9b,
  339: 0x9c,
  382: 0x9e,
  376: 0x9f,
};

/** The byte of a character in Windows-1252 (ASCII's controls included: a line's end), else undefined. */
function byteOf(char: string): number | undefined {
  const code = char.codePointAt(0)!;
  if (code <= 0x7f || (code >= 0xa0 && code <= 0xff)) return code;
  return HIGH[code];
}

/** A character Windows-1252 writes that is no control. */
function printable(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code >= 0x20 && code !== 0x7f && byteOf(char) !== undefined;
}

/**
 * The text in what Windows-1252 can write: every character it has kept as it is (composed first:
 * an `a` and a combining tilde are one `ã`), another one without its accents when that is one it
 * has (ǎ is a), else `?`. Controls are `?` too.
 */
export function windows1252Text(text: string): string {
  let out = '';
  for (const char of text.normalize('NFC')) {
    if (printable(char)) {
      out += char;
      continue;
    }
    const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
    out += bare !== '' && [...bare].every(printable) ? bare : '?';
  }
  return out;
}

/** The bytes of a text windows1252Text gave (any other character is written `?`). */
export function windows1252Bytes(text: string): Uint8Array {
  const chars = [...text];
  const bytes = new Uint8Array(chars.length);
  for (let at = 0; at < chars.length; at++) bytes[at] = byteOf(chars[at]!) ?? 0x3f;
  return bytes;
}
