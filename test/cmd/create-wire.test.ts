/**
 * `deposit create` on the wire, against a local server: the request as the service receives it,
 * the path a base URL leads to, and what the real client makes of an answer it cannot read. What
 * the command does with answers is tested in process: create-in-process.test.ts, create.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { brCode, createAnswer, LQ, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;
let answer: (body: Record<string, unknown>) => unknown;

beforeEach(async () => {
  answer = (body) => createAnswer(body as never);
  server = await startServer((req, res) =>
    json(res, req.method === 'GET' ? 200 : 201, answer(req.body ? JSON.parse(req.body) : {})),
  );
  env = liveEnv(server.url);
});
afterEach(() => server.close());

describe('deposit create', () => {
  // on a server: the method, path, body and headers (the token, the Idempotency-Key) as sent
  it('sends the checked request with an Idempotency-Key and prints the deposit, QR and copy-paste string', async () => {
    const r = await runCli(['deposit', 'create', '--amount', '1500', '--to', LQ], { env });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/api/deposit');
    expect(JSON.parse(req.body)).toEqual({ amountInCents: 150000, lbrlAddress: LQ });
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stdout).toContain('Amount   R$ 1.500,00 (150000 cents)');
    expect(r.stdout).toContain('Fee      R$ 1.500,00'.replace('1.500,00', '15,00'));
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(150000)}\n`);
    expect(r.stdout).toContain('▄');
    // what to do next: the command that follows it
    expect(r.stderr).toBe(
      `follow it with: lbrl deposit watch ${createAnswer({ amountInCents: 150000, lbrlAddress: LQ }).id}\n`,
    );
  });
});

// the rules an answer is checked by, from the request to a number as written, are tested in
// process (test/cmd/create-in-process.test.ts, create.test.ts)
describe('money safety: the answer is checked against the request', () => {
  // on a server: the real client's reading of an accepted create it cannot read, and its Idempotency-Key
  it('an accepted create whose answer cannot be read says a deposit may exist', async () => {
    answer = () => ({ id: 'not-a-uuid' });
    const r = await runCli(['deposit', 'create', '--amount', '1500', '--to', LQ], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /The service accepted the create, so a deposit may exist \(Idempotency-Key [0-9a-f-]{36}\)/,
    );
  });
});

describe('base URLs', () => {
  // on a server: the path the request reaches, from a base URL with a prefix, a flag or the environment
  it('a path prefix is kept and /v1/api/deposit appended to it', async () => {
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], {
      env: { ...env, LBRL_BASE_URL: `${server.url}/pix/gateway/` },
    });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.url).toBe('/pix/gateway/v1/api/deposit');
  });

  it('--base-url beats LBRL_BASE_URL', async () => {
    const r = await runCli(
      ['deposit', 'create', '--amount', '1', '--to', LQ, '-q', '--base-url', `${server.url}/flag`],
      {
        env: { ...env, LBRL_BASE_URL: 'https://unused.example.com' },
      },
    );
    expect(r.code).toBe(0);
    expect(server.requests[0]!.url).toBe('/flag/v1/api/deposit');
  });
});
