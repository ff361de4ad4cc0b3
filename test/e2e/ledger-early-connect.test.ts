/**
 * The ledger's connection begun at the program's entry (cli/ledger-early.ts, store/pg-early.ts):
 * the system is asked to connect before the program and the command load, the socket is the one
 * the ledger then uses, and a run that turns out to need no ledger drops it unsaid. Through the
 * built program, on the test run's real server; a silent server and a refused port stand for the
 * database where what matters is what lbrl does before it speaks.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { readLedgerSetting } from '../../src/domain/ledger-url.js';
import { openLedger } from '../../src/store/ledger.js';
import { beginEarlySocket, dropEarlySocket } from '../../src/store/pg-early.js';
import { BIN, codeCacheEnv, runBin } from '../helpers/bin.js';
import { freePort, freshDatabase, sql } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 60_000 });

const SERVICE = { LBRL_BASE_URL: 'https://deposit.example.com', LBRL_TOKEN: 'test-token-0123456789abcdef' };

/**
 * A preload that writes, as the process exits, the built-ins it loaded, the files read (the
 * program's loader reads each chunk as it is first required) and how many had been read when the
 * system was first asked to connect a TCP or Unix socket.
 */
function preload(out: string): string {
  const file = path.join(tempDir(), 'preload.cjs');
  fs.writeFileSync(
    file,
    `const fs = require('node:fs');
const required = [];
const read = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  required.push(String(file));
  return read.call(this, file, ...rest);
};
const openSync = fs.openSync;
fs.openSync = function (file, ...rest) {
  required.push(String(file));
  return openSync.call(this, file, ...rest);
};
let readAtConnect;
for (const [binding, name] of [['tcp_wrap', 'TCP'], ['pipe_wrap', 'Pipe']]) {
  const Handle = process.binding(binding)[name];
  const connect = Handle.prototype.connect;
  Handle.prototype.connect = function (...args) {
    readAtConnect ??= required.length;
    return connect.apply(this, args);
  };
}
process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({
  modules: process.moduleLoadList, required, readAtConnect })));`,
  );
  return file;
}

interface Timeline {
  modules: string[];
  required: string[];
  readAtConnect: number | undefined;
}

async function traced(args: string[], env: Record<string, string>) {
  const out = path.join(tempDir(), 'timeline.json');
  const dir = tempDir();
  const result = await runBin(args, {
    HOME: dir,
    LBRL_CONFIG_DIR: dir,
    ...SERVICE,
    NODE_OPTIONS: `--require ${preload(out)}`,
    ...env,
  });
  return { ...result, timeline: JSON.parse(fs.readFileSync(out, 'utf8')) as Timeline };
}

const chunk = (file: string, name: string) => path.basename(file).startsWith(name);

/**
 * A run whose stdout and stderr are files, not pipes (Node makes a pipe's stream with node:net),
 * and the built-ins it loaded. Synchronous: no server of this process is needed meanwhile.
 */
function modulesToFiles(args: string[], env: Record<string, string>) {
  const dir = tempDir();
  const [out, err, loaded] = ['stdout', 'stderr', 'modules.json'].map((name) => path.join(dir, name));
  const hook = path.join(dir, 'modules.cjs');
  fs.writeFileSync(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));`,
  );
  const stdout = fs.openSync(out!, 'w');
  const stderr = fs.openSync(err!, 'w');
  const run = spawnSync(process.execPath, ['--require', hook, BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      ...codeCacheEnv(),
      HOME: dir,
      LBRL_CONFIG_DIR: dir,
      ...SERVICE,
      ...env,
    },
    stdio: ['ignore', stdout, stderr],
    timeout: 20_000,
  });
  fs.closeSync(stdout);
  fs.closeSync(stderr);
  return {
    code: run.status,
    stdout: fs.readFileSync(out!, 'utf8'),
    modules: JSON.parse(fs.readFileSync(loaded!, 'utf8')) as string[],
  };
}

/** A server that accepts and never answers, counting the connections and their closes. */
async function silentServer() {
  let accepted = 0;
  let closed = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    socket.on('close', () => {
      closed += 1;
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: `postgres://till:s3cret-pass@127.0.0.1:${port}/shop`,
    counts: () => ({ accepted, closed }),
  };
}

const servers: net.Server[] = [];
afterEach(() => dropEarlySocket());
afterAll(() => {
  for (const server of servers) server.close();
});

