/**
 * JSON read as written: a strict RFC 8259 parser that keeps every number as its literal text.
 *
 * JSON.parse turns `1e3`, `1000.0` and `1000` into the same float, and `1500.0000000000001`
 * into 1500.0000000000002 or 1500: a money value read that way is no longer what the file said.
 * Here a number stays a JsonNumber holding its text, so the caller decides what the literal
 * means (and can quote it in a message). Objects refuse a key given twice (which of two amounts
 * would count?) and have no prototype. Depth is bounded, so no input exhausts the stack.
 */

export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

export type JsonResult = { ok: true; value: JsonValue } | { ok: false; reason: string };

const MAX_DEPTH = 64;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class Failure {
  constructor(readonly reason: string) {}
}

export function parseJsonExact(text: string): JsonResult {
  /** where the parser reads in `text` */
  let pos = 0;
  const fail = (what: string): never => {
    throw new Failure(pos >= text.length ? `${what} at the end` : `${what} at column ${pos + 1}`);
  };
  const skipSpace = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const str = (): string => {
    pos++; // the opening quote
    let out = '';
    for (;;) {
      if (pos >= text.length) fail('a string is not closed');
      const char = text[pos]!;
      if (char === '"') {
        pos++;
        return out;
      }
      if (char < ' ') fail('a control character inside a string');
      if (char !== '\\') {
        out += char;
        pos++;
        continue;
      }
      const escaped = text[pos + 1];
      if (escaped === 'u') {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('a bad \\u escape');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        pos += 6;
      } else if (escaped !== undefined && ESCAPES[escaped] !== undefined) {
        out += ESCAPES[escaped];
        pos += 2;
      } else fail('a bad escape');
    }
  };
  const value = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    skipSpace();
    const char = text[pos];
    if (char === '{') {
      pos++;
      const obj: { [key: string]: JsonValue } = Object.create(null);
      skipSpace();
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      for (;;) {
        skipSpace();
        if (text[pos] !== '"') fail('expected a "key"');
        const key = str();
        if (Object.hasOwn(obj, key)) fail(`key ${JSON.stringify(key)} given twice`);
        skipSpace();
        if (text[pos] !== ':') fail('expected ":"');
        pos++;
        obj[key] = value(depth + 1);
        skipSpace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return obj;
        }
        fail('expected "," or "}"');
      }
    }
    if (char === '[') {
      pos++;
      const arr: JsonValue[] = [];
      skipSpace();
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        skipSpace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return arr;
        }
        fail('expected "," or "]"');
      }
    }
    if (char === '"') return str();
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return literal;
      }
    }
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (match) {
      pos += match[0].length;
      return new JsonNumber(match[0]);
    }
    return fail('expected a value');
  };
  try {
    const parsed = value(0);
    skipSpace();
    if (pos < text.length) fail('unexpected text after the value');
    return { ok: true, value: parsed };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, reason: error.reason };
    throw error;
  }
}
