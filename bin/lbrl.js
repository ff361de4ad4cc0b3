#!/usr/bin/env node
// CommonJS (bin/package.json says so): `lbrl --version` and `lbrl <command> --help`, which people
// and scripts call often, are answered without starting Node's ES module loader or the program.
// Everything else is the program, dist/lbrl.cjs, run by run() below.
const args = process.argv.slice(2);

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
 * Run the program, dist/lbrl.cjs: one CommonJS file compiled through vm.Script with a V8 code cache
 * of the functions earlier runs compiled (see codeCache below), so that a run deserialises code
 * instead of parsing and compiling it function by function.
 */
function run() {
  const fs = require('node:fs');
  const path = require('node:path');
  const file = path.join(__dirname, '..', 'dist', 'lbrl.cjs');
  let source;
  try {
    // esbuild writes ASCII only (non-ASCII characters as escapes): latin1 reads it as UTF-8 would,
    // in half the time
    source = fs.readFileSync(file, 'latin1');
  } catch (error) {
    process.stderr.write(`error: lbrl is not built (${error.message}); run npm run build\n`);
    process.exit(1);
  }
  const { createRequire, wrap } = require('node:module');
  const vm = require('node:vm');
  const cache = codeCache(fs, path, file, buildId(fs, path));
  const script = new vm.Script(wrap(source), { filename: file, cachedData: cache.read() });
  if (script.cachedDataRejected !== false) process.once('exit', () => cache.write(script));
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
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
 * The program's build id, dist/build-id: a SHA-256 of dist/lbrl.cjs that the build writes
 * (scripts/build-id.mjs), so that the cache is keyed by the program's content without reading
 * and hashing it at every start. Undefined without one: then no cache is read or written.
 */
function buildId(fs, path) {
  try {
    const opened = openRegular(fs, path.join(__dirname, '..', 'dist', 'build-id'));
    if (!opened) return undefined;
    try {
      const id = fs.readFileSync(opened.fd, 'latin1').trim();
      return /^[0-9a-f]{64}$/.test(id) ? id : undefined;
    } finally {
      fs.closeSync(opened.fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * The V8 code cache of dist/lbrl.cjs for this command, in the user's cache directory
 * ($XDG_CACHE_HOME/lbrl, else ~/.cache/lbrl). Written at the exit of a run that had none, or whose
 * cache V8 rejected, so it holds what that run compiled. Its name carries Node's version, the
 * architecture, where this lbrl is installed, lbrl's version, the program's build id (a hash of
 * its content, written by the build) and the command, so another Node or another build never
 * reads it, not even one of the same size and time (cp -p, rsync -a, a reproducible build), and two installs (a global
 * one and a project's, say) never remove each other's; V8
 * itself rejects a cache that does not fit (cachedDataRejected) and the run then rewrites it. A
 * cache that cannot be read or written, or whose bytes are damaged, is no error: the program runs
 * without it (and writes it again).
 */
function codeCache(fs, path, program, id) {
  if (id === undefined) return { read: () => undefined, write: () => {} };
  // V8 checks a cache's versions and flags but not its bytes: a damaged one can crash the process,
  // so each file starts with a SHA-1 of the rest, and one that does not match is not used
  const DIGEST = 20;
  const crypto = require('node:crypto');
  const digest = (data) =>
    crypto.hash ? crypto.hash('sha1', data, 'buffer') : crypto.createHash('sha1').update(data).digest();
  const home = process.env.HOME || require('node:os').homedir();
  const dir = path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'lbrl');
  const prefix = `code-node${process.versions.node}-${process.arch}-`;
  // where this lbrl is: another install's builds are not older builds of this one
  const install = `${prefix}${digest(program).toString('hex').slice(0, 8)}-`;
  const build = `${install}${require('../package.json').version}-${id.slice(0, 16)}-`;
  // one cache per command (deposit get, config set, ...): each holds what its own command compiles,
  // where a single one would hold only what the first command after an install happened to use
  const words = [];
  for (const arg of args) {
    if (words.length === 2 || !/^[a-z]+$/.test(arg)) break;
    words.push(arg);
  }
  const name = `${build}${words.join('-') || 'main'}.bin`;
  const file = path.join(dir, name);
  // the cache is code this process runs: only a directory that is no link, is this user's and that
  // no one else can write is used (else anyone who can write there could plant code to be run)
  const uid = process.getuid?.();
  const ours = (st) => uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
  const safeDir = () => {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && !st.isSymbolicLink() && ours(st);
  };
  return {
    read() {
      try {
        if (!safeDir()) return undefined;
        // a FIFO or a device planted at the name is neither waited on nor read
        const opened = openRegular(fs, file);
        if (!opened) return undefined;
        let stored;
        try {
          if (!ours(opened.st)) return undefined;
          stored = fs.readFileSync(opened.fd);
        } finally {
          fs.closeSync(opened.fd);
        }
        const data = stored.subarray(DIGEST);
        return stored.subarray(0, DIGEST).equals(digest(data)) ? data : undefined;
      } catch {
        return undefined;
      }
    },
    write(script) {
      try {
        // V8 keys a code cache by its flags, and the program turns --liftoff-only on once its HTTP
        // client is loaded (src/main.ts), which also turns off the two below: back to the flags a run
        // starts with, or every run rejects the cache
        require('node:v8').setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
        const data = script.createCachedData();
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        if (!safeDir()) return;
        const temp = `${file}.${process.pid}.tmp`;
        // 'wx': a file or link already under the temporary name is never written through
        fs.writeFileSync(temp, Buffer.concat([digest(data), data]), { mode: 0o600, flag: 'wx' });
        fs.renameSync(temp, file);
        // this install's earlier builds' caches for this same Node (and caches named before names
        // carried the install): never read again
        const unplaced = (name) => !/^[0-9a-f]{8}-/.test(name.slice(prefix.length));
        for (const old of fs.readdirSync(dir))
          if (old.startsWith(prefix) && !old.startsWith(build) && !old.endsWith('.tmp'))
            if (old.startsWith(install) || unplaced(old)) fs.rmSync(path.join(dir, old), { force: true });
      } catch {
        // unwritable or full: the next run compiles as this one did
      }
    },
  };
}
