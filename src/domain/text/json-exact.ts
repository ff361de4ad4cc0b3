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

/** How deep JSON from outside may nest: a deposit nests three levels; a reader's stack, thousands. */
export const MAX_JSON_DEPTH = 64;
const MAX_DEPTH = MAX_JSON_DEPTH;
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
  const reader = new ExactReader(text);
  try {
    const parsed = reader.value(0);
    reader.skipSpace();
    if (reader.pos < text.length) reader.fail('unexpected text after the value');
    return { ok: true, value: parsed };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** One pass over `text`, one kind of value per method; a failure is thrown as a Failure. */
class ExactReader {
  /** where the parser reads in `text` */
  pos = 0;

  constructor(private readonly text: string) {}

  fail(what: string): never {
    throw new Failure(
      this.pos >= this.text.length ? `${what} at the end` : `${what} at column ${this.pos + 1}`,
    );
  }

  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    this.skipSpace();
    const char = this.text[this.pos];
    if (char === '{') return this.object(depth);
    if (char === '[') return this.array(depth);
    if (char === '"') return this.string();
    return this.literal();
  }

  private object(depth: number): JsonValue {
    const { text } = this;
    this.pos++;
    const obj: { [key: string]: JsonValue } = Object.create(null);
    this.skipSpace();
    if (text[this.pos] === '}') {
      this.pos++;
      return obj;
    }
    for (;;) {
      this.skipSpace();
      if (text[this.pos] !== '"') this.fail('expected a "key"');
      const key = this.string();
      if (Object.hasOwn(obj, key)) this.fail(`key ${JSON.stringify(key)} given twice`);
      this.skipSpace();
      if (text[this.pos] !== ':') this.fail('expected ":"');
      this.pos++;
      obj[key] = this.value(depth + 1);
      this.skipSpace();
      if (text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (text[this.pos] === '}') {
        this.pos++;
        return obj;
      }
      this.fail('expected "," or "}"');
    }
  }

  private array(depth: number): JsonValue {
    const { text } = this;
    this.pos++;
    const arr: JsonValue[] = [];
    this.skipSpace();
    if (text[this.pos] === ']') {
      this.pos++;
      return arr;
    }
    for (;;) {
      arr.push(this.value(depth + 1));
      this.skipSpace();
      if (text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (text[this.pos] === ']') {
        this.pos++;
        return arr;
      }
      this.fail('expected "," or "]"');
    }
  }

  private string(): string {
    const { text } = this;
    this.pos++; // the opening quote
    let out = '';
    for (;;) {
      if (this.pos >= text.length) this.fail('a string is not closed');
      const char = text[this.pos]!;
      if (char === '"') {
        this.pos++;
        return out;
      }
      if (char < ' ') this.fail('a control character inside a string');
      if (char !== '\\') {
        out += char;
        this.pos++;
        continue;
      }
      const escaped = text[this.pos + 1];
      if (escaped === 'u') {
        const hex = text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('a bad \\u escape');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 6;
      } else if (escaped !== undefined && ESCAPES[escaped] !== undefined) {
        out += ESCAPES[escaped];
        this.pos += 2;
      } else this.fail('a bad escape');
    }
  }

  /** true, false, null or a number, kept as its text */
  private literal(): JsonValue {
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return literal;
      }
    }
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match) {
      this.pos += match[0].length;
      return new JsonNumber(match[0]);
    }
    return this.fail('expected a value');
  }
}

/**
 * Whether `text` nests arrays and objects deeper than `limit` (strings skipped), counted before it
 * is parsed: every reader of the text (the parser, the copy of its own fields, the rules that read
 * numbers as written) then meets only JSON a recursion can walk.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
