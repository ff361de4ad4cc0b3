import { randomUUID } from 'node:crypto';
import type { DepositClient } from '../api/client.js';
import type { CreateRequest, CreateResponse } from '../api/models.js';
import { checkLiquidAddress } from '../domain/address.js';
import { formatCents, parseCents, parseReais } from '../domain/money.js';
import { parseSplitFee } from '../domain/split.js';
import { checkCreateAnswer } from '../domain/verify.js';
import { EXIT, invalidValue, LbrlError, usageError } from '../errors.js';
import { Session, type Target } from '../session.js';
import type { CreatedRecord } from '../store/history.js';
import { canPrompt, inquirerPrompter, type Prompter } from '../ui/prompts.js';
import { checkQrPngTarget, isPng, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';
import { renderDeposit } from '../ui/render.js';
import { follow } from './deposit-watch.js';

export interface CreateOptions {
  amount?: string;
  amountCents?: string;
  to?: string;
  splitTo?: string;
  splitFee?: string;
  split?: boolean;
  qrPng?: string;
  qr?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  watch?: boolean;
  qrStyle?: string;
}

/** How values are named in messages: flags for one deposit, fields for a batch row. */
export interface Labels {
  amount: string;
  amountCents: string;
  to: string;
  splitTo: string;
  splitFee: string;
  both: string;
  missingAmount: string;
  missingTo: string;
  feeNeedsTo: string;
  toNeedsFee: string;
}

export const FLAG_LABELS: Labels = {
  amount: '--amount',
  amountCents: '--amount-cents',
  to: '--to',
  splitTo: '--split-to',
  splitFee: '--split-fee',
  both: 'pass either --amount (reais) or --amount-cents, not both',
  missingAmount: 'missing amount: pass --amount <reais> or --amount-cents <n>',
  missingTo:
    'missing destination: pass --to <liquid-address>, or set one with lbrl config set default-address <address>',
  feeNeedsTo: '--split-fee needs --split-to <liquid-address>',
  toNeedsFee: '--split-to needs --split-fee <percent>',
};

/**
 * Options (and the profile's defaults) to the request body, every value checked; every
 * problem is named, so a batch row can report all of its bad fields at once.
 */
export function checkRequest(
  opts: CreateOptions,
  session: Session,
  labels: Labels = FLAG_LABELS,
): { body?: CreateRequest; problems: string[] } {
  const problems: string[] = [];
  const refuse = (option: string, value: string, expected: string) =>
    problems.push(invalidValue(option, value, expected).message);
  const network = session.network();
  const address = (option: string, value: string): string | undefined => {
    const r = checkLiquidAddress(value, network);
    if (!r.ok) refuse(option, value, `a Liquid address on ${network}: ${r.reason}`);
    return r.ok ? r.value.address : undefined;
  };
  const fee = (option: string, value: string): string | undefined => {
    const r = parseSplitFee(value);
    if (!r.ok) refuse(option, value, r.expected);
    return r.ok ? r.value.wire : undefined;
  };

  let amountInCents: number | undefined;
  if (opts.amount !== undefined && opts.amountCents !== undefined) problems.push(labels.both);
  else if (opts.amount !== undefined) {
    const r = parseReais(opts.amount);
    if (r.ok) amountInCents = r.value;
    else refuse(labels.amount, opts.amount, r.expected);
  } else if (opts.amountCents !== undefined) {
    const r = parseCents(opts.amountCents);
    if (r.ok) amountInCents = r.value;
    else refuse(labels.amountCents, opts.amountCents, r.expected);
  } else problems.push(labels.missingAmount);

  let to: string | undefined;
  if (opts.to !== undefined) to = address(labels.to, opts.to);
  else {
    const fallback = session.setting('default-address');
    if (fallback === undefined) problems.push(labels.missingTo);
    else to = address('default-address (config)', fallback);
  }

  let splitTo: string | undefined;
  let splitFee: string | undefined;
  const explicit = opts.splitTo !== undefined || opts.splitFee !== undefined;
  if (opts.split === false && explicit)
    problems.push('--no-split cannot be combined with --split-to or --split-fee');
  else if (explicit) {
    if (opts.splitTo === undefined) problems.push(labels.feeNeedsTo);
    else splitTo = address(labels.splitTo, opts.splitTo);
    if (opts.splitFee === undefined) problems.push(labels.toNeedsFee);
    else splitFee = fee(labels.splitFee, opts.splitFee);
  } else if (opts.split !== false) {
    const profileTo = session.setting('split-address');
    const profileFee = session.setting('split-fee');
    if ((profileTo === undefined) !== (profileFee === undefined)) {
      problems.push(
        `the profile has ${profileTo === undefined ? 'split-fee but no split-address' : 'split-address but no split-fee'}; set both, or pass --no-split`,
      );
    } else if (profileTo !== undefined && profileFee !== undefined) {
      splitTo = address('split-address (config)', profileTo);
      splitFee = fee('split-fee (config)', profileFee);
    }
  }
  if (splitTo !== undefined && splitTo === to) {
    problems.push(
      'the split address is the same as the destination; pass --no-split or another split address',
    );
  }
  if (problems.length > 0 || amountInCents === undefined || to === undefined) return { problems };
  const body: CreateRequest = { amountInCents, lbrlAddress: to };
  if (splitTo !== undefined && splitFee !== undefined) {
    body.lbrlSplitAddress = splitTo;
    body.splitFee = splitFee;
  }
  return { body, problems };
}

/** For one deposit: the first problem is the error. */
export function buildRequest(opts: CreateOptions, session: Session): CreateRequest {
  const { body, problems } = checkRequest(opts, session);
  if (!body) throw usageError(problems[0] ?? 'invalid request');
  return body;
}

function check<T>(r: { ok: true; value: T } | { ok: false; expected: string }): true | string {
  return r.ok ? true : `expected ${r.expected}`;
}

/** Ask a person for what the flags left out; the answers pass the same checks as flags. */
async function askMissing(opts: CreateOptions, session: Session, prompter: Prompter): Promise<CreateOptions> {
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
      validate: (v) => check(parseSplitFee(v)),
    });
  }
  if (filled.splitFee !== undefined && filled.splitTo === undefined) {
    filled.splitTo = await prompter.input({ message: 'Split Liquid address', validate: addressCheck });
  }
  return filled;
}

