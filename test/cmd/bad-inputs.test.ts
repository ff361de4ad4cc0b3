import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

interface Case {
  name: string;
  args: string[];
  names: string;
  /** where the exact wording matters: a part of the error line */
  message?: string;
  env?: Record<string, string>;
}

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../data/bad-inputs.json');
const { cases } = JSON.parse(fs.readFileSync(file, 'utf8')) as { cases: Case[] };

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 500, { message: 'no request should have been sent' }));
});
afterAll(() => server.close());

describe('the bad-input corpus', () => {
  it('has at least 100 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  it.each(cases.map((c) => [c.name, c] as const))(
    '%s: exit 2, one line naming it, nothing on stdout, nothing sent',
    async (_name, c) => {
      const before = server.requests.length;
      const env = {
        LBRL_CONFIG_DIR: tempDir(),
        LBRL_BASE_URL: server.url,
        LBRL_TOKEN: TOKEN,
        NO_COLOR: '1',
        ...c.env,
      };
      const r = await runCli(c.args, { env, stdin: '' });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: /);
      expect(lines[0]).toContain(c.names);
      if (c.message !== undefined) expect(lines[0]).toContain(c.message);
      expect(r.stderr).not.toContain(TOKEN);
      expect(server.requests.length).toBe(before);
    },
  );

  const long = 'q'.repeat(130_000);
  it.each([
    ['config get', ['config', 'get', long], 'config key'],
    ['config set', ['config', 'set', long, '1'], 'config key'],
    ['completion', ['completion', long], 'shell'],
    [
      'deposit verify --txid',
      ['deposit', 'verify', '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', '--txid', long],
      'txid',
    ],
  ])('a 130 KB value given to %s is shown shortened in its one line', async (_name, args, names) => {
    const r = await runCli(args, { env: { LBRL_CONFIG_DIR: tempDir(), NO_COLOR: '1' }, stdin: '' });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(names);
    expect(lines[0]!.length).toBeLessThan(600);
  });
});
