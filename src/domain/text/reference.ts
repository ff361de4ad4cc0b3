/**
 * The merchant's own words kept with a deposit: a reference (the order, table or invoice) and a
 * note. lbrl keeps them in its ledger and never sends them (the service has no field for them).
 * They are checked like any input, and shown as text wherever they go (escaped on a terminal,
 * HTML-escaped in a page, defused in a spreadsheet cell).
 */
import type { Parsed } from '../money.js';

/** The longest reference, in characters (code points). */
export const REF_MAX = 100;
/** The longest note, in characters (code points). */
export const NOTE_MAX = 500;

/**
 * What may not be in either: C0 and C1 controls and DEL (a line break included: one line each),
 * the bidirectional controls that reorder what a person reads, invisible characters that make two
 * references look alike, the line and paragraph separators, and lone surrogates (not text).
 */
const REFUSED =
  /[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A reference (`max` REF_MAX) or a note (`max` NOTE_MAX) as typed: trimmed of outer spaces and
 * composed (Unicode NFC), so that `café` typed with an accent key and `café` typed as `e` and a
 * combining accent (a Mac, a pasted text) are one reference, as they look.
 */
export function readLocalText(text: string, max: number): Parsed<string> {
  const expected = `text of 1 to ${max} characters, with no control or invisible characters`;
  const value = text.trim().normalize('NFC');
  if (value === '' || [...value].length > max || REFUSED.test(value)) return { ok: false, expected };
  return { ok: true, value };
}

/**
 * A reference or note as read back from the ledger (another till, a tool or an edit may have
 * written anything), held to the rule input is held to: `broken` when it breaks it. One over
 * `max` characters is cut to `max`, its last an ellipsis (`…`); control and invisible characters
 * are kept, for every output escapes them as it escapes any (a terminal shows `\x1b`, `\u202e`).
 * `text` is undefined when it is blank, as input refuses an empty one.
 */
export function heldLocalText(recorded: string, max: number): { text: string | undefined; broken: boolean } {
  // looked at whole: trim() drops a byte order mark or a line separator at an end, which input
  // never keeps, but the record holds it and every reader shows it
  if (recorded.trim() === '') return { text: undefined, broken: true };
  const points = [...recorded];
  const long = [...recorded.trim().normalize('NFC')].length > max;
  const text = long ? `${points.slice(0, max - 1).join('')}\u2026` : recorded;
  return { text, broken: long || REFUSED.test(recorded) };
}

/**
 * Whether a recorded reference is the one asked for (`asked` as readLocalText gives it): compared
 * composed, so a record written decomposed (by an older lbrl, or by hand) is found too.
 */
export function sameReference(recorded: string | undefined, asked: string): boolean {
  return recorded !== undefined && (recorded === asked || recorded.normalize('NFC') === asked);
}

/** The reference and note a deposit carries in lbrl's ledger, when it has them. */
export interface LocalFields {
  ref?: string;
  note?: string;
}

/** The own string properties `ref` and `note` of a value read from a file or a caller: nothing else. */
export function localFieldsOf(value: unknown): LocalFields {
  const out: LocalFields = {};
  if (!value || typeof value !== 'object') return out;
  const own = (key: 'ref' | 'note') =>
    Object.hasOwn(value, key) && typeof (value as Record<string, unknown>)[key] === 'string'
      ? ((value as Record<string, unknown>)[key] as string)
      : undefined;
  const ref = own('ref');
  const note = own('note');
  if (ref !== undefined) out.ref = ref;
  if (note !== undefined) out.note = note;
  return out;
}

/**
 * A deposit object as lbrl prints it with --json or sends it in a webhook: the service's own
 * object with the ledger's `ref` and `note` added when the deposit has them (and nothing added
 * when it has none, so the object is the service's as it was).
 */
export function withLocalFields<T>(answer: T, local: LocalFields): T {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return answer;
  if (local.ref === undefined && local.note === undefined) return answer;
  return { ...answer, ...local };
}

/** `--ref` and `--note` as given, checked: the flag named in the error, nothing sent. */
export function readLocalFlags(
  flags: { ref?: string | undefined; note?: string | undefined },
  refuse: (flag: string, value: string, expected: string) => Error,
): LocalFields {
  const out: LocalFields = {};
  for (const [key, max] of [
    ['ref', REF_MAX],
    ['note', NOTE_MAX],
  ] as const) {
    const given = flags[key];
    if (given === undefined) continue;
    const read = readLocalText(given, max);
    if (!read.ok) throw refuse(`--${key}`, given, read.expected);
    out[key] = read.value;
  }
  return out;
}
