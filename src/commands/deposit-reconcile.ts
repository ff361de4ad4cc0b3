import type { Context } from '../context.js';
import { assetInfo } from '../deposits/chain-check.js';
import { createdFilter } from '../deposits/ledger.js';
import type { Scope } from '../deposits/ports.js';
import { scopeOnTarget } from '../deposits/ports.js';
import { MATCH_MARGIN_MS, readReceipts } from '../deposits/receipts.js';
import { type Reconciliation, reconcile } from '../deposits/reconcile.js';
import { settlementJudge } from '../deposits/settlement-judge.js';
import { decimalFromText } from '../domain/decimal.js';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { formatCents, formatReais } from '../domain/money.js';
import { safeText } from '../domain/text/safe-text.js';
import { EXIT, LbrlError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import type { History } from '../store/history.js';
import type { HistoryEntry } from '../store/history-records.js';
import { fitted, outputColumns, widthOf } from '../ui/fit.js';
import type { Printer } from '../ui/output.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { SINCE } from './shared/flag-parts.js';
import { exitCodesComment } from './shared/help-text.js';
import {
  type VerifySetup,
  type VerifySources,
  verifySetupWith,
  verifySourcesOf,
} from './shared/verify-setup.js';
import { parseSpan } from './shared/when.js';

const RECONCILE_FLAGS = [SINCE] as const satisfies readonly FlagDef[];

export type ReconcileOptions = OptionsOf<typeof RECONCILE_FLAGS>;

/**
 * All `deposit reconcile` needs (gh's Options struct): the factory's getters fill it in
 * (`reconcileOptionsOf`); a test hands a history on plain records and a fake explorer.
 */
export interface ReconcileCommandOptions {
  flags: ReconcileOptions;
  printer: Printer;
  json: boolean;
  /** the clock and the time zone (TZ) --since is read in */
  ctx: Pick<Context, 'now' | 'env'> & Partial<Pick<Context, 'stdout'>>;
  /** this profile's deposits on the target, as the history records them */
  scope(): Scope;
  /** the deposits recorded, and the outputs verifications counted */
  history(): Pick<History, 'fold' | 'verifiedShares'> | Promise<Pick<History, 'fold' | 'verifiedShares'>>;
  /** the profile's settings and keys (its addresses too) and the explorer-client factory */
  sources: VerifySources;
}

/** The factory's getters, narrowed to what `deposit reconcile` uses. */
export function reconcileOptionsOf(flags: ReconcileOptions, factory: Factory): ReconcileCommandOptions {
  return {
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    ctx: factory.ctx,
    scope: () => scopeOnTarget(factory.profileName, factory.target()),
    history: () => factory.ledger().reachedHistory(),
    sources: verifySourcesOf(factory),
  };
}

/** Read the profile's addresses on the explorer and match what they received to the deposits recorded. */
export async function runReconcile(options: ReconcileCommandOptions): Promise<void> {
  const { since } = parseSpan(options.flags, options);
  const from = since === undefined ? undefined : since - MATCH_MARGIN_MS;
  const history = await options.history();
  const side = historySide(options, history, from);
  const setup = await verifySetupWith(options.sources);
  let result: Reconciliation;
  try {
    result = await chainSide(options, setup, side, { since, from });
  } finally {
    await setup.close();
  }
  const printer = options.printer;
  if (options.json) printer.json(result);
  else
    for (const line of humanReconciliation(
      result,
      side.addresses.size,
      setup.esploraUrl,
      widthOfStdout(options),
    ))
      printer.out(line);
  disagreement(result);
}

/** What the history says: the deposits with an outcome, the addresses to read, which deposits are this profile's. */
interface HistorySide {
  history: Pick<History, 'fold' | 'verifiedShares'>;
  deposits: HistoryEntry[];
  addresses: Set<string>;
  inScope: (entry: HistoryEntry) => boolean;
}

/**
 * The deposits that have an outcome, and every address this profile's name; the deposits of the
 * other profiles and services sharing the history are read too, so that an output that paid one
 * of theirs is never matched to one of this profile's.
 */
function historySide(
  options: ReconcileCommandOptions,
  history: Pick<History, 'fold' | 'verifiedShares'>,
  from: number | undefined,
): HistorySide {
  const scope = options.scope();
  const inScope = (entry: HistoryEntry) => entry.baseUrl === scope.target && entry.profile === scope.profile;
  const addresses = new Set<string>();
  for (const a of [options.sources.setting('default-address'), options.sources.setting('split-address')])
    if (a) addresses.add(a);
  // the fold may start over (a read from the start when the history needs one): what it gathers is its own
  const deposits = history.fold(
    (r) => from === undefined || createdFilter({ profile: r.profile, since: from })(r),
    () => [] as HistoryEntry[],
    (acc, entry) => {
      if (inScope(entry)) {
        addresses.add(entry.destinationAddress);
        if (entry.splitAddress) addresses.add(entry.splitAddress);
      }
      if (entry.status === 'FINALIZED' || entry.status === 'FAILED' || entry.expiredAt) acc.push(entry);
    },
  );
  return { history, deposits, addresses, inScope };
}

/** The chain read and matched: each settlement judged by verify's rules, the receipts matched to the deposits. */
async function chainSide(
  options: ReconcileCommandOptions,
  setup: VerifySetup,
  side: HistorySide,
  span: { since: number | undefined; from: number | undefined },
): Promise<Reconciliation> {
  const { assetId, info, precision } = await provenAsset(options.printer, setup);
  const keys = setup.settings.keys;
  const hasKeys = (keys.outputKeys?.length ?? 0) + (keys.masterBlindingKeys?.length ?? 0) > 0;
  const zkp = hasKeys ? await (await import('../domain/liquid/unblind.js')).loadZkp() : null;
  const network = setup.settings.network;
  const valid = readableAddresses(options.printer, side.addresses, network);
  // the outputs verify counted for a deposit stay that deposit's, whichever profile it is of
  const recorded = side.history.verifiedShares(
    new Set(side.deposits.filter((d) => d.verifiedAt).map((d) => d.id)),
  );
  // each settlement met is judged by verify's rules, with verify's confirmations setting
  const requiredConfirmations = setup.settings.confirmations;
  const judge = settlementJudge(side.deposits, recorded, {
    network,
    assetId,
    asset: info,
    keys,
    zkp,
    requiredConfirmations,
  });
  const receipts = await readReceipts(setup.client, {
    addresses: valid.sort(),
    sinceMs: span.from,
    network,
    assetId,
    keys,
    zkp,
    onTransaction: judge.onTransaction,
  });
  return reconcile(side.deposits, receipts, {
    precision,
    sinceMs: span.since,
    requiredConfirmations,
    judged: judge.judged,
    recorded,
    inScope: side.inScope,
  });
}

/**
 * The pinned asset and its precision, proven (the registry contract the id commits to, or the
 * profile's asset-precision), never the explorer's bare word: amounts are matched by it.
 */
async function provenAsset(printer: Printer, setup: VerifySetup) {
  const assetId = setup.settings.assetId;
  if (!assetId)
    throw new LbrlError(
      'reconcile counts the pinned asset only: set it with lbrl config set asset-id <64 hex digits>',
      'usage',
    );
  const info = assetInfo(assetId, await setup.client.getAsset(assetId), {
    network: setup.settings.network,
    expectedAssetId: assetId,
    assetPrecision: setup.settings.assetPrecision,
  });
  const precision = info.precision;
  if (info.profilePrecision !== undefined)
    printer.warn(
      `warning: the profile's asset-precision ${info.profilePrecision} disagrees with the registry contract of ${assetId} (precision ${precision}): the contract's is used (lbrl config unset asset-precision)`,
    );
  if (precision === undefined)
    throw new LbrlError(
      `the precision of asset ${assetId} is not proven: the explorer's registry answer has no contract that its id commits to${info.claimedPrecision !== undefined ? ` (it only claims ${info.claimedPrecision})` : ''}`,
      'unproven',
      'if you know it, lbrl config set asset-precision <0-8> (with asset-id set)',
    );
  return { assetId, info, precision };
}

/**
 * An address of the history is read only when it is a valid address of the profile's network (a
 * history edited by hand, or kept across a change of network, is not sent as it is).
 */
function readableAddresses(printer: Printer, addresses: Set<string>, network: string): string[] {
  const valid = [...addresses].filter((address) => {
    const decoded = decodeLiquidAddress(address);
    return decoded.ok && decoded.value.network === network;
  });
  const skipped = addresses.size - valid.length;
  if (skipped > 0)
    printer.warn(`warning: ${skipped} address(es) of the history are not ${network} addresses: not read`);
  return valid;
}

/** The exit: what disagrees first, then what is not proven, then what is not deep enough yet. */
function disagreement(result: Reconciliation): void {
  const problems =
    result.missing.length + result.unmatched.length + result.paidAfterExpiry.length + result.surplus.length;
  if (problems > 0) {
    const parts = [
      result.missing.length && `${result.missing.length} share(s) of finalized deposits not found on chain`,
      result.unmatched.length && `${result.unmatched.length} receipt(s) matching no deposit`,
      result.paidAfterExpiry.length &&
        `${result.paidAfterExpiry.length} payment(s) for deposits expired or failed`,
      result.surplus.length && `${result.surplus.length} settlement(s) paying more than was due`,
    ].filter(Boolean);
    throw new LbrlError(`the chain and the history disagree: ${parts.join('; ')}`, 'mismatch');
  }
  if (result.unproven.length > 0)
    throw new LbrlError(
      `${result.unproven.length} share(s) of finalized deposits paid by output(s) whose amount could not be read: not proven`,
      'unproven',
      result.unproven.every((share) => /own blinding key|no ephemeral key/.test(share.reason))
        ? "the outputs cannot be opened with the addresses' own keys: only the payer can show their amounts (or try another explorer, esplora-url, if its copy is damaged)"
        : 'lbrl config set-blinding-key --address <address> < key.txt (the key that opens them), then run reconcile again',
    );
  if (result.pending.length > 0)
    throw new LbrlError(
      `${result.pending.length} payment(s) not yet confirmed deeply enough (${result.pending[0]!.required} confirmations required, as verify requires): not counted yet; try again later`,
      'settlement_pending',
    );
}

/** The width the result is laid out in: the one rule of every view (ui/fit.ts outputColumns). */
function widthOfStdout(options: ReconcileCommandOptions): number {
  return outputColumns(options.ctx.stdout ?? {}, options.ctx.env);
}

/**
 * One entry's line as a wide terminal shows it, or (narrower) its pieces packed: an amount, an id,
 * an address or a txid never cut across lines (ui/fit.ts).
 */
function entryLines(whole: string, pieces: Array<string | false | undefined>, columns: number): string[] {
  const kept = pieces.filter((piece): piece is string => typeof piece === 'string' && piece !== '');
  return fitted(whole, kept, columns - 2).map((line) => (widthOf(line) + 2 <= columns ? `  ${line}` : line));
}

/** An entry's line as a wide terminal shows it, and the pieces it is made of. */
type EntryText = [whole: string, pieces: Array<string | false | undefined>];

/** A titled section of entries, none when there are none. */
function section<T>(title: string, items: T[], entry: (item: T) => EntryText, columns: number): string[] {
  if (items.length === 0) return [];
  return ['', title, ...items.flatMap((item) => entryLines(...entry(item), columns))];
}

const centsText = (c: number | null) => (c === null ? 'amount unknown' : formatCents(c));

/** A receipt's exact amount: never R$ 4,99 for 4.999 received. */
function moneyText(x: { cents: number | null; amount?: string | null | undefined }): string {
  const exact = x.amount ? decimalFromText(x.amount) : null;
  return exact ? formatReais(exact) : centsText(x.cents);
}

function missingEntry(share: Reconciliation['missing'][number]): EntryText {
  const settlement = share.txid
    ? `(settlement ${safeText(share.txid)}${share.reason ? `: ${safeText(share.reason)}` : ''})`
    : '';
  const [id, amount, to] = [
    safeText(share.depositId),
    centsText(share.cents),
    `to ${safeText(share.address)}`,
  ];
  return [
    `${id}  ${share.role.padEnd(11)}  ${amount.padStart(12)}  ${to}${settlement ? `  ${settlement}` : ''}`,
    [id, share.role, amount, to, settlement],
  ];
}

function unmatchedEntry(receipt: Reconciliation['unmatched'][number]): EntryText {
  const [output, amount, to] = [
    `${receipt.txid}:${receipt.vout}`,
    moneyText(receipt),
    `to ${safeText(receipt.address)}`,
  ];
  const reason = receipt.reason && `(${receipt.reason})`;
  return [
    `${output}  ${amount.padStart(12)}  ${to}${reason ? `  ${reason}` : ''}`,
    [output, amount, to, reason],
  ];
}

function unprovenEntry(share: Reconciliation['unproven'][number]): EntryText {
  const [id, amount, where] = [
    safeText(share.depositId),
    centsText(share.cents),
    `in ${share.txid}:${share.vout}`,
  ];
  return [
    `${id}  ${share.role.padEnd(11)}  ${amount.padStart(12)}  ${where}  (${share.reason})`,
    [id, share.role, amount, where, `(${share.reason})`],
  ];
}

function pendingEntry(x: Reconciliation['pending'][number]): EntryText {
  const deposit = x.depositId ? safeText(x.depositId) : '(no deposit yet)';
  const where = `in ${x.txid}${x.vout === null ? '' : `:${x.vout}`}`;
  const depth = `(${x.confirmations} of ${x.required} confirmations)`;
  return [
    `${deposit}  ${moneyText(x).padStart(12)}  ${where}  ${depth}`,
    [deposit, moneyText(x), where, depth],
  ];
}

function lateEntry(x: Reconciliation['paidAfterExpiry'][number]): EntryText {
  const [id, amount, where] = [safeText(x.depositId), centsText(x.cents), `in ${x.txid}:${x.vout}`];
  return [`${id}  ${x.status.padEnd(7)}  ${amount.padStart(12)}  ${where}`, [id, x.status, amount, where]];
}

function surplusEntry(x: Reconciliation['surplus'][number]): EntryText {
  const [to, where, ids] = [
    `to ${safeText(x.address)}`,
    `in ${x.txid}`,
    `(${x.depositIds.map(safeText).join(', ')})`,
  ];
  const [amount, due] = [moneyText(x), formatCents(x.dueCents)];
  return [
    `${amount} more than the ${due} due  ${to}  ${where}  ${ids}`,
    [amount, 'more than the', due, 'due', to, where, ids],
  ];
}

function humanReconciliation(
  result: Reconciliation,
  addressCount: number,
  explorer: string,
  columns: number,
): string[] {
  const elsewhere = new Set(result.elsewhere.map((x) => `${x.txid}:${x.vout}`)).size;
  const out = [
    // one output that paid several deposits is one receipt
    `${addressCount} address(es) read on ${explorer}: ${new Set(result.matched.map((m) => `${m.txid}:${m.vout}`)).size} receipt(s) matched to deposits`,
    ...section('Finalized, but not found on chain:', result.missing, missingEntry, columns),
    ...section('Received, matching no deposit:', result.unmatched, unmatchedEntry, columns),
    ...section(
      'Paid by an output whose amount could not be read (not proven):',
      result.unproven,
      unprovenEntry,
      columns,
    ),
    ...section('Not yet confirmed deeply enough (not counted yet):', result.pending, pendingEntry, columns),
    ...(elsewhere > 0
      ? ['', `${elsewhere} receipt(s) paid deposits of other profiles or services sharing this history`]
      : []),
    ...section(
      'Paid after lbrl gave up on them (expired) or after they FAILED:',
      result.paidAfterExpiry,
      lateEntry,
      columns,
    ),
    ...section(
      'Received beyond what was due (give it back or account for it):',
      result.surplus,
      surplusEntry,
      columns,
    ),
  ];
  const told =
    result.missing.length +
    result.unmatched.length +
    result.paidAfterExpiry.length +
    result.unproven.length +
    result.pending.length +
    result.surplus.length;
  if (told === 0) out.push('everything matches');
  return out;
}

export const DEPOSIT_RECONCILE = command({
  rank: 80,
  path: 'deposit reconcile',
  description: "check what the profile's addresses received on chain against the finalized deposits",
  long: `It reads the history of every address of the profile's deposits on the Esplora explorer (back to two days before \`--since\`), opens each output to them (confidential ones with the stored blinding keys), and matches them to the deposits with the rules of \`verify\`, one output paying one deposit. It lists what matched, what is missing, what arrived matching no deposit, and what paid a deposit lbrl had expired or the service said FAILED.`,
  flags: RECONCILE_FLAGS,
  examples: [
    'lbrl deposit reconcile --since 1d',
    "lbrl deposit reconcile --json | jq '.unmatched'",
    exitCodesComment([
      [EXIT.ok, 'everything matches'],
      [EXIT.failure, 'something missing, unmatched, paid after expiry or beyond what was due'],
      [EXIT.unreachable, 'explorer unreachable'],
      [EXIT.unproven, 'amounts not proven'],
      [EXIT.settlementPending, 'not yet confirmed deeply enough'],
    ]),
  ],
  async run({ opts, factory }) {
    return runReconcile(reconcileOptionsOf(opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_RECONCILE);
