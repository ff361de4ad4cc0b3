/**
 * `lbrl listen`: the profile's deposits, followed as `deposit watch` follows them, turned into
 * signed webhooks (Standard Webhooks) delivered at least once from a durable outbox.
 */
import { randomBytes } from 'node:crypto';
import { withoutCredentials } from '../api/baseurl.js';
import type { GetResponse } from '../api/models.js';
import { parseForwardUrl, webhookPoster } from '../api/webhook-post.js';
import { answerLine, EventHub } from '../deposits/events.js';
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
import type { Session } from '../session.js';
import { statusRecord } from '../store/history.js';
import { Outbox } from '../store/outbox.js';
import type { OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { LISTEN_FLAGS } from './flags.js';
import { recordVerified, verifySetup } from './shared/verify-setup.js';

export type ListenOptions = OptionsOf<typeof LISTEN_FLAGS>;

/** Where the secret is kept: in the profile, in the private config file, as the token is. */
const SECRET_KEY = 'webhook-secret';

/** The profile's signing secret, made (once, under the config file's lock) when it has none. */
export async function profileSecret(session: Session): Promise<string> {
  const existing = session.profile()[SECRET_KEY];
  if (typeof existing === 'string' && secretKey(existing)) return existing;
  if (existing !== undefined) {
    throw new LbrlError(
      `the webhook secret of profile ${session.profileName} in ${session.store.file} is damaged; remove it with lbrl config unset ${SECRET_KEY}${session.profileName === 'default' ? '' : ` --profile ${session.profileName}`} to make a new one (receivers must then be given the new secret)`,
      'config',
    );
  }
  await session.store.updateProfile(session.profileName, (profile) => {
    // another process may have made it meanwhile: the first one made is the one kept
    if (profile[SECRET_KEY] === undefined) profile[SECRET_KEY] = formatSecret(randomBytes(SECRET_BYTES));
  });
  const made = session.profile()[SECRET_KEY];
  if (typeof made !== 'string' || !secretKey(made))
    throw new LbrlError(`could not store a webhook secret in ${session.store.file}`, 'config');
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
  const { url, wanted, intervalMs } = parseFlags(opts);
  const printer = session.printer;
  if (opts.printSecret) {
    const secret = await profileSecret(session);
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
  if (opts.replay === undefined) session.target();
  const secret = await profileSecret(session);
  for (const s of webhookSecretSecrets(secret)) printer.addSecret(s);
  const key = secretKey(secret)!;
  const outbox = new Outbox(session.store.dir, session.profileName, (line) => printer.warn(line));
  const poster = webhookPoster({
    timeoutMs: session.ctx.client?.timeoutMs ?? 10_000,
    connectTimeoutMs: session.ctx.client?.connectTimeoutMs ?? 5_000,
    now: session.ctx.now,
    userAgent: 'lbrl-webhooks',
  });
  try {
    if (opts.replay !== undefined) return await replay(opts.replay, url, key, outbox, poster, session);
    await forwardEvents({ url, wanted, intervalMs, key, verify: opts.verify }, outbox, poster, session);
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
  poster: ReturnType<typeof webhookPoster>,
  session: Session,
): Promise<void> {
  const printer = session.printer;
  const event = outbox.load().events.get(id);
  if (!event)
    throw new LbrlError(
      `no event ${id} in the outbox of profile ${session.profileName} (it keeps every event not yet delivered and the last 1000 delivered)`,
      'not_found',
    );
  const record = event.record;
  const outcome = await poster.post(
    url,
    webhookHeaders(key, record.id, session.ctx.now(), record.body),
    record.body,
    session.ctx.signal,
  );
  printer.err(answerLine(session.ctx.now(), record, outcome));
  if (outcome.kind === 'failure')
    throw new LbrlError(`the receiver at ${url} could not be reached: ${outcome.reason}`, 'network');
  if (outcome.status < 200 || outcome.status > 299)
    throw new LbrlError(`the receiver at ${url} answered ${outcome.status}, not 2xx`, 'service');
}

async function forwardEvents(
  options: {
    url: string;
    wanted: Set<DepositEventType>;
    intervalMs: number;
    key: Uint8Array;
    verify: boolean | undefined;
  },
  outbox: Outbox,
  poster: ReturnType<typeof webhookPoster>,
  session: Session,
): Promise<void> {
  const printer = session.printer;
  const target = session.target();
  const scope = session.scope(target);
  const verifying = options.verify ?? session.setting('verify') === 'on';
  // settings are checked now, before anything is followed (no explorer for elementsregtest: exit 2),
  // and one explorer client serves every check of the run
  const explorer = verifying ? await verifySetup(session, target) : undefined;
  if (explorer) session.onClose(() => explorer.close());
  const api = await session.client(target, { maxRetries: 0 });
  const release = outbox.lock();
  let made: EventHub | undefined;
  // the outbox failing while an event is sent (a full disk) ends listen, with that failure
  let fatal: { error: unknown } | undefined;
  const ended = new AbortController();
  const signal = AbortSignal.any([session.ctx.signal, ended.signal]);
  try {
    const hub = new EventHub({
      outbox,
      poster,
      clock: { ...session.ctx, signal },
      fatal: (error) => {
        fatal ??= { error };
        ended.abort();
      },
      service: scope.target,
      url: options.url,
      key: options.key,
      wanted: options.wanted,
      verify: verifying,
      log: (line) => printer.err(line),
      warn: (line) => printer.warn(line),
    });
    made = hub;
    hub.start();
    const waiting = hub.pendingCount;
    printer.info(
      `listening: events of profile ${session.profileName} (${scope.target === 'sandbox' ? 'sandbox' : scope.target}) to ${options.url}${waiting > 0 ? `; ${waiting} undelivered event(s) from before sent first` : ''}. Signing secret: lbrl listen --print-secret. Ctrl-C to stop`,
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
            if (outcome.outcome === 'verified') recordVerified(session, [outcome]);
            hub.verification(deposit, outcome);
            return true;
          }
          return false;
        }
      : undefined;
    const history = session.history();
    /** the last refusal said of each deposit whose answers failed the checks */
    const refused = new Map<string, string>();
    const watching = watchDeposits(
      api,
      {
        ids: [],
        discover: () =>
          hub.covered(history.entries((r) => r.profile === scope.profile && r.baseUrl === scope.target)),
        intervalMs: options.intervalMs,
        resting: (id) => hub.resting(id),
        settled,
        leaveGone: true,
        unreachableLimitMs: Number.POSITIVE_INFINITY,
        now: session.ctx.now,
        sleep: session.ctx.sleep,
        random: session.ctx.random,
        signal,
      },
      {
        change: (deposit) => {
          session.record([statusRecord(deposit.id, deposit.status, session.ctx.now(), deposit)]);
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
          session.record([statusRecord(id, GONE, session.ctx.now())]);
          printer.warn(`warning: the service does not know deposit ${id}; no more events for it`);
          hub.gone(id);
        },
      },
    );
    try {
      await watching;
    } catch (error) {
      // the watch was stopped for the outbox's failure: that is what ended listen
      if (fatal && !session.ctx.signal.aborted) throw fatal.error;
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
