/**
 * `lbrl display`: the customer's screen for this profile, served on loopback (or, when told, the
 * shop's network), until Ctrl-C. stdout: the page's URL (with its key) first, then its QR code.
 */
import os from 'node:os';
import { isLoopbackHost } from '../api/baseurl.js';
import type { DepositApi, FlowClock, Recorder, Scope } from '../deposits/ports.js';
import type { WatchPlan } from '../deposits/watch.js';
import type { HistoryView } from '../display/engine.js';
import { DisplayEngine } from '../display/engine.js';
import { startDisplayServer } from '../display/server.js';
import {
  type DisplayRecord,
  displayFile,
  displayUrl,
  processAlive,
  readDisplayRecord,
  showOnDisplay,
  writeDisplayRecord,
} from '../display/state.js';
import { DEFAULT_SHOP_NAME, parseLang, readShopName } from '../domain/display.js';
import { parseWholeNumber } from '../domain/values.js';
import { interrupted, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Session, Target } from '../session.js';
import type { Printer } from '../ui/output.js';
import { qrStyle, renderTerminalQr } from '../ui/qr.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { expireAfterMs, type SettingsReader } from './shared/expiry.js';
import { QR_STYLE } from './shared/flag-parts.js';
import { withVerify } from './shared/verify-setup.js';

const DISPLAY_LANGS = ['pt', 'en'] as const;

