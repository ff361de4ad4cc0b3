/**
 * Where and how settlements are checked, from the profile: the explorer (esplora-url, else
 * Blockstream's for liquid and liquidtestnet, else the sandbox's own chain in sandbox mode), the
 * asset (asset-id, or the sandbox's) and its precision, the confirmations required, the blinding
 * keys and the profile's own addresses. Every setting is checked again as it is read: a config
 * file edited by hand gets the rules `config set` applies.
 */
import { withoutCredentials } from '../../api/baseurl.js';
import { DEFAULT_ESPLORA, EsploraClient } from '../../api/esplora.js';
import type { GetResponse } from '../../api/models.js';
import { checkSettlement, type SettlementExplorer } from '../../deposits/chain-check.js';
import type { Target } from '../../deposits/ports.js';
import { targetKey } from '../../deposits/ports.js';
import type { AddressExplorer } from '../../deposits/receipts.js';
import {
  type DepositOutcome,
  type SettlementChecker,
  storedShares,
  type VerifyLedger,
  type VerifySettings,
  verifyError,
  verifySettlements,
} from '../../deposits/verify.js';
import type { WatchPlan } from '../../deposits/watch.js';
import type { Network } from '../../domain/liquid/networks.js';
import type { BlindingKeys } from '../../domain/liquid/settlement/model.js';
import { parseBlindingKey } from '../../domain/liquid/unblind.js';
import { canonicalId, isLaterStatus } from '../../domain/values.js';
import { LbrlError, usageError } from '../../errors.js';
import type { Factory } from '../../factory/factory.js';
import { networkOf, settingOf } from '../../factory/settings.js';
import type { BlindingKeyEntry, ConfigKey } from '../../store/config.js';
import { checkConfigValue } from '../../store/config-values.js';
import type { History } from '../../store/history.js';
import {
  type HistoryEntry,
  type StoredRecord,
  type StoredShare,
  statusRecord,
  unverifiedRecord,
  verifiedRecord,
} from '../../store/history-records.js';
import type { Printer } from '../../ui/output.js';
import { renderOutcome } from '../../ui/verify-view.js';

/** An explorer client as verification and reconciliation use it (EsploraClient; a test hands its own). */
export type ExplorerClient = SettlementExplorer &
  AddressExplorer & {
    /** no attempt or retry past it (on the injected clock): a watch's --timeout */
    deadline: number | undefined;
    close(): Promise<void>;
  };

/**
 * What checking settlements reads of the world, and nothing more (gh's Options struct): the
 * profile's settings and blinding keys (its own addresses derive from both), an explorer-client
 * factory and what the history counted. The factory's getters fill it in (`verifySourcesOf`); a test hands
 * plain values, a fake explorer and a history on plain records.
 */
export interface VerifySources {
  /** whether the target is the embedded sandbox (throws when the target is configured by half) */
  usesSandbox(): boolean;
  /** the embedded sandbox's chain explorer, the sandbox started on first use */
  sandboxExplorerUrl(): Promise<string>;
  /** the profile's network (throws when the saved one is not a network) */
  network(): Network;
  /** a setting as the profile holds it, or its default: checked again here as it is read */
  setting(key: ConfigKey): string | undefined;
  /** the profile's blinding keys as saved (secrets: never shown) */
  blindingKeyEntries(): readonly BlindingKeyEntry[];
  /** the profile's name and its file, for messages */
  profileName: string;
  configFile: string;
  /** an explorer client for a base URL: one per run */
  explorer(baseUrl: string): ExplorerClient;
  /** the shares earlier verifications counted, as the history records them */
  history(): Pick<History, 'sharesOf'>;
}

/** Where what a verification found is written, and what the history knows of a deposit. */
export interface SettledRecorder {
  now(): number;
  history(): Pick<History, 'sharesBefore' | 'append' | 'file'>;
  /** records through the configured ledger (the ledger link's record); without it, history().append */
  record?(records: StoredRecord[]): unknown;
  /** the history's record of a deposit on the target */
  recorded(id: string): HistoryEntry | undefined;
  /** the target's key in the history (its base URL, or "sandbox"): whose claims are this run's own */
  service?(): string;
  /** a failure to record, for a person */
  warn(line: string): void;
}

/** The factory's getters, narrowed to what checking settlements reads (`target`: where requests go). */
export function verifySourcesOf(
  factory: Factory,
  target: () => Target = () => factory.target(),
): VerifySources {
  return {
    usesSandbox: () => target().mode === 'sandbox',
    sandboxExplorerUrl: async () => `${(await factory.sandbox()).baseUrl}/esplora`,
    network: () => networkOf(factory.profile()),
    setting: (key) => settingOf(factory.profile(), key),
    blindingKeyEntries: () => factory.profile()['blinding-keys'] ?? [],
    profileName: factory.profileName,
    configFile: factory.config().file,
    explorer: (baseUrl) => explorerClientOf(factory, baseUrl),
    history: () => factory.ledger().history(),
  };
}

