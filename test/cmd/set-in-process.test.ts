/**
 * `config set`, `config unset` and `config set-blinding-key` as functions of narrow options
 * (runSetSetting, runUnsetSetting, runSetBlindingKey): the profile as plain data, a record of what
 * is written, stdin or a prompter, a printer on plain strings. No factory, no files. What a user
 * sees is asserted (stdout, stderr, the error) and what the profile holds after. The file itself
 * (its mode, atomic writes, damaged files) stays with test/cmd/auth-config.test.ts and files.test.ts.
 */
import { Readable } from 'node:stream';
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { describe, expect, it } from 'vitest';
import {
  type BlindingKeyOptions,
  runSetBlindingKey,
  runSetSetting,
  runUnsetSetting,
} from '../../src/commands/config.js';
import type { Context, Prompter } from '../../src/context.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import type { Profile } from '../../src/store/config.js';
import { EX, LQ, TEX } from '../helpers/fixtures.js';
import { passwordPrompter, plainTerminal, type SeenRun, seenRun } from '../helpers/plain-terminal.js';

const zkp = await loadZkp();

interface Seen extends SeenRun {
  /** the profile after the command (the same object when nothing was written) */
  profile: Profile;
  writes: number;
}

/** A profile kept in memory; every write is counted, and is a change of a copy (as the file is rewritten). */
function profileStore(start: Record<string, unknown>) {
  const store = { profile: structuredClone(start) as Profile, writes: 0 };
  return {
    store,
    profileForRepair: () => structuredClone(store.profile),
    updateProfile: async (change: (profile: Profile) => void) => {
      const next = structuredClone(store.profile);
      change(next);
      store.profile = next;
      store.writes += 1;
    },
  };
}

type ChangeSettingOptions = Parameters<typeof runSetSetting>[2];

/** Run a change of the profile kept in memory as `start`: what a user saw, the profile after and its writes. */
async function changed(
  start: Record<string, unknown>,
  work: (options: ChangeSettingOptions) => Promise<unknown>,
): Promise<Seen> {
  const term = plainTerminal();
  const { store, ...profile } = profileStore(start);
  const seen = await seenRun(term, () => work({ printer: term.printer, profileName: 'default', ...profile }));
  return { ...seen, profile: store.profile, writes: store.writes };
}

const set = (key: string, value: string, start: Record<string, unknown> = {}) =>
  changed(start, (options) => runSetSetting(key, value, options));
const unset = (key: string, start: Record<string, unknown>) =>
  changed(start, (options) => runUnsetSetting(key, options));

describe('config set on narrow options', () => {
  it('a value that keeps its rules is saved as checked; said on stderr, nothing on stdout', async () => {
    const r = await set('network', 'liquidtestnet');
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('network set to liquidtestnet (profile default)\n');
    expect(r.profile).toEqual({ network: 'liquidtestnet' });
    expect(r.writes).toBe(1);
  });

  it.each([
    ['esplora-url', 'http://example.com/api'],
    ['asset-id', 'xyz'],
    ['confirmations', '0'],
    ['verify', 'yes'],
    ['network', 'bitcoin'],
    ['split-fee', '150%'],
    ['expire-after', 'soon'],
    ['asset-precision', '9'],
  ])('%s %s is refused (exit 2), naming the key; nothing written', async (key, value) => {
    const r = await set(key, value, { network: 'liquid' });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain(`invalid value for ${key}`);
    expect(r.writes).toBe(0);
    expect(r.profile).toEqual({ network: 'liquid' });
  });

  it("an address is checked against the profile's network", async () => {
    const wrong = await set('default-address', LQ, { network: 'liquidtestnet' });
    expect(wrong.error?.exitCode).toBe(2);
    expect(wrong.error?.message).toContain('invalid value for default-address');
    expect(wrong.writes).toBe(0);
    const right = await set('default-address', TEX, { network: 'liquidtestnet' });
    expect(right.error).toBeUndefined();
    expect(right.profile).toEqual({ network: 'liquidtestnet', 'default-address': TEX });
    // no network saved: liquid, the default
    expect((await set('default-address', LQ)).profile).toEqual({ 'default-address': LQ });
  });

  it('changing the network warns of each saved address of the old one, and still changes it', async () => {
    const r = await set('network', 'liquidtestnet', { 'default-address': LQ, 'split-address': EX });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(
      `warning: default-address ${LQ} is not a liquidtestnet address; set it again\n` +
        `warning: split-address ${EX} is not a liquidtestnet address; set it again\n` +
        'network set to liquidtestnet (profile default)\n',
    );
    expect(r.profile.network).toBe('liquidtestnet');
  });

  it('repairs a damaged profile: a network that is not a string reads as the default', async () => {
    const r = await set('default-address', LQ, { network: 7, verify: true });
    expect(r.error).toBeUndefined();
    expect(r.profile).toEqual({ network: 7, verify: true, 'default-address': LQ });
  });

  it.each([
    ['token', 'lbrl auth login'],
    ['blinding-keys', 'lbrl config set-blinding-key'],
    ['blinding-key', 'lbrl config set-blinding-key'],
    ['colour', 'expected one of base-url, network'],
  ])('%s is not set here: exit 2, saying where it is set', async (key, said) => {
    const r = await set(key, 'aa'.repeat(32));
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain(said);
    expect(r.error?.message).not.toContain('aa'.repeat(32));
    expect(r.writes).toBe(0);
  });

  it('a password in a URL is never repeated in the refusal', async () => {
    const r = await set('esplora-url', 'https://alice:hunter2pass@example.com/api');
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('[redacted]@example.com');
    expect(r.error?.message).not.toContain('hunter2pass');
    expect(r.writes).toBe(0);
  });
});

