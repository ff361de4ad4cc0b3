/**
 * A set of deposit ids in 16 bytes each: what a reader of the whole history keeps to know which
 * deposits it met (one record per deposit, however often a line repeats), in memory a fraction of
 * a Set of strings. An id that is not a UUID (a hand-edited line) is kept as text beside them.
 */
const WORDS = 4;

export class IdSet {
  private words = new Uint32Array(WORDS * 1024);
  private used = new Uint8Array(1024);
  private count = 0;
  private readonly others = new Set<string>();

  get size(): number {
    return this.count + this.others.size;
  }

  has(id: string): boolean {
    const key = keyOf(id);
    if (!key) return this.others.has(id);
    return this.slotOf(key) >= 0;
  }

  /** Adds `id`; true when it was not there yet. */
  add(id: string): boolean {
    const key = keyOf(id);
    if (!key) {
      if (this.others.has(id)) return false;
      this.others.add(id);
      return true;
    }
    if (this.slotOf(key) >= 0) return false;
    if ((this.count + 1) * 2 > this.used.length) this.grow();
    this.put(key[0]!, key[1]!, key[2]!, key[3]!);
    return true;
  }

  /** The slot holding `key`, or -1. */
  private slotOf(key: Uint32Array): number {
    const mask = this.used.length - 1;
    for (
      let slot = hash(key[0]!, key[1]!, key[2]!, key[3]!) & mask;
      this.used[slot] === 1;
      slot = (slot + 1) & mask
    ) {
      const at = slot * WORDS;
      if (
        this.words[at] === key[0] &&
        this.words[at + 1] === key[1] &&
        this.words[at + 2] === key[2] &&
        this.words[at + 3] === key[3]
      )
        return slot;
    }
    return -1;
  }

  /** Word by word: a typed array's set() of four words cost more than the four stores. */
  private put(first: number, second: number, third: number, fourth: number): void {
    const mask = this.used.length - 1;
    let slot = hash(first, second, third, fourth) & mask;
    while (this.used[slot] === 1) slot = (slot + 1) & mask;
    this.used[slot] = 1;
    const at = slot * WORDS;
    this.words[at] = first;
    this.words[at + 1] = second;
    this.words[at + 2] = third;
    this.words[at + 3] = fourth;
    this.count += 1;
  }

  private grow(): void {
    const words = this.words;
    const used = this.used;
    this.words = new Uint32Array(words.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.count = 0;
    for (let slot = 0; slot < used.length; slot++) {
      const at = slot * WORDS;
      if (used[slot] === 1) this.put(words[at]!, words[at + 1]!, words[at + 2]!, words[at + 3]!);
    }
  }
}

const scratch = new Uint32Array(WORDS);

/**
 * The 16 bytes of a UUID in lower case, as four words (in a shared buffer: used at once), or null.
 * Read a character at a time: a reader of the whole history asks this of every deposit it meets.
 */
function keyOf(id: string): Uint32Array | null {
  // a reader asks whether it met a deposit, then adds it: the same id twice in a row
  if (id === lastId) return lastKey;
  lastId = id;
  lastKey = readKey(id);
  return lastKey;
}

let lastId = '';
let lastKey: Uint32Array | null = null;

function readKey(id: string): Uint32Array | null {
  if (id.length !== 36) return null;
  let word = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const code = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== DASH) return null;
      continue;
    }
    const value =
      code >= 0x30 && code <= 0x39 ? code - 0x30 : code >= 0x61 && code <= 0x66 ? code - 0x57 : -1;
    if (value < 0) return null;
    word = (word << 4) | value;
    digits += 1;
    if (digits % 8 === 0) {
      scratch[digits / 8 - 1] = word >>> 0;
      word = 0;
    }
  }
  return scratch;
}

const DASH = 0x2d;

/** Mixes the four words (murmur3's finaliser), so ids that differ in one word spread. */
function hash(first: number, second: number, third: number, fourth: number): number {
  let mixed = Math.imul(first ^ 0x9e3779b9, 0x85ebca6b);
  mixed = Math.imul(mixed ^ second ^ (mixed >>> 13), 0xc2b2ae35);
  mixed = Math.imul(mixed ^ third ^ (mixed >>> 16), 0x85ebca6b);
  mixed = Math.imul(mixed ^ fourth ^ (mixed >>> 13), 0xc2b2ae35);
  return (mixed ^ (mixed >>> 16)) >>> 0;
}
