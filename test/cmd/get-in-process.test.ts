/**
 * `deposit get` as a function of narrow options (runGet): a fake client, a printer on plain
 * strings, no server and no factory. What a user sees is asserted: stdout, stderr, the error.
 * The transport (sockets, time-outs, retries) is test/cmd/client-faults.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/api/client.js';
import type { GetResponse } from '../../src/api/models.js';
import { type GetCommandOptions, type GetFlags, runGet } from '../../src/commands/deposit-get.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { brCode, getAnswer, ID } from '../helpers/fixtures.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

interface Run {
  stdout: string;
  stderr: string;
  /** the ids the fake service was asked for */
  asked: string[];
}

function fakeApi(answer: Record<string, unknown>, asked: string[]): DepositApi {
  return {
    createDeposit: async () => {
      throw new Error('deposit get creates nothing');
    },
    getDeposit: async (id: string) => {
      asked.push(id);
      const text = JSON.stringify(answer);
      return { value: answer, raw: JSON.parse(text), text } as ApiResult<GetResponse>;
    },
  };
}

async function get(
  idText: string,
  answer: Record<string, unknown>,
  options: Partial<Omit<GetCommandOptions, 'printer' | 'client'>> & { sandbox?: boolean } = {},
): Promise<Run & { error?: LbrlError }> {
  const json = options.json ?? false;
  const quiet = options.quiet ?? false;
  const term = plainTerminal({ json, quiet });
  const asked: string[] = [];
  const run = (): Run => ({ stdout: term.stdout, stderr: term.stderr, asked });
  try {
    await runGet({
      idText,
      flags: {} as GetFlags,
      json,
      quiet,
      qrStyleSetting: undefined,
      env: { TZ: 'UTC' },
      blindedFragment: async () => null,
      ...options,
      serviceUrl: () => undefined,
      expiredAt: () => undefined,
      afterExpiry: async () => {},
      printer: term.printer,
      client: async () => ({ api: fakeApi(answer, asked), sandbox: options.sandbox ?? false }),
    });
    return run();
  } catch (error) {
    if (!(error instanceof LbrlError)) throw error;
    return { ...run(), error };
  }
}

