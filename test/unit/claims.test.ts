/**
 * Claims on batch rows in one process, and the Idempotency-Key derived from a row. Across
 * processes (real runs, a kill -9): test/e2e/claims-processes.test.ts.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ClaimHolder,
  ResumableRows,
  RowClaim,
  RowClaims,
  rowIdempotencyKey,
  uuidV5,
} from '../../src/store/claims.js';
import { History } from '../../src/store/history.js';
import { tempDir } from '../helpers/temp.js';

describe('rowIdempotencyKey', () => {
  it('is a version 5 UUID as RFC 9562 computes it', () => {
    // the RFC's example: the DNS namespace and www.example.com
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('is the same for the same row, and differs with the profile, the service or the row', () => {
    const k = rowIdempotencyKey('default', 'https://pay.example.com', 'a'.repeat(64));
    expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rowIdempotencyKey('default', 'https://pay.example.com', 'a'.repeat(64))).toBe(k);
    const others = [
      rowIdempotencyKey('work', 'https://pay.example.com', 'a'.repeat(64)),
      rowIdempotencyKey('default', 'sandbox', 'a'.repeat(64)),
      rowIdempotencyKey('default', 'https://pay.example.com', 'b'.repeat(64)),
      // no joining of fields into the same name
      rowIdempotencyKey('default","https://pay.example.com', '', 'a'.repeat(64)),
    ];
    expect(new Set([k, ...others]).size).toBe(5);
  });
});

describe('RowClaims in one process', () => {
  it('a row is held once; released, it can be claimed again; other rows are free', () => {
    const claims = new RowClaims(tempDir());
    const a = claims.tryClaim('default', 'sandbox', 'row-1');
    expect(a).toBeInstanceOf(RowClaim);
    const again = claims.tryClaim('default', 'sandbox', 'row-1') as ClaimHolder;
    expect(again).toMatchObject({ pid: process.pid });
    expect(claims.tryClaim('default', 'sandbox', 'row-2')).toBeInstanceOf(RowClaim);
    expect(claims.tryClaim('work', 'sandbox', 'row-1')).toBeInstanceOf(RowClaim);
    (a as RowClaim).release();
    expect(claims.tryClaim('default', 'sandbox', 'row-1')).toBeInstanceOf(RowClaim);
    // the directory is lbrl's: 0700, and nothing but claims in it
    expect(fs.statSync(claims.dir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(claims.dir).every((f) => f.endsWith('.claim'))).toBe(true);
  });

  it('waiting: claim() returns once the holder releases, and gives up after a timeout if asked', async () => {
    const claims = new RowClaims(tempDir());
    const held = claims.tryClaim('p', 's', 'r') as RowClaim;
    let sleeps = 0;
    const got = await claims.claim('p', 's', 'r', {
      sleep: async () => {
        sleeps += 1;
        if (sleeps === 3) held.release();
      },
    });
    expect(got).toBeInstanceOf(RowClaim);
    expect(sleeps).toBe(3);
    let t = 0;
    await expect(
      claims.claim('p', 's', 'r', { sleep: async (ms) => void (t += ms), now: () => t, timeoutMs: 1000 }),
    ).rejects.toThrow(/held by another lbrl run \(pid \d+ on .*\) for longer than 1 s; if no such run/);
  });
});

describe('ResumableRows', () => {
  it('a row sent before without an answer is sent again with the key it was sent with', async () => {
    const dir = tempDir();
    const history = new History(dir);
    history.append([
      {
        v: 1,
        type: 'attempt',
        profile: 'default',
        baseUrl: 'sandbox',
        batchKey: 'row-0',
        idempotencyKey: 'key-of-an-earlier-run',
        at: '2026-11-22T10:00:00.000Z',
      },
    ]);
    const rows = new ResumableRows(history, new RowClaims(dir), 'default', 'sandbox', ['row-0', 'row-1']);
    const sleep = async () => {};
    const first = await rows.begin('row-0', { sleep });
    expect(first).toMatchObject({ idempotencyKey: 'key-of-an-earlier-run' });
    const second = await rows.begin('row-1', { sleep });
    expect(second).toMatchObject({ idempotencyKey: rowIdempotencyKey('default', 'sandbox', 'row-1') });
    // another run creates row-1 while this one holds row-0: seen as done once claimed
    (second as { claim: RowClaim }).claim.release();
    history.append([
      {
        v: 1,
        type: 'created',
        id: 'ABCDEF00-0000-4000-8000-000000000001',
        profile: 'default',
        baseUrl: 'sandbox',
        at: '2026-11-22T10:00:01.000Z',
        amountInCents: 1,
        destinationAddress: 'x',
        splitAddress: null,
        splitFee: null,
        status: 'WAITING_PAYMENT',
        batchKey: 'row-1',
      },
    ]);
    expect(await rows.begin('row-1', { sleep })).toEqual({
      done: { id: 'abcdef00-0000-4000-8000-000000000001', status: 'WAITING_PAYMENT' },
    });
    expect(new RowClaims(dir).tryClaim('default', 'sandbox', 'row-1')).toBeInstanceOf(RowClaim);
  });
});
