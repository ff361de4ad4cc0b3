/**
 * What a command pays to reach a ledger in PostgreSQL (bench/ledger-postgres.mjs measures it):
 * the client loads without Node's own fetch implementation, and the start is as few round trips
 * as the protocol allows. Counted on the test run's real server, through the built program.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 60_000 });

/**
 * A preload that writes, as the process exits, the built-ins it loaded (internal ones too),
 * whether it had a global `navigator` at its start and at its end, the built-ins loaded by the
 * time the system was first asked to connect a socket (the TCP handle's connect, which net calls
 * on its tick after Socket#connect), and the files read or opened before that moment and in all
 * (the program's loader opens each of its files as it is first required).
 */
function preload(out: string): string {
  const file = path.join(tempDir(), 'preload.cjs');
  fs.writeFileSync(
    file,
    `const had = 'navigator' in globalThis;
const { TCP } = process.binding('tcp_wrap');
const fs = require('node:fs');
const required = [];
const read = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file !== 'number') required.push(String(file));
  return read.call(this, file, ...rest);
};
// the program's loader opens a chunk and reads it into memory of its own
const open = fs.openSync;
fs.openSync = function (file, ...rest) {
  required.push(String(file));
  return open.call(this, file, ...rest);
};
const connect = TCP.prototype.connect;
let atConnect;
let requiredAtConnect;
TCP.prototype.connect = function (...args) {
  atConnect ??= [...process.moduleLoadList];
  requiredAtConnect ??= [...required];
  return connect.apply(this, args);
};
// the files read by the time the first query (a simple query, 'Q') is written to a socket
const net = require('node:net');
const write = net.Socket.prototype.write;
let requiredAtQuery;
net.Socket.prototype.write = function (chunk, ...rest) {
  if (Buffer.isBuffer(chunk) && chunk[0] === 0x51) requiredAtQuery ??= [...required];
  return write.call(this, chunk, ...rest);
};
process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({
  modules: process.moduleLoadList, atConnect, requiredAtConnect, required, requiredAtQuery,
  navigatorAtStart: had, navigatorAtEnd: 'navigator' in globalThis })));`,
  );
  return file;
}

interface Loaded {
  modules: string[];
  atConnect: string[];
  /** the files read before the connect, and in all */
  requiredAtConnect: string[];
  required: string[];
  /** the files read by the time the first query was written */
  requiredAtQuery?: string[];
  navigatorAtStart: boolean;
  navigatorAtEnd: boolean;
}

async function listLoading(env: Record<string, string>, extraPreload = ''): Promise<Loaded> {
  const out = path.join(tempDir(), 'loaded.json');
  const dir = tempDir();
  const r = await runBin(['deposit', 'list', '--json'], {
    HOME: dir,
    LBRL_CONFIG_DIR: dir,
    LBRL_BASE_URL: 'https://deposit.example.com',
    LBRL_TOKEN: 'test-token-0123456789abcdef',
    NODE_OPTIONS: `--require ${preload(out)}${extraPreload && ` --require ${extraPreload}`}`,
    ...env,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe('[]\n');
  return JSON.parse(fs.readFileSync(out, 'utf8')) as Loaded;
}

const FETCH = 'NativeModule internal/deps/undici/undici';
/** loaded by pg as it loads (pg/lib/crypto/utils.js) */
/** Node's Web Crypto: pg's own module reaches its hashes through it (the build gives pg node:crypto's) */
const WEB_CRYPTO = 'NativeModule internal/crypto/webcrypto';

/** The built program's file that holds pg's client (dist/meta.json, the build's own account). */
function pgChunk(): string {
  return chunkHolding('node_modules/pg/lib/client.js');
}

/** The built program's file that holds the module whose path ends with `source`. */
function chunkHolding(source: string): string {
  const meta = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), '../dist/meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const holding = Object.entries(meta.outputs).filter(([, output]) =>
    Object.keys(output.inputs).some((input) => input.endsWith(source)),
  );
  expect(holding).toHaveLength(1);
  return path.basename(holding[0]![0]);
}

