/**
 * What `deposit create` and `deposit get` do with an answer (a field missing from it, the QR code
 * drawn from its checked string), on narrow options against a scripted service; and a whole run
 * through the registry's one error handler (--json), which sends nothing. No server: the wire
 * (method, path, headers, base URLs) and the real client's reading of an answer are in
 * create-wire.test.ts, the rest of create's logic in create-in-process.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CreateRequest } from '../../src/api/models.js';
import { type CreateFlags, runCreate } from '../../src/commands/deposit-create.js';
import { type GetFlags, runGet } from '../../src/commands/deposit-get.js';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { brCode, createAnswer, getAnswer, ID, LQ } from '../helpers/fixtures.js';
import { createOptions, followInProcess } from '../helpers/follow-in-process.js';
import { noNetwork } from '../helpers/no-network.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { decodeTerminal } from '../helpers/qr.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';

/** deposit create on narrow options, against a service that answers each create with `answer`. */
async function create(flags: Partial<CreateFlags>, answer: (body: CreateRequest) => unknown) {
  const clock = steppingClock();
  const api = scriptedDepositApi({ create: answer, now: clock.now });
  const { term, records, deps } = followInProcess({ clock, api });
  const seen = await seenRun(term, () => runCreate(createOptions(deps, flags, api, SERVICE)));
  return { ...seen, api, records };
}

describe('deposit create', () => {
  // a whole run: the one error handler's JSON line, and nothing sent
  it('--json errors are one JSON line on stderr', async () => {
    const net = noNetwork();
    const r = await runCli(['deposit', 'create', '--amount', 'x', '--to', LQ, '--json'], {
      env: liveEnv(SERVICE),
      client: net.client,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        type: 'usage',
        message:
          'invalid --amount "x": expected an amount in reais with at most two decimals and no thousands separator, e.g. 1500 or 15,50',
        exitCode: 2,
      },
    });
    expect(net.requests()).toEqual([]);
  });
});

// the other rules an answer is checked by: test/cmd/create-in-process.test.ts
describe('money safety: the answer is checked against the request', () => {
  it('refuses an answer with a missing field (exit 1, the field named, nothing on stdout)', async () => {
    const r = await create({ amount: '1500', to: LQ }, (b) => ({ ...createAnswer(b), qrCode: undefined }));
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.type).toBe('contract');
    expect(r.error?.message).toContain('field qrCode');
    expect(r.stdout).toBe('');
    expect(r.records).toEqual([]);
    expect(r.api.creates()).toHaveLength(1);
  });
});

describe('the QR code in the terminal', () => {
  it('get --qr draws it in the dark style by default and prints the string', async () => {
    const term = plainTerminal();
    const api = scriptedDepositApi({ get: () => getAnswer() });
    const r = await seenRun(term, () =>
      runGet({
        idText: ID,
        flags: { qr: true } as GetFlags,
        printer: term.printer,
        json: false,
        quiet: false,
        qrStyleSetting: undefined,
        env: term.ctx.env,
        client: async () => ({ api, sandbox: false }),
        blindedFragment: async () => null,
        serviceUrl: () => undefined,
        expiredAt: () => undefined,
        afterExpiry: async () => {},
      }),
    );
    expect(r.error).toBeUndefined();
    expect(api.gets().map((call) => call.id)).toEqual([ID]);
    const qr = r.stdout
      .split('\n')
      .filter((l) => /^[█▀▄ ]+$/.test(l) && l.length > 20)
      .join('\n');
    expect(decodeTerminal(qr, 'dark')).toBe(brCode(150000));
    expect(r.stdout).toContain(`PIX copy-paste:\n${brCode(150000)}\n`);
  });
});
