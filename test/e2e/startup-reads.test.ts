import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

// Each new page of memory a start writes costs a page fault, and page faults, not instructions,
// were most of what a get paid above the undici floor in wall time. bin/lbrl.js therefore reads
// the program's chunks and its code cache's entries into one memory, in turn, instead of a new
// Buffer for each file: what the run writes into is about the largest file, not the sum of them.
// A chunk read on its own is given to V8 wrapped in Node's CommonJS function as one string, made
// there, not concatenated (V8 flattens a concatenation into a copy of the whole before compiling).

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 200, getAnswer()));
});
afterAll(() => server.close());

/**
 * Loaded with --require: every read of a file of dist/program/ or of the code cache, the size of
 * the file and the memory (ArrayBuffer) it was read into, written as JSON lines at exit.
 */
const RECORDER = `
const fs = require('node:fs');
const files = new Map();
const reads = [];
const open = fs.openSync;
fs.openSync = function (file, ...rest) {
  const fd = open.call(this, file, ...rest);
  files.set(fd, String(file));
  return fd;
};
// a chunk's source concatenated with Node's CommonJS wrapper: V8 would copy the whole of it again
const nodeModule = require('node:module');
const wrap = nodeModule.wrap;
let wrapped = 0;
nodeModule.wrap = function (code) {
  if (code.length > 1000 && !code.startsWith('#!')) wrapped += 1; // bin/lbrl.js itself, loaded by Node
  // a patched wrap is given the file as it is: bin/lbrl.js's #! line made a comment
  return wrap.call(this, code.startsWith('#!') ? \`//\${code.slice(2)}\` : code);
};
const read = fs.readSync;
fs.readSync = function (fd, buffer, ...rest) {
  const file = files.get(fd);
  if (file && /dist[\\\\/]program[\\\\/]|[\\\\/]lbrl[\\\\/]code-/.test(file)) reads.push({ file, memory: buffer.buffer });
  return read.call(this, fd, buffer, ...rest);
};
process.on('exit', () => {
  const memories = [...new Set(reads.map((r) => r.memory))];
  fs.writeFileSync(process.env.READS_LOG, JSON.stringify({
    files: [...new Set(reads.map((r) => r.file))].map((file) => [file, fs.statSync(file).size]),
    // a WebAssembly memory grown leaves its former ArrayBuffer detached (0 bytes): the same memory
    bytes: memories.reduce((sum, memory) => sum + memory.byteLength, 0),
    wrapped,
  }));
});
`;

async function readsOf(args: string[], cacheHome: string) {
  const dir = tempDir();
  const recorder = path.join(dir, 'recorder.cjs');
  const log = path.join(dir, 'reads.json');
  fs.writeFileSync(recorder, RECORDER);
  const run = await runBin(args, {
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    XDG_CACHE_HOME: cacheHome,
    LBRL_BASE_URL: server.url,
    LBRL_TOKEN: TOKEN,
    NODE_OPTIONS: `--require ${recorder}`,
    READS_LOG: log,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(fs.readFileSync(log, 'utf8')) as {
    files: [string, number][];
    bytes: number;
    wrapped: number;
  };
}

describe('a start reads its code into one memory', () => {
  it('deposit get --json, with its code cache: the memory read into is the largest file, not their sum', async () => {
    const cacheHome = tempDir();
    await readsOf(['deposit', 'get', ID, '--json'], cacheHome); // writes the cache
    const { files, bytes, wrapped } = await readsOf(['deposit', 'get', ID, '--json'], cacheHome);
    const cacheFile = files.find(([file]) => /[\\/]lbrl[\\/]code-/.test(file));
    expect(cacheFile).toBeDefined();
    const chunks = files.filter(([file]) => /dist[\\/]program[\\/]/.test(file));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    const sizes = files.map(([, size]) => size);
    const sum = sizes.reduce((a, b) => a + b, 0);
    const largestChunk = Math.max(...chunks.map(([, size]) => size));
    // the memory grows in 64 KB steps; a few small Buffers of the cache file's head and index
    expect(bytes).toBeGreaterThanOrEqual(largestChunk);
    expect(bytes).toBeLessThan(largestChunk + 64 * 1024 + 16 * 1024);
    expect(bytes).toBeLessThan(sum / 2);
    // each chunk read on its own is wrapped in the memory it is read into: no concatenation
    expect(chunks.some(([file]) => !file.endsWith('.pack.cjs'))).toBe(true);
    expect(wrapped).toBe(0);
  });

  it('the same with no cache yet, and with --version (which reads no chunk)', async () => {
    const { files, bytes } = await readsOf(['deposit', 'get', ID, '--json'], tempDir());
    const chunks = files.filter(([file]) => /dist[\\/]program[\\/]/.test(file));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(bytes).toBeLessThan(Math.max(...chunks.map(([, size]) => size)) + 64 * 1024);
    expect((await readsOf(['--version'], tempDir())).files).toEqual([]);
  });
});
