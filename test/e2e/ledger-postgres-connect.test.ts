/**
 * What a command pays to reach a ledger in PostgreSQL (bench/ledger-postgres.mjs measures it):
 * the client loads without Node's own fetch implementation, and the start is as few round trips
 * as the protocol allows. Counted on the test run's real server, through the built program.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

vi.setConfig({ testTimeout: 60_000 });

/**
 * A preload that writes, as the process exits, the built-ins it loaded (internal ones too) and
 * whether it had a global `navigator` at its start and at its end.
 */
function preload(out: string): string {
  const file = path.join(tempDir(), 'preload.cjs');
  fs.writeFileSync(
    file,
    `const had = 'navigator' in globalThis;
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({
  modules: process.moduleLoadList, navigatorAtStart: had, navigatorAtEnd: 'navigator' in globalThis })));`,
  );
  return file;
}

interface Loaded {
  modules: string[];
  navigatorAtStart: boolean;
  navigatorAtEnd: boolean;
}

async function listLoading(env: Record<string, string>, extraPreload = ''): Promise<Loaded> {
  const out = path.join(tempDir(), 'loaded.json');
  const dir = tempDir();
  const r = await runBin(['deposit', 'list', '--json'], {
    HOME: dir,
    LBRL_CONFIG_DIR: dir,
    LBRL_BASE_URL: 'https://deposit.example.com',
    LBRL_TOKEN: 'test-token-0123456789abcdef',
    NODE_OPTIONS: `--require ${preload(out)}${extraPreload && ` --require ${extraPreload}`}`,
    ...env,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe('[]\n');
  return JSON.parse(fs.readFileSync(out, 'utf8')) as Loaded;
}

const FETCH = 'NativeModule internal/deps/undici/undici';

describe('connecting to the ledger in PostgreSQL', () => {
  it("loads the client without Node's fetch implementation, and leaves the globals as they were", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const loaded = await listLoading({ LBRL_LEDGER_URL: url });
    // the client was loaded and spoke to the server
    expect(loaded.modules).toContain('NativeModule net');
    expect(loaded.modules).toContain('NativeModule internal/crypto/pbkdf2');
    expect(loaded.modules).not.toContain(FETCH);
    expect(loaded.navigatorAtEnd).toBe(loaded.navigatorAtStart);
  });

  it('the check sees the fetch implementation when a run loads it', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    expect((await listLoading({ LBRL_LEDGER_URL: url }, fetchLoader())).modules).toContain(FETCH);
  });
});

/** A preload that touches `Response` (what pg's check for Cloudflare Workers does on Node 20). */
function fetchLoader(): string {
  const file = path.join(tempDir(), 'fetch.cjs');
  fs.writeFileSync(file, 'void typeof Response;');
  return file;
}
