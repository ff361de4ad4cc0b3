/**
 * What a command's ledger link (factory/ledger-link.ts) records about a deposit names the service it was learnt from: the sandbox and a
 * live service may hand out the same id, and a status of one must never move the other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import { openRuntime } from '../../src/factory/factory.js';
import { expiredRecord, statusRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const SERVICE = 'https://pay.example.com';
const ID = '00000000-0000-4000-8000-000000000003';

it("a status, verification or expiry a command records names the command's service; one naming its own is kept", () => {
  const dir = tempDir();
  const ctx = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: process.stdin,
    env: { LBRL_CONFIG_DIR: dir, LBRL_BASE_URL: SERVICE, LBRL_TOKEN: 'tok_test_1234567890' },
    homedir: os.tmpdir(),
    now: () => 0,
    sleep: async () => {},
    random: () => 0.5,
    signal: new AbortController().signal,
  } as Context;
  const { factory } = openRuntime(ctx, { json: true });
  factory
    .ledger()
    .record([
      statusRecord(ID, 'FINALIZED', 0),
      expiredRecord(ID, 0),
      { ...statusRecord(ID, 'FAILED', 0), baseUrl: 'sandbox' },
    ]);
  const written = fs
    .readFileSync(path.join(dir, 'history.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(written.map((r) => [r.type, r.baseUrl])).toEqual([
    ['status', SERVICE],
    ['expired', SERVICE],
    ['status', 'sandbox'],
  ]);
});
