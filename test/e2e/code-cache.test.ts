import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin, runBinAt } from '../helpers/bin.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

// bin/lbrl.js keeps a V8 code cache of the program in $XDG_CACHE_HOME/lbrl. Whatever state that
// cache is in, a run prints what it would print without one; a cache that cannot serve is
// replaced, and one that serves is left alone.

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 200, getAnswer()));
});
afterAll(() => server.close());

/** deposit get --json against the test server: the command whose start-up the cache is for. */
async function get(cacheHome: string, bin = BIN) {
  return runBinAt(bin, ['deposit', 'get', ID, '--json'], {
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    XDG_CACHE_HOME: cacheHome,
    LBRL_BASE_URL: server.url,
    LBRL_TOKEN: TOKEN,
  });
}

/** A copy of the installed files elsewhere, as npm install makes one. */
function install(): string {
  const other = tempDir();
  for (const file of ['package.json', 'bin/lbrl.js', 'bin/package.json', 'dist/build-id', 'dist/help.json']) {
    fs.mkdirSync(path.dirname(path.join(other, file)), { recursive: true });
    fs.copyFileSync(path.join(BIN, '../..', file), path.join(other, file));
  }
  fs.cpSync(path.join(BIN, '../../dist/program'), path.join(other, 'dist/program'), { recursive: true });
  return other;
}

/** A cache file's head: the body's length, then its hash; the body follows, zeros to 8 bytes. */
const HEAD = 12;

/**
 * The hash a cache file keeps of its body (with its zeros): FNV-1a over 64-bit little-endian
 * words, as bin/lbrl.js computes it in WebAssembly.
 */
function bodyHash(padded: Buffer): bigint {
  let hash = 0xcbf29ce484222325n;
  for (let at = 0; at < padded.length; at += 8)
    hash = BigInt.asUintN(64, (hash ^ padded.readBigUInt64LE(at)) * 0x100000001b3n);
  return hash;
}

/** The bytes of a cache file holding this body: its head, then the body. */
function withHead(body: Buffer): Buffer {
  const whole = Buffer.alloc(HEAD + Math.ceil(body.length / 8) * 8);
  body.copy(whole, HEAD);
  whole.writeUInt32LE(body.length, 0);
  whole.writeBigUInt64LE(bodyHash(whole.subarray(HEAD)), 4);
  return whole;
}

/** The body of a cache file (stored once, under its hash). */
function bodyOf(bytes: Buffer): Buffer {
  const length = bytes.readUInt32LE(0);
  expect(bytes.length).toBe(HEAD + Math.ceil(length / 8) * 8);
  expect(bytes.readBigUInt64LE(4)).toBe(bodyHash(bytes.subarray(HEAD)));
  return bytes.subarray(HEAD, HEAD + length);
}

/** The entries of a cache file, by the SHA-256 of their chunk. */
function entries(bytes: Buffer): Map<string, Buffer> {
  const body = bodyOf(bytes);
  const count = body.readUInt32LE(0);
  const found = new Map<string, Buffer>();
  let at = 4 + count * 36;
  for (let i = 0; i < count; i++) {
    const size = body.readUInt32LE(4 + i * 36 + 32);
    found.set(body.toString('hex', 4 + i * 36, 4 + i * 36 + 32), body.subarray(at, at + size));
    at += size;
  }
  expect(at).toBe(body.length);
  return found;
}

/** The chunks of the program, by name, with the SHA-256 dist/build-id gives each. */
function chunkHashes(root = path.join(BIN, '../..')): Map<string, string> {
  const lines = fs.readFileSync(path.join(root, 'dist/build-id'), 'utf8').trim().split('\n').slice(1);
  return new Map(lines.map((line) => [line.slice(65), line.slice(0, 64)]));
}

/** The cache files, by name, with their bytes. */
function files(cacheHome: string): Map<string, Buffer> {
  const dir = path.join(cacheHome, 'lbrl');
  if (!fs.existsSync(dir)) return new Map();
  return new Map(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f))]));
}

/**
 * The same files, each as a SHA-256 of its bytes: what a comparison of two caches looks at (a
 * deep equality of half-megabyte Buffers goes byte by byte and takes seconds).
 */
function hashes(files: Map<string, Buffer>): Map<string, string> {
  return new Map([...files].map(([name, bytes]) => [name, createHash('sha256').update(bytes).digest('hex')]));
}

const mine = `code-node${process.versions.node}-${process.arch}-`;
let expected: string;

