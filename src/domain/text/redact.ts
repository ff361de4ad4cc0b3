/**
 * Secrets kept out of text, in every form they can take there. A service may echo the token
 * as it is, JSON-escaped (`\"`, `\/`, `\u0041`), URL-encoded (encodeURIComponent, form
 * encoding, `%2f` or `%2F`), HTML-escaped, base64 (as in a Basic header, at any alignment in
 * the encoded text), hex, escaped twice over (JSON inside JSON), or cut short in a shortened
 * message (`abcd…`, `…wxyz`). So the text is decoded a few levels deep, every decoded view
 * keeping where each of its characters came from, and whatever matches a secret in any view is
 * replaced in the original text, whole escape sequences at a time.
 *
 * What matches a secret of `MIN_FRAGMENT_SECRET` characters or more:
 * - the secret, and its base64 (standard and URL alphabets, three alignments) and hex forms;
 * - any piece of `FRAGMENT` characters or more of it, anywhere;
 * - a piece of 4 to `FRAGMENT - 1` characters where a message was cut: its start before an
 *   ellipsis (`…`, `...`), or its end after one. Only there: a short piece at a quote or a line's
 *   start would also match, now and then, the start of an id or a txid.
 * A shorter secret (at least `MIN_SECRET`) is matched whole and in its encodings only: pieces
 * of it would match ordinary words. `auth login` refuses tokens under `MIN_FRAGMENT_SECRET`.
 *
 * Pure, and linear in the text for each secret and level.
 */

export const REDACTED = '[redacted]';
/** Shorter secrets are not matched at all: they would match everywhere. */
export const MIN_SECRET = 4;
/** From this length a secret's pieces are matched too; `auth login` requires it. */
export const MIN_FRAGMENT_SECRET = 16;
/** A piece of a secret this long is matched anywhere. */
const FRAGMENT = 8;
/** A piece at least this long is matched at a cut. */
const CUT_PIECE = 4;
/** How many levels of escaping are undone. */
const LEVELS = 3;

/**
 * Text and, for each of its characters, the range of the original text it stands for (the
 * original itself has no maps: character i stands for [i, i + 1)).
 */
interface View {
  text: string;
  starts?: Int32Array;
  ends?: Int32Array;
}

const startOf = (v: View, i: number) => (v.starts ? v.starts[i]! : i);
const endOf = (v: View, i: number) => (v.ends ? v.ends[i]! : i + 1);

/** Whether a text holds anything decodeOnce would undo. */
const ESCAPED = /%[0-9a-fA-F]{2}|\\[ux"\\/'nrtbf]|&(#|quot;|amp;|lt;|gt;|apos;)/;

const HTML_NAMED: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };
const JSON_NAMED: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
const HEX2 = /^[0-9a-fA-F]{2}$/;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const HTML_ENTITY = /^&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|quot|amp|lt|gt|apos);/;

/** One escape sequence at `i`: the character it stands for and its length, or undefined. */
function unescapeAt(text: string, escapeAt: number): [string, number] | undefined {
  const char = text[escapeAt];
  if (char === '%') {
    const hex = text.slice(escapeAt + 1, escapeAt + 3);
    if (HEX2.test(hex)) return [String.fromCharCode(Number.parseInt(hex, 16)), 3];
  } else if (char === '\\') {
    const next = text[escapeAt + 1];
    if (next === undefined) return undefined;
    if (next === 'u' && HEX4.test(text.slice(escapeAt + 2, escapeAt + 6)))
      return [String.fromCharCode(Number.parseInt(text.slice(escapeAt + 2, escapeAt + 6), 16)), 6];
    if (next === 'x' && HEX2.test(text.slice(escapeAt + 2, escapeAt + 4)))
      return [String.fromCharCode(Number.parseInt(text.slice(escapeAt + 2, escapeAt + 4), 16)), 4];
    if (next === '"' || next === '\\' || next === '/' || next === "'") return [next, 2];
    const named = JSON_NAMED[next];
    if (named) return [named, 2];
  } else if (char === '&') {
    const match = HTML_ENTITY.exec(text.slice(escapeAt, escapeAt + 12));
    if (match) {
      const name = match[1]!;
      const named = HTML_NAMED[name];
      if (named) return [named, match[0].length];
      const code =
        name[1] === 'x' || name[1] === 'X'
          ? Number.parseInt(name.slice(2), 16)
          : Number.parseInt(name.slice(1), 10);
      if (code <= 0x10ffff) return [String.fromCodePoint(code), match[0].length];
    }
  }
  return undefined;
}

