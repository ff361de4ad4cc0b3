/**
 * `lbrl display` as a function of narrow options (runDisplay): a printer on plain strings, a
 * clock that only sleeping moves (Ctrl-C after a few of its sleeps), settings as plain values, a
 * scripted service and a config directory in a temporary directory. The page is served on a
 * loopback port, as the command serves it. What a user sees is asserted: stdout (the URL, then its
 * QR code), stderr, the error and its exit code, the display's record written. What a browser and
 * deposit create --display make of it stays in test/e2e/display.test.ts and display-browser.test.ts.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type DisplayCommandOptions,
  rulesReader,
  runDisplay,
  SETTINGS_POLL_MS,
} from '../../src/commands/display.js';
import type { Target } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { type ConfigKey, DEFAULTS } from '../../src/store/config.js';
import { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/cli.js';
import { TOKEN } from '../helpers/fixtures.js';
import { plainTerminal, steppingClock } from '../helpers/plain-terminal.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';

const SERVICE = 'https://pay.example.com';
const START = Date.parse('2026-11-22T10:00:00Z');
const LIVE: Target = {
  mode: 'live',
  baseUrl: SERVICE,
  token: TOKEN,
  baseUrlFrom: '--base-url',
  tokenFrom: 'LBRL_TOKEN',
};

async function display(
  flags: DisplayCommandOptions['flags'],
  o: {
    dir?: string;
    settings?: Partial<Record<ConfigKey, string>>;
    json?: boolean;
    quiet?: boolean;
    target?: Target;
  } = {},
) {
  const dir = o.dir ?? path.join(tempDir(), 'cfg');
  const controller = new AbortController();
  const clock = steppingClock(START, {
    signal: controller.signal,
    onSleep: (_ms, c) => {
      if (c.sleeps.length >= 3) controller.abort();
    },
  });
  const term = plainTerminal({ json: o.json, quiet: o.quiet, now: clock.now });
  const api = scriptedDepositApi({ now: clock.now });
  const records: StoredRecord[] = [];
  const asked = { client: 0, verifying: [] as Array<boolean | undefined> };
  let error: unknown;
  try {
    await runDisplay({
      flags,
      printer: term.printer,
      json: o.json ?? false,
      quiet: o.quiet ?? false,
      // as the factory reads them: the profile's value, else the default
      config: {
        setting: (key) => o.settings?.[key] ?? (DEFAULTS as Partial<Record<ConfigKey, string>>)[key],
      },
      target: () => o.target ?? LIVE,
      verifying: async (plan, verify) => {
        asked.verifying.push(verify);
        return plan;
      },
      profileName: 'default',
      configDir: dir,
      client: async () => {
        asked.client++;
        return api;
      },
      history: () => new History(dir, () => {}),
      scope: (target) => ({
        profile: 'default',
        target: target.mode === 'live' ? target.baseUrl : 'sandbox',
      }),
      recorder: { record: (r) => records.push(...r) },
      clock,
    });
  } catch (e) {
    error = e;
    if (e instanceof LbrlError) term.printer.error(e);
  }
  const code = error === undefined ? 0 : error instanceof LbrlError ? error.exitCode : -1;
  const file = path.join(dir, 'display', 'default.json');
  const record = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
  return { stdout: term.stdout, stderr: term.stderr, error, code, dir, file, record, asked };
}

const URL_LINE = /^http:\/\/127\.0\.0\.1:(\d+)\/\?k=([A-Za-z0-9_-]{16,64})$/;

describe('display, in process', () => {
  it('prints its URL with its key, then its QR code; keeps its record; serves until Ctrl-C (130), then closes', async () => {
    const r = await display({}, { settings: { 'shop-name': 'Padaria Central' } });
    expect(r.code).toBe(130);
    const lines = r.stdout.split('\n');
    const m = URL_LINE.exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    expect(lines[1]).toBe('');
    expect(lines.slice(2).join('\n')).toMatch(/[█▀▄]/);
    expect(r.stderr).toContain(
      "only this machine can open it; for a tablet on the shop's network, start it with --host 0.0.0.0\n",
    );
    expect(r.stderr).toContain(
      `display of profile default (${SERVICE}) for Padaria Central: it shows the newest charge created; Ctrl-C to stop\n`,
    );
    expect(r.record).toEqual({
      pid: process.pid,
      host: '127.0.0.1',
      urlHost: '127.0.0.1',
      port: Number(m![1]),
      key: m![2],
      startedAt: '2026-11-22T10:00:00.000Z',
      // the secret of its proof of identity, never sent; the service it follows
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      target: SERVICE,
    });
    expect(fs.statSync(r.file).mode & 0o077).toBe(0);
    // the server is closed on the way out
    await expect(fetch(lines[0]!)).rejects.toThrow();
    expect(r.asked.verifying).toEqual([undefined]);
  });

  it('started again: the same key and port, so an open page finds it; --new-key makes another key', async () => {
    const first = await display({});
    const again = await display({}, { dir: first.dir });
    expect(again.record.key).toBe(first.record.key);
    expect(again.record.port).toBe(first.record.port);
    const renewed = await display({ newKey: true }, { dir: first.dir });
    expect(renewed.record.key).not.toBe(first.record.key);
  });

  it('its last port taken by another program: a warning, and any free port', async () => {
    const first = await display({});
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(first.record.port, '127.0.0.1', resolve));
    try {
      const r = await display({}, { dir: first.dir });
      expect(r.code).toBe(130);
      expect(r.stderr).toContain(
        `warning: port ${first.record.port}, this display's last, is taken: pages opened before must open the new URL\n`,
      );
      expect(r.record.port).not.toBe(first.record.port);
      expect(r.record.key).toBe(first.record.key);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('--json: one object with the URL, host, port and language; -q: the URL alone', async () => {
    const json = await display({ lang: 'en' }, { json: true });
    const out = JSON.parse(json.stdout);
    expect(out).toEqual({
      url: expect.stringMatching(URL_LINE),
      host: '127.0.0.1',
      port: json.record.port,
      lang: 'en',
    });
    const quiet = await display({}, { quiet: true });
    expect(quiet.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=[A-Za-z0-9_-]+\n$/);
  });

  it('--verify is handed to the verification set-up; the sandbox is named as such', async () => {
    const r = await display({ verify: true }, { target: { mode: 'sandbox' } });
    expect(r.asked.verifying).toEqual([true]);
    expect(r.stderr).toContain('display of profile default (sandbox) for ');
  });

  it.each([
    [
      { lang: 'fr' },
      /^error: invalid --lang "fr": expected pt \(Portuguese, the default\) or en \(English\)\n$/,
    ],
    [{ port: '65536' }, /^error: invalid --port "65536": expected a port number from 0 to 65535/],
    [{ port: '-1' }, /^error: invalid --port "-1"/],
    [{ host: 'a host' }, /^error: invalid --host "a host": expected an IP address or host name\n$/],
    [{ qrStyle: 'blue' }, /^error: invalid --qr-style "blue"/],
  ])('%j is refused (exit 2) before anything is served or written', async (flags, message) => {
    const r = await display(flags);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.asked.client).toBe(0);
    expect(fs.existsSync(r.dir)).toBe(false);
  });

  it.each([
    ['shop-name', 'a\u0007b', "error: the profile's shop-name is not "],
    ['expire-after', 'soon', 'error: the profile\'s expire-after "soon" is not '],
  ])(
    'a damaged %s in the profile is a config error, before anything is served',
    async (key, value, message) => {
      const r = await display({}, { settings: { [key]: value } });
      expect((r.error as LbrlError).type).toBe('config');
      expect(r.stderr.startsWith(message)).toBe(true);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.asked.client).toBe(0);
      expect(fs.existsSync(r.dir)).toBe(false);
    },
  );
});

describe('the settings the screen shows, read again while it runs', () => {
  it('within SETTINGS_POLL_MS of the clock that does not jump, whatever the wall clock does', () => {
    const clock = steppingClock(START, { monotonic: true });
    const term = plainTerminal({ now: clock.now });
    const settings: Partial<Record<ConfigKey, string>> = { 'expire-after': '30m', 'shop-name': 'Loja' };
    let reads = 0;
    const rules = rulesReader(
      {
        clock,
        printer: term.printer,
        config: { setting: (key) => settings[key] },
        reloadSettings: () => {
          reads += 1;
        },
      },
      { shop: 'Loja', expireAfterMs: 30 * 60_000, holdMs: 30_000 },
    );
    settings['expire-after'] = '2m';
    // the wall clock stepped back a day: the settings are read again all the same
    clock.t -= 86_400_000;
    clock.m += SETTINGS_POLL_MS;
    expect(rules().expireAfterMs).toBe(2 * 60_000);
    expect(reads).toBe(1);
    // stepped forward a day: not read again at every look (only once the poll's time has passed)
    clock.t += 2 * 86_400_000;
    settings['shop-name'] = 'Padaria';
    expect(rules().shop).toBe('Loja');
    expect(reads).toBe(1);
    clock.m += SETTINGS_POLL_MS;
    expect(rules().shop).toBe('Padaria');
    expect(term.stderr).toBe('');
  });
});
