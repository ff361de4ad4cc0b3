/**
 * `deposit get` on narrow options (runGet) as the in-process tests run it: the options a plain get
 * is given (no blinding key, no standing sandbox, nothing recorded expired), and the real clients
 * on answers without a socket (test/helpers/answering-dispatcher.ts), sent once as
 * --max-retries 0 would, on a stepping clock.
 */
import { DepositClient } from '../../src/api/client.js';
import { EsploraClient } from '../../src/api/esplora.js';
import { type GetCommandOptions, type GetFlags, runGet } from '../../src/commands/deposit-get.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { answeringDispatcher, type SeenCall, type WrittenReply } from './answering-dispatcher.js';
import { ID, TOKEN } from './fixtures.js';
import { type PlainTerminal, plainTerminal, seenRun, steppingClock } from './plain-terminal.js';
import { type Shown, shown } from './shown.js';

/** A plain get's options for `term`, on `api`; `overrides` replace any of them. */
export function plainGetOptions(
  term: PlainTerminal,
  api: DepositApi,
  overrides: Partial<GetCommandOptions> = {},
): GetCommandOptions {
  return {
    idText: ID,
    flags: {} as GetFlags,
    json: false,
    quiet: false,
    qrStyleSetting: undefined,
    env: { TZ: 'UTC' },
    blindedFragment: async () => null,
    serviceUrl: () => undefined,
    expiredAt: () => undefined,
    afterExpiry: async () => {},
    printer: term.printer,
    client: async () => ({ api, sandbox: false }),
    ...overrides,
  };
}

/** The real DepositClient on `reply`'s answers, and the requests it sent. */
export function answeredClient(reply: (call: SeenCall) => WrittenReply, baseUrl = 'https://pay.example.com') {
  const { dispatcher, calls } = answeringDispatcher(reply);
  const clock = steppingClock();
  const client = new DepositClient({
    baseUrl,
    token: TOKEN,
    maxRetries: 0,
    sleep: clock.sleep,
    random: clock.random,
    now: clock.now,
    dispatcher,
    userAgent: 'lbrl',
  });
  return { client, calls };
}

/** The real EsploraClient on `reply`'s answers. */
export function answeredExplorer(reply: (call: SeenCall) => WrittenReply): EsploraClient {
  const { dispatcher } = answeringDispatcher(reply);
  const clock = steppingClock();
  return new EsploraClient({
    baseUrl: 'https://explorer.example/api',
    sleep: clock.sleep,
    random: clock.random,
    now: clock.now,
    userAgent: 'lbrl',
    timeoutMs: 2000,
    connectTimeoutMs: 2000,
    dispatcher,
  });
}

/** A plain get of ID answered by `reply`, as a user sees it. */
export async function getAnswered(reply: WrittenReply, json = false): Promise<Shown> {
  const { client } = answeredClient(() => reply);
  const term = plainTerminal({ json });
  const seen = await seenRun(term, () => runGet(plainGetOptions(term, client, { json })));
  return shown(term, seen);
}
