/**
 * What a get says of an answer's bytes, on the real DepositClient without a socket: a number the
 * schema refuses is quoted as the service wrote it (JSON.parse would round 9007199254740993 to
 * ...992), and a body that is not UTF-8 (UTF-16 with or without its BOM, Latin-1 named by its
 * content type) is said to be so, its charset named when the BOM or the header says it, its size
 * counted in bytes, never a garbled quote. What a user sees is asserted: stdout, stderr, exit code.
 */
import { describe, expect, it } from 'vitest';
import { DepositClient } from '../../src/api/client.js';
import { type GetFlags, runGet } from '../../src/commands/deposit-get.js';
import { answeringDispatcher, type WrittenReply } from '../helpers/answering-dispatcher.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { type Shown, shown } from '../helpers/shown.js';

async function get(reply: WrittenReply, json = false): Promise<Shown> {
  const { dispatcher } = answeringDispatcher(() => reply);
  const clock = steppingClock();
  const client = new DepositClient({
    baseUrl: 'https://pay.example.com',
    token: TOKEN,
    maxRetries: 0,
    sleep: clock.sleep,
    random: clock.random,
    now: clock.now,
    dispatcher,
    userAgent: 'lbrl',
  });
  const term = plainTerminal({ json });
  const seen = await seenRun(term, () =>
    runGet({
      idText: ID,
      flags: {} as GetFlags,
      json,
      quiet: false,
      qrStyleSetting: undefined,
      env: { TZ: 'UTC' },
      blindedFragment: async () => null,
      serviceUrl: () => undefined,
      expiredAt: () => undefined,
      afterExpiry: async () => {},
      printer: term.printer,
      client: async () => ({ api: client, sandbox: false }),
    }),
  );
  return shown(term, seen);
}

/** The answer with a field's value written as given (a literal JSON.parse cannot keep). */
function answerWith(field: string, literal: string): WrittenReply {
  const marker = '"__literal__"';
  const text = JSON.stringify({ ...getAnswer(), [field]: '__literal__' }).replace(marker, literal);
  return { status: 200, headers: { 'content-type': 'application/json' }, body: text };
}

describe('a number the schema refuses is quoted as the service wrote it', () => {
  it.each([
    ['amountInCents', '9007199254740993'],
    ['amountInCents', '-12345678901234567891'],
    ['amountInCents', '1500.0000000000000001e0'],
    ['splitPercent', '1e400'],
    ['createdAt', '12345678901234567.5'],
  ])('%s: %s', async (field, literal) => {
    const r = await get(answerWith(field, literal));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${field}: `);
    expect(r.stderr).toContain(`service answered ${literal}`);
  });
});
