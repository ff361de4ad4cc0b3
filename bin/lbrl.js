#!/usr/bin/env node
// CommonJS (bin/package.json says so): `lbrl --version` and `lbrl <command> --help`, which people
// and scripts call often, are answered without starting Node's ES module loader or the program.
// Everything else is the program, the chunks of dist/program/, run by run() below.
const args = process.argv.slice(2);
// The layout of a code cache file (see codeCache below): the length of the body, a hash of the
// body (see hasher below), then the body, with zeros to a multiple of 8 bytes; the body is a count,
// then for each entry the SHA-256 of its chunk and the entry's length, then the entries' data.
const HEAD = 12;
const KEY = 32;

/**
 * FNV-1a over 64-bit words, as WebAssembly: h(at, size, h) goes on from the hash h over the `size`
 * bytes (a multiple of 8) at `at` of its memory, m, so a file can be hashed a window at a time
 * (h = FNV_BASIS to start). Any one word changed changes the hash (each step is a bijection).
 *   (func (export "h") (param $at i32) (param $size i32) (param $h i64) (result i64) (local $end i32)
 *     end = at + size
 *     loop: if at >= end break; h = (h ^ i64.load(at)) * 0x100000001b3; at += 8)
 */
const HASH_WASM =
  'AGFzbQEAAAABCAFgA39/fgF+AwIBAAUDAQAABwkCAW0CAAFoAAAKNwE1AQF/IAAgAWohAwJAA0AgACADTw0BIAIgACkDAIVCs4OAgIAgfiECIABBCGohAAwACwsgAgs=';
const FNV_BASIS = 0xcbf29ce484222325n;
// what a cache file's hash is checked a window at a time through (a multiple of 8)
const WINDOW = 128 * 1024;

/** Print, and take a closed pipe (lbrl --help | head -1) as the end of the output, as the program does. */
function print(text) {
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(text);
}

/**
 * The help of `lbrl <path> --help`, `lbrl help <path>` and `lbrl help <topic>`, written by the build
 * from the program itself (npm run build).
 */
function helpPage() {
  const last = args[args.length - 1];
  const asked =
    args[0] === 'help' ? args.slice(1) : last === '--help' || last === '-h' ? args.slice(0, -1) : undefined;
  if (!asked?.every((word) => /^[a-z][a-z-]*$/.test(word))) return undefined;
  const keys = args[0] === 'help' ? [asked.join(' '), `help ${asked.join(' ')}`] : [asked.join(' ')];
  try {
    const pages = JSON.parse(require('node:fs').readFileSync(`${__dirname}/../dist/help.json`, 'utf8'));
    const key = keys.find((k) => Object.hasOwn(pages, k));
    return key === undefined ? undefined : pages[key];
  } catch {
    return undefined; // not built yet: the program below says so
  }
}

const help = helpPage();
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  print(`${require('../package.json').version}\n`);
} else if (typeof help === 'string') {
  print(help);
} else {
  run();
}

/**
 * Run the program: the CommonJS chunks of dist/program/ (bin/build-program.mjs), main.cjs first,
 * each read only when the code that runs requires it (a command's chunk, a library it imports
 * lazily), and each compiled through vm.Script with a V8 code cache of the functions earlier runs
 * compiled (see codeCache below), so that a run deserialises code instead of parsing and
 * compiling it function by function. A chunk read on its own (main.cjs, a chunk an import()
 * names) is read from its pack where the build wrote one (`<chunk>.pack.cjs`, listed in
 * dist/build-id): the chunk and the small chunks it imports, as one script, so one read and one
 * code cache entry stand for a dozen.
 */