describe('connecting to the ledger in PostgreSQL', () => {
  it("loads the client without Node's fetch implementation, and leaves the globals as they were", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const loaded = await listLoading({ LBRL_LEDGER_URL: url });
    // the client was loaded and spoke to the server
    expect(loaded.modules).toContain('NativeModule net');
    expect(loaded.modules).toContain('NativeModule internal/crypto/pbkdf2');
    expect(loaded.modules).not.toContain(FETCH);
    expect(loaded.navigatorAtEnd).toBe(loaded.navigatorAtStart);
  });

  it("authenticates (SCRAM-SHA-256) with node:crypto's calls, never loading Web Crypto", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const loaded = await listLoading({ LBRL_LEDGER_URL: url });
    expect(loaded.modules).toContain('NativeModule internal/crypto/pbkdf2');
    expect(loaded.modules).not.toContain(WEB_CRYPTO);
  });

  it("loads pg's Client alone: NODE_PG_FORCE_NATIVE, set for another program, does not swap in a native client lbrl lacks", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    // listLoading checks the exit code (0) and the output ('[]')
    await listLoading({ LBRL_LEDGER_URL: url, NODE_PG_FORCE_NATIVE: '1' });
  });

  it('sets up no DNS resolver for a ledger at an address: nothing is looked up', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const loaded = await listLoading({ LBRL_LEDGER_URL: url });
    expect(loaded.modules).toContain('NativeModule net');
    expect(loaded.modules).not.toContain('NativeModule dns');
  });

  it('asks the system to connect before the client loads: the server starts its process meanwhile', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const loaded = await listLoading({ LBRL_LEDGER_URL: url });
    const chunk = pgChunk();
    // the client's file was required, after the connection was asked for; and node:crypto
    // (which the rest of the ledger's code loads) came after it too
    expect(loaded.required.some((file) => file.endsWith(chunk))).toBe(true);
    expect(loaded.requiredAtConnect.some((file) => file.endsWith(chunk))).toBe(false);
    expect(loaded.atConnect).not.toContain('NativeModule crypto');
  });

  // the versions are read as rows, not as max(): on a new backend the server plans an aggregate
  // over an index for max(), which costs it more than reading the few rows
  it("loads the spool's code while the server authenticates: before the first query, not after its answer", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const loaded = await listLoading({ LBRL_LEDGER_URL: url });
    // read as its chunk, or in a pack of chunks named after it
    const spool = chunkHolding('src/store/ledger-spool.ts').replace(/\.cjs$/, '');
    const isSpool = (file: string) => /\.(pack\.)?cjs$/.test(file) && path.basename(file).startsWith(spool);
    expect(loaded.requiredAtQuery?.some(isSpool)).toBe(true);
    // and not before the connection was asked for
    expect(loaded.required.some(isSpool)).toBe(true);
    expect(loaded.requiredAtConnect.some(isSpool)).toBe(false);
  });

  it('an up-to-date host starts in one request: the schema versions, the log identity and what is new', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const proxy = await countingProxy(Number(new URL(url).port));
    const through = new URL(url);
    through.port = String(proxy.port);
    const dir = tempDir();
    const run = async () => {
      proxy.requests.length = 0;
      const r = await runBin(['deposit', 'list', '--json'], {
        HOME: dir,
        LBRL_CONFIG_DIR: dir,
        LBRL_BASE_URL: 'https://deposit.example.com',
        LBRL_TOKEN: 'test-token-0123456789abcdef',
        LBRL_LEDGER_URL: through.toString(),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('[]\n');
      return [...proxy.requests];
    };
    // the first run makes the schema (several statements, under the migration's lock)
    expect((await run()).length).toBeGreaterThan(5);
    const requests = await run();
    expect(requests).toEqual([
      expect.stringMatching(
        /^Q select version from lbrl_schema_version; select .*lbrl_records.*; select seq, line from lbrl_records where seq > 0 order by seq limit 5000$/s,
      ),
    ]);
  });

  it('the check sees the fetch implementation when a run loads it', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    expect((await listLoading({ LBRL_LEDGER_URL: url }, fetchLoader())).modules).toContain(FETCH);
  });
});

const proxies: net.Server[] = [];
afterAll(() => {
  for (const proxy of proxies) proxy.close();
});

/**
 * A proxy to the server on loopback that notes each request a client sends once authenticated:
 * a simple query (`Q <its text>`) or an extended one's Sync (`S <the text of its Parse>`), each
 * one round trip.
 */
async function countingProxy(serverPort: number): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(serverPort, '127.0.0.1');
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    let pending = Buffer.alloc(0);
    let started = false;
    let parsed = '';
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const head = started ? 5 : 4;
        if (pending.length < head) return;
        const length = pending.readInt32BE(started ? 1 : 0) + (started ? 1 : 0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (!started) {
          started = true;
          continue;
        }
        const type = String.fromCharCode(message[0]!);
        const text = () => message.subarray(5, message.indexOf(0, 5)).toString('utf8');
        if (type === 'Q') requests.push(`Q ${text()}`);
        // Parse: its name, then its text
        if (type === 'P')
          parsed = message
            .subarray(message.indexOf(0, 5) + 1, message.indexOf(0, message.indexOf(0, 5) + 1))
            .toString('utf8');
        if (type === 'S') requests.push(`S ${parsed}`);
      }
    });
  });
  proxies.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, requests };
}

/** A preload that touches `Response` (what pg's check for Cloudflare Workers does on Node 20). */
function fetchLoader(): string {
  const file = path.join(tempDir(), 'fetch.cjs');
  fs.writeFileSync(file, 'void typeof Response;');
  return file;
}