/** The view with one level of escapes undone, or undefined when it holds none. */
function decodeOnce(view: View): View | undefined {
  const text = view.text;
  if (!ESCAPED.test(text)) return undefined;
  const parts: string[] = [];
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let copiedCount = 0;
  let pos = 0;
  const copy = (to: number) => {
    if (to <= pos) return;
    parts.push(text.slice(pos, to));
    for (; pos < to; pos++, copiedCount++) {
      starts[copiedCount] = startOf(view, pos);
      ends[copiedCount] = endOf(view, pos);
    }
  };
  // only %, \ and & start an escape: the runs between are copied whole
  const candidates = /[%\\&]/g;
  for (let match = candidates.exec(text); match; match = candidates.exec(text)) {
    if (match.index < pos) continue;
    const esc = unescapeAt(text, match.index);
    if (!esc) continue;
    copy(match.index);
    const [char, escapeLength] = esc;
    parts.push(char);
    starts[copiedCount] = startOf(view, pos);
    ends[copiedCount] = endOf(view, pos + escapeLength - 1);
    copiedCount += 1;
    pos += escapeLength;
  }
  copy(text.length);
  return {
    text: parts.join(''),
    starts: starts.subarray(0, copiedCount),
    ends: ends.subarray(0, copiedCount),
  };
}

/** The parts of base64 of `secret` that do not depend on the bytes around it, at each alignment. */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const base64 = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    const core = base64.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    if (core.length >= FRAGMENT) out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** Upper-case hex digits to lower case, nothing else: same length, so positions still match. */
function foldHex(text: string): string {
  return /[A-F]/.test(text) ? text.replace(/[A-F]/g, (c) => c.toLowerCase()) : text;
}

/** A secret written in hex (a blinding key) is the same secret in any case. */
const HEX_SECRET = /^[0-9a-fA-F]+$/;

class Secret {
  readonly forms: string[];
  /** a hex secret: matched in the text with its hex digits folded to lower case */
  private readonly fold: boolean;
  readonly grams: Set<string> | undefined;
  /** the last character of each prefix, and the first of each suffix, of a cut's length */
  private readonly prefixEnds = new Set<number>();
  private readonly suffixStarts = new Set<number>();

  constructor(
    readonly value: string,
    fold = false,
  ) {
    this.fold = fold;
    const hex = Buffer.from(value, 'utf8').toString('hex');
    this.forms = [value];
    if (value.length >= FRAGMENT) this.forms.push(...base64Cores(value), hex, hex.toUpperCase());
    if (value.length >= MIN_FRAGMENT_SECRET) {
      this.grams = new Set();
      for (let i = 0; i + FRAGMENT <= value.length; i++) {
        this.grams.add(value.slice(i, i + FRAGMENT));
      }
      for (let k = CUT_PIECE; k < FRAGMENT; k++) {
        this.prefixEnds.add(value.charCodeAt(k - 1));
        this.suffixStarts.add(value.charCodeAt(value.length - k));
      }
    }
  }

  /** the length of its longest form */
  get longestForm(): number {
    return Math.max(...this.forms.map((f) => f.length));
  }

  /**
   * The length of the longest end of `text` that is a piece of one of this secret's forms that
   * more may follow: a form written to its last character is complete, and nothing is waited for.
   */
  pieceAtEnd(text: string): number {
    let best = 0;
    for (let i = 0; i < this.forms.length; i++) {
      const form = this.forms[i]!.slice(0, -1);
      const within = i === 0 && this.fold ? foldHex(text.slice(-form.length)) : text.slice(-form.length);
      // a longer end holds the shorter one: grow while the next length is still a piece
      let overlap = best;
      while (overlap < within.length && form.includes(within.slice(within.length - overlap - 1))) overlap++;
      best = overlap;
    }
    return best;
  }

