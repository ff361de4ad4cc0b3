/**
 * A loopback TCP proxy between lbrl and a PostgreSQL server that cuts the connection after the
 * k-th message the client sends (counted over every connection through it): the k-th message is
 * passed on, then every connection through it is destroyed, both ways, and any new one too, as a
 * pulled cable or a server stopped between two statements would. Messages are counted by PostgreSQL's framing: the untyped SSLRequest and
 * startup message first, then a type byte and a length.
 */
import net from 'node:net';

export interface CuttingProxy {
  port: number;
  /** how many messages the client sent through it so far */
  sent(): number;
  /** whether it cut a connection */
  cut(): boolean;
  close(): Promise<void>;
}

/** SSLRequest and GSSENCRequest: an untyped message after which the startup message comes, untyped too. */
const REQUEST_CODES = new Set([80877103, 80877104]);

export async function startCuttingProxy(serverPort: number, cutAfter: number): Promise<CuttingProxy> {
  let count = 0;
  let didCut = false;
  const sockets = new Set<net.Socket>();
  const cutAll = () => {
    didCut = true;
    for (const socket of sockets) socket.destroy();
  };
  const server = net.createServer((client) => {
    if (didCut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(serverPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.pipe(client);
    let untyped = true;
    let buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (didCut) return;
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const header = untyped ? 4 : 5;
        if (buffer.length < header) return;
        const length = buffer.readUInt32BE(untyped ? 0 : 1) + (untyped ? 0 : 1);
        if (buffer.length < length) return;
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (untyped && !(length === 8 && REQUEST_CODES.has(message.readUInt32BE(4)))) untyped = false;
        upstream.write(message);
        count++;
        if (count >= cutAfter) {
          didCut = true;
          // the message is on its way to the server; then every line goes dead both ways
          upstream.end(cutAll);
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    sent: () => count,
    cut: () => didCut,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
