/**
 * `lbrl display`: the customer's screen for this profile, served on loopback (or, when told, the
 * shop's network), until Ctrl-C. stdout: the page's URL (with its key) first, then its QR code.
 */
import os from 'node:os';
import path from 'node:path';
import { isLoopbackHost } from '../api/baseurl.js';
import type { Context } from '../context.js';
import type { DepositApi, FlowClock, Recorder, Scope, Target } from '../deposits/ports.js';
import { scopeOnTarget } from '../deposits/ports.js';
import type { WatchPlan } from '../deposits/watch.js';
import type { HistoryView } from '../display/engine.js';
import { DisplayEngine, fileSignature } from '../display/engine.js';
import { PushedHistory, SAFETY_POLL_MS } from '../display/pushed-history.js';
import { startDisplayServer } from '../display/server.js';
import {
  type DisplayRecord,
  displayFile,
  displayUrl,
  isUnspecifiedHost,
  newDisplaySecret,
  readDisplayRecord,
  withdrawFromDisplay,
  withdrawnFile,
  writeDisplayRecord,
} from '../display/state.js';
import type { ScreenRules } from '../domain/display.js';
import { DEFAULT_SHOP_NAME, parseLang, readShopName } from '../domain/display.js';
import { parseWholeNumber } from '../domain/values.js';
import { interrupted, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { settingOf } from '../factory/settings.js';
import { claimFile, type RowClaim } from '../store/claims.js';
import type { DisplayFeed } from '../store/coordination-port.js';
import { ensurePrivateDir } from '../store/files.js';
import type { Printer } from '../ui/output.js';
import { qrStyle, renderTerminalQr } from '../ui/qr.js';
import { queryBackground } from '../ui/terminal-background.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { displayFeedOf } from './shared/coordination.js';
import { expireAfterMs, type SettingsReader } from './shared/expiry.js';
import { QR_STYLE } from './shared/flag-parts.js';
import { verifyingPlanOf } from './shared/verify-setup.js';

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

/**
 * The address a tablet on the network can open: for an unspecified address (0.0.0.0, 0, ::, ::0,
 * 0:0:0:0:0:0:0:0: every interface) the machine's first network address, IPv4 first (an IPv6
 * listener takes IPv4 too), then a global IPv6; loopback when it has none.
 */
export function urlHostFor(
  host: string,
  interfaces: ReturnType<typeof os.networkInterfaces> = os.networkInterfaces(),
): string {
  if (!isUnspecifiedHost(host)) return host.replace(/^\[|\]$/g, '');
  const all = Object.values(interfaces).flatMap((addresses) => addresses ?? []);
  const ipv4 = all.find((a) => a.family === 'IPv4' && !a.internal);
  if (ipv4) return ipv4.address;
  const ipv6 = all.find((a) => a.family === 'IPv6' && !a.internal && !/^fe80:/i.test(a.address));
  if (ipv6 && host.includes(':')) return ipv6.address;
  return '127.0.0.1';
}

/** How often the settings are read again (the config file, when it changed): within seconds. */
export const SETTINGS_POLL_MS = 2000;

function shopName(options: Pick<DisplayCommandOptions, 'config'>): string {
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
 * All `lbrl display` needs (gh's Options struct): the factory's getters fill it in (`displayOptionsOf`); a
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
  /** forget the settings read, so the next read takes the config file as it is now */
  reloadSettings?: () => void;
  /** the terminal, asked for its background when no --qr-style or qr-style setting says */
  terminal?: Pick<Context, 'stdin' | 'stdout' | 'env'>;
  /** a database ledger's feed of every host's charges and clears (none for the file: it reads the history) */
  feed?(): Promise<DisplayFeed | undefined>;
}

/** The factory's getters, narrowed to what `lbrl display` uses. */
export function displayOptionsOf(flags: DisplayOptions, factory: Factory): DisplayCommandOptions {
  return {
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    quiet: factory.globals.quiet === true,
    config: { setting: (key) => settingOf(factory.profile(), key) },
    target: () => factory.target(),
    verifying: (plan, verify) => verifyingPlanOf(plan, verify, factory),
    profileName: factory.profileName,
    configDir: factory.config().dir,
    client: (target) => factory.client(target, { maxRetries: 0 }),
    history: () => factory.ledger().history(),
    scope: (target) => scopeOnTarget(factory.profileName, target),
    recorder: factory.ledger(),
    clock: factory.ctx,
    reloadSettings: () => factory.config().forget(),
    terminal: factory.ctx,
    feed: () => displayFeedOf(factory),
  };
}

/** The screen's rules as the settings say now; undefined (and said once) when one is damaged. */
export function rulesReader(
  options: Pick<DisplayCommandOptions, 'clock' | 'config' | 'printer' | 'reloadSettings'>,
  first: ScreenRules,
): () => ScreenRules {
  let rules = first;
  // how long since the settings were read, on the clock that does not jump: a wall clock stepped
  // back must not keep the screen on old settings (expire-after, shop-name) for as long
  const elapsed = () => (options.clock.monotonic ? options.clock.monotonic() : options.clock.now());
  let readAt = elapsed();
  let complained = false;
  return () => {
    const now = elapsed();
    if (now - readAt < SETTINGS_POLL_MS || !options.reloadSettings) return rules;
    readAt = now;
    try {
      options.reloadSettings();
      rules = { ...rules, shop: shopName(options), expireAfterMs: expireAfterMs(options.config) };
      complained = false;
    } catch (error) {
      if (!complained)
        options.printer.warn(`display: ${(error as Error).message}; the screen keeps the settings it had`);
      complained = true;
    }
    return rules;
  };
}

/** One display per profile: a claim on display/<profile>.lock, made whole or not at all. */
function claimDisplay(options: DisplayCommandOptions): RowClaim {
  const lock = `${displayFile(options.configDir, options.profileName).replace(/\.json$/, '')}.lock`;
  ensurePrivateDir(path.dirname(lock));
  const claim = claimFile(lock, 'display lock', (line) => options.printer.warn(line));
  if ('pid' in claim) {
    const record = readDisplayRecord(displayFile(options.configDir, options.profileName));
    const port = record?.pid === claim.pid ? `, port ${record.port}` : '';
    throw usageError(
      `a display of profile ${options.profileName} is already running (process ${claim.pid}${port}); stop it first`,
    );
  }
  return claim;
}

/** The terminal QR's style: the flag, the setting, else what the terminal says of its background. */
async function displayQrStyle(options: DisplayCommandOptions): Promise<'dark' | 'light'> {
  const saved = options.config.setting('qr-style');
  const style = qrStyle(options.flags.qrStyle, saved);
  if (options.flags.qrStyle !== undefined || (saved !== undefined && saved !== 'detect')) return style;
  const terminal = options.terminal;
  if (!terminal || options.json || options.quiet || !(terminal.stdout as { isTTY?: boolean }).isTTY)
    return style;
  return (await queryBackground(terminal.stdin as never, terminal.stdout)) ?? 'dark';
}

/** The display's engine: the history, the service, the rules as the settings say, the withdrawn charges. */
function engineFor(
  options: DisplayCommandOptions,
  api: DepositApi,
  target: Target,
  settled: WatchPlan['settled'],
  pushed: PushedHistory | undefined,
) {
  const rules: ScreenRules = {
    shop: shopName(options),
    expireAfterMs: expireAfterMs(options.config),
    holdMs: HOLD_MS,
  };
  return new DisplayEngine({
    history: pushed ?? options.history(),
    ...(pushed && {
      signature: (file: string) => (file === pushed.file ? pushed.signature() : fileSignature(file)),
    }),
    scope: options.scope(target),
    api,
    recorder: options.recorder,
    clock: options.clock,
    notes: options.printer,
    rules,
    rulesNow: rulesReader(options, rules),
    withdrawnFile: withdrawnFile(options.configDir, options.profileName),
    pollMs: target.mode === 'sandbox' ? 1000 : 2000,
    historyPollMs: HISTORY_POLL_MS,
    settled,
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
}

/**
 * What the shopkeeper reads: the notes first, then the URL (stdout's first line, for scripts), its
 * QR code, and on a terminal the URL again under it, so that on 80x24 it is on screen, not
 * scrolled off above the code.
 */
async function printAddress(
  options: DisplayCommandOptions,
  record: DisplayRecord,
  lang: string,
  shop: string,
) {
  const { printer } = options;
  const url = displayUrl(record);
  if (!isLoopbackHost(record.host))
    printer.alarm(
      `warning: the display listens on ${record.host}: anyone on this network with its URL sees the charges; keep the URL (its key) to the counter's screen`,
    );
  else
    printer.info(
      "only this machine can open it; for a tablet on the shop's network, start it with --host 0.0.0.0",
    );
  printer.info(
    `display of profile ${options.profileName} (${record.target ?? 'sandbox'}) for ${shop}: it shows the newest charge created; Ctrl-C to stop`,
  );
  if (options.json) printer.json({ url, host: record.host, port: record.port, lang });
  else {
    printer.out(url);
    if (!options.quiet) {
      printer.out('');
      printer.out(await renderTerminalQr(url, await displayQrStyle(options)));
      if (printer.stdoutIsTTY) printer.out(url);
    }
  }
}

/** Check the flags and settings, serve the page, print its URL and QR code, show charges until Ctrl-C. */
export async function runDisplay(options: DisplayCommandOptions): Promise<void> {
  const { flags: opts, printer, clock } = options;
  const { lang, port, host } = parseOptions(opts);
  // every flag and setting checked before anything is served or written
  qrStyle(opts.qrStyle, options.config.setting('qr-style'));
  shopName(options);
  expireAfterMs(options.config);
  const target = options.target();
  const plan = await options.verifying({ intervalMs: 1000 }, opts.verify);
  // one per profile: of displays started at the same instant, exactly one goes on
  const claim = claimDisplay(options);
  try {
    const file = displayFile(options.configDir, options.profileName);
    const before = readDisplayRecord(file);
    const { newDisplayKey } = await import('../display/server.js');
    const key = !opts.newKey && before ? before.key : newDisplayKey();
    const secret = newDisplaySecret();
    const pushed = await pushedHistory(options);
    const engine = engineFor(options, await options.client(target), target, plan.settled, pushed);
    // a charge or a clear pushed by the ledger is on the screen at once
    if (pushed) pushed.onChange = () => engine.poll();
    const serverOptions = {
      key,
      secret,
      lang,
      current: () => engine.current(),
      subscribe: (listener: Parameters<DisplayEngine['subscribe']>[0]) => engine.subscribe(listener),
      show: (id: string, from?: string) => engine.show(id, from),
      now: clock.now,
    };
    const running = await serveDisplay(options, serverOptions, host, port, before);
    const record: DisplayRecord = {
      pid: process.pid,
      host,
      urlHost: urlHostFor(host),
      port: Number(new URL(running.baseUrl).port),
      key,
      startedAt: new Date(clock.now()).toISOString(),
      secret,
      target: options.scope(target).target,
    };
    try {
      writeDisplayRecord(file, record);
    } catch (error) {
      printer.warn(
        `warning: could not write ${file} (deposit create --display will not find this display): ${(error as Error).message}`,
      );
    }
    try {
      await printAddress(options, record, lang, engine.current().shop);
      await engine.run();
    } finally {
      // the record stays: started again, the display takes the same port and key, and open pages reconnect
      await running.close();
    }
  } finally {
    claim.release();
  }
  throw interrupted();
}

/** A database ledger's charges and clears, from every host, as the engine reads the history. */
async function pushedHistory(options: DisplayCommandOptions): Promise<PushedHistory | undefined> {
  const feed = await options.feed?.();
  if (!feed) return undefined;
  const warn = (line: string) => options.printer.warn(line);
  const pushed = new PushedHistory(feed, options.history(), fileSignature, warn, {
    clock: options.clock,
    everyMs: SAFETY_POLL_MS,
  });
  await pushed.start((before) =>
    withdrawFromDisplay(options.configDir, options.profileName, { before }, warn),
  );
  return pushed;
}

/** The server on the port given, else the one used last (so a page left open finds it again), else any free one. */
async function serveDisplay(
  options: DisplayCommandOptions,
  serverOptions: Parameters<typeof startDisplayServer>[0],
  host: string,
  port: number | undefined,
  before: DisplayRecord | undefined,
) {
  const remembered = port === undefined && before && before.host === host ? before.port : undefined;
  try {
    return await startDisplayServer(serverOptions, host, port ?? remembered ?? 0).catch((error) => {
      if (remembered === undefined) throw error;
      options.printer.warn(
        `warning: port ${remembered}, this display's last, is taken: pages opened before must open the new URL`,
      );
      return startDisplayServer(serverOptions, host, 0);
    });
  } catch (error) {
    throw new LbrlError(`cannot listen on ${host}:${port ?? 0}: ${(error as Error).message}`, 'usage');
  }
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
  async run({ opts, factory }) {
    const made = await factory();
    // a database ledger: the charges come pushed (pushedHistory); this host's copy caught up now and then
    made.ledger().follow(SAFETY_POLL_MS);
    return runDisplay(displayOptionsOf(opts, made));
  },
});

/** All `lbrl display clear` needs: where the profile's display keeps its state, a clock, a printer. */
export interface ClearCommandOptions {
  printer: Printer;
  json: boolean;
  profileName: string;
  configDir: string;
  now(): number;
  /** a database ledger's feed: the clear reaches every host's display of the profile */
  feed?(): Promise<DisplayFeed | undefined>;
}

/**
 * Withdraws every charge created until now from the customer's screen: the running display shows
 * the shop's name again within a second, and a display started later offers none of them. The
 * charges themselves stay open on the service (it has no cancel): a payment is still seen.
 */
export async function runClear(options: ClearCommandOptions): Promise<void> {
  const { displayAnswers } = await import('../display/state.js');
  const before = new Date(options.now()).toISOString();
  withdrawFromDisplay(options.configDir, options.profileName, { before }, (line) =>
    options.printer.warn(line),
  );
  const feed = await options.feed?.();
  await feed?.clear(before);
  const record = readDisplayRecord(displayFile(options.configDir, options.profileName));
  const running = record !== undefined && (await displayAnswers(record));
  if (options.json) {
    options.printer.json({ cleared: true, before, displayRunning: running });
    return;
  }
  options.printer.info(
    running
      ? `the customer display of profile ${options.profileName} is clear: it shows the shop's name until the next charge`
      : `no display of profile ${options.profileName} is running; one started later offers no charge created until now`,
  );
  if (feed)
    options.printer.info(
      `the displays of profile ${options.profileName} on other hosts sharing the ledger are clear too`,
    );
}

export const DISPLAY_CLEAR = command({
  rank: 241,
  path: 'display clear',
  description: "clear the customer's screen: no charge created until now is offered on it again",
  long: `The running display shows the shop's name within a second, and one started later offers none of these charges; a charge created after this shows as usual. The charges stay open on the service, which has no cancel: a late payment is still seen by \`deposit watch\` and \`deposit list --refresh\`. With no display running it says so, and the charges are withdrawn all the same.`,
  flags: [],
  examples: ['lbrl display clear                # the screen shows the shop name until the next charge'],
  async run({ factory }) {
    const opened = await factory();
    return runClear({
      printer: opened.printer,
      json: opened.globals.json === true,
      profileName: opened.profileName,
      configDir: opened.config().dir,
      now: opened.ctx.now,
      feed: () => displayFeedOf(opened),
    });
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DISPLAY, DISPLAY_CLEAR);
