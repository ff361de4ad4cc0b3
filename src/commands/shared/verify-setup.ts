/**
 * Where and how settlements are checked, from the profile: the explorer (esplora-url, else
 * Blockstream's for liquid and liquidtestnet, else the sandbox's own chain in sandbox mode), the
 * asset (asset-id, or the sandbox's), the confirmations required and the blinding keys.
 */
import { checkSettlement, DEFAULT_ESPLORA, EsploraClient } from '../../api/esplora.js';
import type { GetResponse } from '../../api/models.js';
import {
  type DepositOutcome,
  type SettlementChecker,
  type VerifySettings,
  verifyError,
  verifySettlements,
} from '../../deposits/verify.js';
import type { WatchPlan } from '../../deposits/watch.js';
import type { BlindingKeys } from '../../domain/liquid-settlement.js';
import { parseBlindingKey } from '../../domain/liquid-unblind.js';
import { LbrlError, usageError } from '../../errors.js';
import type { Session, Target } from '../../session.js';
import { statusRecord, verifiedRecord } from '../../store/history.js';
import { renderOutcome } from '../../ui/verify-view.js';

export interface VerifySetup {
  settings: VerifySettings;
  check: SettlementChecker;
  /** the explorer's base URL, for messages */
  esploraUrl: string;
  /** the explorer itself, for what reads more than settlements (reconcile's address history) */
  client: EsploraClient;
  close(): Promise<void>;
}

/** The profile's blinding keys, parsed (a damaged entry is a config error, its key never shown). */
export function profileBlindingKeys(session: Session): BlindingKeys {
  const keys: Required<BlindingKeys> = { outputKeys: [], masterBlindingKeys: [] };
  for (const [i, entry] of (session.profile()['blinding-keys'] ?? []).entries()) {
    const r = parseBlindingKey(typeof entry?.key === 'string' ? entry.key : '');
    if (!r.ok) {
      throw new LbrlError(
        `blinding key ${i + 1} of profile ${session.profileName} in ${session.store.file} is damaged; set it again with lbrl config set-blinding-key`,
        'config',
      );
    }
    keys.outputKeys.push(...r.value.outputKeys);
    keys.masterBlindingKeys.push(...r.value.masterBlindingKeys);
  }
  return keys;
}

export async function verifySetup(session: Session, target: Target = session.target()): Promise<VerifySetup> {
  const network = session.network();
  let esploraUrl = session.setting('esplora-url');
  let assetId = session.setting('asset-id');
  if (target.mode === 'sandbox') {
    if (esploraUrl === undefined) esploraUrl = `${(await session.embeddedSandbox()).baseUrl}/esplora`;
    if (assetId === undefined) assetId = (await import('../../sandbox/chain.js')).SANDBOX_ASSET_ID;
  }
  esploraUrl ??= DEFAULT_ESPLORA[network] ?? undefined;
  if (esploraUrl === undefined) {
    throw usageError(
      `no explorer is known for ${network}: set one with lbrl config set esplora-url <url of an Esplora API>`,
    );
  }
  const confirmations = Number(session.setting('confirmations'));
  const keys = profileBlindingKeys(session);
  const client = new EsploraClient({
    baseUrl: esploraUrl,
    sleep: session.ctx.sleep,
    random: session.ctx.random,
    now: session.ctx.now,
    signal: session.ctx.signal,
    trace: session.globals.verbose ? (line) => session.printer.trace(line) : undefined,
    userAgent: 'lbrl',
    onRetry: ({ delayMs, reason }) =>
      session.printer.info(`explorer: ${reason}; retrying in ${Math.ceil(delayMs / 1000)} s`),
    ...(session.ctx.client?.timeoutMs !== undefined ? { timeoutMs: session.ctx.client.timeoutMs } : {}),
    ...(session.ctx.client?.connectTimeoutMs !== undefined
      ? { connectTimeoutMs: session.ctx.client.connectTimeoutMs }
      : {}),
  });
  return {
    settings: {
      network,
      assetId,
      confirmations: Number.isInteger(confirmations) && confirmations > 0 ? confirmations : 2,
      keys,
    },
    check: (input) => checkSettlement(client, input),
    esploraUrl,
    client,
    close: () => client.close(),
  };
}

/**
 * `--verify` on watch and create --watch (or the profile's `verify on`): the plan's `settled` hook
 * checks each FINALIZED deposit's settlement. Verified: done (recorded in the history). Not yet
 * confirmed or found: keep watching. Unproven: ends with exit 7, saying what to add. Mismatch:
 * exit 1. An explorer that cannot be reached is ridden out like the service, within the watch's limits.
 */
export async function withVerify(
  plan: WatchPlan,
  flag: boolean | undefined,
  session: Session,
): Promise<WatchPlan> {
  if (!(flag ?? session.setting('verify') === 'on')) return plan;
  const target = session.target();
  // settings are checked now, before anything is watched (no explorer for elementsregtest: exit 2)
  await (await verifySetup(session, target)).close();
  const said = new Map<string, string>();
  const settled = async (deposit: GetResponse): Promise<boolean> => {
    const setup = await verifySetup(session, target);
    let outcome: DepositOutcome;
    try {
      [outcome] = (await verifySettlements(setup.check, [deposit], setup.settings)) as [DepositOutcome];
    } finally {
      await setup.close();
    }
    const p = session.printer;
    if (outcome.outcome === 'verified') {
      recordVerified(session, [outcome]);
      p.info(
        `deposit ${deposit.id}: settlement verified on chain (${outcome.report?.confirmations} confirmations)`,
      );
      return true;
    }
    if (outcome.outcome === 'mismatch' || outcome.outcome === 'unproven') {
      if (!session.globals.json) p.err(renderOutcome(p.ce, outcome, setup.esploraUrl));
      throw verifyError([outcome])!;
    }
    const why =
      outcome.outcome === 'not-found'
        ? `transaction ${outcome.txid} not yet known to the explorer`
        : outcome.outcome === 'not-settled'
          ? 'no liquidTxid yet'
          : (outcome.report?.checks.find((c) => c.what === 'confirmations')?.detail ?? 'not yet confirmed');
    if (said.get(deposit.id) !== why) {
      said.set(deposit.id, why);
      p.info(`deposit ${deposit.id}: FINALIZED, waiting for its settlement on chain: ${why}`);
    }
    return false;
  };
  return { ...plan, settled };
}

/** Record the deposits whose settlement was verified; a failure to record is a warning. */
export function recordVerified(session: Session, outcomes: DepositOutcome[]): void {
  const now = session.ctx.now();
  const records = outcomes
    .filter((o) => o.outcome === 'verified' && o.txid)
    .flatMap((o) => [statusRecord(o.id, o.deposit.status, now), verifiedRecord(o.id, o.txid!, now)]);
  if (records.length === 0) return;
  try {
    session.history().append(records);
  } catch (error) {
    session.printer.warn(
      `warning: could not record in ${session.history().file}: ${(error as Error).message}`,
    );
  }
}