  /**
   * Marks in `hit` (indexed by the original text) what matches in this view. Each piece is looked
   * for with indexOf, and the cut pieces only at the text's ellipses: a loop over every character
   * of the text, in a short run's interpreted code, cost a get's one write millions of instructions.
   */
  mark(view: View, hit: Uint8Array): void {
    // a hex secret's digits in any case; its encodings (base64 is case-sensitive) as they are
    const text = this.fold ? foldHex(view.text) : view.text;
    const cover = (from: number, to: number) => hit.fill(1, startOf(view, from), endOf(view, to - 1));
    const coverEach = (within: string, piece: string) => {
      for (let at = within.indexOf(piece); at !== -1; at = within.indexOf(piece, at + 1))
        cover(at, at + piece.length);
    };
    this.forms.forEach((form, formIndex) => {
      coverEach(formIndex === 0 ? text : view.text, form);
    });
    if (!this.grams) return;
    for (const gram of this.grams) coverEach(text, gram);
    // shorter pieces where the text was cut: the secret's start before a cut, its end after one
    for (const [ellipsis, length] of ELLIPSES)
      for (let at = text.indexOf(ellipsis); at !== -1; at = text.indexOf(ellipsis, at + 1)) {
        this.markBeforeCut(text, at, cover);
        this.markAfterCut(text, at + length, cover);
      }
  }

  /** The secret's start (CUT_PIECE to FRAGMENT - 1 characters) just before a cut at `cut`. */
  private markBeforeCut(text: string, cut: number, cover: (from: number, to: number) => void): void {
    if (cut < CUT_PIECE || !this.prefixEnds.has(text.charCodeAt(cut - 1))) return;
    for (let k = Math.min(FRAGMENT - 1, cut); k >= CUT_PIECE; k--) {
      if (text.slice(cut - k, cut) === this.value.slice(0, k)) {
        cover(cut - k, cut);
        return;
      }
    }
  }

  /** The secret's end (CUT_PIECE to FRAGMENT - 1 characters) just after a cut at `cut`. */
  private markAfterCut(text: string, cut: number, cover: (from: number, to: number) => void): void {
    if (cut + CUT_PIECE > text.length || !this.suffixStarts.has(text.charCodeAt(cut))) return;
    const secret = this.value;
    for (let k = Math.min(FRAGMENT - 1, text.length - cut); k >= CUT_PIECE; k--) {
      if (text.slice(cut, cut + k) === secret.slice(secret.length - k)) {
        cover(cut, cut + k);
        return;
      }
    }
  }
}

/** The ellipses that mark a cut, each with its length. */
const ELLIPSES: [string, number][] = [
  ['…', 1],
  ['...', 3],
];

export class Redactor {
  private readonly secrets = new Map<string, Secret>();

  /** Keep this value out of every text from now on (ignored when shorter than MIN_SECRET). */
  add(secret: string | undefined): void {
    // a damaged config may hold anything where a secret should be: what is not text is no secret
    if (typeof secret !== 'string' || secret.length < MIN_SECRET) return;
    if (HEX_SECRET.test(secret)) {
      // any case of its digits as it is; its encodings (base64, hex of the text) as written in
      // lower case and in upper case, the two ways a key is written
      const lower = secret.toLowerCase();
      if (!this.secrets.has(lower)) this.secrets.set(lower, new Secret(lower, true));
      const upper = secret.toUpperCase();
      if (upper !== lower && !this.secrets.has(upper)) this.secrets.set(upper, new Secret(upper));
      return;
    }
    if (!this.secrets.has(secret)) this.secrets.set(secret, new Secret(secret));
  }

  get size(): number {
    return this.secrets.size;
  }

  redact(text: string): string {
    return this.redactAfter('', text);
  }

  /**
   * `text` redacted as it reads after `before`, which was already written: a secret that starts
   * in `before` and ends in `text` (a secret written in two writes) is kept out of `text`, even
   * where the piece in `text` alone would be too short to be told from ordinary text.
   */
  redactAfter(before: string, text: string): string {
    if (this.secrets.size === 0 || text.length === 0) return text;
    const whole = before + text;
    const hit = this.hits(whole);
    const from = before.length;
    let at = hit.indexOf(1, from);
    if (at === -1) return text;
    const out: string[] = [whole.slice(from, at)];
    while (at !== -1) {
      let end = hit.indexOf(0, at);
      if (end === -1) end = whole.length;
      const next = hit.indexOf(1, end);
      out.push(REDACTED, whole.slice(end, next === -1 ? whole.length : next));
      at = next;
    }
    return out.join('');
  }

  /** Which characters of `text` belong to a secret, in any of its forms. */
  private hits(text: string): Uint8Array {
    const hit = new Uint8Array(text.length);
    let view: View | undefined = { text };
    for (let level = 0; view && level <= LEVELS; level++) {
      for (const s of this.secrets.values()) s.mark(view, hit);
      view = decodeOnce(view);
    }
    return hit;
  }