/** The factory's ledger, narrowed to recording what verifications found. */
export function settledRecorderOf(factory: Factory): SettledRecorder {
  return {
    now: () => factory.ctx.now(),
    history: () => factory.ledger().history(),
    record: (records) => factory.ledger().record(records),
    recorded: (id) => factory.ledger().recorded(targetKey(factory.target()), id),
    service: () => targetKey(factory.target()),
    warn: (line) => factory.printer.warn(line),
  };
}

/** The explorer client of a run: the factory's clock, Ctrl-C, trace and time-outs. */
function explorerClientOf(factory: Factory, baseUrl: string): EsploraClient {
  return new EsploraClient({
    baseUrl,
    sleep: factory.ctx.sleep,
    random: factory.ctx.random,
    now: factory.ctx.now,
    signal: factory.ctx.signal,
    trace: factory.globals.verbose ? (line) => factory.printer.trace(withoutCredentials(line)) : undefined,
    userAgent: 'lbrl',
    onRetry: ({ delayMs, reason }) =>
      factory.printer.info(`explorer: ${reason}; retrying in ${Math.ceil(delayMs / 1000)} s`),
    ...(factory.ctx.client?.timeoutMs !== undefined ? { timeoutMs: factory.ctx.client.timeoutMs } : {}),
    ...(factory.ctx.client?.connectTimeoutMs !== undefined
      ? { connectTimeoutMs: factory.ctx.client.connectTimeoutMs }
      : {}),
  });
}

export interface VerifySetup {
  settings: VerifySettings;
  check: SettlementChecker;
  /** what the history knows: lbrl's own deposits, and the shares earlier verifications counted */
  ledger: VerifyLedger;
  /** the deposits whose shares the judgements of this run counted from a transaction */
  counted(txid: string): string[];
  /** the explorer's base URL, for messages */
  esploraUrl: string;
  /** the explorer client, one per run (a watch sets its deadline); reconcile reads address histories with it too */
  client: ExplorerClient;
  close(): Promise<void>;
}

/** What a run's flags add to the profile's settings. */
export interface VerifySetupFlags {
  /** --trust-service-address */
  trustServiceAddress?: boolean | undefined;
}

/** The profile's blinding keys, parsed (a damaged entry is a config error, its key never shown). */
function profileBlindingKeys(sources: VerifySources): BlindingKeys {
  const keys: Required<BlindingKeys> = { outputKeys: [], masterBlindingKeys: [] };
  for (const [i, entry] of sources.blindingKeyEntries().entries()) {
    const parsed = parseBlindingKey(typeof entry?.key === 'string' ? entry.key : '');
    if (!parsed.ok) {
      throw new LbrlError(
        `blinding key ${i + 1} of profile ${sources.profileName} in ${sources.configFile} is damaged; set it again with lbrl config set-blinding-key`,
        'config',
      );
    }
    keys.outputKeys.push(...parsed.value.outputKeys);
    keys.masterBlindingKeys.push(...parsed.value.masterBlindingKeys);
  }
  return keys;
}

/**
 * A setting as the profile holds it, checked by the rules of `config set` (the file may have been
 * edited by hand): a value that breaks them stops the run (exit 2), shown without credentials.
 */
function checkedSetting(sources: VerifySources, key: ConfigKey, network: string): string | undefined {
  const value = sources.setting(key);
  if (value === undefined) return undefined;
  try {
    return checkConfigValue(key, value, network);
  } catch (error) {
    const why = error instanceof LbrlError ? error.message.replace(/^invalid value for [\w-]+ /, '') : '';
    throw usageError(
      `${key} in profile ${sources.profileName} of ${sources.configFile} is not valid: ${withoutCredentials(why)}; set it again with lbrl config set ${key} <value>`,
    );
  }
}

/** The profile's own addresses, by the setting that names them. */
function knownAddresses(sources: VerifySources): Array<{ address: string; setting: string }> {
  const known: Array<{ address: string; setting: string }> = [];
  for (const key of ['default-address', 'split-address'] as const) {
    const address = sources.setting(key);
    if (address) known.push({ address: address, setting: key });
  }
  for (const entry of sources.blindingKeyEntries()) {
    if (typeof entry?.address === 'string')
      known.push({ address: entry.address, setting: 'blinding-key address' });
  }
  return known;
}

/** The setup from the factory (deposit get, listen): `verifySetupWith` of its sources. */
export async function verifySetupOf(
  factory: Factory,
  target: Target = factory.target(),
  flags: VerifySetupFlags = {},
): Promise<VerifySetup> {
  return verifySetupWith(
    verifySourcesOf(factory, () => target),
    flags,
  );
}

