/**
 * While the server of a ledger in PostgreSQL authenticates a command (its process start, the
 * SCRAM exchange, the session's start: waits of several ms each), the command does what it will
 * need next instead of waiting idle (factory/ledger-link.ts reach): the copy's code and the
 * spool's load, and the copy's position is read for the first query. The connection is scripted
 * here (store/ledger.js), held open until the test lets it complete.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it, vi } from 'vitest';
import type { Context } from '../../src/context.js';
import { openRuntime } from '../../src/factory/factory.js';
import { ledgerCopyDir } from '../../src/store/ledger-copy-dir.js';
import type { Ledger, LedgerOptions } from '../../src/store/ledger-port.js';
import { tempDir } from '../helpers/temp.js';

const held = vi.hoisted(() => ({
  spoolLoaded: false,
  options: undefined as LedgerOptions | undefined,
  complete: undefined as ((ledger: unknown) => void) | undefined,
}));

vi.mock('../../src/store/ledger.js', () => ({
  openLedger: (_setting: unknown, options: LedgerOptions) => {
    held.options = options;
    return new Promise((resolve) => {
      held.complete = resolve;
    });
  },
}));

vi.mock('../../src/store/ledger-spool.js', async (original) => {
  held.spoolLoaded = true;
  return original();
});

const URL_SHOWN = 'postgres://till:[redacted]@127.0.0.1:5432/ledger';
const IDENTITY = '16384.16412';

it('loads the copy and the spool and reads the copy position while the connection is still being made', async () => {
  const dir = tempDir();
  const ctx = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: process.stdin,
    env: {
      LBRL_CONFIG_DIR: dir,
      LBRL_BASE_URL: 'https://pay.example.com',
      LBRL_TOKEN: 'tok_test_1234567890',
      LBRL_LEDGER_URL: 'postgres://till:secret@127.0.0.1:5432/ledger',
    },
    homedir: os.tmpdir(),
    now: () => 0,
    sleep: async () => {},
    random: () => 0.5,
    signal: new AbortController().signal,
  } as Context;
  const copy = ledgerCopyDir(dir, URL_SHOWN);
  fs.mkdirSync(copy, { recursive: true, mode: 0o700 });
  const position = path.join(copy, 'position.json');
  fs.writeFileSync(position, JSON.stringify({ identity: IDENTITY, seq: 7, bytes: 0 }));
  fs.writeFileSync(path.join(copy, 'history.ndjson'), '');

  const { factory } = openRuntime(ctx, { json: true });
  const reached = factory.ledger().reach();
  // the server is still authenticating (the connection is not made until the test says so)
  await vi.waitFor(() => expect(held.spoolLoaded).toBe(true));
  expect(held.complete).toBeDefined();
  // the position was read while waiting: the first query asks for the page after it, even if
  // the file is gone by the time the connection is made
  fs.renameSync(position, `${position}.aside`);
  expect(held.options?.logFrom?.()).toEqual({ after: 7, limit: 5000 });
  fs.renameSync(`${position}.aside`, position);

  const ledger: Partial<Ledger> = {
    identity: async () => IDENTITY,
    logAfter: async () => [],
    close: async () => {},
  };
  held.complete?.(ledger);
  await reached;
  expect(fs.readFileSync(position, 'utf8')).toBe(JSON.stringify({ identity: IDENTITY, seq: 7, bytes: 0 }));
});
