/**
 * Answers that reached lbrl but break the contract at the level of HTTP itself (a malformed status
 * line, chunked encoding that is garbage, a body that does not match its Content-Length), or JSON
 * built to break a reader (nested thousands deep). The service was reached: each is exit 1, one
 * line, no stack, not "could not reach the service"; a create still says a deposit may exist.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { httpAnswer, startFaulty } from '../helpers/faulty.js';
import { ID, LQ } from '../helpers/fixtures.js';
import { forTest } from '../helpers/server.js';

const GET = ['deposit', 'get', ID];
const CREATE = ['deposit', 'create', '--amount', '1500', '--to', LQ, '--yes'];
const fast = { timeoutMs: 2000, connectTimeoutMs: 2000 };

/** The error line: one line, no stack. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines.find((l) => l.startsWith('error:'))!;
}

const BROKEN: [string, string, string][] = [
  [
    'chunked encoding that is garbage',
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    'Invalid character in chunk size',
  ],
  ['a malformed status line', 'HTTP/1.1 2x0 OK\r\ncontent-length: 2\r\n\r\n{}', 'Invalid status code'],
  ['not HTTP at all', 'SSH-2.0-OpenSSH_9.6\r\n\r\n', 'Expected HTTP/'],
  [
    'two Content-Lengths that disagree',
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 10\r\ncontent-length: 12\r\n\r\n{}',
    'its body does not match its Content-Length',
  ],
  [
    'a header with a bare control character',
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-a\u0001b: 1\r\ncontent-length: 2\r\n\r\n{}',
    'Invalid header',
  ],
];

async function brokenService(text: string) {
  return forTest(startFaulty((socket) => socket.end(text)));
}

describe('an answer that breaks HTTP framing', () => {
  it.each(BROKEN)(
    'a get answered with %s: exit 1, not "could not reach", not retried',
    async (_name, text, said) => {
      const s = await brokenService(text);
      const r = await runCli(GET, { env: liveEnv(s.url), client: fast });
      const line = oneLine(r.stderr);
      expect(line).toContain("error: the service's answer breaks HTTP/1.1 (");
      expect(line).toContain(said);
      expect(line).not.toContain('could not reach');
      expect(r.stdout).toBe('');
      expect(r.code).toBe(1);
      expect(s.requests).toHaveLength(1);
      expect(r.sleeps).toEqual([]);
    },
  );

  it.each(BROKEN)(
    'a create answered with %s: exit 1, a deposit may exist, sent once',
    async (_name, text) => {
      const s = await brokenService(text);
      const r = await runCli(CREATE, { env: liveEnv(s.url), client: fast });
      const line = oneLine(r.stderr);
      const key = /idempotency-key: (\S+)/i.exec(s.requests[0]!)![1]!;
      expect(line).toContain("the service's answer breaks HTTP/1.1 (");
      expect(line).toContain(`a deposit may exist (Idempotency-Key ${key})`);
      expect(r.code).toBe(1);
      expect(s.requests).toHaveLength(1);
    },
  );

  it('--json: the error is one JSON line of type contract, exit code 1', async () => {
    const s = await brokenService(BROKEN[0]![1]);
    const r = await runCli([...GET, '--json'], { env: liveEnv(s.url), client: fast });
    const error = JSON.parse(r.stderr.trim()).error;
    expect(error.type).toBe('contract');
    expect(error.exitCode).toBe(1);
    expect(r.code).toBe(1);
  });
});

describe('JSON nested to break a reader', () => {
  const nested = (depth: number, open: string, close: string) =>
    `${open.repeat(depth)}${close.repeat(depth)}`;

  it.each([
    ['arrays 10,000 deep', nested(10_000, '[', ']')],
    ['objects 10,000 deep', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
    ['a deposit whose field is nested 100,000 deep', `{"id":"${ID}","x":${nested(100_000, '[', ']')}}`],
  ])('%s: one line saying how deep, exit 1', async (_name, body) => {
    const s = await brokenService(httpAnswer(200, body));
    const r = await runCli(GET, { env: liveEnv(s.url), client: fast });
    const line = oneLine(r.stderr);
    expect(line).toMatch(
      /^error: the service's answer nests JSON deeper than 64 levels \(\d+ bytes\)(\. Do not pay this charge or trust its status)?$/,
    );
    expect(r.code).toBe(1);
  });

  it('a create answered so: exit 1, and a deposit may exist', async () => {
    const s = await brokenService(httpAnswer(201, nested(10_000, '[', ']')));
    const r = await runCli(CREATE, { env: liveEnv(s.url), client: fast });
    const line = oneLine(r.stderr);
    expect(line).toContain("the service's answer nests JSON deeper than 64 levels");
    expect(line).toContain('a deposit may exist (Idempotency-Key ');
    expect(r.code).toBe(1);
  });

  it('an error answer nested so still ends in one line with its status', async () => {
    const s = await brokenService(httpAnswer(400, nested(10_000, '[', ']')));
    const r = await runCli(GET, { env: liveEnv(s.url), client: fast });
    oneLine(r.stderr);
    expect(r.code).toBe(2);
  });
});
