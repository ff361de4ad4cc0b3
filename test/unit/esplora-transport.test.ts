/**
 * The explorer's client on a real local socket, for the members of two classes the Deposit
 * client's tests hold too (test/cmd/broken-answers.test.ts, test/cmd/kept-alive.test.ts): an answer
 * that breaks HTTP's framing or nests JSON past reading is the explorer breaking its API (type
 * contract, exit 1, not retried), never "could not reach"; a GET on a kept-alive connection the
 * explorer has just closed is sent again at once, with no back-off.
 */
import net, { type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { esploraClient } from '../helpers/esplora-client.js';
import { failure } from '../helpers/failure.js';
import { httpAnswer, startFaulty } from '../helpers/faulty.js';
import { forTest } from '../helpers/server.js';

const client = (url: string, sleeps: number[]) => esploraClient(url, sleeps);

describe('an explorer answer that breaks HTTP or JSON', () => {
  it.each([
    [
      'chunked garbage',
      'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n1\r\n0\r\n\r\n',
    ],
    ['a malformed status line', 'HTTP/1.1 2x0 OK\r\ncontent-length: 1\r\n\r\n1'],
  ])('%s: a contract error (exit 1), asked once', async (_name, text) => {
    const s = await forTest(startFaulty((socket) => socket.end(text)));
    const sleeps: number[] = [];
    const error = await failure(client(s.url, sleeps).getTipHeight());
    expect(error.message).toContain("the explorer's answer breaks HTTP/1.1 (");
    expect(error.message).not.toContain('could not reach');
    expect(error.exitCode).toBe(1);
    expect(s.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('JSON nested 10,000 deep: one line saying so, exit 1', async () => {
    const body = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const s = await forTest(startFaulty((socket) => socket.end(httpAnswer(200, body))));
    const error = await failure(client(s.url, []).getTxStatus('ab'.repeat(32)));
    expect(error.message).toMatch(/nests JSON deeper than 64 levels$/);
    expect(error.message).not.toContain('\n');
    expect(error.exitCode).toBe(1);
  });
});

describe('a kept-alive connection the explorer has just closed', () => {
  it.each(['fin', 'reset'] as const)(
    '(%s) the next GET is sent again at once, no back-off',
    async (closing) => {
      let requests = 0;
      const sockets = new Set<net.Socket>();
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => {});
        let onThis = 0;
        socket.on('data', (chunk) => {
          if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
          requests += 1;
          onThis += 1;
          if (onThis === 2) return void (closing === 'fin' ? socket.end() : socket.resetAndDestroy());
          socket.write(httpAnswer(200, '101', { 'content-type': 'text/plain' }));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      await forTest(
        Promise.resolve({
          close: () =>
            new Promise<void>((r) => {
              for (const s of sockets) s.destroy();
              server.close(() => r());
            }),
        }),
      );
      const sleeps: number[] = [];
      const explorer = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, sleeps);
      expect(await explorer.getTipHeight()).toBe(101);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await explorer.getTipHeight()).toBe(101);
      expect(sleeps).toEqual([]);
      expect(requests).toBe(3);
    },
  );
});
