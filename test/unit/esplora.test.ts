import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EsploraClient, type EsploraOptions } from '../../src/api/esplora.js';
import { lookUpSettlement } from '../../src/deposits/chain-check.js';
import { EXIT, LbrlError } from '../../src/errors.js';
import { esploraClient } from '../helpers/esplora-client.js';
import { freePort, json, startServer, type TestServer } from '../helpers/server.js';

const TX_HEX = readFileSync(new URL('../fixtures/liquid/lwk-regtest-tx.hex', import.meta.url), 'utf8').trim();
const TXID = 'be88856513c6c0d2fb50cb905e229b3b89b93cddda40884b2dc73a26a1e80c2b';
const ASSET = '5ac9f65c0efcc4775e0baec4ec03abdde22473cd3cf33c0419ca290e0751b225';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sleeps: number[] = [];
function client(url: string, o: Partial<EsploraOptions> = {}) {
  sleeps.length = 0;
  return esploraClient(url, sleeps, o);
}

function text(res: import('node:http').ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
}

async function fails(p: Promise<unknown>): Promise<LbrlError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LbrlError) return e;
    throw e;
  }
  throw new Error('did not fail');
}

const status = { confirmed: true, block_height: 100, block_hash: 'ab'.repeat(32), block_time: 1 };

describe('EsploraClient', () => {
  it('looks a settlement up: status, tip height, raw transaction, on the documented paths', async () => {
    server = await startServer((req, res) => {
      if (req.url === `/api/tx/${TXID}/status`) return json(res, 200, status);
      if (req.url === '/api/blocks/tip/height') return text(res, 200, '101');
      if (req.url === `/api/tx/${TXID}/hex`) return text(res, 200, TX_HEX);
      text(res, 404, 'Not found');
    });
    const r = await lookUpSettlement(client(`${server.url}/api/`), TXID.toUpperCase());
    expect(r).toEqual({ found: true, hex: TX_HEX, status, tipHeight: 101 });
    expect(server.requests.map((q) => [q.method, q.url, q.headers.accept])).toEqual([
      ['GET', `/api/tx/${TXID}/status`, 'application/json'],
      ['GET', '/api/blocks/tip/height', 'text/plain'],
      ['GET', `/api/tx/${TXID}/hex`, 'text/plain'],
    ]);
  });

  it('a transaction the explorer does not know (404, plain text) is not found, not an error', async () => {
    server = await startServer((_req, res) => text(res, 404, 'Transaction not found'));
    const c = client(server.url);
    expect(await lookUpSettlement(c, TXID)).toEqual({ found: false });
    expect(await c.getTx(TXID)).toBeNull();
    expect(await c.getTxHex(TXID)).toBeNull();
    expect(await c.getAsset(ASSET)).toBeNull();
    expect(server.requests).toHaveLength(4);
  });

  it('reads the transaction JSON and the asset registry data, checked against the models', async () => {
    const tx = {
      txid: TXID,
      version: 2,
      locktime: 0,
      vin: [{}],
      vout: [
        {
          scriptpubkey: '0014aa',
          valuecommitment: `08${'11'.repeat(32)}`,
          assetcommitment: `0a${'22'.repeat(32)}`,
        },
        { scriptpubkey: '', value: 250, asset: ASSET },
      ],
      status,
    };
    const asset = {
      asset_id: ASSET,
      precision: 8,
      ticker: 'DePix',
      name: 'Decentralized Pix',
      entity: { domain: 'depix.info' },
    };
    server = await startServer((req, res) => json(res, 200, req.url?.startsWith('/tx/') ? tx : asset));
    const c = client(server.url);
    expect(await c.getTx(TXID)).toEqual(tx);
    expect(await c.getAsset(ASSET)).toEqual(asset);
  });

  it.each([
    [
      'a status that says confirmed without a height',
      `/tx/${TXID}/status`,
      { confirmed: true },
      /block_height/,
    ],
    ['a precision above 8', `/asset/${ASSET}`, { asset_id: ASSET, precision: 9 }, /precision/],
    ['another asset', `/asset/${ASSET}`, { asset_id: 'cd'.repeat(32) }, /answered with/],
    [
      'another transaction',
      `/tx/${TXID}`,
      { txid: 'cd'.repeat(32), version: 2, locktime: 0, vin: [], vout: [], status },
      /answered with/,
    ],
  ])('refuses %s (exit 1)', async (_, path, body, message) => {
    server = await startServer((_req, res) => json(res, 200, body));
    const c = client(server.url);
    const call = path.endsWith('/status')
      ? c.getTxStatus(TXID)
      : path.startsWith('/asset')
        ? c.getAsset(ASSET)
        : c.getTx(TXID);
    const e = await fails(call);
    expect(e.exitCode).toBe(EXIT.failure);
    expect(e.message).toMatch(message);
  });

  it('refuses a tip height or a raw transaction that is not what it should be', async () => {
    server = await startServer((req, res) => text(res, 200, req.url?.endsWith('hex') ? '<html>' : 'tip'));
    const c = client(server.url);
    expect((await fails(c.getTipHeight())).message).toBe('the explorer\'s tip height is not a number: "tip"');
    expect((await fails(c.getTxHex(TXID))).message).toBe(
      `the explorer's /tx/${TXID}/hex is not hex (6 bytes)`,
    );
  });

  it('refuses a bad txid before sending anything', async () => {
    server = await startServer((_req, res) => text(res, 200, ''));
    const e = await fails(client(server.url).getTxHex('abc'));
    expect([e.exitCode, e.message]).toEqual([
      EXIT.usage,
      'invalid transaction id "abc": expected 64 hex digits',
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('retries a 503 and a 429 with back-off, honouring Retry-After', async () => {
    server = await startServer((_req, res, n) => {
      if (n === 1) return text(res, 503, 'busy');
      if (n === 2) {
        res.writeHead(429, { 'retry-after': '7' });
        res.end('slow down');
        return;
      }
      text(res, 200, '42');
    });
    expect(await client(server.url).getTipHeight()).toBe(42);
    expect(sleeps).toEqual([375, 7000]);
  });

  it("gives up after the retries with the explorer's answer (exit 1)", async () => {
    server = await startServer((_req, res) => text(res, 502, 'Bad gateway'));
    const e = await fails(client(server.url, { maxRetries: 2 }).getTipHeight());
    expect([e.exitCode, e.message]).toEqual([
      EXIT.failure,
      `the explorer at ${server.url} answered 502: Bad gateway`,
    ]);
    expect(server.requests).toHaveLength(3);
  });

  it('does not follow a redirect', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(301, { location: 'https://elsewhere.invalid/' });
      res.end();
    });
    const e = await fails(client(server.url).getTipHeight());
    expect(e.message).toBe(
      'the explorer answered 301 redirecting to https://elsewhere.invalid/; redirects are not followed',
    );
  });

  it('an unreachable explorer is exit 6, after retries', async () => {
    const port = await freePort();
    const e = await fails(client(`http://127.0.0.1:${port}`, { maxRetries: 1 }).getTipHeight());
    expect(e.exitCode).toBe(EXIT.unreachable);
    expect(e.type).toBe('network');
    expect(e.message).toMatch(
      /^could not reach the explorer at http:\/\/127\.0\.0\.1:\d+: connection failed \(ECONNREFUSED\)$/,
    );
    expect(sleeps).toHaveLength(1);
  });

  it('a polluted Object.prototype changes no retry: its wait and status are none of an attempt', async () => {
    const port = await freePort();
    const prototype = Object.prototype as Record<string, unknown>;
    const retries: unknown[] = [];
    prototype.wait = 600_000;
    prototype.status = 503;
    try {
      const e = await fails(
        client(`http://127.0.0.1:${port}`, {
          maxRetries: 1,
          onRetry: (info) => retries.push(info),
        }).getTipHeight(),
      );
      expect(e.type).toBe('network');
    } finally {
      delete prototype.wait;
      delete prototype.status;
    }
    // the back-off of a refused connection, not the prototype's ten minutes
    expect(sleeps).toEqual([375]);
    expect(retries).toEqual([{ attempt: 1, delayMs: 375, reason: 'connection failed (ECONNREFUSED)' }]);
    expect(Object.hasOwn(retries[0] as object, 'status')).toBe(false);
  });

  it('an explorer that does not answer in time is exit 6', async () => {
    server = await startServer(() => new Promise(() => {}));
    const e = await fails(client(server.url, { timeoutMs: 200, maxRetries: 0 }).getTipHeight());
    expect([e.exitCode, e.type]).toEqual([EXIT.unreachable, 'timeout']);
  });

  it('a deadline stops the retries: no attempt starts after it and no sleep runs past it', async () => {
    server = await startServer((_req, res) => text(res, 503, 'busy'));
    let now = 0;
    const c = new EsploraClient({
      baseUrl: server.url,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      random: () => 0.5,
      now: () => now,
      maxRetries: 10,
    });
    sleeps.length = 0;
    c.deadline = 1200;
    const e = await fails(c.getTipHeight());
    expect(e.type).toBe('service');
    // 375 + 750 ms of back-off fit before 1200; the next (1500) would end past it
    expect(sleeps).toEqual([375, 750]);
    expect(server.requests).toHaveLength(3);
    await c.close();
  });

  it('an attempt that would outlast the deadline is cut at it, as a time-out', async () => {
    server = await startServer(() => new Promise(() => {}));
    const c = client(server.url, { timeoutMs: 30_000 });
    c.deadline = 150;
    const started = Date.now();
    const e = await fails(c.getTipHeight());
    expect(Date.now() - started).toBeLessThan(2000);
    expect([e.type, e.message]).toEqual([
      'timeout',
      `the explorer at ${server.url} did not answer before the time-out`,
    ]);
    await c.close();
  });
});
