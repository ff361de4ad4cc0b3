import { isLoopbackHost, parseBaseUrl } from '../api/baseurl.js';
import type { Target } from '../deposits/ports.js';
import { article, decodeLiquidAddress } from '../domain/liquid/address.js';
import type { Network } from '../domain/liquid/networks.js';
import { centsToDecimalText, formatCents, MAX_CENTS, MIN_CENTS, parseReais } from '../domain/money.js';
import { parseDepositId, parseWholeNumber } from '../domain/values.js';
import { interrupted, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { networkOf, sandboxDirOf, settingOf } from '../factory/settings.js';
import { actOn, type SandboxAction } from '../sandbox/actions.js';
import type { SettleMode } from '../sandbox/chain.js';
import { getView, STEP_MS } from '../sandbox/lifecycle.js';
import { SandboxStore } from '../sandbox/store.js';
import type { Printer } from '../ui/output.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { ID_ARG } from './shared/flag-parts.js';

/**
 * How `sandbox pay --settle` may make the sandbox settle: the sandbox chain's own modes, written
 * here as data so that loading this module does not load the chain; the compiler keeps them equal.
 */
const SETTLE_CHOICES = ['ok', 'amount', 'asset', 'address', 'none'] as const satisfies readonly SettleMode[];

type MissingSettleMode = Exclude<SettleMode, (typeof SETTLE_CHOICES)[number]>;

export const SETTLE_CHOICES_COMPLETE: [MissingSettleMode] extends [never] ? true : never = true;

const SEND_FLAGS = [
  { flags: '--to <liquid-address>', help: 'the address paid on the sandbox chain' },
  {
    flags: '--amount <reais>',
    help: `the amount sent, in reais (${centsToDecimalText(MIN_CENTS)} to ${centsToDecimalText(MAX_CENTS)})`,
  },
] as const satisfies readonly FlagDef[];

const SERVE_FLAGS = [
  { flags: '--port <n>', help: 'port (0 picks a free one)', default: '0' },
  { flags: '--host <addr>', help: 'loopback address to listen on', default: '127.0.0.1' },
] as const satisfies readonly FlagDef[];

const PAY_FLAGS = [
  {
    flags: '--settle <how>',
    help: 'settle on the sandbox chain: ok (default), or wrongly: amount, asset, address, none',
    complete: SETTLE_CHOICES,
  },
] as const satisfies readonly FlagDef[];

/** --port and --host have defaults: always given. */
export type ServeOptions = OptionsOf<typeof SERVE_FLAGS>;

/** A standing sandbox, started: its URL and token, until closed. */
export interface StartedSandbox {
  baseUrl: string;
  token: string;
  close(): Promise<void>;
}

/**
 * All `sandbox serve` needs (gh's Options struct): the factory's getters fill it in (`serveOptionsOf`); a
 * test hands a printer on strings, a signal and a `start` that opens no socket.
 */
export interface ServeCommandOptions {
  flags: ServeOptions;
  printer: Printer;
  json: boolean;
  quiet: boolean;
  /** where the sandbox keeps its data */
  sandboxDir: string;
  /** the profile's sandbox-autopay */
  autopay(): string;
  /** the standing sandbox's token, made once and kept with its data */
  token(): string;
  now(): number;
  /** Ctrl-C: the server runs until it */
  signal: AbortSignal;
  /** start the server on the sandbox data (the embedded sandbox's, listening on host and port) */
  start(settings: {
    dir: string;
    autopay: string;
    now: () => number;
    host: string;
    port: number;
    token: string;
    log?: (line: string) => void;
  }): Promise<StartedSandbox>;
}

/** The factory's getters, narrowed to what `sandbox serve` uses. */
export function serveOptionsOf(flags: ServeOptions, factory: Factory): ServeCommandOptions {
  // one store for the token and the server
  let made: SandboxStore | undefined;
  const store = () => (made ??= new SandboxStore(sandboxDirOf(factory.config().dir)));
  return {
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    quiet: factory.globals.quiet === true,
    sandboxDir: sandboxDirOf(factory.config().dir),
    autopay: () => settingOf(factory.profile(), 'sandbox-autopay'),
    token: () => store().token(),
    now: factory.ctx.now,
    signal: factory.ctx.signal,
    async start(settings) {
      const { startSandbox } = await import('../sandbox/embedded.js');
      const { qrPng } = await import('../ui/qrpng.js');
      return startSandbox({ ...settings, drawPng: qrPng }, store());
    },
  };
}

/** Serve the sandbox on host and port until Ctrl-C; its base URL and token first, on stdout. */
export async function runServe(options: ServeCommandOptions): Promise<void> {
  const { flags: opts, printer } = options;
  const port = parseWholeNumber(opts.port, 0, 65535, 'a port number from 0 to 65535 (0 picks a free one)');
  if (!port.ok) throw invalidValue('--port', opts.port, port.expected);
  if (!/^[0-9A-Za-z.:[\]-]{1,255}$/.test(opts.host))
    throw invalidValue('--host', opts.host, 'an IP address or host name');
  const autopay = options.autopay();
  const token = options.token();
  let running: StartedSandbox;
  try {
    running = await options.start({
      dir: options.sandboxDir,
      autopay,
      now: options.now,
      host: opts.host,
      port: port.value,
      token,
      // one line per request on stderr; -q (and --json) keep it quiet
      ...(options.quiet ? {} : { log: (line: string) => printer.err(line) }),
    });
  } catch (error) {
    throw new LbrlError(`cannot listen on ${opts.host}:${opts.port}: ${(error as Error).message}`, 'usage');
  }
  if (options.json)
    printer.json({ baseUrl: running.baseUrl, token: running.token, dataDir: options.sandboxDir });
  else {
    printer.out(`LBRL_BASE_URL=${running.baseUrl}`);
    printer.out(`LBRL_TOKEN=${running.token}`);
  }
  if (!isLoopbackHost(opts.host))
    printer.warn(`warning: listening on ${opts.host}, reachable beyond this machine`);
  if (!parseBaseUrl(running.baseUrl).ok)
    printer.warn(
      `warning: lbrl speaks plain http only to loopback; from another machine, put the sandbox behind https`,
    );
  printer.info(
    `sandbox serving at ${running.baseUrl} (data in ${options.sandboxDir}; autopay ${autopay === 'off' ? 'off' : `after ${autopay} s`}); Ctrl-C to stop`,
  );
  const signal = options.signal;
  try {
    if (!signal.aborted)
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await running.close();
  }
  throw interrupted();
}

export type PayOptions = OptionsOf<typeof PAY_FLAGS>;

/** What `sandbox pay` and `fail` ask of a standing sandbox: the deposit, then the action. */
export interface SandboxActionApi {
  getDeposit(id: string): Promise<{ raw: unknown }>;
  sandboxAction(
    id: string,
    action: SandboxAction,
  ): Promise<{ value: { id: string; status: string }; raw: unknown }>;
}

/**
 * All `sandbox pay` and `sandbox fail` need (gh's Options struct): the factory's getters fill it in
 * (`actOptionsOf`); a test hands a printer on strings, a target, and sandbox data in a temporary
 * directory or a fake standing sandbox.
 */
export interface ActCommandOptions {
  /** the deposit id as typed */
  idText: string;
  action: SandboxAction;
  /** --settle as typed (pay): how the local sandbox settles it; ok is the default */
  settle?: string | undefined;
  printer: Printer;
  json: boolean;
  /** a standing sandbox (live: its URL and token) or the local sandbox data */
  target(): Target;
  /** a client for a standing sandbox */
  client(target: Target): Promise<SandboxActionApi>;
  /** where the local sandbox keeps its data */
  sandboxDir: string;
  now(): number;
}

/** The factory's getters, narrowed to what `sandbox pay` and `fail` use. */
export function actOptionsOf(
  idText: string,
  action: SandboxAction,
  factory: Factory,
  settle?: string,
): ActCommandOptions {
  return {
    idText,
    action,
    settle,
    printer: factory.printer,
    json: factory.globals.json === true,
    target: () => factory.target(),
    client: (target) => factory.client(target, { maxRetries: 0, ledger: false }),
    sandboxDir: sandboxDirOf(factory.config().dir),
    now: factory.ctx.now,
  };
}

/**
 * What the payer (or the bank) does to a deposit: through the API of the standing sandbox the
 * target points at (LBRL_BASE_URL and LBRL_TOKEN, from any directory), or on the local sandbox data.
 */
export async function runAct(options: ActCommandOptions): Promise<void> {
  const { idText, action, printer } = options;
  if (options.settle !== undefined && !(SETTLE_CHOICES as readonly string[]).includes(options.settle)) {
    throw invalidValue(
      '--settle',
      options.settle,
      'ok, amount (one cent short), asset (paid in L-BTC), address (paid to a stranger) or none (no transaction)',
    );
  }
  const settle = options.settle === 'ok' ? undefined : options.settle;
  const id = parseDepositId(idText);
  if (!id.ok) throw invalidValue('deposit id', idText, id.expected);
  const target = options.target();
  if (target.mode === 'live') {
    if (settle !== undefined)
      throw usageError('--settle works on the local sandbox data only, not through a standing sandbox');
    const client = await options.client(target);
    // only a sandbox's deposit is marked so: a real charge is never "paid" by a request of ours
    const known = await client.getDeposit(id.value);
    if ((known.raw as { sandbox?: unknown }).sandbox !== true) {
      throw usageError(
        `deposit ${id.value} at ${target.baseUrl} is not a sandbox deposit (no "sandbox": true): sandbox ${action} acts only on a sandbox`,
      );
    }
    const { value, raw } = await client.sandboxAction(id.value, action);
    if (options.json) printer.json(raw);
    else printer.out(`${action === 'pay' ? 'paid' : 'failed'} ${value.id}: ${value.status}`);
    return;
  }
  const store = new SandboxStore(options.sandboxDir);
  const now = options.now();
  const outcome = actOn(store, id.value, action, now, settle === undefined ? {} : { settle });
  if (!outcome.ok && outcome.reason === 'not_found')
    throw new LbrlError(
      `deposit ${id.value} not found in the sandbox data in ${options.sandboxDir}`,
      'not_found',
    );
  if (!outcome.ok) throw usageError(`deposit ${id.value} is ${outcome.status}; ${outcome.rule}`);
  if (options.json) printer.json(getView(outcome.deposit, store.eventsOf(outcome.deposit.id), now));
  else if (action === 'pay')
    printer.out(
      `paid ${outcome.deposit.id}: PIX_CONFIRMED now, FINALIZED in about ${(3 * STEP_MS) / 1000} s`,
    );
  else printer.out(`failed ${outcome.deposit.id}: FAILED (was ${outcome.was})`);
}

export type SendOptions = OptionsOf<typeof SEND_FLAGS>;

/**
 * All `sandbox send` needs (gh's Options struct): the factory's getters fill it in (`sendOptionsOf`); a
 * test hands a printer on strings and sandbox data in a temporary directory.
 */
export interface SendCommandOptions {
  flags: SendOptions;
  printer: Printer;
  json: boolean;
  /** the profile's network (checked) */
  network(): Network;
  /** sandbox mode (the local data) or not */
  target(): Target;
  /** where the local sandbox keeps its data */
  sandboxDir: string;
  now(): number;
}

/** The factory's getters, narrowed to what `sandbox send` uses. */
export function sendOptionsOf(flags: SendOptions, factory: Factory): SendCommandOptions {
  return {
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    network: () => networkOf(factory.profile()),
    target: () => factory.target(),
    sandboxDir: sandboxDirOf(factory.config().dir),
    now: factory.ctx.now,
  };
}

/**
 * A payment on the sandbox chain that matches no deposit (a customer paying the shop's address
 * directly, a refund sent back): what `deposit reconcile` reports as unmatched, or as paid after
 * expiry when it fits an expired charge. On the local sandbox data only.
 */
export async function runSend(options: SendCommandOptions): Promise<void> {
  const { flags: opts } = options;
  if (opts.to === undefined) throw usageError('sandbox send needs --to <liquid-address>');
  if (opts.amount === undefined) throw usageError('sandbox send needs --amount <reais>');
  const network = options.network();
  const address = decodeLiquidAddress(opts.to);
  if (!address.ok) throw invalidValue('--to', opts.to, `a Liquid address (${address.reason})`);
  if (address.value.network !== network)
    throw invalidValue('--to', opts.to, `${article(network)} ${network} address (the profile's network)`);
  const cents = parseReais(opts.amount);
  if (!cents.ok) throw invalidValue('--amount', opts.amount, cents.expected);
  if (options.target().mode === 'live')
    throw usageError(
      'sandbox send works on the local sandbox data only, not through a standing sandbox or a live service',
    );
  const { sendPayment } = await import('../sandbox/chain-store.js');
  const txid = await sendPayment(
    new SandboxStore(options.sandboxDir),
    address.value.address,
    cents.value,
    options.now(),
  );
  const printer = options.printer;
  if (options.json) printer.json({ txid, to: address.value.address, amountInCents: cents.value });
  else
    printer.out(
      `sent ${formatCents(cents.value)} to ${address.value.address} on the sandbox chain: txid ${txid}`,
    );
}

export const SANDBOX_SERVE = command({
  rank: 200,
  path: 'sandbox serve',
  description: 'run the sandbox as a standing HTTP server; prints its base URL and token',
  long: `It prints \`LBRL_BASE_URL=…\` and \`LBRL_TOKEN=…\` lines for other programs (its token is made once per data directory), and one line per request on stderr unless \`-q\`. It listens on loopback unless \`--host\` says otherwise, and shares its data with the embedded sandbox. Ctrl-C stops it (exit 130).`,
  flags: SERVE_FLAGS,
  examples: [
    'lbrl sandbox serve --port 8080 > sandbox.env &     # prints LBRL_BASE_URL=... and LBRL_TOKEN=...',
    'set -a; . ./sandbox.env; set +a; lbrl deposit create --amount 10 --to <address>',
  ],
  async run({ opts, factory }) {
    return runServe(serveOptionsOf(opts, await factory()));
  },
});

export const SANDBOX_PAY = command({
  rank: 210,
  path: 'sandbox pay',
  description: 'simulate the payer: the deposit moves on to FINALIZED',
  long: `The deposit moves through PIX_CONFIRMED, SETTLEMENT_CREATED and TX_SENT to FINALIZED a second apart, with a settlement transaction on the sandbox chain. With the base URL and token of a standing sandbox it goes through that sandbox's API, and refuses a deposit without \`"sandbox": true\`: a real charge is never "paid".`,
  args: [ID_ARG],
  flags: PAY_FLAGS,
  examples: [
    'lbrl sandbox pay <id> && lbrl deposit watch <id>',
    'lbrl sandbox pay <id> --settle amount    # one cent short on chain: deposit verify exits 1',
  ],
  async run({ opts, args: [id], factory }) {
    return runAct(actOptionsOf(id, 'pay', await factory(), opts.settle));
  },
});

export const SANDBOX_FAIL = command({
  rank: 220,
  path: 'sandbox fail',
  description: 'end a deposit that is not yet terminal in FAILED',
  long: `The payer's side of a PIX that never arrives: a \`deposit watch\` of it then ends with exit 5. It acts on the embedded sandbox's data, or, with the base URL and token of a standing sandbox, through its API, refusing a deposit without \`"sandbox": true\`. A deposit already FINALIZED or FAILED is refused (exit 2); an id the sandbox does not hold is exit 4.`,
  args: [ID_ARG],
  flags: [],
  examples: [
    'lbrl sandbox fail <id>',
    'lbrl sandbox fail <id> && lbrl deposit watch <id>   # exit 5: FAILED',
  ],
  async run({ args: [id], factory }) {
    return runAct(actOptionsOf(id, 'fail', await factory()));
  },
});

export const SANDBOX_SEND = command({
  rank: 230,
  path: 'sandbox send',
  description: 'pay an address on the sandbox chain, matching no deposit (what reconcile reports)',
  long: `A payer outside lbrl: one transaction of the sandbox chain pays \`--amount\` to \`--to\` (an address of the profile's network), and it prints the txid (\`--json\`: \`txid\`, \`to\`, \`amountInCents\`). \`deposit reconcile\` then lists it as received matching no deposit, or, sent to an expired or failed deposit's address with its net amount, as paid after lbrl gave up on it. It works on the local sandbox data only, not through a standing sandbox.`,
  flags: SEND_FLAGS,
  examples: ['lbrl sandbox send --to <address> --amount 12,34 && lbrl deposit reconcile'],
  async run({ opts, factory }) {
    return runSend(sendOptionsOf(opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(SANDBOX_SERVE, SANDBOX_PAY, SANDBOX_FAIL, SANDBOX_SEND);
