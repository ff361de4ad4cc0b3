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
  let i = 0;
  const fail = (what: string): never => {
    throw new Failure(i >= text.length ? `${what} at the end` : `${what} at column ${i + 1}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    i++; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('a string is not closed');
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return out;
      }
      if (ch < ' ') fail('a control character inside a string');
      if (ch !== '\\') {
        out += ch;
        i++;
        continue;
      }
      const e = text[i + 1];
      if (e === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('a bad \\u escape');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
      } else if (e !== undefined && ESCAPES[e] !== undefined) {
        out += ESCAPES[e];
        i += 2;
      } else fail('a bad escape');
    }
  };
  const value = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const obj: { [key: string]: JsonValue } = Object.create(null);
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a "key"');
        const key = str();
        if (Object.hasOwn(obj, key)) fail(`key ${JSON.stringify(key)} given twice`);
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        obj[key] = value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail('expected "," or "}"');
      }
    }
    if (ch === '[') {
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail('expected "," or "]"');
      }
    }
    if (ch === '"') return str();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return new JsonNumber(m[0]);
    }
    return fail('expected a value');
  };
  try {
    const v = value(0);
    ws();
    if (i < text.length) fail('unexpected text after the value');
    return { ok: true, value: v };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, reason: error.reason };
    throw error;
  }
}
