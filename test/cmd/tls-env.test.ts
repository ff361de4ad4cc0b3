/**
 * NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment turns certificate checks off for any Node
 * program that leaves them to it. lbrl never does: the service's client, the explorer's and the
 * webhook receivers' all check the certificate whatever the environment says; only
 * --insecure-skip-tls-verify skips it, and for the service alone (README). A server with a
 * self-signed certificate is the untrusted peer: it must get no request at all.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DepositClient } from '../../src/api/client.js';
import { EsploraClient } from '../../src/api/esplora.js';
import { webhookPoster } from '../../src/api/webhook-post.js';
import { startSelfSigned } from '../helpers/faulty.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';

const CLOCK = { now: Date.now, sleep: async () => {}, random: () => 0.5 };
const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of open) await server.close();
});
const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
beforeEach(() => {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
});
afterEach(() => {
  if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
});

describe('NODE_TLS_REJECT_UNAUTHORIZED=0 checks nothing less', () => {
  it('a webhook receiver with a self-signed certificate: the delivery fails, the receiver gets nothing', async () => {
    const server = await startSelfSigned({});
    open.push(server);
    const poster = webhookPoster({
      timeoutMs: 5000,
      connectTimeoutMs: 5000,
      now: Date.now,
      userAgent: 'test',
    });
    const outcome = await poster.post(`${server.url}/hooks`, { 'webhook-id': 'evt_x' }, '{}');
    await poster.close();
    expect(outcome.kind).toBe('failure');
    expect(server.hits).toBe(0);
  });

  it('the service: the token is never sent to a peer whose certificate is not trusted', async () => {
    const server = await startSelfSigned(getAnswer());
    open.push(server);
    const client = new DepositClient({
      ...CLOCK,
      baseUrl: server.url,
      token: TOKEN,
      maxRetries: 0,
      timeoutMs: 5000,
      connectTimeoutMs: 5000,
    });
    await expect(client.getDeposit(ID)).rejects.toThrow(/certificate .*could not be verified/);
    await client.close();
    expect(server.hits).toBe(0);
  });

  it('the explorer: no answer is read from an untrusted peer', async () => {
    const server = await startSelfSigned({});
    open.push(server);
    const client = new EsploraClient({
      ...CLOCK,
      baseUrl: server.url,
      maxRetries: 0,
      timeoutMs: 5000,
      connectTimeoutMs: 5000,
    });
    await expect(client.getTipHeight()).rejects.toThrow();
    await client.close();
    expect(server.hits).toBe(0);
  });
});
