/**
 * The ledger's connection begun at the program's entry (cli/ledger-early.ts, store/pg-early.ts):
 * begun only for a command that reaches the ledger, to the address the settings name; taken by
 * the ledger only for that same address while it is fresh and sound; else closed, unsaid.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectLedgerEarly, ledgerCommandOf } from '../../src/cli/ledger-early.js';
import {
  beginEarlySocket,
  dropEarlySocket,
  EARLY_SOCKET_FRESH_MS,
  earlySocketWaiting,
  takeEarlySocket,
} from '../../src/store/pg-early.js';
import { freePort } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

const servers: net.Server[] = [];
afterEach(() => {
  dropEarlySocket();
  for (const server of servers.splice(0)) server.close();
});

/** A server that keeps what it accepts, and resolves `closed` when a client closes its side. */
async function listening() {
  const accepted: net.Socket[] = [];
  let arrived: () => void = () => {};
  let closedByClient: () => void = () => {};
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const closed = new Promise<void>((resolve) => {
    closedByClient = resolve;
  });
  const server = net.createServer((socket) => {
    accepted.push(socket);
    socket.on('end', closedByClient);
    socket.on('error', closedByClient);
    arrived();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { accepted, arrival, closed, port, address: { host: '127.0.0.1', port } };
}

/** Turns of the event loop, enough for a loopback connect or refusal to be heard. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('which runs begin the connection', () => {
  it.each([
    [['deposit', 'list'], 'deposit list'],
    [['deposit', 'list', '--json', '--limit', '5'], 'deposit list'],
    [['--json', 'deposit', 'report'], 'deposit report'],
    [['--profile', 'till', 'deposit', 'create', '--amount', '15'], 'deposit create'],
    [['deposit', 'get', 'dep_1'], 'deposit get'],
    [['ledger', 'status'], 'ledger status'],
    [['ledger', 'import'], 'ledger import'],
    [['display', '--port', '8080'], 'display'],
    [['listen', '--forward-to', 'http://localhost:4242/'], 'listen'],
    [['sandbox', 'trigger', 'paid'], 'sandbox trigger'],
  ])('%j reaches the ledger (%s)', (argv, path) => {
    expect(ledgerCommandOf(argv)?.path).toBe(path);
  });

  it.each([
    [['--version']],
    [['deposit', 'list', '--help']],
    [['--json', 'deposit', 'list', '-h']],
    [['help', 'deposit', 'list']],
    [['config', 'get', 'ledger']],
    [['config', 'set', 'ledger', 'postgres://db/shop']],
    [['auth', 'status']],
    [['completion', 'bash']],
    [['__complete', 'deposit', 'get', '']],
    [['display', 'clear']],
    [['sandbox', 'serve']],
    [['deposit']],
    [[]],
    [['--', 'deposit', 'list']],
  ])('%j begins nothing', (argv) => {
    expect(ledgerCommandOf(argv)).toBeUndefined();
  });

  it('reads --profile wherever commander takes it, written in two words or with =', () => {
    expect(ledgerCommandOf(['--profile', 'till', 'deposit', 'list'])?.profile).toBe('till');
    expect(ledgerCommandOf(['deposit', 'list', '--profile', 'office'])?.profile).toBe('office');
    expect(ledgerCommandOf(['deposit', 'list', '--profile=office'])?.profile).toBe('office');
    // the value of --base-url is not a command word
    expect(ledgerCommandOf(['--base-url', 'listen', 'deposit', 'list'])?.path).toBe('deposit list');
  });
});

describe('the connection begun at entry', () => {
  it('is made to the server the ledger URL names, and taken once by a ledger connecting there', async () => {
    const server = await listening();
    connectLedgerEarly(['deposit', 'list'], {
      LBRL_LEDGER_URL: `postgres://till:secret@127.0.0.1:${server.port}/shop`,
      LBRL_CONFIG_DIR: tempDir(),
    });
    await server.arrival;
    expect(server.accepted).toHaveLength(1);
    const socket = takeEarlySocket(server.address);
    expect(socket).toBeDefined();
    expect(takeEarlySocket(server.address)).toBeUndefined();
    socket!.discard();
  });

  it("is made to the server of the profile's ledger setting (the profile --profile names)", async () => {
    const server = await listening();
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        profiles: {
          default: { ledger: 'file' },
          till: { ledger: `postgres://till:secret@127.0.0.1:${server.port}/shop` },
        },
      }),
      { mode: 0o600 },
    );
    connectLedgerEarly(['deposit', 'list'], { LBRL_CONFIG_DIR: dir });
    expect(earlySocketWaiting()).toBe(false);
    connectLedgerEarly(['deposit', 'list', '--profile', 'till'], { LBRL_CONFIG_DIR: dir });
    await server.arrival;
    expect(server.accepted).toHaveLength(1);
    expect(takeEarlySocket(server.address)).toBeDefined();
  });

  it('PGHOST and PGPORT name the server when the URL does not, as they do for the ledger', async () => {
    const server = await listening();
    connectLedgerEarly(['ledger', 'status'], {
      LBRL_LEDGER_URL: 'postgres://till@/shop',
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      LBRL_CONFIG_DIR: tempDir(),
    });
    await server.arrival;
    expect(server.accepted).toHaveLength(1);
  });

  it('begins nothing, and throws nothing, for a file ledger, a bad URL, a bad profile or a damaged config', () => {
    const damaged = tempDir();
    fs.writeFileSync(path.join(damaged, 'config.json'), '{"profiles": ', { mode: 0o600 });
    const runs: Array<Record<string, string>> = [
      { LBRL_CONFIG_DIR: tempDir() },
      { LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: 'file' },
      { LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: 'mysql://db/shop' },
      { LBRL_CONFIG_DIR: tempDir(), LBRL_LEDGER_URL: 'postgres://db/shop?sslmode=prefer' },
      { LBRL_CONFIG_DIR: tempDir(), LBRL_PROFILE: '../etc' },
      { LBRL_CONFIG_DIR: damaged },
    ];
    for (const env of runs) {
      expect(() => connectLedgerEarly(['deposit', 'list'], env)).not.toThrow();
      expect(earlySocketWaiting()).toBe(false);
    }
  });

  it('is closed, and not given, to a ledger that connects to another address', async () => {
    const guessed = await listening();
    const other = await listening();
    beginEarlySocket(guessed.address);
    await guessed.arrival;
    expect(takeEarlySocket(other.address)).toBeUndefined();
    await guessed.closed;
    expect(other.accepted).toHaveLength(0);
    expect(earlySocketWaiting()).toBe(false);
  });

  it('is closed, and not given, on the same address once older than it may be', async () => {
    const server = await listening();
    beginEarlySocket(server.address, 1000);
    await server.arrival;
    expect(takeEarlySocket(server.address, 1000 + EARLY_SOCKET_FRESH_MS)).toBeUndefined();
    await server.closed;
  });

  it('is not given once the server refused it (the ledger connects again and says what it finds)', async () => {
    const port = await freePort();
    beginEarlySocket({ host: '127.0.0.1', port });
    await turns();
    expect(takeEarlySocket({ host: '127.0.0.1', port })).toBeUndefined();
  });

  it('is not given once the server closed it before anything was sent', async () => {
    const server = await listening();
    beginEarlySocket(server.address);
    await server.arrival;
    server.accepted[0]!.destroy();
    await turns();
    expect(takeEarlySocket(server.address)).toBeUndefined();
  });

  it('is closed once older than it may be, even by a command that runs on without reaching the ledger', async () => {
    const server = await listening();
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      beginEarlySocket(server.address);
      await server.arrival;
      vi.advanceTimersByTime(EARLY_SOCKET_FRESH_MS - 1);
      expect(earlySocketWaiting()).toBe(true);
      vi.advanceTimersByTime(1);
      expect(earlySocketWaiting()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    await server.closed;
  });
});
