/**
 * `lbrl listen`: the profile's deposits, followed as `deposit watch` follows them, turned into
 * signed webhooks (Standard Webhooks) delivered at least once from a durable outbox.
 */
import { randomBytes } from 'node:crypto';
import { redactUrl, urlSecrets, withoutCredentials } from '../api/baseurl.js';
import type { GetResponse } from '../api/models.js';
import { parseForwardUrl, type WebhookPoster, webhookPoster } from '../api/webhook-post.js';
import { answerLine, EventHub, EventHubs, MISSING_LOOK_MS } from '../deposits/events.js';
import type { Target } from '../deposits/ports.js';
import {
  type DepositApi,
  type FlowClock,
  type HistoryReader,
  type Recorder,
  recordLater,
  type Scope,
  scopeOnTarget,
} from '../deposits/ports.js';
import { type DepositOutcome, verifySettlements } from '../deposits/verify.js';
import { watchDeposits } from '../deposits/watch.js';
import { webhookSecretSecrets } from '../domain/text/redact.js';
import { parseIntervalSeconds } from '../domain/values.js';
import {
  DEPOSIT_EVENTS,
  type DepositEventType,
  formatSecret,
  parseEventFilter,
  SECRET_BYTES,
  signingKey,
  webhookHeaders,
} from '../domain/webhook.js';
import { invalidValue, LbrlError, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { settingOf } from '../factory/settings.js';
import type { Profile } from '../store/config.js';
import { FileListen } from '../store/coordination-file.js';
import type { ListenCoordination } from '../store/coordination-port.js';
import { statusRecord } from '../store/history-records.js';
import { type OutboxState, type OutboxStore, receiverKey } from '../store/outbox.js';
import type { Printer } from '../ui/output.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { leadPoster, listenCoordinationOf } from './shared/coordination.js';
import { recordVerified, settledRecorderOf, type VerifySetup, verifySetupOf } from './shared/verify-setup.js';

const LISTEN_FLAGS = [
  {
    flags: '--forward-to <url>',
    help: 'POST each event here (https://, or http:// on loopback); repeat for several receivers',
    repeatable: true,
  },
  {
    flags: '--events <types>',
    help: 'only these event types, comma-separated (deposit.created,deposit.finalized,...), for the --forward-to before it (before any: for every receiver)',
    repeatable: true,
    placedAfter: 'forwardTo',
  },
  { flags: '--interval <seconds>', help: 'seconds between polls of a deposit (at least 1, default 3)' },
  {
    flags: '--verify',
    help: 'check each FINALIZED settlement on chain: deposit.verified or deposit.mismatch',
  },
  { flags: '--no-verify', help: "do not verify, whatever the profile's verify setting" },
  { flags: '--print-secret', help: "print the profile's webhook signing secret (whsec_...) and exit" },
  { flags: '--replay <event-id>', help: 'send one event of the outbox again to --forward-to, and exit' },
] as const satisfies readonly FlagDef[];

export type ListenOptions = OptionsOf<typeof LISTEN_FLAGS> & {
  /** for each --events, how many --forward-to were written before it (the wiring's placedAfter) */
  eventsPlaces?: number[];
};

/** Where the secret is kept: in the profile, in the private config file, as the token is. */
const SECRET_KEY = 'webhook-secret';

/**
 * All `lbrl listen` needs (gh's Options struct): the factory's getters fill it in (`listenOptionsOf`); a
 * test hands a printer on strings, a clock, a config file in a temporary directory, a scripted
 * service and a poster that opens no socket.
 */
export interface ListenCommandOptions {
  flags: ListenOptions;
  printer: Printer;
  /** now, sleep, random, and the signal of Ctrl-C */
  clock: FlowClock;
  profileName: string;
  /** the config file and its directory (the outbox lives in it) */
  configFile: string;
  configDir: string;
  /** the profile's webhook-secret as the file has it (its secrets kept out of output) */
  savedSecret(): unknown;
  /** change this profile in the config file (under its lock, written whole) */
  updateProfile(change: (profile: Profile) => void): Promise<void>;
  /** the signed POSTs, made once per run */
  poster(): WebhookPoster;
  /** the service followed; throws when the profile's target is configured by half */
  target(): Target;
  /** this profile's deposits on a target, as the history records them */
  scope(target: Target): Scope;
  /** the profile's verify setting is on */
  verifyOn(): boolean;
  /** the explorer and settings of --verify, checked (closed by the caller) */
  verifySetup(target: Target): Promise<VerifySetup>;
  /** a deposit verified, recorded as deposit verify records it */
  recordVerified(outcomes: DepositOutcome[]): unknown;
  /** the client the deposits are followed with */
  client(target: Target): Promise<DepositApi>;
  /** the local history: the deposits to follow */
  history(): Pick<HistoryReader, 'entries'>;
  recorder: Recorder;
  /**
   * Who delivers and where the outbox is (store/coordination.ts): the file's lock and outbox on
   * this machine, or the database's lease and outbox shared by every host; without it, the file.
   */
  coordination?(): Promise<ListenCoordination>;
}

/** The factory's getters, narrowed to what `lbrl listen` uses. */
export function listenOptionsOf(flags: ListenOptions, factory: Factory): ListenCommandOptions {
  return {
    flags,
    printer: factory.printer,
    clock: factory.ctx,
    profileName: factory.profileName,
    configFile: factory.config().file,
    configDir: factory.config().dir,
    savedSecret: () => factory.profile()[SECRET_KEY],
    updateProfile: (change) => factory.config().updateProfile(factory.profileName, change),
    poster: () =>
      webhookPoster({
        timeoutMs: factory.ctx.client?.timeoutMs ?? 10_000,
        connectTimeoutMs: factory.ctx.client?.connectTimeoutMs ?? 5_000,
        now: factory.ctx.now,
        userAgent: 'lbrl-webhooks',
      }),
    target: () => factory.target(),
    scope: (target) => scopeOnTarget(factory.profileName, target),
    verifyOn: () => settingOf(factory.profile(), 'verify') === 'on',
    verifySetup: (target) => verifySetupOf(factory, target),
    recordVerified: (outcomes) => recordVerified(settledRecorderOf(factory), outcomes),
    client: (target) => factory.client(target, { maxRetries: 0 }),
    history: () => factory.ledger().history(),
    recorder: factory.ledger(),
    coordination: () => listenCoordinationOf(factory),
  };
}

/** The profile's signing secret, made (once, under the config file's lock) when it has none. */
export async function profileSecret(options: ListenCommandOptions): Promise<string> {
  const existing = options.savedSecret();
  if (typeof existing === 'string' && signingKey(existing)) return existing;
  if (existing !== undefined) {
    throw new LbrlError(
      `the webhook secret of profile ${options.profileName} in ${options.configFile} is damaged; remove it with lbrl config unset ${SECRET_KEY}${options.profileName === 'default' ? '' : ` --profile ${options.profileName}`} to make a new one (receivers must then be given the new secret)`,
      'config',
    );
  }
  await options.updateProfile((profile) => {
    // another process may have made it meanwhile: the first one made is the one kept
    if (profile[SECRET_KEY] === undefined) profile[SECRET_KEY] = formatSecret(randomBytes(SECRET_BYTES));
  });
  const made = options.savedSecret();
  if (typeof made !== 'string' || !signingKey(made))
    throw new LbrlError(`could not store a webhook secret in ${options.configFile}`, 'config');
  return made;
}

/** One receiver: where its events go, and which. */
export interface ListenRoute {
  url: string;
  wanted: Set<DepositEventType>;
  /** --events was given for it */
  filtered: boolean;
}

/**
 * The receivers: each --forward-to with the --events written after it (before the next one); an
 * --events written before any --forward-to filters every receiver that has none of its own.
 */
function parseRoutes(opts: ListenOptions): ListenRoute[] {
  const urls = (opts.forwardTo ?? []).map((given) => {
    const parsed = parseForwardUrl(given);
    // a password written into the URL is never shown, even in the refusal
    if (!parsed.ok) throw invalidValue('--forward-to', withoutCredentials(given), parsed.expected);
    return parsed.value;
  });
  const filters = (opts.events ?? []).map((given) => {
    const parsed = parseEventFilter(given);
    if (!parsed.ok) throw invalidValue('--events', given, parsed.expected);
    return parsed.value;
  });
  if (new Set(urls).size !== urls.length)
    throw usageError('--forward-to names the same receiver twice: give each URL once');
  // where each --events was written; without the wiring's places (a caller of runListen), the
  // n-th --events follows the n-th --forward-to
  const places =
    opts.eventsPlaces ?? filters.map((_, i) => (filters.length === 1 && urls.length > 1 ? 0 : i + 1));
  const own = new Map<number, Set<DepositEventType>>();
  filters.forEach((filter, index) => {
    const place = places[index] ?? 0;
    if (own.has(place))
      throw usageError(
        place === 0
          ? '--events is given twice before any --forward-to: give it once'
          : `--events is given twice after --forward-to ${redactUrl(urls[place - 1] ?? '')}: give each receiver one (a comma-separated list)`,
        'lbrl listen --forward-to https://a.example/hooks --events deposit.finalized --forward-to https://b.example/hooks --events deposit.created,deposit.expired',
      );
    own.set(place, filter);
  });
  return urls.map((url, index) => {
    const filter = own.get(index + 1) ?? own.get(0);
    return {
      url,
      wanted: filter ?? new Set<DepositEventType>(DEPOSIT_EVENTS),
      filtered: filter !== undefined,
    };
  });
}

function parseFlags(opts: ListenOptions) {
  const routes = parseRoutes(opts);
  let intervalMs = 3000;
  if (opts.interval !== undefined) {
    const parsed = parseIntervalSeconds(opts.interval);
    if (!parsed.ok) throw invalidValue('--interval', opts.interval, parsed.expected);
    intervalMs = parsed.value;
  }
  if (opts.replay !== undefined && !/^evt_[A-Za-z0-9_-]{1,64}$/.test(opts.replay))
    throw invalidValue(
      '--replay',
      opts.replay,
      'an event id as listen logs it: evt_ and letters, digits, _ or -',
    );
  return { routes, intervalMs };
}

/** How often a database ledger is looked at for the deposits other hosts created. */
const LEDGER_POLL_MS = 1000;

/** --print-secret, --replay, or the events of the profile's deposits sent until Ctrl-C. */
export async function runListen(options: ListenCommandOptions): Promise<void> {
  const opts = options.flags;
  const { routes, intervalMs } = parseFlags(opts);
  const printer = options.printer;
  // a credential in a receiver's URL (?token=…) is kept out of every line lbrl writes
  for (const route of routes) for (const part of urlSecrets(route.url)) printer.addSecret(part);
  if (opts.printSecret) {
    const secret = await profileSecret(options);
    // the one place the secret is printed on purpose, alone on stdout
    printer.outUnredacted(secret);
    return;
  }
  if (routes.length === 0)
    throw usageError(
      'listen needs --forward-to <url> (or --print-secret)',
      'lbrl listen --forward-to http://localhost:4242/webhooks',
    );
  // where the events come from is checked before anything is written
  if (opts.replay === undefined) options.target();
  const secret = await profileSecret(options);
  for (const part of webhookSecretSecrets(secret)) printer.addSecret(part);
  const key = signingKey(secret)!;
  const warn = (line: string) => printer.warn(line);
  const coordination =
    (await options.coordination?.()) ?? new FileListen(options.configDir, options.profileName, warn);
  const poster = options.poster();
  try {
    if (opts.replay !== undefined) {
      const outboxes = await coordination.replayable();
      for (const route of routes) await replay(opts.replay, route.url, key, outboxes, poster, options);
      return;
    }
    await forwardEvents({ routes, intervalMs, key, verify: opts.verify }, coordination, poster, options);
  } finally {
    await poster.close();
  }
}

/** `--replay <id>`: one attempt, signed now, with the event's own id and body. */
async function replay(
  id: string,
  url: string,
  key: Uint8Array,
  outboxes: OutboxStore[],
  poster: WebhookPoster,
  options: ListenCommandOptions,
): Promise<void> {
  const printer = options.printer;
  let event: ReturnType<OutboxState['events']['get']>;
  for (const outbox of outboxes) event ??= outbox.load().events.get(id);
  if (!event)
    throw new LbrlError(
      `no event ${id} in the outbox of profile ${options.profileName} (it keeps every event not yet delivered and the last 1000 delivered)`,
      'not_found',
    );
  const record = event.record;
  const outcome = await poster.post(
    url,
    webhookHeaders(key, record.id, options.clock.now(), record.body),
    record.body,
    options.clock.signal,
  );
  printer.err(answerLine(options.clock.now(), record, outcome));
  if (outcome.kind === 'failure')
    throw new LbrlError(
      `the receiver at ${redactUrl(url)} could not be reached: ${outcome.reason}`,
      'network',
    );
  if (outcome.status < 200 || outcome.status > 299)
    throw new LbrlError(`the receiver at ${redactUrl(url)} answered ${outcome.status}, not 2xx`, 'service');
}

async function forwardEvents(
  route: {
    routes: ListenRoute[];
    intervalMs: number;
    key: Uint8Array;
    verify: boolean | undefined;
  },
  coordination: ListenCoordination,
  poster: WebhookPoster,
  options: ListenCommandOptions,
): Promise<void> {
  const target = options.target();
  const verifying = route.verify ?? options.verifyOn();
  // settings are checked now, before anything is followed (no explorer for elementsregtest: exit 2),
  // and one explorer client serves every check of the run
  const explorer = verifying ? await options.verifySetup(target) : undefined;
  try {
    await forwardWith(route, coordination, poster, options, target, explorer);
  } finally {
    await explorer?.close();
  }
}

type HubRoute = { routes: ListenRoute[]; intervalMs: number; key: Uint8Array };

/**
 * Holds the lead (a standby waits here), opens the outboxes (one receiver keeps the profile's;
 * several have one each, so none holds another up), and follows the deposits into events until
 * Ctrl-C, the outbox failing, or the lead lost.
 */
async function forwardWith(
  route: HubRoute,
  coordination: ListenCoordination,
  poster: WebhookPoster,
  options: ListenCommandOptions,
  target: Target,
  explorer: VerifySetup | undefined,
): Promise<void> {
  const { clock } = options;
  const scope = options.scope(target);
  const api = await options.client(target);
  // one lead for the profile, whatever the receivers
  const lead = await coordination.lead({
    sleep: clock.sleep,
    elapsed: clock.monotonic ?? clock.now,
    signal: clock.signal,
  });
  let made: EventHubs | undefined;
  const outboxes: OutboxStore[] = [];
  // the outbox failing while an event is sent (a full disk) ends listen, with that failure
  let fatal: { error: unknown } | undefined;
  const ended = new AbortController();
  const signal = AbortSignal.any([clock.signal, ended.signal, lead.lost]);
  try {
    for (const receiver of route.routes)
      outboxes.push(
        await coordination.outbox(route.routes.length === 1 ? undefined : receiverKey(receiver.url)),
      );
    // an event is sent only while the lead is held at that moment
    const sender = leadPoster(poster, lead);
    const hub = hubsOf(route, outboxes, sender, options, scope, explorer, { ...clock, signal }, (error) => {
      fatal ??= { error };
      ended.abort();
    });
    made = hub;
    hub.start();
    options.printer.info(listeningLine(options.profileName, scope.target, route.routes, hub.pendingCounts()));
    await followIntoEvents(api, hub, route.intervalMs, options, scope, explorer, signal);
  } catch (error) {
    // the watch was stopped for the outbox's failure, or the lead lost: that is what ended listen
    if (fatal && !clock.signal.aborted) throw fatal.error;
    if (lead.lost.aborted && !clock.signal.aborted) throw lead.lost.reason;
    throw error;
  } finally {
    await made?.stop();
    for (const outbox of outboxes) outbox.close();
    await lead.release();
  }
}

/** One hub per receiver, fed alike. */
function hubsOf(
  route: HubRoute,
  outboxes: OutboxStore[],
  poster: WebhookPoster,
  options: ListenCommandOptions,
  scope: Scope,
  explorer: VerifySetup | undefined,
  clock: FlowClock,
  fatal: (error: unknown) => void,
): EventHubs {
  const printer = options.printer;
  const several = route.routes.length > 1;
  return new EventHubs(
    route.routes.map(
      (receiver, index) =>
        new EventHub({
          outbox: outboxes[index]!,
          poster,
          clock,
          fatal,
          service: scope.target,
          url: receiver.url,
          key: route.key,
          wanted: receiver.wanted,
          verify: explorer !== undefined,
          // with several receivers, each answer line says whose it is
          log: (line) => printer.err(several ? `${line}  ${redactUrl(receiver.url)}` : line),
          warn: (line) => printer.warn(line),
        }),
    ),
  );
}

/** --verify's hook: a FINALIZED deposit's settlement checked, its outcome made an event. */
function settledHook(hub: EventHubs, options: ListenCommandOptions, explorer: VerifySetup | undefined) {
  if (!explorer) return undefined;
  return async (deposit: GetResponse): Promise<boolean> => {
    const [outcome] = (await verifySettlements(explorer.check, [deposit], explorer.settings)) as [
      DepositOutcome,
    ];
    if (outcome.outcome === 'verified' || outcome.outcome === 'mismatch' || outcome.outcome === 'unproven') {
      // recorded as deposit verify records it: list shows it verified
      if (outcome.outcome === 'verified') await options.recordVerified([outcome]);
      hub.verification(deposit, outcome);
      return true;
    }
    return false;
  };
}

/**
 * What listen says of a deposit the service answers 404 for: lbrl created it, so the service knows
 * it or will again (a replica behind, a deploy, a proxy's page in its place): asked about again
 * later and later, never given up, never recorded GONE; said once until the service knows it.
 */
function missingNotice(printer: Printer, said: Set<string>) {
  return (id: string, error: LbrlError, wait: number) => {
    if (said.has(id)) return;
    said.add(id);
    const what =
      error.type === 'endpoint'
        ? `the service's address answered 404 without the service's JSON for deposit ${id} (a proxy or a deploy?)`
        : `the service does not know deposit ${id} (yet)`;
    printer.warn(
      `warning: ${what}; listen asks again in ${Math.ceil(wait / 1000)} s, then less often (at least every ${MISSING_LOOK_MS / 60_000} min), and never gives up on it`,
    );
  };
}

/** The profile's deposits followed (those the history gains too) until the signal: each change an event. */
async function followIntoEvents(
  api: DepositApi,
  hub: EventHubs,
  intervalMs: number,
  options: ListenCommandOptions,
  scope: Scope,
  explorer: VerifySetup | undefined,
  signal: AbortSignal,
): Promise<void> {
  const { clock, printer } = options;
  const history = options.history();
  /** the last refusal said of each deposit whose answers failed the checks */
  const refused = new Map<string, string>();
  /** the deposits whose 404 was said, until the service knows them again */
  const missingSaid = new Set<string>();
  const sayMissing = missingNotice(printer, missingSaid);
  await watchDeposits(
    api,
    {
      ids: [],
      discover: () =>
        hub.covered(history.entries((r) => r.profile === scope.profile && r.baseUrl === scope.target)),
      intervalMs,
      resting: (id) => hub.resting(id),
      settled: settledHook(hub, options, explorer),
      unreachableLimitMs: Number.POSITIVE_INFINITY,
      now: clock.now,
      ...(clock.monotonic ? { monotonic: clock.monotonic } : {}),
      sleep: clock.sleep,
      random: clock.random,
      signal,
    },
    {
      change: (deposit) => {
        missingSaid.delete(deposit.id);
        recordLater(
          options.recorder,
          [statusRecord(deposit.id, deposit.status, clock.now(), deposit)],
          (line) => printer.warn(line),
        );
        hub.observe(deposit);
      },
      retry: (reason, delay) =>
        printer.warn(`service: ${reason}; asking again in ${Math.ceil(delay / 1000)} s`),
      tick: () => hub.compact(false),
      untrusted: (id, error) => {
        // said once per deposit and problem: it is asked about again at every turn
        if (refused.get(id) === error.message) return;
        refused.set(id, error.message);
        printer.warn(`warning: ${error.message}; no event is sent from that answer, and listen goes on`);
      },
      missing: (id, error) => sayMissing(id, error, hub.missing(id, intervalMs)),
    },
  );
}

/** What listen says when it starts: the profile, the service, each receiver (with its filter), what waits. */
function listeningLine(profile: string, service: string, routes: ListenRoute[], waiting: number[]): string {
  const where = service === 'sandbox' ? 'sandbox' : service;
  const to =
    routes.length === 1
      ? redactUrl(routes[0]!.url)
      : routes
          .map((r) => `${redactUrl(r.url)} (${r.filtered ? [...r.wanted].join(',') : 'every event'})`)
          .join(', ');
  const total = waiting.reduce((a, b) => a + b, 0);
  return `listening: events of profile ${profile} (${where}) to ${to}${total > 0 ? `; ${total} undelivered event(s) from before sent first` : ''}. Signing secret: lbrl listen --print-secret. Ctrl-C to stop`;
}

export const LISTEN = command({
  rank: 260,
  path: 'listen',
  description: "send the profile's deposit events to a URL as signed webhooks (Standard Webhooks)",
  long: `The Deposit service sends no webhooks: lbrl follows the profile's deposits as \`watch\` does and posts each change to \`--forward-to\`, signed with the profile's \`whsec_\` secret as the Standard Webhooks specification says, so any of its libraries verifies them. Events wait in a durable outbox and are delivered at least once, in order per deposit, across restarts.`,
  flags: LISTEN_FLAGS,
  examples: [
    'lbrl listen --forward-to http://localhost:4242/webhooks',
    'export LBRL_WEBHOOK_SECRET="$(lbrl listen --print-secret)"',
    'lbrl listen --forward-to https://shop.example/hooks --events deposit.finalized,deposit.failed --verify',
    'lbrl listen --forward-to http://localhost:4242/webhooks --replay evt_...',
    'lbrl listen --forward-to https://shop.example/paid --events deposit.finalized --forward-to http://localhost:4242/all',
  ],
  conflicts: [
    {
      when: { set: 'printSecret' },
      forbids: ['forwardTo', 'events', 'interval', 'verify', 'replay'],
      message: (flags) => `--print-secret prints the secret alone: leave out ${flags.join(', ')}`,
    },
    {
      when: { set: 'replay' },
      forbids: ['events', 'interval', 'verify'],
      message: (flags) => `--replay sends one event: leave out ${flags.join(', ')}`,
    },
  ],
  async run({ opts, factory }) {
    const made = await factory();
    // a database ledger: this host's copy caught up each second, so a charge made elsewhere is followed
    made.ledger().follow(LEDGER_POLL_MS);
    return runListen(listenOptionsOf(opts, made));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(LISTEN);
