import { randomUUID } from 'node:crypto';
import type { CreateRequest } from '../api/models.js';
import { checkLiquidAddress, type Network } from '../domain/address.js';
import { formatCents, parseCents, parseReais } from '../domain/money.js';
import { parseSplitFee } from '../domain/split.js';
import { checkCreateAnswer } from '../domain/verify.js';
import { EXIT, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { canPrompt, inquirerPrompter, type Prompter } from '../ui/prompts.js';
import { checkWritableTarget, isPng, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';
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

function address(option: string, value: string, network: Network): string {
  const r = checkLiquidAddress(value, network);
  if (!r.ok) throw invalidValue(option, value, `a Liquid address on ${network}: ${r.reason}`);
  return r.value.address;
}

/** Options (and the profile's defaults) to the request body, every value checked. */
export function buildRequest(opts: CreateOptions, session: Session): CreateRequest {
  if (opts.amount !== undefined && opts.amountCents !== undefined) {
    throw usageError('pass either --amount (reais) or --amount-cents, not both');
  }
  let amountInCents: number;
  if (opts.amount !== undefined) {
    const r = parseReais(opts.amount);
    if (!r.ok) throw invalidValue('--amount', opts.amount, r.expected);
    amountInCents = r.value;
  } else if (opts.amountCents !== undefined) {
    const r = parseCents(opts.amountCents);
    if (!r.ok) throw invalidValue('--amount-cents', opts.amountCents, r.expected);
    amountInCents = r.value;
  } else {
    throw usageError('missing amount: pass --amount <reais> or --amount-cents <n>');
  }

  const network = session.network();
  let to: string;
  if (opts.to !== undefined) to = address('--to', opts.to, network);
  else {
    const fallback = session.setting('default-address');
    if (fallback === undefined) {
      throw usageError(
        'missing destination: pass --to <liquid-address>, or set one with lbrl config set default-address <address>',
      );
    }
    to = address('default-address (config)', fallback, network);
  }

  const body: CreateRequest = { amountInCents, lbrlAddress: to };
  const explicit = opts.splitTo !== undefined || opts.splitFee !== undefined;
  if (opts.split === false && explicit)
    throw usageError('--no-split cannot be combined with --split-to or --split-fee');
  if (explicit) {
    if (opts.splitTo === undefined) throw usageError('--split-fee needs --split-to <liquid-address>');
    if (opts.splitFee === undefined) throw usageError('--split-to needs --split-fee <percent>');
    body.lbrlSplitAddress = address('--split-to', opts.splitTo, network);
    const fee = parseSplitFee(opts.splitFee);
    if (!fee.ok) throw invalidValue('--split-fee', opts.splitFee, fee.expected);
    body.splitFee = fee.value.wire;
  } else if (opts.split !== false) {
    const splitTo = session.setting('split-address');
    const splitFee = session.setting('split-fee');
    if ((splitTo === undefined) !== (splitFee === undefined)) {
      throw usageError(
        `the profile has ${splitTo === undefined ? 'split-fee but no split-address' : 'split-address but no split-fee'}; set both, or pass --no-split`,
      );
    }
    if (splitTo !== undefined && splitFee !== undefined) {
      body.lbrlSplitAddress = address('split-address (config)', splitTo, network);
      const fee = parseSplitFee(splitFee);
      if (!fee.ok) throw invalidValue('split-fee (config)', splitFee, fee.expected);
      body.splitFee = fee.value.wire;
    }
  }
  if (body.lbrlSplitAddress !== undefined && body.lbrlSplitAddress === body.lbrlAddress) {
    throw usageError(
      'the split address is the same as the destination; pass --no-split or another --split-to',
    );
  }
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

export async function run(opts: CreateOptions, session: Session): Promise<void> {
  const p = session.printer;
  qrStyle(opts.qrStyle, undefined);
  const interactive = canPrompt(session.ctx, session.globals);
  const prompter = interactive ? (session.ctx.prompter ?? (await inquirerPrompter(session.ctx))) : undefined;
  const filled = prompter && !opts.dryRun ? await askMissing(opts, session, prompter) : opts;
  const body = buildRequest(filled, session);
  if (opts.qrPng !== undefined) {
    const problem = checkWritableTarget(opts.qrPng);
    if (problem)
      throw invalidValue('--qr-png', opts.qrPng, `a file path in a writable directory (${problem})`);
  }
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
  const idempotencyKey = randomUUID();
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
      p.out(await renderTerminalQr(value.qrCodeText, qrStyle(opts.qrStyle, session.setting('qr-style'))));
    }
    p.out('PIX copy-paste:');
    p.out(value.qrCodeText);
  }

  if (opts.watch) {
    if (target.mode === 'sandbox') {
      const autopay = session.setting('sandbox-autopay');
      p.info(
        `sandbox: simulate the payment with: lbrl sandbox pay ${value.id}${autopay && autopay !== 'off' ? ` (or wait ${autopay} s for autopay)` : ''}`,
      );
    }
    await follow([value.id], { intervalMs: 3000 }, session);
  }
}