const DISPLAY_FLAGS = [
  { flags: '--port <n>', help: 'port (default: the one this display used last, else a free one)' },
  {
    flags: '--host <addr>',
    help: 'address to listen on (default 127.0.0.1; 0.0.0.0 opens it to the local network)',
  },
  { flags: '--lang <lang>', help: 'the page in pt (Portuguese, the default) or en', complete: DISPLAY_LANGS },
  { flags: '--new-key', help: 'a new key in the URL: pages opened with the old one stop working' },
  { flags: '--verify', help: 'say "confirmed on the blockchain" once the settlement is verified' },
  { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  QR_STYLE,
] as const satisfies readonly FlagDef[];

export type DisplayOptions = OptionsOf<typeof DISPLAY_FLAGS>;

/** How long "Pago!", a failure or an expiry stays on the screen before it shows the shop's name again. */
export const HOLD_MS = 30_000;
/** The history is looked at this often: a charge created anywhere shows within a second. */
const HISTORY_POLL_MS = 250;

/** The address a tablet on the network can open: the machine's first non-internal IPv4, for 0.0.0.0. */
function urlHostFor(host: string): string {
  if (host !== '0.0.0.0' && host !== '::') return host;
  for (const addresses of Object.values(os.networkInterfaces()))
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

function shopName(options: DisplayCommandOptions): string {
  const value = options.config.setting('shop-name');
  if (value === undefined) return DEFAULT_SHOP_NAME;
  const parsed = readShopName(value);
  if (!parsed.ok)
    throw new LbrlError(
      `the profile's shop-name is not ${parsed.expected}; set it again with lbrl config set shop-name <name>`,
      'config',
    );
  return parsed.value;
}

function parseOptions(opts: DisplayOptions) {
  const lang = parseLang(opts.lang ?? 'pt');
  if (!lang.ok) throw invalidValue('--lang', opts.lang ?? '', lang.expected);
  let port: number | undefined;
  if (opts.port !== undefined) {
    const parsed = parseWholeNumber(
      opts.port,
      0,
      65535,
      'a port number from 0 to 65535 (0 picks a free one)',
    );
    if (!parsed.ok) throw invalidValue('--port', opts.port, parsed.expected);
    port = parsed.value;
  }
  const host = opts.host ?? '127.0.0.1';
  if (!/^[0-9A-Za-z.:[\]-]{1,255}$/.test(host))
    throw invalidValue('--host', host, 'an IP address or host name');
  return { lang: lang.value, port, host };
}

/**
 * All `lbrl display` needs (gh's Options struct): the Session fills it in (`displayOptionsOf`); a
 * test hands a printer on strings, settings, a clock, a scripted service and a config directory
 * in a temporary directory. The page itself is served on a loopback port (display/server.ts).
 */
export interface DisplayCommandOptions {
  flags: DisplayOptions;
  printer: Printer;
  json: boolean;
  quiet: boolean;
  /** the profile's settings it reads: qr-style, shop-name, expire-after */
  config: SettingsReader;
  /** the service the charges come from; throws when the profile's target is configured by half */
  target(): Target;
  /** the plan with --verify's `settled` hook when verify is on (the flag, else the profile's verify) */
  verifying(plan: WatchPlan, verify: boolean | undefined): Promise<WatchPlan>;
  profileName: string;
  /** the config directory, where the display's record is kept for deposit create --display */
  configDir: string;
  /** the client the charge shown is followed with */
  client(target: Target): Promise<DepositApi>;
  /** the local history: the newest charge created */
  history(): HistoryView;
  /** this profile's deposits on a target, as the history records them */
  scope(target: Target): Scope;
  recorder: Recorder;
  /** now, sleep, random, and the signal of Ctrl-C: the display runs until it */
  clock: FlowClock;
}

/** The Session's world, narrowed to what `lbrl display` uses. */
export function displayOptionsOf(flags: DisplayOptions, session: Session): DisplayCommandOptions {
  return {
    flags,
    printer: session.printer,
    json: session.globals.json === true,
    quiet: session.globals.quiet === true,
    config: { setting: (key) => session.setting(key) },
    target: () => session.target(),
    verifying: (plan, verify) => withVerify(plan, verify, session),
    profileName: session.profileName,
    configDir: session.store.dir,
    client: (target) => session.client(target, { maxRetries: 0 }),
    history: () => session.history(),
    scope: (target) => session.scope(target),
    recorder: session,
    clock: session.ctx,
  };
}

export async function run(opts: DisplayOptions, session: Session): Promise<void> {
  return runDisplay(displayOptionsOf(opts, session));
}

/** Check the flags and settings, serve the page, print its URL and QR code, show charges until Ctrl-C. */
export async function runDisplay(options: DisplayCommandOptions): Promise<void> {
  const { flags: opts, printer, clock } = options;
  const { lang, port, host } = parseOptions(opts);
  const style = qrStyle(opts.qrStyle, options.config.setting('qr-style'));
  const shop = shopName(options);
  const expireAfter = expireAfterMs(options.config);
  const target = options.target();
  const plan = await options.verifying({ intervalMs: 1000 }, opts.verify);

  const file = displayFile(options.configDir, options.profileName);
  const before = readDisplayRecord(file);
  // running: its process is alive and its server answers (a pid reused by another program does not)
  if (
    before &&
    before.pid !== process.pid &&
    processAlive(before.pid) &&
    (await showOnDisplay(before, '00000000-0000-4000-8000-000000000000')) !== 'unreachable'
  )
    throw usageError(
      `a display of profile ${options.profileName} is already running (process ${before.pid}, port ${before.port}); stop it first`,
    );
  const { newDisplayKey } = await import('../display/server.js');
  const key = !opts.newKey && before ? before.key : newDisplayKey();

  const api = await options.client(target);
  const engine = new DisplayEngine({
    history: options.history(),
    scope: options.scope(target),
    api,
    recorder: options.recorder,
    clock,
    notes: printer,
    rules: { shop, expireAfterMs: expireAfter, holdMs: HOLD_MS },
    pollMs: target.mode === 'sandbox' ? 1000 : 2000,
    historyPollMs: HISTORY_POLL_MS,
    settled: plan.settled,
    qrSvg: async (text) => {
      const { default: QRCode } = await import('qrcode');
      return QRCode.toString(text, {
        type: 'svg',
        errorCorrectionLevel: 'M',
        margin: 4,
        color: { dark: '#000000ff', light: '#ffffffff' },
      });
    },
  });
  const serverOptions = {
    key,
    lang,
    current: () => engine.current(),
    subscribe: (listener: Parameters<DisplayEngine['subscribe']>[0]) => engine.subscribe(listener),
    show: (id: string) => engine.show(id),
    now: clock.now,
  };
  // the port used last, so that a page left open finds the display again; any free one if it is taken
  const remembered = port === undefined && before && before.host === host ? before.port : undefined;
  let running: Awaited<ReturnType<typeof startDisplayServer>>;
  try {
    running = await startDisplayServer(serverOptions, host, port ?? remembered ?? 0).catch((error) => {
      if (remembered === undefined) throw error;
      printer.warn(
        `warning: port ${remembered}, this display's last, is taken: pages opened before must open the new URL`,
      );
      return startDisplayServer(serverOptions, host, 0);
    });
  } catch (error) {
    throw new LbrlError(`cannot listen on ${host}:${port ?? 0}: ${(error as Error).message}`, 'usage');
  }
  const record: DisplayRecord = {
    pid: process.pid,
    host,
    urlHost: urlHostFor(host),
    port: Number(new URL(running.baseUrl).port),
    key,
    startedAt: new Date(clock.now()).toISOString(),
  };
  try {
    writeDisplayRecord(file, record);
  } catch (error) {
    printer.warn(
      `warning: could not write ${file} (deposit create --display will not find this display): ${(error as Error).message}`,
    );
  }
  const url = displayUrl(record);
  try {
    if (options.json) printer.json({ url, host, port: record.port, lang });
    else {
      printer.out(url);
      if (!options.quiet) {
        printer.out('');
        printer.out(await renderTerminalQr(url, style));
      }
    }
    if (!isLoopbackHost(host))
      printer.alarm(
        `warning: the display listens on ${host}: anyone on this network with its URL sees the charges; keep the URL (its key) to the counter's screen`,
      );
    else
      printer.info(
        "only this machine can open it; for a tablet on the shop's network, start it with --host 0.0.0.0",
      );
    printer.info(
      `display of profile ${options.profileName} (${target.mode === 'sandbox' ? 'sandbox' : target.baseUrl}) for ${shop}: it shows the newest charge created; Ctrl-C to stop`,
    );
    await engine.run();
  } finally {
    // the record stays: started again, the display takes the same port and key, and open pages reconnect
    await running.close();
  }
  throw interrupted();
}

export const DISPLAY = command({
  rank: 240,
  path: 'display',
  description: "serve a screen that faces the customer: the waiting charge's QR code and amount, then Pago!",
  long: `Any tablet or phone shows it in its browser: no app, no account. It shows the profile's newest charge, created by any lbrl process, checked as every answer is, then "Pago!" as soon as the service says the PIX arrived. The first line on stdout is the page's URL, with a random key; it listens on loopback unless \`--host\` says otherwise (\`--host 0.0.0.0\` for the shop's network). The port and key are kept, so a page left open reconnects after a restart.`,
  flags: DISPLAY_FLAGS,
  examples: [
    'lbrl display                      # this machine only; prints the URL (with its key) and its QR code',
    "lbrl display --host 0.0.0.0       # for a tablet on the shop's network: scan the QR code it prints",
    'lbrl config set shop-name "Padaria Central"',
    'lbrl deposit create --amount 15,50 --display',
  ],
  async run({ opts, session }) {
    return run(opts, await session());
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DISPLAY);
