import { randomUUID } from 'node:crypto';
import type { CreateRequest, CreateResponse } from '../api/models.js';
import type { Context, Prompter } from '../context.js';
import { createChecked } from '../deposits/create.js';
import type { DepositApi, RequestDefaults, Scope } from '../deposits/ports.js';
import { scopeOnTarget } from '../deposits/ports.js';
import { buildRequest } from '../deposits/request.js';
import type { WatchPlan } from '../deposits/watch.js';
import { checkLiquidAddress } from '../domain/liquid/address.js';
import { centsToDecimalText, formatCents, MAX_CENTS, MIN_CENTS, parseReais } from '../domain/money.js';
import { readSplitFee } from '../domain/split.js';
import {
  type LocalFields,
  NOTE_MAX,
  REF_MAX,
  readLocalFlags,
  withLocalFields,
} from '../domain/text/reference.js';
import { safeText } from '../domain/text/safe-text.js';
import { EXIT, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { requestDefaultsOf, settingOf } from '../factory/settings.js';
import type { CounterView } from '../ui/counter.js';
import { canPrompt, inquirerPrompter } from '../ui/prompts.js';
import { checkQrPngTarget, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';
import { qrPng } from '../ui/qrpng.js';
import { renderDeposit, splitShares } from '../ui/render.js';
import { timeZoneOf } from '../ui/zone-time.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { showCounter } from './shared/counter.js';
import type { BatchOptions } from './shared/create-batch.js';
import { type SettingsReader, settingOrDefault } from './shared/expiry.js';
import { QR_STYLE } from './shared/flag-parts.js';
import { type FollowDeps, followCommand, followDepsOf, followOnScreen } from './shared/follow.js';
import { verifyingPlanOf } from './shared/verify-setup.js';
import { parseWatchFlags } from './shared/watch-flags.js';

const CREATE_FLAGS = [
  {
    flags: '--amount <reais>',
    help: `amount in reais: 1500, 15.5 or 15,50 (${centsToDecimalText(MIN_CENTS)} to ${centsToDecimalText(MAX_CENTS)})`,
  },
  { flags: '--amount-cents <n>', help: `amount in cents (${MIN_CENTS} to ${MAX_CENTS})` },
  {
    flags: '--to <liquid-address>',
    help: "destination Liquid address (default: the profile's default-address)",
  },
  { flags: '--split-to <liquid-address>', help: 'send part of the net amount to this address' },
  { flags: '--split-fee <percent>', help: 'the part for --split-to: 2.99%, 2.99 or 2,99' },
  { flags: '--no-split', help: "ignore the profile's split settings" },
  {
    flags: '--ref <text>',
    help: `your reference (order, table, invoice): kept in the ledger, never sent (at most ${REF_MAX} characters)`,
  },
  {
    flags: '--note <text>',
    help: `a note kept with it in the ledger, never sent (at most ${NOTE_MAX} characters)`,
  },
  { flags: '--qr-png <file>', help: 'write the QR code PNG to this file', complete: 'files' },
  { flags: '--no-qr', help: 'do not draw the QR code in the terminal' },
  QR_STYLE,
  { flags: '--dry-run', help: 'check everything and show the request, send nothing' },
  { flags: '--yes', help: 'do not ask for confirmation' },
  {
    flags: '--watch',
    help: 'after creating, follow the deposit until FINALIZED or FAILED (exit codes of watch)',
  },
  { flags: '--interval <seconds>', help: 'with --watch: seconds between polls (at least 1, default 3)' },
  {
    flags: '--timeout <duration>',
    help: `with --watch: give up (exit ${EXIT.watchTimeout}) after 90, 90s, 10m, 1h or 1h30m`,
  },
  { flags: '--verify', help: 'with --watch: done only once the settlement is verified on chain' },
  { flags: '--no-verify', help: "with --watch: do not verify, whatever the profile's verify setting" },
  {
    flags: '--display',
    help: "show the charge on the profile's running customer display (lbrl display)",
  },
  {
    flags: '--from <file>',
    help: 'create one deposit per row of a CSV (with a header) or NDJSON file; - for stdin',
    complete: 'files',
  },
  { flags: '--concurrency <n>', help: 'with --from: rows sent at once (default 4, at most 16)' },
  {
    flags: '--resume',
    help: 'with --from: skip the rows already created by an earlier run of the same file',
  },
  {
    flags: '--with-qr-code',
    help: "with --from: keep each deposit's qrCode (a base64 PNG, most of a line's bytes) in its NDJSON line",
  },
] as const satisfies readonly FlagDef[];

/**
 * `deposit create`'s flags as commander parses them: the create command takes them all, and
 * `deposit create --from` (shared/create-batch.ts) the few a batch reads.
 */
export type CreateFlags = OptionsOf<typeof CREATE_FLAGS>;

/** The batch (shared/create-batch.ts, loaded only with --from) reads a few of these flags, by the same names and types. */
export const BATCH_READS_CREATE_FLAGS: [Exclude<keyof BatchOptions, keyof CreateFlags>] extends [never]
  ? CreateFlags extends Omit<BatchOptions, 'from'>
    ? true
    : never
  : never = true;

function check<T>(result: { ok: true; value: T } | { ok: false; expected: string }): true | string {
  return result.ok ? true : `expected ${result.expected}`;
}

/** Where the requests go: a live service (its base URL) or the embedded sandbox. */
export type ServiceTarget = { mode: 'live'; baseUrl: string } | { mode: 'sandbox' };

/**
 * All `deposit create` needs, and nothing more (gh's Options struct): the factory's getters fill it in
 * (`createOptionsOf`); a test hands plain objects, a fake client, clock and prompter included,
 * and needs no server. What the follow of --watch needs (the terminal, printer, the watch's
 * client, clock, recorder) is `FollowDeps`.
 */
export interface CreateCommandOptions extends FollowDeps {
  flags: CreateFlags;
  /** the terminal: stdin and stdout's size as well, for the counter view */
  ctx: Pick<Context, 'stdout' | 'stderr' | 'stdin' | 'env' | 'now'>;
  /** the profile's settings it reads: qr-style, sandbox-autopay */
  config: SettingsReader;
  /** the settings a request is checked against (the network first) */
  requestDefaults(): RequestDefaults;
  /** where the requests go, known only once the input is checked */
  target(): ServiceTarget;
  /** this profile's deposits on the target, as the history records them */
  scope(): Scope;
  /** the client the create is sent with */
  client(): Promise<DepositApi>;
  /** someone to ask for what the flags left out, when a person is at a terminal (and --no-input is not given) */
  prompter(): Promise<Prompter | undefined>;
  /** the profile's name and the config directory, where --display finds the customer's screen */
  profileName: string;
  configDir: string;
  /** the plan with --verify's `settled` hook when verify is on (the flag, else the profile's verify) */
  verifying(plan: WatchPlan, verify: boolean | undefined): Promise<WatchPlan>;
}

/** The factory's getters, narrowed to what `deposit create` uses. */
export function createOptionsOf(flags: CreateFlags, factory: Factory): CreateCommandOptions {
  return {
    flags,
    ...followDepsOf(factory),
    config: { setting: (key) => settingOf(factory.profile(), key) },
    requestDefaults: () => requestDefaultsOf(factory.profile()),
    target: () => factory.target(),
    scope: () => scopeOnTarget(factory.profileName, factory.target()),
    client: () => factory.client(),
    async prompter() {
      if (!canPrompt(factory.ctx, factory.globals)) return undefined;
      return factory.ctx.prompter ?? (await inquirerPrompter(factory.ctx, factory.globals.color !== false));
    },
    profileName: factory.profileName,
    configDir: factory.config().dir,
    verifying: (plan, verify) => verifyingPlanOf(plan, verify, factory),
  };
}

/** Ask a person for what the flags left out; the answers pass the same checks as flags. */
async function askMissing(
  opts: CreateFlags,
  options: CreateCommandOptions,
  prompter: Prompter,
): Promise<CreateFlags> {
  const filled = { ...opts };
  const printer = options.printer;
  const { network, defaultAddress } = options.requestDefaults();
  if (filled.amount === undefined && filled.amountCents === undefined) {
    filled.amount = await prompter.input({
      message: 'Amount in reais (e.g. 1500 or 15,50)',
      validate: (v) => check(parseReais(v)),
    });
    const cents = parseReais(filled.amount);
    if (cents.ok) printer.err(`  ${formatCents(cents.value)} (${cents.value} cents)`);
  }
  const addressCheck = (address: string) => {
    const checked = checkLiquidAddress(address, network);
    return checked.ok ? true : `expected a Liquid address on ${network}: ${checked.reason}`;
  };
  // the profile's default-address is the destination when none is given: set, it is never asked for
  if (filled.to === undefined && defaultAddress === undefined) {
    filled.to = await prompter.input({ message: 'Destination Liquid address', validate: addressCheck });
  }
  if (filled.splitTo !== undefined && filled.splitFee === undefined) {
    filled.splitFee = await prompter.input({
      message: 'Split fee (e.g. 2.99%)',
      validate: (v) => check(readSplitFee(v)),
    });
  }
  if (filled.splitFee !== undefined && filled.splitTo === undefined) {
    filled.splitTo = await prompter.input({ message: 'Split Liquid address', validate: addressCheck });
  }
  return filled;
}

/**
 * The split before the charge exists: the service's fee is not known yet, so the share is
 * reckoned on the whole amount, an upper bound (the net is the amount less the fee).
 */
function splitSummary(body: CreateRequest): string {
  if (!body.lbrlSplitAddress || !body.splitFee) return 'none';
  const fee = readSplitFee(body.splitFee);
  if (!fee.ok) return `${body.splitFee} of net to ${body.lbrlSplitAddress}`;
  const { split, destination } = splitShares(BigInt(body.amountInCents), fee.value.basisPoints);
  return `${fee.value.wire} of net to ${body.lbrlSplitAddress}: at most ${formatCents(split)} (the destination at least ${formatCents(destination)} before the service fee)`;
}

function requestSummary(body: CreateRequest, where: string, local: LocalFields): string {
  const lines = [
    `Amount   ${formatCents(body.amountInCents)} (${body.amountInCents} cents)`,
    `To       ${body.lbrlAddress}`,
    `Split    ${splitSummary(body)}`,
    `Service  ${where}`,
  ];
  // the merchant's words, shown as text (kept in the ledger, not sent)
  if (local.ref !== undefined) lines.push(`Ref      ${safeText(local.ref)}`);
  if (local.note !== undefined) lines.push(`Note     ${safeText(local.note)}`);
  return lines.join('\n');
}

/** The profile's running display, or a usage error saying how to start one (before anything is sent). */
async function runningDisplay(options: CreateCommandOptions) {
  const { displayAnswers, displayFile, readDisplayRecord } = await import('../display/state.js');
  const { profileName } = options;
  const record = readDisplayRecord(displayFile(options.configDir, profileName));
  // running: the program on its port proves it is the display (it is sent neither key nor deposit)
  if (!record || !(await displayAnswers(record))) {
    const profile = options.globals.profile !== undefined ? ` --profile ${profileName}` : '';
    throw usageError(
      `no customer display is running for profile ${profileName} (nothing was sent): start one in another terminal with lbrl display${profile}, then run this again`,
    );
  }
  return record;
}

/** The error of a charge the customer display did not take: created, but not on the customer's screen. */
function displayMissed(id: string, shown: string, options: CreateCommandOptions): LbrlError {
  const why =
    shown === 'unknown'
      ? `it does not know deposit ${id} of this profile`
      : "it no longer answers as this profile's display";
  return new LbrlError(
    `the customer display did not take the charge (${why}): it is not on the customer's screen; the charge is open: show the code from this terminal, or follow it with ${followCommand([id], options.globals)}`,
    'display',
  );
}

/**
 * Says which process follows the charge on the customer's screen: should it end without a word
 * (its terminal closed, kill -9) while the charge still waits, the display withdraws it itself.
 */
async function followedFor(id: string, display: boolean, options: CreateCommandOptions): Promise<void> {
  const { displayFile, readDisplayRecord, withdrawFromDisplay } = await import('../display/state.js');
  const { configDir, profileName, printer } = options;
  if (!display && !readDisplayRecord(displayFile(configDir, profileName))) return;
  try {
    withdrawFromDisplay(configDir, profileName, { id, follower: process.pid }, (line) => printer.warn(line));
  } catch (error) {
    printer.warn(`warning: the customer display will not know this watch ends: ${(error as Error).message}`);
  }
}

/**
 * A charge the shop stopped following is withdrawn from the customer's screen: the running display
 * goes back to the shop's name within a second, and one started later never offers it. Done for
 * --display, and for any create --watch of a profile that has a display (it shows the newest charge).
 */
async function withdrawFromScreen(
  id: string,
  display: boolean,
  options: CreateCommandOptions,
): Promise<void> {
  const { displayFile, readDisplayRecord, withdrawFromDisplay } = await import('../display/state.js');
  const { configDir, profileName, printer } = options;
  if (!display && !readDisplayRecord(displayFile(configDir, profileName))) return;
  try {
    withdrawFromDisplay(configDir, profileName, { id }, (line) => printer.warn(line));
    printer.info('withdrawn from the customer display');
  } catch (error) {
    printer.alarm(
      `warning: could not withdraw the charge from the customer display (${(error as Error).message}): clear it with lbrl display clear`,
    );
  }
}

/** Check, ask for what is missing (a person), confirm, send, check the answer, record, show; follow with --watch. */
export async function runCreate(options: CreateCommandOptions): Promise<void> {
  const { flags: opts, printer, globals } = options;
  // a style chosen by flag or setting always wins; otherwise the terminal may be asked
  const saved = options.config.setting('qr-style');
  const chosenStyle = opts.qrStyle ?? (saved === 'detect' ? undefined : saved);
  const style = qrStyle(opts.qrStyle, saved);
  const plan = parseWatchFlags(opts);
  const local = readLocalFlags(opts, invalidValue);
  const prompter = await options.prompter();
  const filled = prompter && !opts.dryRun ? await askMissing(opts, options, prompter) : opts;
  const body = buildRequest(filled, options.requestDefaults());
  if (opts.qrPng !== undefined) checkQrPngTarget(opts.qrPng);
  // which service, checked before anything is asked or sent
  options.target();
  if (opts.dryRun) return printDryRun(options, body, local);
  if (prompter && !opts.yes) await confirmRequest(options, prompter, body, local);

  // --display: a charge is created for a screen only when one is there to show it
  const display = opts.display ? await runningDisplay(options) : undefined;
  const client = await options.client();
  const { value, raw } = await createChecked(
    {
      api: client,
      recorder: options.recorder,
      scope: options.scope(),
      now: () => options.clock.now(),
      keyIsNew: true,
    },
    body,
    randomUUID(),
    undefined,
    local,
  );
  if (opts.qrPng !== undefined) {
    // drawn from the checked qrCodeText: the service's own PNG could pay anything
    writeFileAtomic(opts.qrPng, await qrPng(value.qrCodeText));
    printer.info(`QR code written to ${opts.qrPng}`);
  }
  let missed: LbrlError | undefined;
  if (display) {
    const { showOnDisplay } = await import('../display/state.js');
    const shown = await showOnDisplay(display, value.id, options.scope().target);
    if (shown === 'shown') printer.info(`shown on the customer display (port ${display.port})`);
    else missed = displayMissed(value.id, shown, options);
  }
  if (globals.json) printer.json(withLocalFields(raw, local));
  else if (globals.quiet) printer.out(value.id);
  const counter = await printCreated(options, value, { style, chosenStyle, local });
  // --display asked for a screen that did not take the charge: said whatever -q, never exit 0
  if (missed) throw missed;
  if (opts.watch) await followCreated(options, value, plan, counter);
  else {
    counter?.still();
    printer.info(`follow it with: ${followCommand([value.id], globals)}`);
  }
}

/** --dry-run: the request that would be sent, and nothing sent. */
function printDryRun(options: CreateCommandOptions, body: CreateRequest, local: LocalFields): void {
  const { printer, globals } = options;
  const target = options.target();
  if (globals.json) {
    // the reference and note beside the request: they are kept, never sent
    printer.json({ request: body, ...local });
    return;
  }
  printer.out(
    `Would send POST ${target.mode === 'live' ? target.baseUrl : '(embedded sandbox)'}/v1/api/deposit`,
  );
  printer.out(JSON.stringify(body, null, 2));
  printer.info(`${formatCents(body.amountInCents)} to ${body.lbrlAddress}; nothing was sent (--dry-run)`);
}

/** At a terminal without --yes: the request summed up, and created only when the person says so. */
async function confirmRequest(
  options: CreateCommandOptions,
  prompter: Prompter,
  body: CreateRequest,
  local: LocalFields,
): Promise<void> {
  const target = options.target();
  options.printer.err(
    requestSummary(body, target.mode === 'live' ? target.baseUrl : 'embedded sandbox (no real money)', local),
  );
  if (!(await prompter.confirm({ message: 'Create this charge?', default: true }))) {
    throw new LbrlError('cancelled; nothing was sent', 'cancelled');
  }
}

/** The charge for a person (not --json, not -q): the counter view, or the deposit, its QR and copy-paste. */
async function printCreated(
  options: CreateCommandOptions,
  value: CreateResponse,
  look: { style: ReturnType<typeof qrStyle>; chosenStyle: string | undefined; local: LocalFields },
): Promise<CounterView | undefined> {
  const { flags: opts, printer, globals } = options;
  const human = !globals.json && !globals.quiet;
  const sandbox = options.target().mode === 'sandbox';
  const { style, chosenStyle, local } = look;
  const shown =
    human && opts.qr !== false
      ? await showCounter(value, {
          printer,
          ctx: options.ctx,
          profile: globals.profile,
          watch: Boolean(opts.watch),
          style,
          chosenStyle,
          sandbox,
          local,
        })
      : undefined;
  if (human && !shown) {
    const timeZone = timeZoneOf(options.ctx.env);
    printer.out(renderDeposit(printer.outColor, value, { sandbox, timeZone, local }));
    if (opts.qr !== false) {
      printer.out('');
      printer.out(await renderTerminalQr(value.qrCodeText, style));
    }
    printer.out('PIX copy-paste:');
    printer.out(value.qrCodeText);
  }
  return typeof shown === 'object' ? shown : undefined;
}

/** --watch: the charge followed to its end; stopped, it is taken off the customer's screen. */
async function followCreated(
  options: CreateCommandOptions,
  value: CreateResponse,
  plan: WatchPlan,
  counter: CounterView | undefined,
): Promise<void> {
  const opts = options.flags;
  if (options.target().mode === 'sandbox') {
    const autopay = settingOrDefault(options.config, 'sandbox-autopay');
    options.printer.info(
      `sandbox: simulate the payment with: lbrl sandbox pay ${value.id}${autopay !== 'off' ? ` (or wait ${autopay} s for autopay)` : ''}`,
    );
  }
  const verified = await options.verifying(plan, opts.verify);
  counter?.start();
  await followedFor(value.id, Boolean(opts.display), options);
  try {
    await followOnScreen([value.id], verified, options, counter);
  } catch (error) {
    // the shop stopped following it (Ctrl-C, SIGTERM, --timeout, an error): off the customer's screen
    if (!(error instanceof LbrlError && error.type === 'failed'))
      await withdrawFromScreen(value.id, Boolean(opts.display), options);
    throw error;
  }
}

/** What only a single create takes, with --from: each kind refused with the reason it does not apply. */
const FROM_VALUES = ['amount', 'amountCents', 'to', 'splitTo', 'splitFee', 'ref', 'note'];
const FROM_WATCH = ['watch', 'interval', 'timeout', 'verify'];
const FROM_QR = ['qrPng', 'qrStyle', 'display'];

export const DEPOSIT_CREATE = command({
  rank: 20,
  path: 'deposit create',
  description: 'create a PIX charge paid out to a Liquid address',
  long: `The amount is reais (\`--amount 15,50\`) or cents (\`--amount-cents 1550\`), from R$ 0,01 to R$ 6.000,00, turned into cents without a float. The address (\`--to\`, else the profile's \`default-address\`) is decoded and checked locally, and must belong to the profile's network. A split sends part of the net amount to another address (\`--split-to\` and \`--split-fee\` together, or the profile's, unless \`--no-split\`).

The service's answer is checked against the request (amount, addresses, split, the BR Code and its amount) before anything is shown: a mismatch exits 1 and says not to pay the charge. A create is never sent twice once it may have reached the service; every create carries an Idempotency-Key.

On a terminal it asks for what the flags left out and for a confirmation (unless \`--yes\`); with \`--watch\` it follows the charge in a counter view: the QR code, the amount in large type and the status, redrawn in place. \`--from\` creates a batch from a CSV or NDJSON file, each row checked before any is sent; \`--resume\` creates none twice.`,
  flags: CREATE_FLAGS,
  conflicts: [
    {
      when: { set: 'from' },
      forbids: FROM_WATCH,
      message: (flags) =>
        `a batch (--from) does not watch: it creates its rows and ends, so ${flags.join(', ')} cannot go with it; follow the deposits afterwards with lbrl deposit watch --pending`,
    },
    {
      when: { set: 'from' },
      forbids: FROM_VALUES,
      message: (flags) =>
        `--from takes each deposit's values from its row, so ${flags.join(', ')} cannot go with it: put them in the file's columns (amount or amountCents, to, splitTo, splitFee, ref, note)`,
    },
    {
      when: { set: 'from' },
      forbids: FROM_QR,
      message: (flags) =>
        `a batch draws no QR codes, so ${flags.join(', ')} cannot go with --from: each row's qrCodeText is in its NDJSON line (add --with-qr-code for the PNG), or use lbrl deposit get <id> --qr-png <file>`,
    },
    {
      when: { unset: 'from' },
      forbids: ['concurrency', 'resume', 'withQrCode'],
      message: (flags) => `${flags.join(' and ')} go${flags.length === 1 ? 'es' : ''} with --from <file>`,
    },
    {
      when: { unset: 'watch' },
      forbids: ['interval', 'timeout', 'verify'],
      message: (flags) => `${flags.join(' and ')} go${flags.length === 1 ? 'es' : ''} with --watch`,
    },
  ],
  examples: [
    'lbrl deposit create --amount 1500 --to <address>',
    'lbrl deposit create --amount-cents 1550 --to <address> --split-to <address> --split-fee 2.99% --yes',
    '# at the counter: the QR and the amount full screen until paid, for at most 10 minutes',
    'lbrl deposit create --amount 35 --to <address> --watch --timeout 10m',
    '# CI: create, keep the id, wait for settlement',
    'id=$(LBRL_BASE_URL=https://pay.example.com LBRL_TOKEN="$TOKEN" lbrl deposit create --amount 1500 --to <address> --json | jq -r .id)',
    '# a batch: CSV with a header (amount,to,splitTo,splitFee) or NDJSON, one deposit per row',
    'lbrl deposit create --from charges.csv > results.ndjson',
    "lbrl deposit create --from charges.csv --resume | jq -c 'select(.error)'",
    '# --json prints the service object; an error is one line on stderr: {"error":{"type","message","exitCode"}}',
  ],
  async run({ opts, factory }) {
    const { from } = opts;
    if (from !== undefined) {
      const { batchOptionsOf, runBatch } = await import('./shared/create-batch.js');
      return runBatch(batchOptionsOf({ ...opts, from }, await factory()));
    }
    return runCreate(createOptionsOf(opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_CREATE);
