import { type DepositOutcome, verifyDeposits, verifyError } from '../deposits/verify.js';
import { settlementReportJson } from '../domain/liquid/settlement.js';
import { parseDepositId } from '../domain/values.js';
import { invalidValue, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { renderOutcome } from '../ui/verify-view.js';
import type { OptionsOf } from './define.js';
import type { VERIFY_FLAGS } from './flags.js';
import { recordSettled, verifySetup } from './shared/verify-setup.js';

/** One deposit's outcome as JSON: the report without blinding factors or keys. */
export function outcomeJson(o: DepositOutcome): Record<string, unknown> {
  return {
    id: o.id,
    status: o.deposit.status,
    outcome: o.outcome,
    txid: o.txid,
    settledWith: o.settledWith,
    report: o.report ? settlementReportJson(o.report) : null,
  };
}

export type VerifyFlags = OptionsOf<typeof VERIFY_FLAGS>;

export async function run(idTexts: string[], flags: VerifyFlags, session: Session): Promise<void> {
  const ids: string[] = [];
  for (const text of idTexts) {
    const r = parseDepositId(text);
    if (!r.ok) throw invalidValue('deposit id', text, r.expected);
    if (!ids.includes(r.value)) ids.push(r.value);
  }
  if (ids.length === 0) throw usageError('verify needs at least one deposit id');
  const target = session.target();
  const api = await session.client(target);
  const setup = await verifySetup(session, target, { trustServiceAddress: flags.trustServiceAddress });
  let outcomes: DepositOutcome[];
  try {
    const judged = await verifyDeposits(api, setup.check, ids, setup.settings, setup.ledger);
    // recorded, then judged again if another run counted the same outputs first
    outcomes = await recordSettled(session, setup.check, setup.settings, judged, setup.counted);
  } finally {
    await setup.close();
  }
  const p = session.printer;
  if (session.globals.json) p.json({ deposits: outcomes.map(outcomeJson) });
  else if (session.globals.quiet) for (const o of outcomes) p.out(`${o.id}\t${o.outcome}`);
  else p.out(outcomes.map((o) => renderOutcome(p.c, o, setup.esploraUrl)).join('\n\n'));
  const error = verifyError(outcomes);
  if (error) throw error;
}