/** Where and how settlements are checked, every setting checked again as it is read. */
export async function verifySetupWith(
  sources: VerifySources,
  flags: VerifySetupFlags = {},
): Promise<VerifySetup> {
  const sandbox = sources.usesSandbox();
  const network = sources.network();
  let esploraUrl = checkedSetting(sources, 'esplora-url', network);
  let assetId = checkedSetting(sources, 'asset-id', network);
  const precision = checkedSetting(sources, 'asset-precision', network);
  if (sandbox) {
    if (esploraUrl === undefined) esploraUrl = await sources.sandboxExplorerUrl();
    if (assetId === undefined) assetId = (await import('../../sandbox/chain.js')).SANDBOX_ASSET_ID;
  }
  esploraUrl ??= DEFAULT_ESPLORA[network] ?? undefined;
  if (esploraUrl === undefined) {
    throw usageError(
      `no explorer is known for ${network}: set one with lbrl config set esplora-url <url of an Esplora API>`,
    );
  }
  const confirmations = Number(checkedSetting(sources, 'confirmations', network) ?? '2');
  const keys = profileBlindingKeys(sources);
  const client = sources.explorer(esploraUrl);
  const history = sources.history();
  // the deposits whose shares each judgement counted, by transaction (see recordSettled)
  const seen = new Map<string, Set<string>>();
  return {
    settings: {
      network,
      assetId,
      confirmations,
      keys,
      ...(precision !== undefined ? { assetPrecision: Number(precision) } : {}),
      knownAddresses: knownAddresses(sources),
      trustServiceAddress: flags.trustServiceAddress === true,
    },
    check: (input) => checkSettlement(client, input),
    ledger: {
      sharesOf: (txid) => {
        const found = history.sharesOf(txid);
        const ids = seen.get(txid) ?? new Set<string>();
        for (const f of found) ids.add(f.id);
        seen.set(txid, ids);
        return found;
      },
    },
    counted: (txid) => [...(seen.get(txid) ?? [])],
    esploraUrl,
    client,
    close: () => client.close(),
  };
}

/**
 * `--verify` on watch and create --watch (or the profile's `verify on`): the plan's `settled` hook
 * checks each FINALIZED deposit's settlement, with one explorer client for the whole watch, whose
 * attempts and retries end at the watch's --timeout. Verified: done (recorded in the history).
 * Not yet confirmed or found: keep watching. Unproven: ends with exit 7, saying what to add.
 * Mismatch: exit 1. An explorer that cannot be reached is ridden out like the service, within the
 * watch's limits.
 */
export async function verifyingPlanOf(
  plan: WatchPlan,
  flag: boolean | undefined,
  factory: Factory,
  flags: VerifySetupFlags = {},
): Promise<WatchPlan> {
  if (!(flag ?? settingOf(factory.profile(), 'verify') === 'on')) return plan;
  const target = factory.target();
  return verifyingPlan(
    plan,
    {
      sources: verifySourcesOf(factory, () => target),
      recorder: settledRecorderOf(factory),
      printer: factory.printer,
      json: factory.globals.json === true,
      onClose: (close) => factory.onClose(close),
    },
    flags,
  );
}

/** What `--verify` on a watch reads besides the plan: the sources, the history, the screen, the run's end. */
export interface VerifyingWatch {
  sources: VerifySources;
  recorder: SettledRecorder;
  printer: Printer;
  json: boolean;
  /** the explorer client is closed when the run ends */
  onClose(close: () => Promise<void>): void;
}

/** The plan of `verifyingPlanOf`, its verification on narrow pieces. */
export async function verifyingPlan(
  plan: WatchPlan,
  watch: VerifyingWatch,
  flags: VerifySetupFlags = {},
): Promise<WatchPlan> {
  const { recorder } = watch;
  // settings are checked now, before anything is watched (no explorer for elementsregtest: exit 2)
  const setup = await verifySetupWith(watch.sources, flags);
  if (plan.timeoutMs !== undefined) setup.client.deadline = recorder.now() + plan.timeoutMs;
  watch.onClose(() => setup.close());
  const said = new Map<string, string>();
  // the shares this watch verified, by transaction: counted even if the history cannot be written
  const counted = new Map<string, Array<{ id: string; shares: StoredShare[] }>>();
  const sharesOf = (txid: string) => {
    const known = setup.ledger.sharesOf?.(txid) ?? [];
    const mine = (counted.get(txid) ?? []).filter((c) => !known.some((k) => k.id === c.id));
    return [...known, ...mine];
  };
  const settled = async (deposit: GetResponse): Promise<boolean> => {
    const [judged] = (await verifySettlements(setup.check, [deposit], setup.settings, {
      recorded: (id) => recorder.recorded(id),
      sharesOf,
    })) as [DepositOutcome];
    if (judged.outcome === 'verified' && judged.txid) {
      counted.set(judged.txid, [
        ...(counted.get(judged.txid) ?? []),
        { id: judged.id, shares: storedShares(judged) },
      ]);
    }
    const [outcome] = (await recordSettled(
      recorder,
      setup.check,
      setup.settings,
      [judged],
      setup.counted,
    )) as [DepositOutcome];
    const printer = watch.printer;
    if (outcome.outcome === 'verified') {
      printer.info(
        `deposit ${deposit.id}: settlement verified on chain (${outcome.report?.confirmations} confirmations)`,
      );
      return true;
    }
    if (outcome.outcome === 'mismatch' || outcome.outcome === 'unproven') {
      if (!watch.json) printer.err(renderOutcome(printer.errColor, outcome, setup.esploraUrl));
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
      printer.info(`deposit ${deposit.id}: FINALIZED, waiting for its settlement on chain: ${why}`);
    }
    return false;
  };
  return { ...plan, settled };
}

