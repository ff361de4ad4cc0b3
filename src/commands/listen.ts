/**
 * `lbrl listen`: the profile's deposits, followed as `deposit watch` follows them, turned into
 * signed webhooks (Standard Webhooks) delivered at least once from a durable outbox.
 */
import { randomBytes } from 'node:crypto';
import { withoutCredentials } from '../api/baseurl.js';
import type { GetResponse } from '../api/models.js';
import { parseForwardUrl, type WebhookPoster, webhookPoster } from '../api/webhook-post.js';
import { answerLine, EventHub } from '../deposits/events.js';
import type { DepositApi, FlowClock, HistoryReader, Recorder, Scope } from '../deposits/ports.js';
import { type DepositOutcome, verifySettlements } from '../deposits/verify.js';
import { GONE, watchDeposits } from '../deposits/watch.js';
import { webhookSecretSecrets } from '../domain/text/redact.js';
import { parseIntervalSeconds } from '../domain/values.js';
import {
  DEPOSIT_EVENTS,
  type DepositEventType,
  formatSecret,
  parseEventFilter,
  SECRET_BYTES,
  secretKey,
  webhookHeaders,
} from '../domain/webhook.js';
import { invalidValue, LbrlError, usageError } from '../errors.js';
import type { Session, Target } from '../session.js';
import type { Profile } from '../store/config.js';
import { statusRecord } from '../store/history.js';
import { Outbox } from '../store/outbox.js';
import type { Printer } from '../ui/output.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { recordVerified, settledRecorderOf, type VerifySetup, verifySetup } from './shared/verify-setup.js';

