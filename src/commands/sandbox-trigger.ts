/**
 * `lbrl sandbox trigger <scenario>`: a sandbox deposit made and walked through a named story, so
 * that `lbrl listen` and the receiver behind it can be tried without a service. Each deposit is
 * created through the sandbox's API (checked and recorded in the history like any other, so
 * listen follows it) with autopay off, then the story is written into the sandbox's data.
 */
import { randomUUID } from 'node:crypto';
import { createChecked } from '../deposits/create.js';
import type { DepositApi, Recorder, RequestDefaults, Scope, Target } from '../deposits/ports.js';
import { scopeOnTarget } from '../deposits/ports.js';
import { buildRequest } from '../deposits/request.js';
import { invalidValue, LbrlError, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { requestDefaultsOf, sandboxDirOf } from '../factory/settings.js';
import { actOn } from '../sandbox/actions.js';
import { STEP_MS } from '../sandbox/lifecycle.js';
import type { SandboxStore } from '../sandbox/store.js';
import type { Printer } from '../ui/output.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';

/** The stories `sandbox trigger` tells. */
const TRIGGER_SCENARIOS = ['paid', 'failed', 'paid-slowly', 'wrong-settlement', 'abandoned'] as const;

const TRIGGER_FLAGS = [
  {
    flags: '--to <liquid-address>',
    help: "destination Liquid address (default: the profile's default-address, else a sandbox address)",
  },
  { flags: '--amount <reais>', help: 'amount in reais (default 10.00)' },
] as const satisfies readonly FlagDef[];

export type TriggerOptions = OptionsOf<typeof TRIGGER_FLAGS>;
type Scenario = (typeof TRIGGER_SCENARIOS)[number];

/** How long `paid-slowly` stays in TX_SENT. */
export const SLOW_MS = 5 * 60 * 1000;

/** A Liquid address for a trigger given none (no --to, no default-address): nobody's wallet. */
const EXAMPLE_ADDRESS: Partial<Record<string, string>> = {
  liquid:
    'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv',
};

const STORIES: Record<Scenario, string> = {
  paid: 'paid now: PIX_CONFIRMED, SETTLEMENT_CREATED, TX_SENT and FINALIZED about a second apart',
  failed: 'paid now, then FAILED while its settlement is made',
  'paid-slowly': `paid now, then held in TX_SENT for ${SLOW_MS / 60_000} minutes before FINALIZED`,
  'wrong-settlement':
    'paid now and settled to a stranger: FINALIZED, and with verification on (listen --verify) a mismatch',
  abandoned: 'never paid: it stays WAITING_PAYMENT (the ledger expires it after expire-after)',
};

function isScenario(text: string): text is Scenario {
  return (TRIGGER_SCENARIOS as readonly string[]).includes(text);
}

/** The trigger's own sandbox, on the profile's sandbox data: its URL, token and store, until closed. */
export interface TriggerSandbox {
  baseUrl: string;
  token: string;
  store: SandboxStore;
  close(): Promise<void>;
}

/**
 * All `sandbox trigger` needs (gh's Options struct): the factory's getters fill it in (`triggerOptionsOf`);
 * a test hands a printer on strings, settings, a recorder and a sandbox of its own.
 */
export interface TriggerCommandOptions {
  /** the scenario as typed */
  scenario: string;
  flags: TriggerOptions;
  printer: Printer;
  json: boolean;
  /** the settings a request is checked against (the network first) */
  requestDefaults(): RequestDefaults;
  /** it acts on the embedded sandbox only */
  target(): Target;
  /** this profile's deposits on the target, as the history records them */
  scope(target: Target): Scope;
  recorder: Recorder;
  now(): number;
  /** start a sandbox on the profile's sandbox data, autopay off */
  startSandbox(): Promise<TriggerSandbox>;
  /** a client for that sandbox */
  client(target: Extract<Target, { mode: 'live' }>): Promise<DepositApi>;
}

/** The factory's getters, narrowed to what `sandbox trigger` uses. */
export function triggerOptionsOf(
  scenario: string,
  flags: TriggerOptions,
  factory: Factory,
): TriggerCommandOptions {
  return {
    scenario,
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    requestDefaults: () => requestDefaultsOf(factory.profile()),
    target: () => factory.target(),
    scope: (target) => scopeOnTarget(factory.profileName, target),
    recorder: factory.ledger(),
    now: factory.ctx.now,
    async startSandbox() {
      const { startSandbox } = await import('../sandbox/embedded.js');
      const { qrPng } = await import('../ui/qrpng.js');
      return startSandbox({
        drawPng: qrPng,
        dir: sandboxDirOf(factory.config().dir),
        autopay: 'off',
        now: factory.ctx.now,
      });
    },
    client: (target) => factory.client(target, { maxRetries: 0 }),
  };
}

/** Check the scenario and the request, create the deposit through the sandbox's API, write its story. */
export async function runTrigger(options: TriggerCommandOptions): Promise<void> {
  const { scenario, flags: opts } = options;
  if (!isScenario(scenario))
    throw invalidValue('scenario', scenario, `one of ${TRIGGER_SCENARIOS.join(', ')}`);
  const defaults = options.requestDefaults();
  const to = opts.to ?? defaults.defaultAddress ?? EXAMPLE_ADDRESS[defaults.network];
  if (to === undefined)
    throw usageError(
      `sandbox trigger needs a destination on ${defaults.network}: pass --to <liquid-address> or set default-address`,
    );
  const body = buildRequest({ amount: opts.amount ?? '10.00', to, split: false }, defaults);
  const target = options.target();
  if (target.mode !== 'sandbox')
    throw usageError(
      'sandbox trigger acts on the embedded sandbox (its data under the config directory): unset the base URL and token (LBRL_BASE_URL, LBRL_TOKEN, the profile) to use it',
    );
  const printer = options.printer;
  // its own sandbox on the same data, autopay off: the story, not the timer, decides what happens
  const sandbox = await options.startSandbox();
  try {
    printer.addSecret(sandbox.token);
    const api = await options.client({
      mode: 'live',
      baseUrl: sandbox.baseUrl,
      token: sandbox.token,
      baseUrlFrom: 'sandbox',
      tokenFrom: 'sandbox',
    });
    const { value } = await createChecked(
      { api, recorder: options.recorder, scope: options.scope(target), now: options.now },
      body,
      randomUUID(),
    );
    const id = value.id;
    const now = options.now();
    const act = (action: 'pay' | 'fail', at: number, extra: { settle?: string; slowMs?: number } = {}) => {
      const outcome = actOn(sandbox.store, id, action, at, extra);
      if (!outcome.ok) throw new LbrlError(`the sandbox refused to ${action} deposit ${id}`, 'service');
    };
    if (scenario === 'paid') act('pay', now);
    else if (scenario === 'failed') {
      act('pay', now);
      act('fail', now + Math.round(1.5 * STEP_MS));
    } else if (scenario === 'paid-slowly') act('pay', now, { slowMs: SLOW_MS });
    else if (scenario === 'wrong-settlement') act('pay', now, { settle: 'address' });
    if (options.json) printer.json({ scenario, id, story: STORIES[scenario] });
    else {
      printer.out(id);
      printer.info(`triggered ${scenario}: deposit ${id} ${STORIES[scenario]}; lbrl listen sends its events`);
    }
  } finally {
    await sandbox.close();
  }
}

export const SANDBOX_TRIGGER = command({
  rank: 250,
  path: 'sandbox trigger',
  description: 'create a sandbox deposit and walk it through a story, for listen and your receiver',
  long: `The scenarios: \`paid\`, \`failed\`, \`paid-slowly\`, \`wrong-settlement\` (settled to a stranger's address: with \`--verify\`, \`deposit.mismatch\`) and \`abandoned\` (never paid, until the ledger expires it). It acts on the embedded sandbox's data, which \`listen\` in sandbox mode follows.`,
  args: [{ name: '<scenario>', help: TRIGGER_SCENARIOS.join(', '), complete: TRIGGER_SCENARIOS }],
  flags: TRIGGER_FLAGS,
  examples: [
    'lbrl sandbox trigger paid               # created, pix_confirmed ... finalized',
    'lbrl sandbox trigger wrong-settlement   # with lbrl listen --verify: deposit.mismatch',
  ],
  async run({ opts, args: [scenario], factory }) {
    return runTrigger(triggerOptionsOf(scenario, opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(SANDBOX_TRIGGER);