function run() {
  const fs = require('node:fs');
  const path = require('node:path');
  const dir = path.join(__dirname, '..', 'dist', 'program');
  if (!fs.existsSync(path.join(dir, 'main.cjs'))) {
    process.stderr.write(`error: lbrl is not built (no ${path.join(dir, 'main.cjs')}); run npm run build\n`);
    process.exit(1);
  }
  const { createRequire, wrap } = require('node:module');
  // what Node's wrap puts before and after a module's code
  const wrapping = [wrap('').slice(0, wrap('\0').indexOf('\0')), wrap('').slice(wrap('\0').indexOf('\0'))];
  const vm = require('node:vm');
  const ids = buildId(fs, path);
  // every chunk's source and every cache entry is read into this one memory, in turn (see hasher)
  const scratch = ids && hasher();
  const cache = codeCache(fs, path, dir, scratch && ids, scratch);
  // what is not a chunk (Node's built-ins, @vulpemventures/secp256k1-zkp) Node's require loads
  const outside = createRequire(path.join(dir, 'main.cjs'));
  const chunks = new Map();
  // each chunk's CommonJS function, from the packs read so far (bin/build-program.mjs)
  const packed = new Map();
  // node:v8 is loaded only by a program that sets a V8 flag (Node 20: src/main.ts), and the cache
  // then follows its flags (v8Flags below): loading it costs about 8M instructions
  const requireChunk = (id) =>
    id.startsWith('./') ? load(id.slice(2)) : id === 'node:v8' ? cache.flagsOf(outside(id)) : outside(id);
  requireChunk.resolve = outside.resolve;
  requireChunk.cache = outside.cache;
  /** The script of a file of dist/program/, compiled with its code cache: the value it evaluates to. */
  function evaluate(name, wrapped) {
    const file = path.join(dir, name);
    // a chunk on its own is wrapped in Node's CommonJS function (a pack is one already)
    const source = readSource(fs, file, scratch, wrapped ? wrapping : ['', '']);
    const script = cache.compile(
      name,
      () => new vm.Script(source, { filename: file, cachedData: cache.read(name) }),
    );
    return script.runInThisContext();
  }
  /** The chunk's function: from a pack (the chunk's own, when the build made one), else its file. */
  function functionOf(name) {
    const pack = `${name.slice(0, -'.cjs'.length)}.pack.cjs`;
    if (!packed.has(name) && ids?.has(pack)) {
      const functions = evaluate(pack, false);
      for (const member of Object.keys(functions))
        if (!packed.has(member) && !chunks.has(member)) packed.set(member, functions[member]);
    }
    return packed.get(name) ?? evaluate(name, true);
  }
  function load(name) {
    const loaded = chunks.get(name);
    if (loaded) return loaded.exports;
    const file = path.join(dir, name);
    const run = functionOf(name);
    packed.delete(name);
    const module = { exports: {}, filename: file, id: file, loaded: false };
    chunks.set(name, module);
    run.call(module.exports, module.exports, requireChunk, module, file, dir);
    module.loaded = true;
    return module.exports;
  }
  load('main.cjs');
}

/**
 * Open a file to read only when it is a regular file: O_NONBLOCK so that a FIFO or a device at its
 * name cannot block the open, O_NOFOLLOW so that a link is not followed; undefined otherwise.
 */
function openRegular(fs, file) {
  const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;
  const fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  const st = fs.fstatSync(fd);
  if (st.isFile()) return { fd, st };
  fs.closeSync(fd);
  return undefined;
}

/**
 * Read from fd, from position, into buffer at offset (0 unless given), until size bytes or the
 * file's end: how many were read.
 */
function readFully(fs, fd, buffer, size, position, offset = 0) {
  let read = 0;
  for (let n = 1; n > 0 && read < size; read += n)
    n = fs.readSync(fd, buffer, offset + read, size - read, position + read);
  return read;
}

/**
 * A chunk's source, between before and after (Node's CommonJS wrapper, for a chunk on its own).
 * esbuild writes ASCII only (non-ASCII characters as escapes): latin1 reads it as UTF-8 would, in
 * half the time. Read through the scratch memory, not a Buffer of its own: the pages of a new
 * Buffer are each a page fault on first write, which costs a start more than the copy (V8 copies
 * the bytes into its string either way). The wrapper is written around the file's bytes there, so
 * V8 is given one flat string: a concatenation it would copy whole again before compiling it.
 */