/**
 * Record what each verification found, and settle a race: two runs sharing a history may verify
 * two deposits from one output at once, each judging before the other wrote. The file's order
 * decides. Once recorded, a verified settlement is judged again with the shares recorded before
 * its own line by deposits it did not count (nor judged with it); the later run then finds the
 * output taken, and its record is undone (a mismatch naming the earlier deposit).
 */
export async function recordSettled(
  recorder: SettledRecorder,
  check: SettlementChecker,
  settings: VerifySettings,
  outcomes: DepositOutcome[],
  counted: (txid: string) => string[],
): Promise<DepositOutcome[]> {
  await recordVerified(recorder, outcomes);
  const history = recorder.history();
  const out = [...outcomes];
  const txids = new Set(outcomes.filter((o) => o.outcome === 'verified' && o.txid).map((o) => o.txid!));
  for (const txid of txids) {
    const group = out.filter((o) => o.txid === txid);
    const mine = new Set(group.map((o) => canonicalId(o.id)));
    const seen = new Set(counted(txid).map(canonicalId));
    const service = recorder.service?.();
    // this run's own claims: its ids on its service; the same id on another service is another deposit
    const ownClaim = (b: { id: string; baseUrl?: string }) =>
      mine.has(b.id) && (service === undefined || b.baseUrl === undefined || b.baseUrl === service);
    let before: Array<{ id: string; baseUrl?: string; shares: StoredShare[] }>;
    try {
      before = history.sharesBefore(txid, group[0]!.id, service).filter((b) => !ownClaim(b));
    } catch {
      continue; // an unreadable history was said when recording
    }
    if (before.every((b) => seen.has(b.id))) continue;
    const again = await verifySettlements(
      check,
      group.map((o) => o.deposit),
      settings,
      {
        recorded: (id) => recorder.recorded(id),
        sharesOf: (t) => (t === txid ? before : []),
      },
    );
    await recordVerified(recorder, again);
    for (const o of again) out[out.findIndex((x) => x.id === o.id)] = o;
  }
  return out;
}

/**
 * Record what each verification found: a verified settlement with the shares its outputs paid
 * (so no other deposit counts them again), a first verdict that is not a pass (unproven or
 * mismatch), and, for a deposit recorded verified before, what undid it (the history appends
 * only news). A failure to record is a warning.
 */
export async function recordVerified(recorder: SettledRecorder, outcomes: DepositOutcome[]): Promise<void> {
  const now = recorder.now();
  const records = outcomes.flatMap((outcome): StoredRecord[] => {
    if (!outcome.txid) {
      // not settled yet, but a payment seen (PIX_CONFIRMED) is kept: no later answer may unsee it
      const held = recorder.recorded(outcome.id);
      return held && isLaterStatus(outcome.deposit.status, held.status)
        ? [statusRecord(outcome.id, outcome.deposit.status, now, outcome.deposit)]
        : [];
    }
    // the status the checked get read comes first, so the ledger counts the deposit as the
    // service now has it (finalized) beside what the chain said of it
    if (outcome.outcome === 'verified')
      return [
        statusRecord(outcome.id, outcome.deposit.status, now, outcome.deposit),
        verifiedRecord(outcome.id, outcome.txid, now, storedShares(outcome)),
      ];
    return [
      statusRecord(outcome.id, outcome.deposit.status, now, outcome.deposit),
      unverifiedRecord(outcome.id, outcome.txid, outcome.outcome, now),
    ];
  });
  if (records.length === 0) return;
  if (recorder.record) {
    await recorder.record(records);
    return;
  }
  try {
    recorder.history().append(records);
  } catch (error) {
    recorder.warn(`warning: could not record in ${recorder.history().file}: ${(error as Error).message}`);
  }
}