describe('the code cache of the program', () => {
  beforeAll(async () => {
    const r = await get(tempDir());
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expected = r.stdout;
    expect(JSON.parse(expected).id).toBe(ID);
  });

  it('is written by a first run, for this Node and architecture, and used unchanged by the next', async () => {
    const home = tempDir();
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    const first = files(home);
    expect([...first.keys()]).toHaveLength(1);
    const [name, bytes] = [...first][0] ?? [];
    expect(name?.startsWith(mine)).toBe(true);
    expect(name?.endsWith('-deposit-get.bin')).toBe(true);
    expect(bytes?.length).toBeGreaterThan(100_000);
    // one entry per chunk (or pack of chunks) the command loaded, each under the hash of its content
    const built = chunkHashes();
    const keys = [...entries(bytes ?? Buffer.alloc(0)).keys()];
    expect(keys.length).toBeGreaterThan(1);
    expect(keys).toContain(built.get('main.pack.cjs'));
    for (const key of keys) expect([...built.values()]).toContain(key);
    const dir = path.join(home, 'lbrl');
    const at = fs.statSync(path.join(dir, name ?? '')).mtimeMs;
    fs.utimesSync(path.join(dir, name ?? ''), new Date(1e12), new Date(1e12)); // so a rewrite shows
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(hashes(files(home))).toEqual(hashes(first));
    expect(fs.statSync(path.join(dir, name ?? '')).mtimeMs).toBe(1e12);
    expect(at).not.toBe(1e12);
    // another command has a cache of its own, and leaves this one alone
    const other = await runBin(['config', 'list'], {
      HOME: tempDir(),
      LBRL_CONFIG_DIR: tempDir(),
      XDG_CACHE_HOME: home,
    });
    expect(other.code).toBe(0);
    expect([...files(home).keys()].sort()).toEqual(
      [name, name?.replace('-deposit-get.bin', '-config-list.bin')].sort(),
    );
    expect(
      files(home)
        .get(name ?? '')
        ?.equals(first.get(name ?? '') ?? Buffer.alloc(0)),
    ).toBe(true);
  });

  it('a chunk read after the program changed a V8 flag (the QR, after the request) is cached too', async () => {
    const home = tempDir();
    const env = {
      HOME: tempDir(),
      LBRL_CONFIG_DIR: tempDir(),
      XDG_CACHE_HOME: home,
      LBRL_BASE_URL: server.url,
      LBRL_TOKEN: TOKEN,
    };
    const first = await runBin(['deposit', 'get', ID, '--qr'], env);
    expect(first.code).toBe(0);
    const [name, bytes] = [...files(home)][0] ?? [];
    // the QR's code is in a chunk, and in the packs that hold that chunk: the run read one of them
    const qr = [...chunkHashes()].filter(([chunk]) =>
      fs.readFileSync(path.join(BIN, '../../dist/program', chunk), 'latin1').includes('qrcode-terminal'),
    );
    expect(qr.length).toBeGreaterThan(0);
    expect(qr.some(([, hash]) => entries(bytes ?? Buffer.alloc(0)).has(hash))).toBe(true);
    // V8 would reject an entry made under other flags than the run's: then every run rewrote it
    const file = path.join(home, 'lbrl', name ?? '');
    fs.utimesSync(file, new Date(1e12), new Date(1e12));
    expect(await runBin(['deposit', 'get', ID, '--qr'], env)).toEqual(first);
    expect(fs.statSync(file).mtimeMs).toBe(1e12);
  });

  it('damaged bytes are not used (V8 would crash on them) and are rewritten', async () => {
    const home = tempDir();
    await get(home);
    const [name, good] = [...files(home)][0] ?? [];
    const file = path.join(home, 'lbrl', name ?? '');
    const bad = Buffer.from(good ?? []);
    for (let i = 1000; i < bad.length; i += 997) bad[i] = (bad[i] ?? 0) ^ 0x5a;
    fs.writeFileSync(file, bad);
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(fs.readFileSync(file).equals(bad)).toBe(false);
    // one byte, anywhere in the body or its head
    for (const at of [2, 6, HEAD + 1, Math.floor(bad.length / 2), bad.length - 1]) {
      const one = Buffer.from(good ?? []);
      one[at] = (one[at] ?? 0) ^ 0x01;
      fs.writeFileSync(file, one);
      expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
      expect(fs.readFileSync(file).equals(one)).toBe(false);
    }
    // truncated, as a full disk would leave it, and empty
    for (const broken of [bad.subarray(0, 5000), Buffer.alloc(0)]) {
      fs.writeFileSync(file, broken);
      expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
      expect(fs.readFileSync(file).length).toBeGreaterThan(100_000);
    }
  });

  it('an index that does not fit its body, under a right hash, is not used and is rewritten', async () => {
    const home = tempDir();
    await get(home);
    const [name, good] = [...files(home)][0] ?? [];
    const file = path.join(home, 'lbrl', name ?? '');
    const body = Buffer.from(bodyOf(good ?? Buffer.alloc(0)));
    const count = body.readUInt32LE(0);
    const lies: Buffer[] = [];
    // more entries than the body holds (their heads alone would be 150 GB), one entry too few,
    // and an entry longer than what follows it
    for (const edit of [
      (b: Buffer) => b.writeUInt32LE(0xffffffff, 0),
      (b: Buffer) => b.writeUInt32LE(count - 1, 0),
      (b: Buffer) => b.writeUInt32LE(b.readUInt32LE(4 + 32) + 8, 4 + 32),
    ]) {
      const lie = Buffer.from(body);
      edit(lie);
      lies.push(withHead(lie));
    }
    for (const lie of lies) {
      fs.writeFileSync(file, lie);
      expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
      const rewritten = fs.readFileSync(file);
      expect(rewritten.equals(lie)).toBe(false);
      expect(entries(rewritten).size).toBe(count);
    }
  });

  it("another Node's cache under this name is rejected by V8 and rewritten", async () => {
    const home = tempDir();
    await get(home);
    const [name, good] = [...files(home)][0] ?? [];
    const file = path.join(home, 'lbrl', name ?? '');
    // what another V8 would have written: its version hash (bytes 4 to 7 of V8's data) differs in
    // the entry of the first chunk, and the file's hash is that of what it holds
    const body = Buffer.from(bodyOf(good ?? Buffer.alloc(0)));
    const firstData = 4 + body.readUInt32LE(0) * 36;
    body.writeUInt32LE((body.readUInt32LE(firstData + 4) ^ 0xffff) >>> 0, firstData + 4);
    const other = withHead(body);
    fs.writeFileSync(file, other);
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    const rewritten = fs.readFileSync(file);
    expect(rewritten.equals(other)).toBe(false);
    // this V8's version hash again
    const at = HEAD + 4 + rewritten.readUInt32LE(HEAD) * 36 + 4;
    expect(rewritten.readUInt32LE(at)).toBe((good ?? Buffer.alloc(0)).readUInt32LE(at));
  });

  it("another lbrl version's or build's cache is removed; other Node versions' caches are kept", async () => {
    // where this lbrl is installed, as its cache's name says it
    const first = tempDir();
    await get(first);
    const place = /^[0-9a-f]{8}-/.exec([...files(first).keys()][0]?.slice(mine.length) ?? '')?.[0];
    expect(place).toBeDefined();
    const home = tempDir();
    const dir = path.join(home, 'lbrl');
    fs.mkdirSync(dir, { recursive: true });
    const stale = `${mine}${place}0.0.1-123-456-deposit-get.bin`;
    const unplaced = `${mine}0.0.1-123-456-deposit-get.bin`; // named before names carried the place
    const otherNode = `code-node1.2.3-${process.arch}-${place}0.0.1-123-456-deposit-get.bin`;
    fs.writeFileSync(path.join(dir, stale), 'old');
    fs.writeFileSync(path.join(dir, unplaced), 'old');
    fs.writeFileSync(path.join(dir, otherNode), 'other');
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    const names = [...files(home).keys()].sort();
    expect(names).toHaveLength(2);
    expect(names).toContain(otherNode);
    expect(names).not.toContain(stale);
    expect(names).not.toContain(unplaced);
  });

  it("two installs of lbrl (a global one and a project's) keep a cache each and never evict the other's", async () => {
    // a second copy of the installed files elsewhere, as npm install -g and a project's install make
    const other = install();
    const otherBin = path.join(other, 'bin/lbrl.js');
    const home = tempDir();
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(await get(home, otherBin)).toEqual({ code: 0, stdout: expected, stderr: '' });
    const both = files(home);
    expect([...both.keys()]).toHaveLength(2);
    // so a rewrite shows
    for (const name of both.keys())
      fs.utimesSync(path.join(home, 'lbrl', name), new Date(1e12), new Date(1e12));
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(await get(home, otherBin)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(hashes(files(home))).toEqual(hashes(both));
    for (const name of both.keys()) expect(fs.statSync(path.join(home, 'lbrl', name)).mtimeMs).toBe(1e12);
  });

  it('a FIFO at the cache file name blocks no run: it is neither waited on nor read', async () => {
    const home = tempDir();
    await get(home);
    const [name] = [...files(home).keys()];
    const at = path.join(home, 'lbrl', name ?? '');
    fs.rmSync(at);
    execFileSync('mkfifo', ['-m', '600', at]);
    const started = Date.now();
    expect(await get(home)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a rebuilt program of the same size and time (cp -p, rsync -a) never runs the older build from the cache', async () => {
    const other = install();
    // the files that hold the message: its chunk, and the packs that hold that chunk
    const dir = path.join(other, 'dist/program');
    const holders = fs
      .readdirSync(dir)
      .filter((f) => fs.readFileSync(path.join(dir, f), 'latin1').includes('a UUID such as'));
    expect(holders.length).toBeGreaterThan(0);
    // a time in whole seconds, which utimes sets exactly
    const time = new Date(1_700_000_000_000);
    for (const holder of holders) fs.utimesSync(path.join(dir, holder), time, time);
    const home = tempDir();
    const bad = ['deposit', 'get', 'nope'];
    const run = () =>
      runBinAt(path.join(other, 'bin/lbrl.js'), bad, {
        HOME: tempDir(),
        LBRL_CONFIG_DIR: tempDir(),
        XDG_CACHE_HOME: home,
      });
    const before = await run();
    expect(before.stderr).toContain('a UUID such as');
    expect((await run()).stderr).toBe(before.stderr); // from the cache now
    const [cacheFile, cached] = [...files(home)][0] ?? [];
    const old = entries(cached ?? Buffer.alloc(0));
    // the one of them the run read
    const chunk = holders.find((holder) => old.has(chunkHashes(other).get(holder) ?? ''));
    const oldHash = chunkHashes(other).get(chunk ?? '') ?? '';
    expect(old.has(oldHash)).toBe(true);
    const program = path.join(dir, chunk ?? 'none');
    const { size } = fs.statSync(program);
    // the next build: other words, the same length, and the old files' time
    for (const holder of holders) {
      const file = path.join(dir, holder);
      const text = fs.readFileSync(file, 'latin1');
      expect(text).toContain('a UUID such as');
      fs.writeFileSync(file, text.replace('a UUID such as', 'A uuid SUCH AS'), 'latin1');
      fs.utimesSync(file, time, time);
    }
    const hashesBefore = chunkHashes(other);
    execFileSync(process.execPath, [path.join(BIN, '../build-id.mjs'), other]);
    expect(fs.statSync(program).size).toBe(size);
    expect(fs.statSync(program).mtimeMs).toBe(time.getTime());
    const after = await run();
    expect(after.stderr).toContain('A uuid SUCH AS');
    expect(after.stderr).not.toContain('a UUID such as');
    // the changed files' entries are replaced; the other chunks keep theirs
    const newHash = chunkHashes(other).get(chunk ?? '') ?? '';
    expect(newHash).not.toBe(oldHash);
    const now = entries(files(home).get(cacheFile ?? '') ?? Buffer.alloc(0));
    expect(now.has(oldHash)).toBe(false);
    expect(now.has(newHash)).toBe(true);
    const renewed = new Map(
      holders.map((holder) => [hashesBefore.get(holder), chunkHashes(other).get(holder)]),
    );
    expect([...now.keys()].sort()).toEqual([...old.keys()].map((h) => renewed.get(h) ?? h).sort());
  });

  it('an unwritable cache directory is no error: the run works and writes nothing', async () => {
    const notADir = path.join(tempDir(), 'file');
    fs.writeFileSync(notADir, '');
    expect(await get(notADir)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(fs.readFileSync(notADir, 'utf8')).toBe('');
  });
  it('a cache directory that is a link, or that others can write, is neither read nor written', async () => {
    // whoever can write the cache can plant code that the next run would execute
    const elsewhere = tempDir();
    const linked = tempDir();
    fs.symlinkSync(elsewhere, path.join(linked, 'lbrl'));
    expect(await get(linked)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(fs.readdirSync(elsewhere)).toEqual([]);

    const shared = tempDir();
    fs.mkdirSync(path.join(shared, 'lbrl'));
    fs.chmodSync(path.join(shared, 'lbrl'), 0o1777);
    expect(await get(shared)).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(fs.readdirSync(path.join(shared, 'lbrl'))).toEqual([]);
    expect(fs.statSync(path.join(shared, 'lbrl')).mode & 0o7777).toBe(0o1777);
  });
});
