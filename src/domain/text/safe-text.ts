/**
 * Text from the service, made safe to show on a terminal. A value the service returns (an
 * address, a status, an error message) may carry escape sequences that move the cursor, erase a
 * line or recolour it, and so draw a fake "Status FINALIZED" line or hide the words of a warning.
 * Every such character is shown as a visible escape instead:
 *
 * - C0 controls (U+0000-U+001F), DEL (U+007F) and C1 controls (U+0080-U+009F, where U+009B is a
 *   one-character CSI): `\n`, `\r`, `\t` or `\xHH`;
 * - bidirectional controls (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069), which reorder what
 *   follows them on the line, and invisible characters that make two different strings look the
 *   same (U+200B-U+200D, U+2060-U+2064, U+FEFF, U+00AD soft hyphen, U+180E), and the line and
 *   paragraph separators U+2028/U+2029: `\uHHHH`;
 * - lone surrogates (not text at all): `\uHHHH`;
 * - the backslash itself: `\\`, so an escape shown is never one the service typed.
 *
 * Pure: the same text in normal output and in error messages.
 */

const UNSAFE =
  /[\\\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every character that could act on a terminal shown as a visible escape. */
export function safeText(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/**
 * The last line of defence before a terminal: every character safeText escapes except the
 * backslash, so text already made safe (or lbrl's own, or a JSON line) is not escaped twice.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (ch) => (ch === '\\' ? ch : escapeChar(ch)));
}

/**
 * A value as one line of JSON that no terminal acts on: the characters safeText escapes are
 * written as JSON's own `\\uHHHH` escapes (JSON.stringify leaves C1 controls, bidirectional
 * and invisible characters as they are), so the value a program reads is unchanged.
 */
export function jsonLine(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(UNSAFE, (ch) =>
    ch === '\\' ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Any value from the service as one safe line for a message: strings as they are (an empty one
 * said so), other values as JSON; escaped; long values cut with their length said.
 */
export function showValue(value: unknown, max = 120): string {
  let text: string;
  if (value === undefined) text = '(absent)';
  else if (value === '') text = '"" (empty)';
  else if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean' || value === null) text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  const safe = safeText(text);
  return safe.length > max ? `${safe.slice(0, max)}… (${text.length} characters)` : safe;
}
