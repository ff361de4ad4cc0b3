import type { DepositApi, Target } from '../deposits/ports.js';
import { type DepositOutcome, verifyDeposits, verifyError } from '../deposits/verify.js';
import { settlementReportJson } from '../domain/liquid/settlement.js';
import { parseDepositId } from '../domain/values.js';
import { EXIT, invalidValue, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import type { Printer } from '../ui/output.js';
import { renderOutcome } from '../ui/verify-view.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { TRUST_SERVICE_ADDRESS } from './shared/flag-parts.js';
import { exitCodesComment } from './shared/help-text.js';
import {
  recordSettled,
  type SettledRecorder,
  settledRecorderOf,
  type VerifySources,
  verifySetupWith,
  verifySourcesOf,
} from './shared/verify-setup.js';

const VERIFY_FLAGS = [TRUST_SERVICE_ADDRESS] as const satisfies readonly FlagDef[];

/** One deposit's outcome as JSON: the report without blinding factors or keys. */
export function outcomeJson(result: DepositOutcome): Record<string, unknown> {
  return {
    id: result.id,
    status: result.deposit.status,
    outcome: result.outcome,
    txid: result.txid,
    settledWith: result.settledWith,
    report: result.report ? settlementReportJson(result.report) : null,
  };
}

export type VerifyFlags = OptionsOf<typeof VERIFY_FLAGS>;

/**
 * All `deposit verify` needs, and nothing more (gh's Options struct): the factory's getters fill it in
 * (`verifyOptionsOf`); a test hands a fake client, a fake explorer and a history on plain records.
 */
export interface VerifyCommandOptions {
  /** the deposit ids as typed */
  idTexts: string[];
  flags: VerifyFlags;
  printer: Printer;
  /** --json and --quiet */
  json: boolean;
  quiet: boolean;
  /** the service's client, made only once the ids are checked */
  client(): Promise<DepositApi>;
  /** the profile's settings and keys, the explorer-client factory and what the history counted */
  sources: VerifySources;
  /** where what was found is recorded */
  recorder: SettledRecorder;
}

/** The factory's getters, narrowed to what `deposit verify` uses. */
export function verifyOptionsOf(
  idTexts: string[],
  flags: VerifyFlags,
  factory: Factory,
): VerifyCommandOptions {
  let target: Target | undefined;
  const chosen = () => (target ??= factory.target());
  return {
    idTexts,
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    quiet: factory.globals.quiet === true,
    client: () => factory.client(chosen()),
    sources: verifySourcesOf(factory, chosen),
    recorder: settledRecorderOf(factory),
  };
}

/** Parse the ids, get each (every rule of the answer checked), check its settlement, record, print. */
export async function runVerify(options: VerifyCommandOptions): Promise<void> {
  const ids: string[] = [];
  for (const text of options.idTexts) {
    const parsed = parseDepositId(text);
    if (!parsed.ok) throw invalidValue('deposit id', text, parsed.expected);
    if (!ids.includes(parsed.value)) ids.push(parsed.value);
  }
  if (ids.length === 0) throw usageError('verify needs at least one deposit id');
  const api = await options.client();
  const setup = await verifySetupWith(options.sources, {
    trustServiceAddress: options.flags.trustServiceAddress,
  });
  let outcomes: DepositOutcome[];
  try {
    const judged = await verifyDeposits(api, setup.check, ids, setup.settings, setup.ledger);
    // recorded, then judged again if another run counted the same outputs first
    outcomes = await recordSettled(options.recorder, setup.check, setup.settings, judged, setup.counted);
  } finally {
    await setup.close();
  }
  const printer = options.printer;
  if (options.json) printer.json({ deposits: outcomes.map(outcomeJson) });
  else if (options.quiet) for (const result of outcomes) printer.out(`${result.id}\t${result.outcome}`);
  else
    printer.out(
      outcomes.map((result) => renderOutcome(printer.outColor, result, setup.esploraUrl)).join('\n\n'),
    );
  const error = verifyError(outcomes);
  if (error) throw error;
}

export const DEPOSIT_VERIFY = command({
  rank: 50,
  path: 'deposit verify',
  description: "check deposits' settlements on the Liquid chain (an Esplora explorer)",
  long: `The settlement transaction is looked up on the profile's Esplora explorer, read whole and checked against its txid, and judged one rule at a time: confirmed deeply enough, after the deposit was created, paying the destination's and the split's scripts, in the pinned asset, with the amounts due. Confidential outputs are unblinded with the stored blinding keys (\`config set-blinding-key\`). Each check is reported proven, not proven or MISMATCH; it never says verified for what it did not check.`,
  args: [{ name: '<id...>', help: 'deposit ids', complete: 'ids' }],
  flags: VERIFY_FLAGS,
  examples: [
    'lbrl deposit verify <id>',
    'lbrl config set-blinding-key < blinding-key.txt    # to check confidential amounts',
    'lbrl deposit verify <id> --json | jq -r .deposits[0].outcome',
    exitCodesComment([
      [EXIT.ok, 'verified'],
      [EXIT.failure, 'mismatch'],
      [EXIT.notFound, 'unknown id'],
      [EXIT.unreachable, 'explorer unreachable'],
      [EXIT.unproven, 'unproven'],
      [EXIT.settlementPending, 'pending'],
    ]),
  ],
  async run({ opts, args: [ids], factory }) {
    return runVerify(verifyOptionsOf(ids, opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_VERIFY);