  /**
   * Where to cut `text`, written after `before`, so that what follows the cut waits for the next
   * write: the end that may be the start of a secret a later write completes (see heldTail), never
   * cutting an escape sequence, nor a secret found whole (written out whole when something follows
   * it, held whole when it reaches the end: more of it may follow). `text.length` when nothing waits.
   */
  holdFrom(before: string, text: string): number {
    const keep = this.heldTail(text);
    if (keep === 0) return text.length;
    let cut = text.length - keep;
    for (let j = Math.max(0, cut - 12); j < cut; j++) {
      const sequence = unescapeAt(text, j);
      if (sequence && j + sequence[1] > cut) {
        cut = j;
        break;
      }
    }
    if (cut === 0) return 0;
    const hit = this.hits(before + text);
    const at = before.length + cut;
    if (!hit[at - 1] || !hit[at]) return cut;
    const end = hit.indexOf(0, at);
    if (end !== -1) return end - before.length;
    return Math.max(0, hit.lastIndexOf(0, at) + 1 - before.length);
  }

  /**
   * How many characters at the end of `text` may be the start of a secret that a later write
   * completes: the longest end of it that is a piece of a secret's form (as it is, in base64 or
   * in hex), or an escape sequence cut short (`%2`, `\u00`, `&#x`). A stream holds them back until
   * the next write says what they are (ui/output.ts). 0 when nothing at the end can be a secret's.
   */
  heldTail(text: string): number {
    if (this.secrets.size === 0 || text.length === 0) return 0;
    // an escape cut short at the very end is held whatever comes before it
    const cut = CUT_ESCAPE.exec(text.slice(-12))?.[0].length ?? 0;
    let longest = 0;
    for (const s of this.secrets.values()) longest = Math.max(longest, s.longestForm);
    // enough of the end for the longest form escaped a few levels deep (\\u0041 is 7 for 1)
    const from = Math.max(0, text.length - cut - 8 * longest);
    const tail = text.slice(from, text.length - cut);
    let held = 0;
    let view: View | undefined = { text: tail };
    for (let level = 0; view && level <= LEVELS; level++) {
      // an escape cut short at the end of a decoded view (`%25` + `7` is `%7` once decoded) waits
      // too, with the piece of a secret before it
      const cutHere = level === 0 ? 0 : (CUT_ESCAPE.exec(view.text.slice(-12))?.[0].length ?? 0);
      const body = view.text.slice(0, view.text.length - cutHere);
      let longestPiece = 0;
      for (const s of this.secrets.values()) longestPiece = Math.max(longestPiece, s.pieceAtEnd(body));
      if (longestPiece + cutHere > 0)
        held = Math.max(held, tail.length - startOf(view, body.length - longestPiece));
      view = decodeOnce(view);
    }
    return held + cut;
  }
}

/** An escape sequence cut short at the end of a text: the rest may come in the next write. */
const CUT_ESCAPE =
  /(?:%[0-9a-fA-F]?|\\(?:u[0-9a-fA-F]{0,3}|x[0-9a-fA-F]?)?|&(?:#[xX]?[0-9a-fA-F]{0,6}|[a-z]{0,4}))$/;

/**
 * What of a blinding key to keep out of text: its key material (each run of 16 or more letters
 * and digits: the hex of a key, of a master key, of a descriptor's public key), not the wrapper
 * around it (`slip77(`, `ct(`), whose start before a cut would match the help's own
 * `slip77(...)`. A key with no such run is kept out whole.
 */
export function blindingKeySecrets(key: string): string[] {
  const runs = key.match(/[0-9A-Za-z]{16,}/g);
  return runs ?? [key];
}

/**
 * What of a webhook signing secret (`whsec_` and base64 of its key) to keep out of text: the
 * secret, its base64 without the prefix (as receivers accept it), that base64 in the URL alphabet
 * with and without padding, and the key's bytes in hex (any case). Each of these as a secret of
 * its own, so its encodings are matched too.
 */
export function webhookSecretSecrets(secret: string): string[] {
  const out = [secret];
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (b64 !== secret) out.push(b64);
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
    const url = b64.replace(/\+/g, '-').replace(/\//g, '_');
    out.push(url, url.replace(/=+$/, ''));
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.length >= 8) out.push(bytes.toString('hex'));
  }
  return [...new Set(out)];
}

/** Whether a value looks like blinding-key material (a key, or a slip77/ct descriptor). */
export function looksLikeBlindingKey(value: string): boolean {
  return /[0-9a-fA-F]{64}|slip77\s*\(|^\s*ct\s*\(/i.test(value);
}
