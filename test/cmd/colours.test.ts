/**
 * Colours that read on a light terminal as on a dark one: no yellow, cyan or bright colours
 * (SGR 33, 36, 90-97), which vanish on white; statuses, warnings and notes in bold, green, red
 * or magenta. The commands run on narrow options in process, on a terminal in colour, against a
 * scripted sandbox service: no server.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLogout } from '../../src/commands/auth.js';
import { runCreate } from '../../src/commands/deposit-create.js';
import { type GetFlags, runGet } from '../../src/commands/deposit-get.js';
import { ConfigStore } from '../../src/store/config.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/cli.js';
import { colourTerminal } from '../helpers/colour-terminal.js';
import { createAnswer, getAnswer, LQ } from '../helpers/fixtures.js';
import { createOptions } from '../helpers/follow-in-process.js';
import { seenRun, steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const UNREADABLE_ON_WHITE = /\u001b\[(?:[0-9;]*;)?(33|36|9[0-7])m/;
const FLOW = ['WAITING_PAYMENT', 'PIX_CONFIRMED', 'SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'];
const TXID = 'ab'.repeat(32);

/** The sandbox's answer about the deposit created for R$ 15 at a status of its flow. */
function at(status: string) {
  const settled = ['SETTLEMENT_CREATED', 'TX_SENT', 'FINALIZED'].includes(status);
  const sent = status === 'TX_SENT' || status === 'FINALIZED';
  return getAnswer({
    ...createAnswer({ amountInCents: 1500, lbrlAddress: LQ }),
    qrCode: undefined,
    status,
    settlement: settled ? { status, ...(sent ? { liquidTxid: TXID } : {}) } : null,
    confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-22T10:00:05.000Z',
  });
}

describe('colours on any background', () => {
  it('create --watch to FINALIZED, get, and a warning: none in yellow, cyan or a bright colour', async () => {
    const clock = steppingClock(Date.parse('2026-11-22T10:00:00Z'));
    // one status further at each poll, as the sandbox's autopay moves it
    const api = scriptedDepositApi({
      now: clock.now,
      get: (_id, n) => at(FLOW[Math.min(n - 1, FLOW.length - 1)]!),
    });
    const records: StoredRecord[] = [];
    const term = colourTerminal({ now: clock.now });
    const created = await seenRun(term, () =>
      runCreate(
        createOptions(
          {
            printer: term.printer,
            ctx: term.ctx,
            globals: {},
            renderMode: () => ({ sandbox: true }),
            watchClient: async () => api,
            clock,
            recorder: { record: (r) => records.push(...r) },
          },
          { amount: '15', to: LQ, yes: true, qr: false, watch: true },
          api,
          'sandbox',
        ),
      ),
    );
    expect(created.error).toBeUndefined();
    expect(records.map((r) => (r as { status?: string }).status).at(-1)).toBe('FINALIZED');
    const all = created.stdout + created.stderr;
    // colour is on: the statuses are drawn in it
    expect(all).toMatch(/\u001b\[1mWAITING_PAYMENT/);
    expect(all).toMatch(/\u001b\[32mFINALIZED/);
    expect(all).toMatch(/\u001b\[35mSETTLEMENT_CREATED/);
    expect(all).not.toMatch(UNREADABLE_ON_WHITE);
    const id = /[0-9a-f-]{36}/.exec(created.stdout)![0];

    const getTerm = colourTerminal();
    const got = await seenRun(getTerm, () =>
      runGet({
        idText: id,
        flags: {} as GetFlags,
        printer: getTerm.printer,
        json: false,
        quiet: false,
        qrStyleSetting: undefined,
        env: getTerm.ctx.env,
        client: async () => ({ api: scriptedDepositApi({ get: () => at('FINALIZED') }), sandbox: true }),
        blindedFragment: async () => null,
        serviceUrl: () => undefined,
        expiredAt: () => undefined,
        afterExpiry: async () => {},
      }),
    );
    expect(got.error).toBeUndefined();
    expect(got.stdout).toMatch(/\u001b\[32mFINALIZED/);
    expect(got.stdout + got.stderr).not.toMatch(UNREADABLE_ON_WHITE);

    const warnedTerm = colourTerminal({ env: { LBRL_TOKEN: 'tok_env_abcdefghijklmnop' } });
    const store = new ConfigStore(path.join(tempDir(), 'cfg'));
    const warned = await seenRun(warnedTerm, () =>
      runLogout({
        printer: warnedTerm.printer,
        ctx: warnedTerm.ctx,
        profileName: 'default',
        configFile: store.file,
        damagedProfile: () => store.damagedProfile('default'),
        removeDamagedProfile: () => store.removeDamagedProfile('default'),
        savedToken: () => store.rawProfile('default').token,
        updateProfile: (change) => store.updateProfile('default', change),
      }),
    );
    expect(warned.stderr).toContain('LBRL_TOKEN is still set');
    // the warning is drawn in colour, and in none that vanishes on white
    expect(warned.stderr).toMatch(/\u001b\[[0-9;]*mwarning: LBRL_TOKEN is still set/);
    expect(warned.stderr).not.toMatch(UNREADABLE_ON_WHITE);
  });
});