describe('config unset on narrow options', () => {
  it('removes the setting, leaving the others; said on stderr', async () => {
    const r = await unset('split-fee', { 'split-fee': '1%', network: 'liquid' });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('split-fee unset (profile default)\n');
    expect(r.profile).toEqual({ network: 'liquid' });
  });

  it('removes a damaged setting and the webhook secret (made by listen, never set)', async () => {
    expect((await unset('verify', { verify: ['on'] })).profile).toEqual({});
    expect((await unset('webhook-secret', { 'webhook-secret': 5 })).profile).toEqual({});
  });

  it('the token and unknown keys are refused, nothing written', async () => {
    const token = await unset('token', { token: 'tok_secret_ABCDEFGHIJKLMNOP' });
    expect(token.error?.exitCode).toBe(2);
    expect(token.error?.message).toContain('lbrl auth login');
    const unknown = await unset('colour', {});
    expect(unknown.error?.message).toContain('unknown config key "colour"');
    expect(token.writes + unknown.writes).toBe(0);
  });
});

describe('config set-blinding-key on narrow options', () => {
  const KEY = '11'.repeat(32);
  /** a confidential elementsregtest address blinded to KEY's public key */
  const CONFIDENTIAL = (() => {
    const pub = zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(KEY, 'hex')), true)!;
    const words = [0, ...bech32.toWords(Uint8Array.from([...pub, ...Buffer.alloc(20, 0x22)]))];
    return blech32Encode('el', Uint8Array.from(words), 'blech32');
  })();

  async function setKey(
    flags: BlindingKeyOptions,
    o: {
      stdin?: string;
      start?: Record<string, unknown>;
      /** a terminal on stdin and stdout, and who answers its prompt */
      prompter?: Prompter;
      input?: boolean;
    } = {},
  ): Promise<Seen> {
    const term = plainTerminal();
    const { printer, ctx } = term;
    const stdin = Readable.from(o.stdin !== undefined ? [Buffer.from(o.stdin)] : []) as Readable & {
      isTTY?: boolean;
    };
    stdin.isTTY = o.prompter !== undefined;
    const context = {
      ...ctx,
      stdin,
      stdout: { ...ctx.stdout, isTTY: o.prompter !== undefined },
      ...(o.prompter ? { prompter: o.prompter } : {}),
    } as unknown as Context;
    const { store, ...profile } = profileStore(o.start ?? { network: 'elementsregtest' });
    const seen = await seenRun(term, () =>
      runSetBlindingKey({
        flags,
        printer,
        profileName: 'default',
        ctx: context,
        input: o.input,
        color: false,
        profile: profile.profileForRepair,
        ...profile,
      }),
    );
    return {
      ...seen,
      profile: store.profile,
      writes: store.writes,
    };
  }

  it('from stdin: stored, said without the key', async () => {
    const r = await setKey({}, { stdin: `slip77(${KEY})\n` });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(
      'blinding key set for the wallet (every address) (profile default); it is never printed\n',
    );
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.profile['blinding-keys']).toEqual([{ key: `slip77(${KEY})` }]);
  });

  it("with --address: only that address's own key, the good one kept when a wrong one is given", async () => {
    const good = await setKey({ address: CONFIDENTIAL }, { stdin: KEY });
    expect(good.error).toBeUndefined();
    expect(good.profile['blinding-keys']).toEqual([{ key: KEY, address: CONFIDENTIAL }]);
    const wrong = await setKey(
      { address: CONFIDENTIAL },
      { stdin: '22'.repeat(32), start: good.profile as unknown as Record<string, unknown> },
    );
    expect(wrong.error?.exitCode).toBe(2);
    expect(wrong.error?.message).toContain(
      `the blinding key given is not the blinding key of ${CONFIDENTIAL}`,
    );
    expect(wrong.error?.message).not.toContain('22'.repeat(32));
    expect(wrong.writes).toBe(0);
    const plain = await setKey({ address: 'ert1qu6ssk77c466kg3x9wd82dqkd9udddykyfykm9k' }, { stdin: KEY });
    expect(plain.error?.message).toContain('is not confidential');
  });

  it('a key where the address goes is refused without echoing it; so is an address of another network', async () => {
    for (const given of [KEY, `slip77(${KEY})`]) {
      const r = await setKey({ address: given }, { stdin: KEY });
      expect(r.error?.exitCode).toBe(2);
      expect(r.error?.message).toMatch(/^invalid --address: .*blinding key.*stdin/);
      expect(r.error?.message).not.toContain(KEY.slice(0, 8));
    }
    const { prompter, asked } = passwordPrompter(KEY);
    const other = await setKey({ address: CONFIDENTIAL }, { prompter, start: { network: 'liquid' } });
    expect(other.error?.message).toContain('invalid --address');
    expect(asked).toEqual([]);
    // at a terminal, the prompt does not echo; the key never shown
    const atPrompt = await setKey({ address: CONFIDENTIAL }, { prompter });
    expect(atPrompt.error).toBeUndefined();
    expect(asked).toEqual([`Blinding key for address ${CONFIDENTIAL}`]);
    expect(atPrompt.stdout + atPrompt.stderr).not.toContain(KEY);
    // --no-input: a clear refusal, nothing asked
    const refused = await setKey({}, { prompter, input: false });
    expect(refused.error?.message).toContain('no terminal to ask for the blinding key');
    expect(asked).toHaveLength(1);
  });

  it('a mistyped key: refused (exit 2) with the forms expected, the key not shown', async () => {
    const r = await setKey({}, { stdin: `slip77(${KEY.slice(0, 62)}zz)\n` });
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toContain('slip77(<master blinding key>) or a ct(slip77(...),...) descriptor');
    expect(r.error?.message).not.toContain(KEY.slice(0, 8));
    expect(r.writes).toBe(0);
  });

  it("--clear removes every key; with --address, only that address's (the wallet's stays)", async () => {
    const start = {
      network: 'elementsregtest',
      'blinding-keys': [
        { key: KEY },
        { key: KEY, address: CONFIDENTIAL },
        { key: '33'.repeat(32), address: 'el1other' },
      ],
    };
    const one = await setKey({ clear: true, address: CONFIDENTIAL }, { start });
    expect(one.error).toBeUndefined();
    expect(one.profile['blinding-keys']).toEqual([
      { key: KEY },
      { key: '33'.repeat(32), address: 'el1other' },
    ]);
    expect(one.stderr).toBe(`blinding keys of address ${CONFIDENTIAL} removed (profile default)\n`);
    const all = await setKey({ clear: true }, { start });
    expect(all.stderr).toBe('blinding keys of every address removed (profile default)\n');
    expect(all.profile).toEqual({ network: 'elementsregtest' });
  });
});
