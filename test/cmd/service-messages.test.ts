/**
 * Failures of reaching the service, named for what they are: plain HTTP behind https://, an
 * unknown host, nothing listening, a base URL with the API path in it. Each through the CLI, as a
 * user sees it. A URL that is not the Deposit service (its 404, an HTML page, a proxy's page) is
 * what the client makes of an answer: test/cmd/service-messages-in-process.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { classify, type RequestFacts, type Seen } from '../../src/api/classify.js';
import { answeringDispatcher, jsonReply } from '../helpers/answering-dispatcher.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { ID } from '../helpers/fixtures.js';
import { forTest, freePort, json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const NO_RETRY = { client: { maxRetries: 0 } };

// the wire: a TLS handshake answered in plain HTTP, a port nobody listens on, and a whole run
// (the base URL read from the environment, the one error handler, the exit code)
describe('reaching the service', () => {
  it('https:// to a server that speaks plain HTTP is named, not called a certificate problem', async () => {
    server = await forTest(startServer((_req, res) => json(res, 200, {})));
    const url = server.url.replace('http://', 'https://');
    const r = await runCli(['deposit', 'get', ID], { env: liveEnv(url), ...NO_RETRY });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('answered in plain HTTP to an https:// request');
    expect(r.stderr).toContain('this is not a certificate problem');
    expect(r.stderr).not.toContain('certificate of');
    expect(server.requests).toHaveLength(0);
  });

  it('nothing listening: the host and port, connection refused', async () => {
    const port = await freePort();
    const r = await runCli(['deposit', 'get', ID], { env: liveEnv(`http://127.0.0.1:${port}`), ...NO_RETRY });
    expect(r.code).toBe(6);
    expect(r.stderr.trim()).toBe(
      `error: could not reach the service at http://127.0.0.1:${port}: nothing is listening at 127.0.0.1:${port} (connection refused): is the service running, and is the port right?`,
    );
  });

  it('a base URL that already holds /v1/api... is refused before anything is sent, with the fix', async () => {
    // every request the client would send goes to this dispatcher, which answers 500 and records it
    const wire = answeringDispatcher(() => jsonReply(500, {}));
    const base = 'http://127.0.0.1:9';
    for (const tail of [
      '/v1/api',
      '/v1/api/deposit',
      '/v1/api/deposit/',
      `/v1/api/deposit/${ID}`,
      '/V1/API/Deposits',
    ]) {
      const r = await runCli(['deposit', 'get', ID], {
        env: liveEnv(`${base}/prefix${tail}`),
        client: { dispatcher: wire.dispatcher },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`expected the base URL without `);
      expect(r.stderr).toContain(`: ${base}/prefix (lbrl adds /v1/api/deposit itself)`);
    }
    const set = await runCli(['config', 'set', 'base-url', 'https://pay.example.com/v1/api/deposit'], {
      env: { LBRL_CONFIG_DIR: tempDir() },
      client: { dispatcher: wire.dispatcher },
    });
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('expected the base URL without /v1/api/deposit: https://pay.example.com');
    expect(wire.calls).toHaveLength(0);
  });
});

describe('classify names each connection failure', () => {
  const GET: RequestFacts = {
    method: 'GET',
    baseUrl: 'https://pay.example.com',
    host: 'pay.example.com',
    timeoutMs: 30_000,
    maxRetryAfterMs: 60_000,
    depositId: ID,
  };
  const fail = (code: string, message = code, facts = GET): string => {
    const seen: Seen = { kind: 'error', code, message, sent: false };
    const v = classify(facts, seen, 0);
    return v.ok ? 'ok' : v.error.message;
  };
  it.each([
    ['ENOTFOUND', 'could not find the host pay.example.com (DNS: no such name; ENOTFOUND)'],
    ['EAI_AGAIN', 'could not look up the host pay.example.com (DNS did not answer'],
    ['ECONNREFUSED', 'nothing is listening at pay.example.com:443 (connection refused)'],
    ['EHOSTUNREACH', 'no route to pay.example.com (EHOSTUNREACH)'],
    ['ENETUNREACH', 'no route to pay.example.com (ENETUNREACH)'],
    ['UND_ERR_CONNECT_TIMEOUT', 'could not connect to pay.example.com:443 in time'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'pay.example.com answered in plain HTTP to an https:// request'],
    [
      'EPROTO',
      'pay.example.com answered in plain HTTP',
      'write EPROTO ... SSL routines:ssl3_get_record:wrong version number',
    ],
    ['ERR_SSL_HTTP_REQUEST', 'answered in plain HTTP'],
    ['CERT_HAS_EXPIRED', 'could not be verified (CERT_HAS_EXPIRED): it has expired; nothing was sent'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'could not be verified (DEPTH_ZERO_SELF_SIGNED_CERT): it is self-signed'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'is for another host name than pay.example.com'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'comes from an authority this machine does not trust'],
  ])('%s', (code, expected, message?: string) => {
    expect(fail(code, message)).toContain(expected);
  });

  it('a host on another port names its port', () => {
    const facts = { ...GET, baseUrl: 'http://localhost:8080', host: 'localhost:8080' };
    expect(fail('ECONNREFUSED', 'x', facts)).toContain('nothing is listening at localhost:8080');
  });
});
