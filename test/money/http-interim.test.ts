/** HTTP as it is written: an interim 1xx answer before the real one is skipped, not an error. */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, request } from '../../src/api/http.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { createAnswer, getAnswer, ID, LQ, TOKEN } from '../helpers/fixtures.js';

const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A raw server: for each request, the interim lines, then the real answer, then close. */
async function rawServer(
  interim: string,
  answer: (request: string) => unknown,
): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      const req = buffer.slice(0, end + 4 + length);
      buffer = '';
      requests.push(req);
      const body = JSON.stringify(answer(req));
      socket.write(interim);
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

describe('an interim 100 Continue before the answer', () => {
  it.each<[string, string]>([
    ['100 Continue', CONTINUE],
    ['two of them', CONTINUE + CONTINUE],
    [
      '102 Processing and 103 Early Hints',
      'HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n',
    ],
  ])('%s: request() gives the final answer', async (_name, interim) => {
    const s = await rawServer(interim, () => ({ ok: true }));
    const agent = new Agent();
    for (const method of ['GET', 'POST'] as const) {
      const res = await request(`${s.url}/x`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
        dispatcher: agent,
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.toArray().then((c) => Buffer.concat(c).toString())).toBe('{"ok":true}');
    }
    await agent.close();
  });

  it('deposit get: exit 0 and the deposit, one request', async () => {
    const s = await rawServer(CONTINUE, () => getAnswer());
    const env = { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: s.url, LBRL_TOKEN: TOKEN };
    const r = await runCli(['deposit', 'get', ID, '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: ID, status: 'WAITING_PAYMENT' });
    expect(s.requests).toHaveLength(1);
  });

  it('deposit create: exit 0, one create sent, no "may exist" warning', async () => {
    const s = await rawServer(CONTINUE, (req) =>
      createAnswer(JSON.parse(req.slice(req.indexOf('\r\n\r\n') + 4))),
    );
    const env = { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: s.url, LBRL_TOKEN: TOKEN };
    const r = await runCli(['deposit', 'create', '--amount', '15', '--to', LQ, '--json'], { env });
    expect(r.stderr).not.toContain('may exist');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ amountInCents: 1500, status: 'WAITING_PAYMENT' });
    expect(s.requests).toHaveLength(1);
  });
});
