/** A deposit request from flags, a batch row or answers to prompts, every value checked. */
import type { CreateRequest } from '../api/models.js';
import { checkLiquidAddress } from '../domain/liquid/address.js';
import { parseReais, readCents } from '../domain/money.js';
import { readSplitFee } from '../domain/split.js';
import { invalidValue, usageError } from '../errors.js';
import type { RequestDefaults } from './ports.js';

/** The values a request is made of, as typed (flags or a row's fields). */
export interface RequestInput {
  amount?: string | undefined;
  amountCents?: string | undefined;
  to?: string | undefined;
  splitTo?: string | undefined;
  splitFee?: string | undefined;
  /** false: --no-split, the profile's split settings ignored */
  split?: boolean | undefined;
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

export const ROW_LABELS: Labels = {
  amount: 'amount',
  amountCents: 'amountCents',
  to: 'to',
  splitTo: 'splitTo',
  splitFee: 'splitFee',
  both: 'give either amount (reais) or amountCents, not both',
  missingAmount: 'missing amount: give amount or amountCents',
  missingTo: 'missing to, and the profile has no default-address',
  feeNeedsTo: 'splitFee needs splitTo',
  toNeedsFee: 'splitTo needs splitFee',
};

/**
 * Options (and the profile's defaults) to the request body, every value checked; every
 * problem is named, so a batch row can report all of its bad fields at once.
 */
export function checkRequest(
  opts: RequestInput,
  defaults: RequestDefaults,
  labels: Labels = FLAG_LABELS,
): { body?: CreateRequest; problems: string[] } {
  const checks = requestChecks(defaults.network, labels);
  const { problems } = checks;
  const amountInCents = checkedAmount(opts, checks);
  const to = checkedDestination(opts, defaults, checks);
  const { splitTo, splitFee } = checkedSplit(opts, defaults, checks);
  if (splitTo !== undefined && splitTo === to) {
    problems.push(
      'the split address is the same as the destination; pass --no-split or another split address',
    );
  }
  if (problems.length > 0 || amountInCents === undefined || to === undefined) return { problems };
  // every field present (no split: undefined, which JSON leaves out), so that the checks of the
  // answer against it never read a split it does not hold from Object.prototype
  const body: CreateRequest = {
    amountInCents,
    lbrlAddress: to,
    lbrlSplitAddress: undefined,
    splitFee: undefined,
  };
  if (splitTo !== undefined && splitFee !== undefined) {
    body.lbrlSplitAddress = splitTo;
    body.splitFee = splitFee;
  }
  return { body, problems };
}

/** The problems found so far, in order, and the checks that add to them. */
interface RequestChecks {
  problems: string[];
  labels: Labels;
  refuse(option: string, value: string, expected: string): void;
  /** an address of the network, in its one form; undefined (and refused) when it is not */
  address(option: string, value: string): string | undefined;
  /** a split fee as sent; undefined (and refused) when it is not one */
  fee(option: string, value: string): string | undefined;
}

function requestChecks(network: RequestDefaults['network'], labels: Labels): RequestChecks {
  const problems: string[] = [];
  const refuse = (option: string, value: string, expected: string) => {
    problems.push(invalidValue(option, value, expected).message);
  };
  return {
    problems,
    labels,
    refuse,
    address: (option, value) => {
      const checked = checkLiquidAddress(value, network);
      if (!checked.ok) refuse(option, value, `a Liquid address on ${network}: ${checked.reason}`);
      return checked.ok ? checked.value.address : undefined;
    },
    fee: (option, value) => {
      const parsed = readSplitFee(value);
      if (!parsed.ok) refuse(option, value, parsed.expected);
      return parsed.ok ? parsed.value.wire : undefined;
    },
  };
}

/** The amount, in reais or in cents (not both), as integer cents. */
function checkedAmount(opts: RequestInput, checks: RequestChecks): number | undefined {
  const { labels, problems } = checks;
  if (opts.amount !== undefined && opts.amountCents !== undefined) problems.push(labels.both);
  else if (opts.amount !== undefined) {
    const parsed = parseReais(opts.amount);
    if (parsed.ok) return parsed.value;
    checks.refuse(labels.amount, opts.amount, parsed.expected);
  } else if (opts.amountCents !== undefined) {
    const parsed = readCents(opts.amountCents);
    if (parsed.ok) return parsed.value;
    checks.refuse(labels.amountCents, opts.amountCents, parsed.expected);
  } else problems.push(labels.missingAmount);
  return undefined;
}

/** The destination: the one given, else the profile's default-address. */
function checkedDestination(
  opts: RequestInput,
  defaults: RequestDefaults,
  checks: RequestChecks,
): string | undefined {
  if (opts.to !== undefined) return checks.address(checks.labels.to, opts.to);
  const fallback = defaults.defaultAddress;
  if (fallback === undefined) {
    checks.problems.push(checks.labels.missingTo);
    return undefined;
  }
  return checks.address('default-address (config)', fallback);
}

/**
 * Both fields always present, each its own (never read from a polluted Object.prototype when
 * destructured): undefined is no split.
 */
interface SplitChecked {
  splitTo: string | undefined;
  splitFee: string | undefined;
}
const NO_SPLIT: Readonly<SplitChecked> = Object.freeze({ splitTo: undefined, splitFee: undefined });

/** The split: both halves given, or none (then the profile's pair, unless --no-split). */
function checkedSplit(opts: RequestInput, defaults: RequestDefaults, checks: RequestChecks): SplitChecked {
  const { labels, problems } = checks;
  const explicit = opts.splitTo !== undefined || opts.splitFee !== undefined;
  if (opts.split === false && explicit) {
    problems.push('--no-split cannot be combined with --split-to or --split-fee');
    return NO_SPLIT;
  }
  if (explicit) {
    let splitTo: string | undefined;
    let splitFee: string | undefined;
    if (opts.splitTo === undefined) problems.push(labels.feeNeedsTo);
    else splitTo = checks.address(labels.splitTo, opts.splitTo);
    if (opts.splitFee === undefined) problems.push(labels.toNeedsFee);
    else splitFee = checks.fee(labels.splitFee, opts.splitFee);
    return { splitTo, splitFee };
  }
  if (opts.split === false) return NO_SPLIT;
  const profileTo = defaults.splitAddress;
  const profileFee = defaults.splitFee;
  if ((profileTo === undefined) !== (profileFee === undefined)) {
    problems.push(
      `the profile has ${profileTo === undefined ? 'split-fee but no split-address' : 'split-address but no split-fee'}; set both, or pass --no-split`,
    );
    return NO_SPLIT;
  }
  if (profileTo === undefined || profileFee === undefined) return NO_SPLIT;
  return {
    splitTo: checks.address('split-address (config)', profileTo),
    splitFee: checks.fee('split-fee (config)', profileFee),
  };
}

/** For one deposit: the first problem is the error. */
export function buildRequest(opts: RequestInput, defaults: RequestDefaults): CreateRequest {
  const { body, problems } = checkRequest(opts, defaults);
  if (!body) throw usageError(problems[0] ?? 'invalid request');
  return body;
}
