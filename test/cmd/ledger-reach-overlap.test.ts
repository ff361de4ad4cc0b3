/**
 * While the server of a ledger in PostgreSQL authenticates a command (its process start, the
 * SCRAM exchange, the session's start: waits of several ms each), the command does what it will
 * need next instead of waiting idle (factory/ledger-link.ts reach): the copy's position is read
 * for the first query then, not after the server is ready. The connection is scripted here (the
 * link's open), held until the test lets it complete. That the spool's code loads in the same
 * wait is checked on a real server (test/e2e/ledger-postgres-connect.test.ts).
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

const URL_SHOWN = 'postgres://till:[redacted]@127.0.0.1:5432/ledger';
const IDENTITY = '16384.16412';

it("reads the copy's position while the connection is still being made, not once it is", async () => {
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
  const written = JSON.stringify({ identity: IDENTITY, seq: 7, bytes: 0 });
  fs.writeFileSync(position, written);
  fs.writeFileSync(path.join(copy, 'history.ndjson'), '');

  const { factory } = openRuntime(ctx, { json: true });
  const link = factory.ledger();
  let logFrom: LedgerOptions['logFrom'];
  let complete: ((ledger: Ledger) => void) | undefined;
  // the connection, scripted: made only when the test says so
  vi.spyOn(link, 'open').mockImplementation((_setting, given) => {
    logFrom = given;
    return new Promise<Ledger>((resolve) => {
      complete = resolve;
    });
  });
  const reached = link.reach();
  // the server is still authenticating: the copy's code is loaded meanwhile
  await vi.waitFor(() => expect(logFrom?.()).toBeDefined());
  // the position was read while waiting: the first query asks for the page after it, even if
  // the file is gone by the time the connection is made
  fs.renameSync(position, `${position}.aside`);
  expect(logFrom?.()).toEqual({ after: 7, limit: 5000 });
  fs.renameSync(`${position}.aside`, position);

  const ledger: Partial<Ledger> = {
    identity: async () => IDENTITY,
    logAfter: async () => [],
    close: async () => {},
  };
  complete?.(ledger as Ledger);
  await reached;
  expect(fs.readFileSync(position, 'utf8')).toBe(written);
});
