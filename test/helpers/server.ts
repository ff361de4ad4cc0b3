import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: SeenRequest, res: http.ServerResponse, n: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A local HTTP server that answers as the test says, and counts what it was sent. */
export async function startServer(handler: Handler, port = 0): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    requests.push(seen);
    try {
      await handler(seen, res, requests.length);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** A loopback port nothing listens on (it was free a moment ago): connections to it are refused. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A server (any of these helpers') for the running test only: closed when it finishes. */
export async function forTest<T extends { close(): Promise<void> }>(starting: Promise<T>): Promise<T> {
  const server = await starting;
  onTestFinished(() => server.close());
  return server;
}
