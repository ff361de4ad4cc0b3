/** A webhook receiver on a loopback port: records every delivery; answers as the test says. */
import http from 'node:http';

export interface Delivery {
  id: string;
  timestamp: string;
  signature: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  type: string;
  deposit: string;
  answered: number;
}

export async function startReceiver(answer: (d: Omit<Delivery, 'answered'>) => number = () => 200) {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let type = '';
      let deposit = '';
      try {
        const e = JSON.parse(body) as { type: string; data: { deposit: { id: string } } };
        type = e.type;
        deposit = e.data.deposit.id;
      } catch {}
      const d = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        headers: req.headers,
        body,
        type,
        deposit,
      };
      const status = answer(d);
      deliveries.push({ ...d, answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    /** the deliveries the receiver took (2xx) */
    taken: () => deliveries.filter((d) => d.answered >= 200 && d.answered < 300),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