describe("the ledger's connection begun at the program's entry", () => {
  it('is asked for before the program and the command load (LBRL_LEDGER_URL)', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { code, stdout, stderr, timeline } = await traced(['deposit', 'list', '--json'], {
      LBRL_LEDGER_URL: url,
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('[]\n');
    expect(timeline.readAtConnect).toBeDefined();
    const before = timeline.required.slice(0, timeline.readAtConnect);
    const after = timeline.required.slice(timeline.readAtConnect);
    expect(before.some((file) => chunk(file, 'main.'))).toBe(true);
    // commander's program and the manifest, the command's module: read once the connect is under way
    expect(after.some((file) => chunk(file, 'program-'))).toBe(true);
    expect(after.some((file) => chunk(file, 'deposit-list-'))).toBe(true);
    expect(before.some((file) => chunk(file, 'program-') || chunk(file, 'deposit-list-'))).toBe(false);
  });

  it("is asked for before the program loads when the profile's ledger setting names the database", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const dir = tempDir();
    const config = { profiles: { till: { ledger: url } } };
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    const { code, stdout, stderr, timeline } = await traced(
      ['deposit', 'list', '--json', '--profile', 'till'],
      { LBRL_CONFIG_DIR: dir },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('[]\n');
    const before = timeline.required.slice(0, timeline.readAtConnect);
    expect(before.some((file) => file === path.join(dir, 'config.json'))).toBe(true);
    expect(before.some((file) => chunk(file, 'program-') || chunk(file, 'deposit-list-'))).toBe(false);
  });

  it('and over a Unix socket (a host that is a directory)', async () => {
    const database = new URL(await freshDatabase(inject('postgresUrl')));
    const url = `postgres://${database.username}:${database.password}@/${database.pathname.slice(1)}?host=${inject('postgresSocketDir')}&port=${database.port}`;
    const { code, stdout, stderr, timeline } = await traced(['deposit', 'list', '--json'], {
      LBRL_LEDGER_URL: url,
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('[]\n');
    const before = timeline.required.slice(0, timeline.readAtConnect);
    expect(before.some((file) => chunk(file, 'program-') || chunk(file, 'deposit-list-'))).toBe(false);
  });

  it('a file ledger loads no network module (none set, file set, the profile saying file)', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { default: { ledger: 'file' } } }),
      { mode: 0o600 },
    );
    const runs: Array<Record<string, string>> = [{}, { LBRL_LEDGER_URL: 'file' }, { LBRL_CONFIG_DIR: dir }];
    for (const env of runs) {
      const { code, stdout, modules } = modulesToFiles(['deposit', 'list', '--json'], env);
      expect(code).toBe(0);
      expect(stdout).toBe('[]\n');
      expect(modules, JSON.stringify(env)).not.toContain('NativeModule net');
    }
    // the check sees node:net when a run loads it
    const url = await freshDatabase(inject('postgresUrl'));
    const database = modulesToFiles(['deposit', 'list', '--json'], { LBRL_LEDGER_URL: url });
    expect(database.stdout).toBe('[]\n');
    expect(database.modules).toContain('NativeModule net');
  });

  it('is the one connection the ledger uses: the server sees one connection per run', async () => {
    const url = new URL(await freshDatabase(inject('postgresUrl')));
    const proxy = await countingProxy(Number(url.port));
    url.port = String(proxy.port);
    const dir = tempDir();
    const env = { HOME: dir, LBRL_CONFIG_DIR: dir, ...SERVICE, LBRL_LEDGER_URL: url.toString() };
    // the first run makes the schema; the second finds it
    for (let run = 0; run < 2; run++) {
      proxy.connections.count = 0;
      const r = await runBin(['deposit', 'list', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('[]\n');
      expect(proxy.connections.count).toBe(1);
    }
  });

  it('a run that fails its own checks drops it unsaid: the same line and exit code, no wait', async () => {
    const silent = await silentServer();
    const refused = `postgres://till:s3cret-pass@127.0.0.1:${await freePort()}/shop`;
    for (const url of [silent.url, refused]) {
      const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), ...SERVICE, LBRL_LEDGER_URL: url };
      const flag = await runBin(['deposit', 'list', '--bogus'], env, undefined, { limitMs: 15_000 });
      expect(flag).toEqual({
        code: 2,
        stdout: '',
        stderr: "error: unknown option '--bogus' (see lbrl deposit list --help)\n",
      });
      const value = await runBin(['deposit', 'list', '--limit', 'abc'], env, undefined, { limitMs: 15_000 });
      expect(value).toEqual({
        code: 2,
        stdout: '',
        stderr: 'error: invalid --limit "abc": expected a whole number from 1 to 10000\n',
      });
    }
    // the silent server was connected to, twice, and both were closed by the runs' ends
    expect(silent.counts().accepted).toBe(2);
    await vi.waitFor(() => expect(silent.counts().closed).toBe(2));
  });

  it.each([
    ['refused', (port: number) => `127.0.0.1:${port}/shop`, 'connection refused'],
    ['no socket there', () => '/shop?host=/nonexistent-lbrl-dir', 'no server socket there'],
    ['no such host', () => 'no-such-host.invalid/shop?sslmode=disable', 'no such host'],
  ])(
    'a database that cannot be reached (%s) is said where and as before: one line, exit 6, no password',
    async (_, where, reason) => {
      const at = where(await freePort());
      const env = {
        HOME: tempDir(),
        LBRL_CONFIG_DIR: tempDir(),
        ...SERVICE,
        LBRL_LEDGER_URL: `postgres://till:s3cret%2Fpass@${at}`,
      };
      const r = await runBin(['deposit', 'list'], env);
      expect(r).toEqual({
        code: 6,
        stdout: '',
        stderr: `error: cannot reach the ledger at postgres://till:[redacted]@${at}: ${reason}\n`,
      });
      // the command's own checks first: a missing profile is its error, not the database's
      const profile = await runBin(['deposit', 'list', '--profile', 'nope'], env);
      expect(profile.code).toBe(2);
      expect(profile.stderr).toMatch(/^error: no profile named "nope" \(from --profile\)[^\n]*\n$/);
    },
  );

  it('help, version, config and completion begin no connection', async () => {
    const silent = await silentServer();
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), ...SERVICE, LBRL_LEDGER_URL: silent.url };
    for (const args of [
      ['--json', 'deposit', 'list', '--help'],
      ['deposit', 'list', '-h'],
      ['config', 'get', 'ledger'],
      ['completion', 'bash'],
      ['display', 'clear', '--json', '--help'],
    ]) {
      const r = await runBin(args, env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(silent.counts().accepted).toBe(0);
  });

  it("a socket begun to another server than the ledger's is closed, and the ledger's own opened", async () => {
    const silent = await silentServer();
    const url = await freshDatabase(inject('postgresUrl'));
    beginEarlySocket({ host: '127.0.0.1', port: silent.port });
    await vi.waitFor(() => expect(silent.counts().accepted).toBe(1));
    const setting = readLedgerSetting(url);
    if (!setting.ok) throw new Error(setting.expected);
    const ledger = await openLedger(setting.value, { dir: tempDir(), warn: () => {}, env: {} });
    expect(await ledger.count()).toBe(0);
    await ledger.close();
    await vi.waitFor(() => expect(silent.counts().closed).toBe(1));
  });

  it('a socket begun to the right server is taken, and speaks for the database the ledger names', async () => {
    const cluster = inject('postgresUrl');
    const other = await freshDatabase(cluster);
    const named = new URL(await freshDatabase(cluster));
    const proxy = await countingProxy(Number(named.port));
    named.port = String(proxy.port);
    // the same host and port: the socket is taken (one connection); its startup names the ledger's database
    beginEarlySocket({ host: '127.0.0.1', port: proxy.port });
    await vi.waitFor(() => expect(proxy.connections.count).toBe(1));
    const setting = readLedgerSetting(named.toString());
    if (!setting.ok) throw new Error(setting.expected);
    const ledger = await openLedger(setting.value, { dir: tempDir(), warn: () => {}, env: {} });
    expect(await ledger.count()).toBe(0);
    await ledger.close();
    expect(proxy.connections.count).toBe(1);
    const made = async (url: string) =>
      (await sql<{ present: boolean }>(url, "select to_regclass('lbrl_records') is not null as present"))[0]!
        .present;
    named.port = new URL(cluster).port;
    expect(await made(named.toString())).toBe(true);
    expect(await made(other)).toBe(false);
  });
});

/** A TCP proxy to the server on loopback that counts the connections it is asked for. */
async function countingProxy(serverPort: number): Promise<{ port: number; connections: { count: number } }> {
  const connections = { count: 0 };
  const server = net.createServer((client) => {
    connections.count += 1;
    const upstream = net.connect(serverPort, '127.0.0.1');
    upstream.pipe(client);
    client.pipe(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, connections };
}
