/**
 * The connection to the ledger's server begun before the client loads (store/pg-socket.ts): the
 * server has it at once, and what happened before pg took it is said to pg as a socket of its
 * own would say it.
 */
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EarlySocket, serverAddress } from '../../src/store/pg-socket.js';
import { freePort } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server that counts the connections it accepted (and keeps them open). */
async function listening(at: { port: number } | { path: string }) {
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => accepted.push(socket));
  servers.push(server);
  await new Promise<void>((resolve) =>
    'path' in at ? server.listen(at.path, resolve) : server.listen(at.port, '127.0.0.1', resolve),
  );
  return { accepted, server };
}

/** What pg does with its stream: connect(), then listen for connect, error and close. */
function asPgDoes(socket: net.Socket, port: number, host: string): Promise<string[]> {
  const said: string[] = [];
  socket.connect(port, host);
  return new Promise((resolve) => {
    socket.once('connect', () => {
      said.push('connect');
      resolve(said);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => said.push(`error ${error.code}`));
    socket.on('close', () => {
      said.push('close');
      resolve(said);
    });
  });
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('the connection begun before the client loads', () => {
  it('is accepted by the server before pg takes it, and pg is told it is connected, once', async () => {
    const port = await freePort();
    const { accepted } = await listening({ port });
    const early = new EarlySocket(serverAddress('127.0.0.1', port));
    await until(() => accepted.length === 1);
    expect(accepted).toHaveLength(1);
    const socket = early.stream();
    const said = await asPgDoes(socket, port, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 50));
    expect(said).toEqual(['connect']);
    // the same connection, not a second one
    expect(accepted).toHaveLength(1);
    socket.destroy();
  });

  it('taken while still connecting: pg hears the socket itself say it', async () => {
    const port = await freePort();
    const { accepted } = await listening({ port });
    const early = new EarlySocket(serverAddress('127.0.0.1', port));
    const said = await asPgDoes(early.stream(), port, '127.0.0.1');
    expect(said).toEqual(['connect']);
    await until(() => accepted.length === 1);
    expect(accepted).toHaveLength(1);
  });

  it('refused before pg takes it: pg is told the error, then the close, and nothing is thrown meanwhile', async () => {
    const port = await freePort();
    const early = new EarlySocket(serverAddress('127.0.0.1', port));
    await new Promise((r) => setTimeout(r, 200));
    const said = await asPgDoes(early.stream(), port, '127.0.0.1');
    expect(said).toEqual(['error ECONNREFUSED', 'close']);
  });

  it("a host that is a directory is the server's Unix socket in it, as pg names it", async () => {
    const dir = tempDir();
    const { accepted } = await listening({ path: path.join(dir, '.s.PGSQL.5433') });
    const early = new EarlySocket(serverAddress(dir, 5433));
    await until(() => accepted.length === 1);
    expect(accepted).toHaveLength(1);
    early.discard();
  });

  it("pg's defaults when neither the URL nor the environment names the server", () => {
    expect(serverAddress(undefined, undefined)).toEqual({ host: 'localhost', port: 5432 });
    expect(serverAddress('db.example.com', 6432)).toEqual({ host: 'db.example.com', port: 6432 });
  });
});
