/**
 * The creations of the history as the look before a read's stop sees them (history-search.ts,
 * settledBefore) and as the creation index keeps them (history-index.ts): a created line as lbrl
 * writes it is told in place by one expression; any other line that may hold a creation (an
 * escape, `created"` elsewhere than at a line's start) is read whole by the look, and ends what
 * the index can hold.
 */
import { NEWLINE } from './history-lines.js';

/**
 * A created line as lbrl writes it, from its start to its time: the id (a UUID in any case: any
 * other is read whole), the profile and the service (JSON text, escapes skipped: not read), the
 * time (printable ASCII with no quote or escape, so its text is the time JSON reads). A line
 * with a key twice is no record (record-read.ts), so the first id and time are the line's.
 */
export const CREATED_LINE =
  /\{"v":1,"type":"created","id":"([0-9a-fA-F-]{36})","profile":"(?:[^"\\\n]|\\[^\n])*","baseUrl":"(?:[^"\\\n]|\\[^\n])*","at":"([\x20\x21\x23-\x5b\x5d-\x7e]*)"/y;
/** What every creation holds, whoever wrote it (unless escaped), and where lbrl's line has it. */
export const CREATED_WORD = 'created"';
export const CREATED_AT = '{"v":1,"type":"'.length;
export const ESCAPE = '\\u';

/**
 * How much is read at a time to be searched as text: with a line carried over (MAX_LINE at most),
 * below the size past which V8 places a string in its large-object space (128 KiB), where making
 * one costs a hundred times the copy (measured: 51 MB as 256 KiB strings 730 ms, as 64 KiB 9 ms).
 */
export const TEXT_BLOCK = 56 * 1024;
const ID_LENGTH = 36;

/**
 * A 32-bit print of an id in its one form, from its last 12 characters (of a UUID, 48 bits, the
 * part that differs most) in lower case: a cheap first look before the id is read whole.
 */
export function idPrint(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = ID_LENGTH - 12; i < ID_LENGTH; i++)
    hash = Math.imul(hash ^ lower(id.charCodeAt(i)), 0x01000193);
  return hash >>> 0;
}

/** idPrint of the id whose text is at `start` of `bytes` (as written in a created line: ASCII). */
function idPrintIn(bytes: Uint8Array, start: number): number {
  let hash = 0x811c9dc5;
  for (let i = start + ID_LENGTH - 12; i < start + ID_LENGTH; i++)
    hash = Math.imul(hash ^ lower(bytes[i]!), 0x01000193);
  return hash >>> 0;
}

function lower(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

/** A created line as lbrl writes it at `start` of `text`: its id and time text, or undefined. */
export function createdAsWritten(text: string, start: number): { id: string; at: string } | undefined {
  if (start < 0 || (start > 0 && text.charCodeAt(start - 1) !== NEWLINE)) return undefined;
  CREATED_LINE.lastIndex = start;
  const line = CREATED_LINE.exec(text);
  return line === null ? undefined : { id: line[1]!, at: line[2]! };
}

/**
 * A time in the one form lbrl writes (`2026-11-28T09:45:41.704Z`), each field within its digits'
 * range: a whole text (`STRICT_TIME`), or at a place in one (`TIME_AT`).
 */
const TIME_FORM = '\\d{4}-[01]\\d-[0-3]\\dT[0-2]\\d:[0-5]\\d:[0-6]\\d\\.\\d{3}Z';
const STRICT_TIME = new RegExp(`^${TIME_FORM}$`);
const TIME_AT = new RegExp(TIME_FORM, 'y');
const ZERO = 0x30;
const QUOTE = 0x22;
/** The length of a time in the one form. */
const TIME_LENGTH = '2026-11-28T09:45:41.704Z'.length;

/**
 * A number that orders times in lbrl's one form as their text orders them (what the look compares:
 * `at > oldest` on the text): its fields in mixed radix, each radix above the field's largest
 * value, so the order is the fields' (at most 1.01e15 for the year 9999: exact in a double).
 * NaN for a text in any other form, which the index does not hold.
 */
export function timeKey(at: string): number {
  if (!STRICT_TIME.test(at)) return Number.NaN;
  return keyOfDigits(Buffer.from(at, 'latin1'), 0);
}

/**
 * timeKey of the time whose text is at `start` of `text` (its bytes `bytes`: one byte a
 * character), read in place: the index reads a hundred thousand of them at once, and numbers made
 * of a regular expression's captures, or a check character by character, cost its making more
 * than all the rest of a creation's reading.
 */
function timeKeyIn(text: string, bytes: Uint8Array, start: number): number {
  TIME_AT.lastIndex = start;
  return start >= 0 && TIME_AT.test(text) ? keyOfDigits(bytes, start) : Number.NaN;
}

/** The key of a time in the one form (already checked) at `at` of `bytes`. */
function keyOfDigits(bytes: Uint8Array, at: number): number {
  const two = (i: number) => (bytes[at + i]! - ZERO) * 10 + bytes[at + i + 1]! - ZERO;
  const days = ((two(0) * 100 + two(2)) * 20 + two(5)) * 40 + two(8);
  const seconds = ((days * 30 + two(11)) * 60 + two(14)) * 70 + two(17);
  return seconds * 1000 + two(20) * 10 + bytes[at + 22]! - ZERO;
}

/** Where the id of a created line as lbrl writes it starts, from the line's start. */
const ID_AT = '{"v":1,"type":"created","id":"'.length;

/**
 * The creations of a block of whole lines (`text`, its bytes `bytes`, one byte a character, file
 * offset `base`), in file order, to `add`, up to the first line the index cannot hold (one the
 * look reads whole, or a time in another form): returns that line's start in the block, or
 * `text.length` when it held them all. What was given to `add` from that line on (a line with
 * `created"` twice) is the caller's to drop.
 */
export function indexableCreations(
  text: string,
  bytes: Uint8Array,
  base: number,
  add: (offset: number, atKey: number, print: number) => void,
): number {
  const firstEscape = text.indexOf(ESCAPE);
  let stop = firstEscape === -1 ? text.length : text.lastIndexOf('\n', firstEscape) + 1;
  for (
    let hit = text.indexOf(CREATED_WORD);
    hit !== -1 && hit < stop;
    hit = text.indexOf(CREATED_WORD, hit + 1)
  ) {
    const start = hit - CREATED_AT;
    // a created line as lbrl writes it (createdAsWritten, without making its id and time texts):
    // its time ends where the match does, before its closing quote, and is checked where it is
    let atKey = Number.NaN;
    if (start === 0 || (start > 0 && text.charCodeAt(start - 1) === NEWLINE)) {
      CREATED_LINE.lastIndex = start;
      const at = CREATED_LINE.test(text) ? CREATED_LINE.lastIndex - 1 - TIME_LENGTH : -1;
      // the time's opening quote just before it: the whole time is these characters, no more
      if (at > 0 && text.charCodeAt(at - 1) === QUOTE) atKey = timeKeyIn(text, bytes, at);
    }
    if (Number.isNaN(atKey)) {
      // this line (the last one held too, when `created"` came twice in it) is read whole
      stop = Math.min(stop, text.lastIndexOf('\n', hit) + 1);
      break;
    }
    add(base + start, atKey, idPrintIn(bytes, start + ID_AT));
  }
  return stop;
}
