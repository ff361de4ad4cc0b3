import { randomUUID } from 'node:crypto';
import type { CreateRequest } from '../api/models.js';
import type { Prompter } from '../context.js';
import { createChecked } from '../deposits/create.js';
import { buildRequest } from '../deposits/request.js';
import { checkLiquidAddress } from '../domain/liquid/address.js';
import { formatCents, parseReais } from '../domain/money.js';
import { readSplitFee } from '../domain/split.js';
import { LbrlError, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { canPrompt, inquirerPrompter } from '../ui/prompts.js';
import { checkQrPngTarget, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';
import { qrPng } from '../ui/qrpng.js';
import { renderDeposit, splitShares, timeZoneOf } from '../ui/render.js';
import type { OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { CREATE_FLAGS } from './flags.js';
import { showCounter } from './shared/counter.js';
import { followCommand, followOnScreen } from './shared/follow.js';
import { withVerify } from './shared/verify-setup.js';
import { parseWatchFlags } from './shared/watch-flags.js';

/** `deposit create`'s flags as commander parsed them (with --from, deposit-batch.ts gets them instead). */
export type CreateFlags = OptionsOf<typeof CREATE_FLAGS>;

function check<T>(r: { ok: true; value: T } | { ok: false; expected: string }): true | string {
  return r.ok ? true : `expected ${r.expected}`;
}

/** Ask a person for what the flags left out; the answers pass the same checks as flags. */
async function askMissing(opts: CreateFlags, session: Session, prompter: Prompter): Promise<CreateFlags> {
  const filled = { ...opts };
  const p = session.printer;
  const network = session.network();
  if (filled.amount === undefined && filled.amountCents === undefined) {
    filled.amount = await prompter.input({
      message: 'Amount in reais (e.g. 1500 or 15,50)',
      validate: (v) => check(parseReais(v)),
    });
    const cents = parseReais(filled.amount);
    if (cents.ok) p.err(`  ${formatCents(cents.value)} (${cents.value} cents)`);
  }
  const addressCheck = (v: string) => {
    const r = checkLiquidAddress(v, network);
    return r.ok ? true : `expected a Liquid address on ${network}: ${r.reason}`;
  };
  if (filled.to === undefined) {
    filled.to = await prompter.input({
      message: 'Destination Liquid address',
      default: session.setting('default-address'),
      validate: addressCheck,
    });
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

function requestSummary(body: CreateRequest, where: string): string {
  const lines = [
    `Amount   ${formatCents(body.amountInCents)} (${body.amountInCents} cents)`,
    `To       ${body.lbrlAddress}`,
    `Split    ${splitSummary(body)}`,
    `Service  ${where}`,
  ];
  return lines.join('\n');
}

/** The profile's running display, or a usage error saying how to start one (before anything is sent). */
async function runningDisplay(session: Session) {
  const { displayFile, readDisplayRecord, showOnDisplay } = await import('../display/state.js');
  const record = readDisplayRecord(displayFile(session.store.dir, session.profileName));
  // a display that answers (to a request for no deposit) is running
  const answer = record ? await showOnDisplay(record, '00000000-0000-4000-8000-000000000000') : 'unreachable';
  if (!record || answer === 'unreachable') {
    const profile = session.globals.profile !== undefined ? ` --profile ${session.profileName}` : '';
    throw usageError(
      `no customer display is running for profile ${session.profileName} (nothing was sent): start one in another terminal with lbrl display${profile}, then run this again`,
    );
  }
  return record;
}

export async function run(opts: CreateFlags, session: Session): Promise<void> {
  const p = session.printer;
  // a style chosen by flag or setting always wins; otherwise the terminal may be asked
  const saved = session.profile()['qr-style'];
  const chosenStyle = opts.qrStyle ?? (saved === 'detect' ? undefined : saved);
  const style = qrStyle(opts.qrStyle, session.setting('qr-style'));
  const plan = parseWatchFlags(opts);
  const interactive = canPrompt(session.ctx, session.globals);
  const prompter = interactive ? (session.ctx.prompter ?? (await inquirerPrompter(session.ctx))) : undefined;
  const filled = prompter && !opts.dryRun ? await askMissing(opts, session, prompter) : opts;
  const body = buildRequest(filled, session.requestDefaults());
  if (opts.qrPng !== undefined) checkQrPngTarget(opts.qrPng);
  const target = session.target();

  if (opts.dryRun) {
    if (session.globals.json) {
      p.json({ request: body });
    } else {
      p.out(
        `Would send POST ${target.mode === 'live' ? target.baseUrl : '(embedded sandbox)'}/v1/api/deposit`,
      );
      p.out(JSON.stringify(body, null, 2));
      p.info(`${formatCents(body.amountInCents)} to ${body.lbrlAddress}; nothing was sent (--dry-run)`);
    }
    return;
  }

  if (prompter && !opts.yes) {
    p.err(requestSummary(body, target.mode === 'live' ? target.baseUrl : 'embedded sandbox (no real money)'));
    if (!(await prompter.confirm({ message: 'Create this charge?', default: true }))) {
      throw new LbrlError('cancelled; nothing was sent', 'cancelled');
    }
  }

  // --display: a charge is created for a screen only when one is there to show it
  const display = opts.display ? await runningDisplay(session) : undefined;

  const client = await session.client(target);
  const { value, raw } = await createChecked(
    { api: client, recorder: session, scope: session.scope(target), now: session.ctx.now },
    body,
    randomUUID(),
  );

  if (opts.qrPng !== undefined) {
    // drawn from the checked qrCodeText: the service's own PNG could pay anything
    writeFileAtomic(opts.qrPng, await qrPng(value.qrCodeText));
    p.info(`QR code written to ${opts.qrPng}`);
  }

  if (display) {
    const { showOnDisplay } = await import('../display/state.js');
    const shown = await showOnDisplay(display, value.id);
    if (shown === 'shown') p.info(`shown on the customer display (port ${display.port})`);
    else
      p.warn(
        `warning: the customer display did not take the charge (${shown}); it shows the newest charge by itself once it runs`,
      );
  }

  const timeZone = timeZoneOf(session.ctx.env);
  const human = !session.globals.json && !session.globals.quiet;
  if (session.globals.json) p.json(raw);
  else if (session.globals.quiet) p.out(value.id);
  const sandbox = target.mode === 'sandbox';
  const shown =
    human && opts.qr !== false
      ? await showCounter(value, { session, watch: Boolean(opts.watch), style, chosenStyle, sandbox })
      : undefined;
  const counter = typeof shown === 'object' ? shown : undefined;
  if (human && !shown) {
    p.out(renderDeposit(p.outColor, value, { sandbox, timeZone }));
    if (opts.qr !== false) {
      p.out('');
      p.out(await renderTerminalQr(value.qrCodeText, style));
    }
    p.out('PIX copy-paste:');
    p.out(value.qrCodeText);
  }

  if (opts.watch) {
    if (target.mode === 'sandbox') {
      const autopay = session.setting('sandbox-autopay');
      p.info(
        `sandbox: simulate the payment with: lbrl sandbox pay ${value.id}${autopay !== 'off' ? ` (or wait ${autopay} s for autopay)` : ''}`,
      );
    }
    const verified = await withVerify(plan, opts.verify, session);
    counter?.start();
    await followOnScreen([value.id], verified, session, counter);
  } else {
    counter?.still();
    p.info(`follow it with: ${followCommand([value.id], session.globals)}`);
  }
}

/** What only a single create takes, with --from: each kind refused with the reason it does not apply. */
const FROM_VALUES = ['amount', 'amountCents', 'to', 'splitTo', 'splitFee'];
const FROM_WATCH = ['watch', 'interval', 'timeout', 'verify'];
const FROM_QR = ['qrPng', 'qrStyle', 'display'];

export const DEPOSIT_CREATE = command({
  rank: 20,
  path: 'deposit create',
  description: 'create a PIX charge paid out to a Liquid address',
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
        `--from takes each deposit's values from its row, so ${flags.join(', ')} cannot go with it: put them in the file's columns (amount or amountCents, to, splitTo, splitFee)`,
    },
    {
      when: { set: 'from' },
      forbids: FROM_QR,
      message: (flags) =>
        `a batch draws no QR codes, so ${flags.join(', ')} cannot go with --from: each row's qrCode is in its NDJSON line (--json), or use lbrl deposit get <id> --qr-png <file>`,
    },
    {
      when: { unset: 'from' },
      forbids: ['concurrency', 'resume'],
      message: () => '--concurrency and --resume go with --from <file>',
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
  async run({ opts, session }) {
    const { from } = opts;
    if (from !== undefined)
      return (await import('./deposit-batch.js')).run({ ...opts, from }, await session());
    return run(opts, await session());
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_CREATE);
