/**
 * A service on a local server whose create answers a deposit of 1500,00 to LQ and whose get answers
 * what `answer()` says now, with that deposit created through it (exit 0) in a fresh config
 * directory (with `more` in its environment): for tests of what `deposit get` makes of a deposit
 * the history holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { runCli, tempDir } from './cli.js';
import { createAnswer, LQ, TOKEN } from './fixtures.js';
import { json, startServer, type TestServer } from './server.js';

export async function createdThrough(
  answer: () => unknown,
  more: Record<string, string> = {},
): Promise<{
  server: TestServer;
  env: Record<string, string>;
  /** the history's lines as they are now */
  lines: () => string[];
}> {
  const server = await startServer((req, res) => {
    if (req.method === 'POST')
      return json(res, 200, createAnswer({ amountInCents: 150000, lbrlAddress: LQ }));
    return json(res, 200, answer());
  });
  const dir = tempDir();
  const env = { LBRL_CONFIG_DIR: dir, LBRL_BASE_URL: server.url, LBRL_TOKEN: TOKEN, NO_COLOR: '1', ...more };
  const created = await runCli(
    ['deposit', 'create', '--amount-cents', '150000', '--to', LQ, '--yes', '--no-qr'],
    {
      env,
    },
  );
  expect(created.code, created.stderr).toBe(0);
  const lines = () => fs.readFileSync(path.join(dir, 'history.ndjson'), 'utf8').trim().split('\n');
  return { server, env, lines };
}