function readSource(fs, file, scratch, [before, after]) {
  if (!scratch) return before + fs.readFileSync(file, 'latin1') + after;
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buffer = scratch.memory(before.length + size + after.length);
    buffer.write(before, 0, 'latin1');
    const end = before.length + readFully(fs, fd, buffer, size, 0, before.length);
    buffer.write(after, end, 'latin1');
    return buffer.toString('latin1', 0, end + after.length);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The program's build id, dist/build-id (bin/build-id.mjs): a SHA-256 of each chunk, which the
 * build writes, so that each chunk's cache is keyed by that chunk's content without reading and
 * hashing it at every start. The hash of a chunk by its name (looked up when the chunk is read: a
 * run reads a few of its hundred lines), and every hash; undefined without one: then no cache is
 * read or written.
 */
function buildId(fs, path) {
  try {
    const opened = openRegular(fs, path.join(__dirname, '..', 'dist', 'build-id'));
    if (!opened) return undefined;
    let text;
    try {
      text = fs.readFileSync(opened.fd, 'latin1');
    } finally {
      fs.closeSync(opened.fd);
    }
    const LINE = /^([0-9a-f]{64}) ([\w.-]+\.cjs)$/;
    const get = (chunk) => {
      // the line `<hash> <chunk>`: the chunk's name is whole, after a space and before the line's end
      const at = text.indexOf(` ${chunk}\n`);
      const start = text.lastIndexOf('\n', at) + 1;
      const match = at > 0 && start > 0 ? LINE.exec(text.slice(start, text.indexOf('\n', at))) : null;
      return match?.[2] === chunk ? match[1] : undefined;
    };
    const values = () =>
      text
        .split('\n')
        .slice(1)
        .flatMap((line) => LINE.exec(line)?.[1] ?? []);
    return /^[0-9a-f]{64} [\w.-]+\.cjs$/m.test(text.slice(text.indexOf('\n') + 1))
      ? { get, has: (chunk) => get(chunk) !== undefined, values }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The V8 code cache of the program's chunks for this command, in the user's cache directory
 * ($XDG_CACHE_HOME/lbrl, else ~/.cache/lbrl): one file per command, holding one entry per chunk
 * that command loaded, keyed by the SHA-256 of that chunk's content (dist/build-id). Written at the
 * exit of a run that loaded a chunk the file had no entry for, or whose entry V8 rejected, so it
 * holds what that run compiled. The file's name carries Node's version, the architecture, where
 * this lbrl is installed and the command, so another Node never reads it and two installs (a
 * global one and a project's, say) never remove each other's; an entry is used only for a chunk of
 * the very content it was made from, so another build's code is never run, not even a chunk of the
 * same size and time (cp -p, rsync -a, a reproducible build), and a rebuild that changed one chunk
 * keeps the others' entries. V8 itself rejects an entry that does not fit (cachedDataRejected)
 * and the run then rewrites the file. A cache that cannot be read or written, or whose bytes are
 * damaged, is no error: the program runs without it (and writes it again).
 */
function codeCache(fs, path, dir, hashes, scratch) {
  if (hashes === undefined)
    return { read: () => undefined, compile: (_name, make) => make(), flagsOf: (v8) => v8 };
  const home = process.env.HOME || require('node:os').homedir();
  const cacheDir = path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'lbrl');
  const prefix = `code-node${process.versions.node}-${process.arch}-`;
  // where this lbrl is: another install's caches are not older caches of this one
  const install = `${prefix}${placeOf(dir)}-`;
  // one file per command (deposit get, config set, ...): each holds what its own command compiles,
  // where a single one would hold only what the first command after an install happened to use
  const words = [];
  for (const arg of args) {
    if (words.length === 2 || !/^[a-z]+$/.test(arg)) break;
    words.push(arg);
  }
  const file = path.join(cacheDir, `${install}chunks-${words.join('-') || 'main'}.bin`);
  const files = { fs, path, cacheDir, file };
  const stored = readEntries(files, scratch);
  const compiled = new Map(); // chunk name -> its vm.Script
  // the program's V8 flags, followed from when it loads node:v8 (none set before)
  let flags;
  let stale = false;
  const rewrite = () => {
    // V8 keys a code cache by its flags: the caches are made under the flags a run starts with
    flags?.backToStart();
    const current = new Set(hashes.values());
    // the entries of this build's chunks that this run did not load are kept as they were
    const entries = stored.copies((hash) => current.has(hash));
    for (const [chunk, script] of compiled) entries.set(hashes.get(chunk), script.createCachedData());
    writeEntries(files, prefix, install, entries);
  };
  return {
    // in the scratch memory: valid until its next read, so read just before it is compiled
    read: (chunk) => stored.read(hashes.get(chunk)),
    flagsOf(v8) {
      flags ??= v8Flags(v8);
      return v8;
    },
    compile(chunk, make) {
      const script = flags ? flags.asAtStart(make) : make();
      if (!hashes.has(chunk)) return script; // not in dist/build-id: never cached
      compiled.set(chunk, script);
      if (script.cachedDataRejected !== false && !stale) {
        stale = true;
        process.once('exit', rewrite);
      }
      return script;
    },
  };
}

/** Eight hex digits naming a directory (FNV-1a of its path): not a secret, only a name. */
function placeOf(dir) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < dir.length; i++) hash = Math.imul(hash ^ dir.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * V8 refuses a code cache made under other V8 flags, and the program (on Node 20) turns --liftoff-only on once
 * its HTTP client is loaded (src/main.ts), which also turns off the two below. A chunk loaded after
 * that is compiled under the flags a run starts with (and the program's flags are set again after
 * it), and the caches are made under them at exit, or every such chunk's cache would be rejected
 * and rewritten at every run.
 */
function v8Flags(v8) {
  const AT_START = '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering';
  const set = v8.setFlagsFromString;
  const since = [];
  v8.setFlagsFromString = (flags) => {
    since.push(flags);
    set.call(v8, flags);
  };
  return {
    asAtStart(make) {
      if (since.length === 0) return make();
      set.call(v8, AT_START);
      try {
        return make();
      } finally {
        for (const flags of since) set.call(v8, flags);
      }
    },
    backToStart: () => set.call(v8, AT_START),
  };
}

// V8 checks a cache's versions and flags but not its bytes: a damaged one can crash the process.
// So a file holds a hash of its body, and is used only when the body has that hash: a damaged or
// truncated file is not used. The hash runs in WebAssembly (below): a SHA-1 loaded node:crypto,
// which cost a short command about a quarter of what `node -e 0` costs, and a hash in JavaScript
// costs as much again; the body stored twice and compared (as before) doubled what every run read
// and every cache took on disk. The file is this user's own, in a directory no one else can
// write: the hash is no defence against someone who can write it, only against damage.

/**
 * A hasher with a memory of its own: memory(size) is a Buffer of that many bytes at its start (grown
 * as needed; valid until the next call), hash(at, size, from) the hash of bytes in it. A run reads
 * its cache file, then each chunk's source and cache entry, into the same memory, one after the
 * other: each new page of memory costs a page fault when first written, far more than the copy
 * into it, so one memory reused costs a start less than a Buffer per file. undefined
 * where there is no WebAssembly (--jitless): then no cache is read or written.
 */
function hasher() {
  try {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(HASH_WASM, 'base64')));
    return {
      memory(size) {
        const more = Math.ceil(size / 65536) - exports.m.buffer.byteLength / 65536;
        if (more > 0) exports.m.grow(more);
        return Buffer.from(exports.m.buffer, 0, size);
      },
      hash: (at, size, from = FNV_BASIS) => BigInt.asUintN(64, exports.h(at, size, from)),
    };
  } catch {
    return undefined;
  }
}

/** A length rounded up to a multiple of 8, the hash's word. */
function padded(length) {
  return Math.ceil(length / 8) * 8;
}

/**
 * The entries of the command's cache file, by the hash of their chunk; none when it is unusable.
 * The file's hash is checked first, a window at a time; an entry is read when its chunk is
 * compiled, into the scratch memory, from the same open file (renamed over, never written in
 * place: what was checked is what is read).
 */
function readEntries({ fs, cacheDir, file }, scratch) {
  const none = { read: () => undefined, copies: () => new Map() };
  try {
    if (!safeDir(fs, cacheDir)) return none;
    // a FIFO or a device planted at the name is neither waited on nor read
    const opened = openRegular(fs, file);
    if (!opened) return none;
    let index;
    try {
      index = checkedIndex(fs, opened, scratch);
    } finally {
      if (!index) fs.closeSync(opened.fd);
    }
    if (!index) return none;
    const entry = (hash, into) => {
      const at = index.get(hash);
      if (!at) return undefined;
      try {
        const buffer = into(at.size);
        return readFully(fs, opened.fd, buffer, at.size, at.offset) === at.size ? buffer : undefined;
      } catch {
        return undefined;
      }
    };
    return {
      read: (hash) => entry(hash, (size) => scratch.memory(size)),
      // the entries kept when the file is rewritten, each in a Buffer of its own
      copies(keep) {
        const kept = new Map();
        for (const hash of index.keys()) {
          const data = keep(hash) ? entry(hash, Buffer.alloc) : undefined;
          if (data) kept.set(hash, data);
        }
        return kept;
      },
    };
  } catch {
    return none;
  }
}

/**
 * The entries' places in an open cache file, by the hash of their chunk, once the file's length,
 * hash and index are right; undefined otherwise.
 */
function checkedIndex(fs, { fd, st }, scratch) {
  const size = st.size;
  if (!ours(st) || size < HEAD + 8) return undefined;
  const head = Buffer.alloc(HEAD);
  if (readFully(fs, fd, head, HEAD, 0) !== HEAD) return undefined;
  const length = head.readUInt32LE(0);
  if (length < 4 || size !== HEAD + padded(length)) return undefined;
  let hash = FNV_BASIS;
  const window = scratch.memory(Math.min(WINDOW, size - HEAD));
  for (let at = HEAD; at < size; at += WINDOW) {
    const part = Math.min(WINDOW, size - at);
    if (readFully(fs, fd, window, part, at) !== part) return undefined;
    hash = scratch.hash(0, part, hash);
  }
  if (hash !== head.readBigUInt64LE(4)) return undefined;
  const count = Buffer.alloc(4);
  if (readFully(fs, fd, count, 4, HEAD) !== 4 || 4 + count.readUInt32LE(0) * (KEY + 4) > length)
    return undefined;
  const heads = Buffer.alloc(count.readUInt32LE(0) * (KEY + 4));
  if (readFully(fs, fd, heads, heads.length, HEAD + 4) !== heads.length) return undefined;
  const index = new Map();
  let offset = HEAD + 4 + heads.length;
  for (let at = 0; at < heads.length; at += KEY + 4) {
    const entrySize = heads.readUInt32LE(at + KEY);
    index.set(heads.toString('hex', at, at + KEY), { offset, size: entrySize });
    offset += entrySize;
  }
  return offset === HEAD + length ? index : undefined;
}

/** Write the command's cache file, then remove this install's files of an older layout. */
function writeEntries({ fs, path, cacheDir, file }, prefix, install, entries) {
  try {
    const heads = [...entries].map(([hash, data]) => {
      const head = Buffer.alloc(KEY + 4);
      head.write(hash, 'hex');
      head.writeUInt32LE(data.length, KEY);
      return head;
    });
    const count = Buffer.alloc(4);
    count.writeUInt32LE(entries.size);
    const body = Buffer.concat([count, ...heads, ...entries.values()]);
    const hashing = hasher();
    if (!hashing) return;
    // a new memory is all zeros: the padding
    const whole = hashing.memory(HEAD + padded(body.length));
    body.copy(whole, HEAD);
    whole.writeUInt32LE(body.length, 0);
    whole.writeBigUInt64LE(hashing.hash(HEAD, whole.length - HEAD), 4);
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    if (!safeDir(fs, cacheDir)) return;
    const temp = `${file}.${process.pid}.tmp`;
    // 'wx': a file or link already under the temporary name is never written through
    fs.writeFileSync(temp, whole, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
    // the caches of whole-program builds (one file per build id) that this install, or one before
    // names carried the install, wrote for this same Node: never read again
    const older = (name) => !name.startsWith(install) || !name.slice(install.length).startsWith('chunks-');
    const unplaced = (name) => !/^[0-9a-f]{8}-/.test(name.slice(prefix.length));
    for (const old of fs.readdirSync(cacheDir))
      if (old.startsWith(prefix) && !old.endsWith('.tmp') && older(old))
        if (old.startsWith(install) || unplaced(old)) fs.rmSync(path.join(cacheDir, old), { force: true });
  } catch {
    // unwritable or full: the next run compiles as this one did
  }
}

// the cache is code this process runs: only a directory that is no link, is this user's and that
// no one else can write is used (else anyone who can write there could plant code to be run)
function ours(st) {
  const uid = process.getuid?.();
  return uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
}

function safeDir(fs, dir) {
  const st = fs.lstatSync(dir);
  return st.isDirectory() && !st.isSymbolicLink() && ours(st);
}
