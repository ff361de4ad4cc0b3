/**
 * `auth login`'s probe on the wire: the request the service sees (method, path, the token in its
 * header) and what the real HTTP client hands over of an answer, each against a local server. What
 * each answer means (refused, accepted, not the Deposit service, not an answer about the token) is
 * tested in process: test/cmd/auth-in-process.test.ts; the rest of auth and config, whole runs
 * without a server: test/cmd/auth-config.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { ID, TOKEN } from '../helpers/fixtures.js';
import { forTest, json, startServer } from '../helpers/server.js';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('auth login --with-token', () => {
  // on a server: the probe's method, path and Authorization header as the service receives them
  it('checks the token with a GET of a random id and saves it privately', async () => {
    const server = await forTest(
      startServer((_req, res) =>
        json(res, 404, { error: { code: 'not_found', message: 'no such deposit' } }),
      ),
    );
    const dir = path.join(tempDir(), 'cfg');
    const r = await runCli(['auth', 'login', '--base-url', server.url, '--with-token'], {
      env: { LBRL_CONFIG_DIR: dir },
      stdin: `${TOKEN}\n`,
    });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.method).toBe('GET');
    expect(server.requests[0]!.url).toMatch(/^\/v1\/api\/deposit\/[0-9a-f-]{36}$/);
    expect(server.requests[0]!.url).not.toContain(ID);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(server.requests[0]!.body).toBe('');
    expect(r.stderr).toContain(`Logged in to ${server.url} (profile default)`);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    const file = path.join(dir, 'config.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      profiles: { default: { 'base-url': server.url, token: TOKEN } },
    });
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('auth login against services that answer a made-up id differently', () => {
  // on a server: what the real client hands over of an answer (its status, content type, body)
  type Res = import('node:http').ServerResponse;
  const login = async (answer: (res: Res) => void, extra: string[] = []) => {
    const s = await startServer((_req, res) => answer(res));
    const d = path.join(tempDir(), 'cfg');
    const r = await runCli(['auth', 'login', '--base-url', s.url, '--with-token', ...extra], {
      env: { LBRL_CONFIG_DIR: d },
      stdin: TOKEN,
    });
    await s.close();
    const file = path.join(d, 'config.json');
    const saved = fs.existsSync(file)
      ? JSON.parse(fs.readFileSync(file, 'utf8')).profiles.default.token
      : null;
    return { ...r, saved, url: s.url };
  };

  const html = (status: number) => (res: Res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end('<html><body>Welcome</body></html>');
  };
  it.each([['an HTML page', html(200), '200 with content-type "text/html"']])(
    '%s is not the Deposit service: could not verify, nothing saved unless --no-verify',
    async (_n, answer, what) => {
      const r = await login(answer);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `error: could not verify the token: ${r.url} answered ${what}, not what the Deposit service answers to a token it accepts; nothing was saved\nhint: check the base URL; pass --no-verify to save the token without checking\n`,
      );
      expect(r.saved).toBe(null);
      const forced = await login(answer, ['--no-verify']);
      expect(forced.code).toBe(0);
      expect(forced.saved).toBe(TOKEN);
    },
  );

  it('a 5xx is not an answer about the token: nothing saved, exit 1', async () => {
    const r = await login((res) => json(res, 503, { message: 'down' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'could not verify the token: the service answered 503: down; nothing was saved',
    );
    expect(r.saved).toBe(null);
  });
});