const LISTEN_FLAGS = [
  { flags: '--forward-to <url>', help: 'POST each event here (https://, or http:// on loopback)' },
  {
    flags: '--events <types>',
    help: 'only these event types, comma-separated (deposit.created,deposit.finalized,...)',
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

export type ListenOptions = OptionsOf<typeof LISTEN_FLAGS>;

/** Where the secret is kept: in the profile, in the private config file, as the token is. */
const SECRET_KEY = 'webhook-secret';

/**
 * All `lbrl listen` needs (gh's Options struct): the Session fills it in (`listenOptionsOf`); a
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
  recordVerified(outcomes: DepositOutcome[]): void;
  /** the client the deposits are followed with */
  client(target: Target): Promise<DepositApi>;
  /** the local history: the deposits to follow */
  history(): Pick<HistoryReader, 'entries'>;
  recorder: Recorder;
}

/** The Session's world, narrowed to what `lbrl listen` uses. */
export function listenOptionsOf(flags: ListenOptions, session: Session): ListenCommandOptions {
  return {
    flags,
    printer: session.printer,
    clock: session.ctx,
    profileName: session.profileName,
    configFile: session.store.file,
    configDir: session.store.dir,
    savedSecret: () => session.profile()[SECRET_KEY],
    updateProfile: (change) => session.store.updateProfile(session.profileName, change),
    poster: () =>
      webhookPoster({
        timeoutMs: session.ctx.client?.timeoutMs ?? 10_000,
        connectTimeoutMs: session.ctx.client?.connectTimeoutMs ?? 5_000,
        now: session.ctx.now,
        userAgent: 'lbrl-webhooks',
      }),
    target: () => session.target(),
    scope: (target) => session.scope(target),
    verifyOn: () => session.setting('verify') === 'on',
    verifySetup: (target) => verifySetup(session, target),
    recordVerified: (outcomes) => recordVerified(settledRecorderOf(session), outcomes),
    client: (target) => session.client(target, { maxRetries: 0 }),
    history: () => session.history(),
    recorder: session,
  };
}

/** The profile's signing secret, made (once, under the config file's lock) when it has none. */
export async function profileSecret(options: ListenCommandOptions): Promise<string> {
  const existing = options.savedSecret();
  if (typeof existing === 'string' && secretKey(existing)) return existing;
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
  if (typeof made !== 'string' || !secretKey(made))
    throw new LbrlError(`could not store a webhook secret in ${options.configFile}`, 'config');
  return made;
}

function parseFlags(opts: ListenOptions) {
  let url: string | undefined;
  if (opts.forwardTo !== undefined) {
    const parsed = parseForwardUrl(opts.forwardTo);
    // a password written into the URL is never shown, even in the refusal
    if (!parsed.ok) throw invalidValue('--forward-to', withoutCredentials(opts.forwardTo), parsed.expected);
    url = parsed.value;
  }
  let wanted = new Set<DepositEventType>(DEPOSIT_EVENTS);
  if (opts.events !== undefined) {
    const parsed = parseEventFilter(opts.events);
    if (!parsed.ok) throw invalidValue('--events', opts.events, parsed.expected);
    wanted = parsed.value;
  }
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
  return { url, wanted, intervalMs };
}

export async function run(opts: ListenOptions, session: Session): Promise<void> {
  return runListen(listenOptionsOf(opts, session));
}

/** --print-secret, --replay, or the events of the profile's deposits sent until Ctrl-C. */
export async function runListen(options: ListenCommandOptions): Promise<void> {
  const opts = options.flags;
  const { url, wanted, intervalMs } = parseFlags(opts);
  const printer = options.printer;
  if (opts.printSecret) {
    const secret = await profileSecret(options);
    // the one place the secret is printed on purpose, alone on stdout
    printer.outUnredacted(secret);
    return;
  }
  if (url === undefined)
    throw usageError(
      'listen needs --forward-to <url> (or --print-secret)',
      'lbrl listen --forward-to http://localhost:4242/webhooks',
    );
  // where the events come from is checked before anything is written
  if (opts.replay === undefined) options.target();
  const secret = await profileSecret(options);
  for (const part of webhookSecretSecrets(secret)) printer.addSecret(part);
  const key = secretKey(secret)!;
  const outbox = new Outbox(options.configDir, options.profileName, (line) => printer.warn(line));
  const poster = options.poster();
  try {
    if (opts.replay !== undefined) return await replay(opts.replay, url, key, outbox, poster, options);
    await forwardEvents({ url, wanted, intervalMs, key, verify: opts.verify }, outbox, poster, options);
  } finally {
    await poster.close();
  }
}

/** `--replay <id>`: one attempt, signed now, with the event's own id and body. */
async function replay(
  id: string,
  url: string,
  key: Uint8Array,
  outbox: Outbox,
  poster: WebhookPoster,
  options: ListenCommandOptions,
): Promise<void> {
  const printer = options.printer;
  const event = outbox.load().events.get(id);
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
    throw new LbrlError(`the receiver at ${url} could not be reached: ${outcome.reason}`, 'network');
  if (outcome.status < 200 || outcome.status > 299)
    throw new LbrlError(`the receiver at ${url} answered ${outcome.status}, not 2xx`, 'service');
}

async function forwardEvents(
  route: {
    url: string;
    wanted: Set<DepositEventType>;
    intervalMs: number;
    key: Uint8Array;
    verify: boolean | undefined;
  },
  outbox: Outbox,
  poster: WebhookPoster,
  options: ListenCommandOptions,
): Promise<void> {
  const target = options.target();
  const verifying = route.verify ?? options.verifyOn();
  // settings are checked now, before anything is followed (no explorer for elementsregtest: exit 2),
  // and one explorer client serves every check of the run
  const explorer = verifying ? await options.verifySetup(target) : undefined;
  try {
    await forwardWith(route, outbox, poster, options, target, explorer);
  } finally {
    await explorer?.close();
  }
}

async function forwardWith(
  route: { url: string; wanted: Set<DepositEventType>; intervalMs: number; key: Uint8Array },
  outbox: Outbox,
  poster: WebhookPoster,
  options: ListenCommandOptions,
  target: Target,
  explorer: VerifySetup | undefined,
): Promise<void> {
  const printer = options.printer;
  const { clock } = options;
  const scope = options.scope(target);
  const api = await options.client(target);
  const release = outbox.lock();
  let made: EventHub | undefined;
  // the outbox failing while an event is sent (a full disk) ends listen, with that failure
  let fatal: { error: unknown } | undefined;
  const ended = new AbortController();
  const signal = AbortSignal.any([clock.signal, ended.signal]);
  try {
    const hub = new EventHub({
      outbox,
      poster,
      clock: { ...clock, signal },
      fatal: (error) => {
        fatal ??= { error };
        ended.abort();
      },
      service: scope.target,
      url: route.url,
      key: route.key,
      wanted: route.wanted,
      verify: explorer !== undefined,
      log: (line) => printer.err(line),
      warn: (line) => printer.warn(line),
    });
    made = hub;
    hub.start();
    const waiting = hub.pendingCount;
    printer.info(
      `listening: events of profile ${options.profileName} (${scope.target === 'sandbox' ? 'sandbox' : scope.target}) to ${route.url}${waiting > 0 ? `; ${waiting} undelivered event(s) from before sent first` : ''}. Signing secret: lbrl listen --print-secret. Ctrl-C to stop`,
    );
    const settled = explorer
      ? async (deposit: GetResponse): Promise<boolean> => {
          const [outcome] = (await verifySettlements(explorer.check, [deposit], explorer.settings)) as [
            DepositOutcome,
          ];
          if (
            outcome.outcome === 'verified' ||
            outcome.outcome === 'mismatch' ||
            outcome.outcome === 'unproven'
          ) {
            // recorded as deposit verify records it: list shows it verified
            if (outcome.outcome === 'verified') options.recordVerified([outcome]);
            hub.verification(deposit, outcome);
            return true;
          }
          return false;
        }
      : undefined;
    const history = options.history();
    /** the last refusal said of each deposit whose answers failed the checks */
    const refused = new Map<string, string>();
    const watching = watchDeposits(
      api,
      {
        ids: [],
        discover: () =>
          hub.covered(history.entries((r) => r.profile === scope.profile && r.baseUrl === scope.target)),
        intervalMs: route.intervalMs,
        resting: (id) => hub.resting(id),
        settled,
        leaveGone: true,
        unreachableLimitMs: Number.POSITIVE_INFINITY,
        now: clock.now,
        sleep: clock.sleep,
        random: clock.random,
        signal,
      },
      {
        change: (deposit) => {
          options.recorder.record([statusRecord(deposit.id, deposit.status, clock.now(), deposit)]);
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
        gone: (id) => {
          options.recorder.record([statusRecord(id, GONE, clock.now())]);
          printer.warn(`warning: the service does not know deposit ${id}; no more events for it`);
          hub.gone(id);
        },
      },
    );
    try {
      await watching;
    } catch (error) {
      // the watch was stopped for the outbox's failure: that is what ended listen
      if (fatal && !clock.signal.aborted) throw fatal.error;
      throw error;
    }
  } finally {
    await made?.stop();
    outbox.close();
    release();
  }
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
  async run({ opts, session }) {
    return run(opts, await session());
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(LISTEN);