function summary(body: CreateRequest, where: string): string {
  const lines = [
    `Amount   ${formatCents(body.amountInCents)} (${body.amountInCents} cents)`,
    `To       ${body.lbrlAddress}`,
    `Split    ${body.lbrlSplitAddress ? `${body.splitFee} of net to ${body.lbrlSplitAddress}` : 'none'}`,
    `Service  ${where}`,
  ];
  return lines.join('\n');
}

/**
 * Send one create, check the answer against the request (money safety) and record the
 * deposit in the local history before anything is printed. Shared by create and --from.
 */
export async function createChecked(
  client: DepositClient,
  body: CreateRequest,
  idempotencyKey: string,
  session: Session,
  target: Target,
  batchKey?: string,
): Promise<{ value: CreateResponse; raw: unknown }> {
  const { value, raw } = await client.createDeposit(body, idempotencyKey);
  const mismatches = checkCreateAnswer(body, value);
  if (mismatches.length > 0) {
    const detail = mismatches
      .map((m) => `${m.field}: sent ${m.sent}, service answered ${m.received}`)
      .join('; ');
    throw new LbrlError(
      `the service's answer does not match the request for deposit ${value.id}: ${detail}. Do not pay this charge`,
      'mismatch',
      EXIT.failure,
    );
  }
  const record: CreatedRecord = {
    v: 1,
    type: 'created',
    id: value.id,
    profile: session.profileName,
    baseUrl: Session.targetKey(target),
    at: new Date(session.ctx.now()).toISOString(),
    amountInCents: body.amountInCents,
    destinationAddress: body.lbrlAddress,
    splitAddress: body.lbrlSplitAddress ?? null,
    splitFee: body.splitFee ?? null,
    status: value.status,
  };
  if (batchKey) record.batchKey = batchKey;
  session.record([record]);
  return { value, raw };
}

export async function run(opts: CreateOptions, session: Session): Promise<void> {
  const p = session.printer;
  const style = qrStyle(opts.qrStyle, session.setting('qr-style'));
  const interactive = canPrompt(session.ctx, session.globals);
  const prompter = interactive ? (session.ctx.prompter ?? (await inquirerPrompter(session.ctx))) : undefined;
  const filled = prompter && !opts.dryRun ? await askMissing(opts, session, prompter) : opts;
  const body = buildRequest(filled, session);
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
    p.err(summary(body, target.mode === 'live' ? target.baseUrl : 'embedded sandbox (no real money)'));
    if (!(await prompter.confirm({ message: 'Create this charge?', default: true }))) {
      throw new LbrlError('cancelled; nothing was sent', 'cancelled', EXIT.usage);
    }
  }

  const client = await session.client(target);
  const { value, raw } = await createChecked(client, body, randomUUID(), session, target);

  if (opts.qrPng !== undefined) {
    const png = Buffer.from(value.qrCode, 'base64');
    if (!isPng(png)) {
      throw new LbrlError(
        `deposit ${value.id} was created, but its qrCode is not a base64 PNG, so ${opts.qrPng} was not written`,
        'contract',
        EXIT.failure,
      );
    }
    writeFileAtomic(opts.qrPng, png);
    p.info(`QR code written to ${opts.qrPng}`);
  }

  if (session.globals.json) p.json(raw);
  else if (session.globals.quiet) p.out(value.id);
  else {
    p.out(renderDeposit(p.c, value));
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
    await follow([value.id], { intervalMs: 3000 }, session);
  }
}
