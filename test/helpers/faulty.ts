import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A service that misbehaves on purpose, at the level of the socket: it sees each
 * connection and the raw request, and does what the test says with them.
 */
export interface FaultyServer {
  url: string;
  /** connections accepted */
  connections: number;
  /** requests whose head arrived whole */
  requests: string[];
  close(): Promise<void>;
}

export type Behaviour = (socket: net.Socket, request: string, n: number) => void;

export async function startFaulty(
  behave: Behaviour,
  onConnect?: (socket: net.Socket, n: number) => boolean,
): Promise<FaultyServer> {
  const state: FaultyServer = { url: '', connections: 0, requests: [], close: async () => {} };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    state.connections += 1;
    if (onConnect && !onConnect(socket, state.connections)) return;
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffer.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      const request = buffer.slice(0, end + 4 + length);
      buffer = buffer.slice(end + 4 + length);
      state.requests.push(request);
      behave(socket, request, state.requests.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return state;
}

export function httpAnswer(status: number, body: string, headers: Record<string, string> = {}): string {
  const h = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  };
  return `HTTP/1.1 ${status} X\r\n${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`;
}

const TLS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/tls');

/** An HTTPS server with a self-signed certificate for 127.0.0.1. */
export async function startSelfSigned(
  body: unknown,
): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  const state = { url: '', hits: 0, close: async () => {} };
  const server = https.createServer(
    {
      key: fs.readFileSync(path.join(TLS_DIR, 'key.pem')),
      cert: fs.readFileSync(path.join(TLS_DIR, 'cert.pem')),
    },
    (_req, res) => {
      state.hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