describe('deposit get, in-process with a fake client', () => {
  it('--json prints the answer as the service wrote it, nothing on stderr', async () => {
    const answer = { ...getAnswer(), id: ID.toUpperCase(), extra: { kept: true } };
    const r = await get(ID, answer, { json: true });
    expect(r.error).toBeUndefined();
    expect(JSON.parse(r.stdout)).toEqual(answer);
    expect(r.stderr).toBe('');
    expect(r.asked).toEqual([ID]);
  });

  it('--quiet prints the status alone', async () => {
    const r = await get(ID, getAnswer({ status: 'PIX_CONFIRMED' }), { quiet: true });
    expect(r.stdout).toBe('PIX_CONFIRMED\n');
  });

  it('for a person: the deposit, its amount and its status', async () => {
    const r = await get(ID, getAnswer());
    expect(r.stdout).toContain(ID);
    expect(r.stdout).toContain('WAITING_PAYMENT');
    expect(r.stdout).toContain('1.500,00');
  });

  it('a bad id is refused before any request (exit 2)', async () => {
    const r = await get('not-an-id', getAnswer());
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('deposit id');
    expect(r.asked).toEqual([]);
  });

  it('an answer that lies is refused, exit 1, and says not to pay', async () => {
    const r = await get(ID, getAnswer({ netAmount: 0.01 }), { json: true });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain('netAmount');
    expect(r.error?.message).toContain('Do not pay');
    expect(r.stdout).toBe('');
  });

  it('a timestamp naming no real time (30 February, 31 April, hour 24, minute 60 of an offset) is refused, never rolled over', async () => {
    const created = getAnswer({ status: 'FINALIZED' });
    for (const [field, value] of [
      ['createdAt', '2026-02-30T10:00:00.000Z'],
      ['createdAt', '2025-02-29T10:00:00Z'],
      ['createdAt', '2026-04-31T10:00:00Z'],
      ['createdAt', '2026-11-21T24:00:00Z'],
      ['confirmedAt', '2026-11-22T10:05:00+03:60'],
    ] as const) {
      const answer =
        field === 'createdAt'
          ? getAnswer({ createdAt: value })
          : {
              ...created,
              settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
              confirmedAt: value,
            };
      const r = await get(ID, answer);
      expect(r.error?.exitCode, value).toBe(1);
      expect(r.error?.message).toContain(`${field}: expected`);
      expect(r.error?.message).toContain(value);
      expect(r.stdout).toBe('');
    }
    // a real leap day is a real time
    const leap = await get(ID, getAnswer({ createdAt: '2024-02-29T10:00:00Z' }));
    expect(leap.error).toBeUndefined();
    expect(leap.stdout).toContain('2024-02-29 10:00:00 +00:00');
  });

  it('a timestamp without its offset is refused in every time zone: it would name another moment in each', async () => {
    for (const TZ of ['UTC', 'America/Sao_Paulo', 'Asia/Tokyo'])
      for (const value of ['2026-11-22T10:00:00', '2026-11-22T10:00:00.000', '2026-11-22T10:00']) {
        const r = await get(ID, getAnswer({ createdAt: value }), { env: { TZ } });
        expect(r.error?.exitCode, `${value} in ${TZ}`).toBe(1);
        expect(r.error?.message).toContain(
          `createdAt: expected an ISO 8601 timestamp with its offset (Z or ±hh:mm), service answered ${value}.`,
        );
        expect(r.stdout).toBe('');
      }
    const offset = await get(ID, getAnswer({ createdAt: '2026-11-22T07:00:00-03:00' }), {
      env: { TZ: 'UTC' },
    });
    expect(offset.error).toBeUndefined();
    expect(offset.stdout).toContain('2026-11-22 10:00:00 +00:00');
  });

  it('a lowercase t and z (RFC 3339, 5.6) name the same instant as T and Z: read, and shown as that instant', async () => {
    const settled = (createdAt: string, confirmedAt: string) => ({
      ...getAnswer({ status: 'FINALIZED', createdAt }),
      settlement: { status: 'FINALIZED', liquidTxid: 'ab'.repeat(32) },
      confirmedAt,
    });
    const upper = await get(ID, settled('2026-11-22T07:00:00-03:00', '2026-11-22T10:05:30.250Z'), {
      env: { TZ: 'America/Sao_Paulo' },
    });
    expect(upper.error).toBeUndefined();
    for (const [createdAt, confirmedAt] of [
      ['2026-11-22t07:00:00-03:00', '2026-11-22t10:05:30.250z'],
      ['2026-11-22t10:00:00z', '2026-11-22T10:05:30.250z'],
      ['2026-11-22T10:00:00.000z', '2026-11-22t07:05:30.250-0300'],
      ['2026-11-22t10:00z', '2026-11-22t13:05:30.25+03:00'],
    ]) {
      const r = await get(ID, settled(createdAt!, confirmedAt!), { env: { TZ: 'America/Sao_Paulo' } });
      expect(r.error, `${createdAt} ${confirmedAt}`).toBeUndefined();
      expect(r.stdout, `${createdAt} ${confirmedAt}`).toBe(upper.stdout);
      expect(r.stdout).toContain('2026-11-22 07:00:00 -03:00');
      expect(r.stdout).toContain('2026-11-22 07:05:30 -03:00');
    }
  });

  it('a space for the T, and the forms Date.parse would guess at, are refused', async () => {
    for (const value of [
      '2026-11-22 10:00:00Z',
      '2026-11-22 10:00:00z',
      '2026-11-22t10:00:00',
      '2026-11-22T10:00:00 Z',
      '2026-11-22T10:00:00UTC',
      '2026-11-22T10:00:00GMT',
      '2026/11/22T10:00:00Z',
      '20261122T100000Z',
      'Sun, 22 Nov 2026 10:00:00 GMT',
      '2026-11-22T10:00:00+03',
      '2026-02-30t10:00:00z',
      '2026-11-22T10:00:00Zz',
      '2026-11-22T10:00:00\u00a0Z',
    ]) {
      const r = await get(ID, getAnswer({ createdAt: value }));
      expect(r.error?.exitCode, value).toBe(1);
      expect(r.error?.message, value).toContain('createdAt: expected an ISO 8601 timestamp with its offset');
      expect(r.stdout).toBe('');
    }
  });

  it('an answer about another deposit is refused, whatever client brought it', async () => {
    const other = '00000000-0000-4000-8000-000000000001';
    const r = await get(ID, getAnswer({ id: other }), { json: true });
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain(
      `id: expected ${ID}, the deposit asked for, service answered ${other}`,
    );
    expect(r.stdout).toBe('');
  });

  it('--qr of a final deposit warns on stderr, and still shows the code', async () => {
    const finalized = getAnswer({ status: 'FAILED' });
    const r = await get(ID, finalized, { flags: { qr: true } as GetFlags });
    expect(r.stderr).toContain(`warning: deposit ${ID} is FAILED: do not pay its QR code`);
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(150000)}\n`);
  });
});

describe('deposit get: the reference and note lbrl keeps', () => {
  const ID2 = '00000000-0000-4000-8000-000000000002';
  const refs: Record<string, string[]> = { 'pedido 7': [ID], 'mesa 2': [ID, ID2] };
  const withLedger = {
    localOf: (id: string) => (id === ID ? { ref: 'pedido 7', note: 'cliente \u001b[31mvip' } : {}),
    idsWithRef: (ref: string, limit: number) => (refs[ref] ?? []).slice(0, limit),
  };

  it('shows them as text (a hand-edited escape shown as an escape)', async () => {
    const r = await get(ID, getAnswer(), withLedger);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain(`Ref      pedido 7\nNote     cliente \\x1b[31mvip\n`);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('--json: the answer with ref and note added', async () => {
    const r = await get(ID, getAnswer(), { ...withLedger, json: true });
    const printed = JSON.parse(r.stdout);
    expect(printed).toEqual({ ...getAnswer(), ref: 'pedido 7', note: 'cliente \u001b[31mvip' });
    // the terminal never sees the escape raw
    expect(r.stdout).not.toContain('\u001b');
  });

  it("an answer with a ref field of its own is not checked against the ledger's: no error, the ledger's shown", async () => {
    const r = await get(
      ID,
      { ...getAnswer(), ref: 'the service says otherwise' },
      { ...withLedger, json: true },
    );
    expect(r.error).toBeUndefined();
    expect(JSON.parse(r.stdout).ref).toBe('pedido 7');
  });

  it('--ref finds the one deposit with that reference and asks the service for it', async () => {
    const r = await get(undefined as unknown as string, getAnswer(), {
      ...withLedger,
      flags: { ref: ' pedido 7 ' },
    });
    expect(r.error).toBeUndefined();
    expect(r.asked).toEqual([ID]);
    expect(r.stdout).toContain('Ref      pedido 7');
  });

  it('--ref with no such deposit: exit 4, nothing asked', async () => {
    const r = await get(undefined as unknown as string, getAnswer(), {
      ...withLedger,
      flags: { ref: 'nada' },
    });
    expect(r.error?.exitCode).toBe(4);
    expect(r.error?.message).toBe(`no deposit with reference "nada" in this profile's ledger`);
    expect(r.asked).toEqual([]);
  });

  it('--ref matching several: exit 2 naming them, nothing asked', async () => {
    const r = await get(undefined as unknown as string, getAnswer(), {
      ...withLedger,
      flags: { ref: 'mesa 2' },
    });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toBe(
      `2 deposits have reference "mesa 2" (${ID}, ${ID2}): give the one you mean by its id (lbrl deposit list --ref 'mesa 2' lists them)`,
    );
    expect(r.asked).toEqual([]);
  });

  it('an id and --ref together, or neither, or a --ref with a control character: exit 2', async () => {
    const both = await get(ID, getAnswer(), { ...withLedger, flags: { ref: 'pedido 7' } });
    expect(both.error?.exitCode).toBe(2);
    expect(both.error?.message).toBe('give a deposit id or --ref, not both');
    const neither = await get(undefined as unknown as string, getAnswer(), withLedger);
    expect(neither.error?.exitCode).toBe(2);
    const control = await get(undefined as unknown as string, getAnswer(), {
      ...withLedger,
      flags: { ref: 'a\tb' },
    });
    expect(control.error?.message).toContain('invalid --ref "a\\tb"');
    expect([both, neither, control].flatMap((x) => x.asked)).toEqual([]);
  });
});
