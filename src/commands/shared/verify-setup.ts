/**
 * Where and how settlements are checked, from the profile: the explorer (esplora-url, else
 * Blockstream's for liquid and liquidtestnet, else the sandbox's own chain in sandbox mode), the
 * asset (asset-id, or the sandbox's), the confirmations required and the blinding keys.
 */
import { checkSettlement, DEFAULT_ESPLORA, EsploraClient } from '../../api/esplora.js';
import type { SettlementChecker, VerifySettings } from '../../deposits/verify.js';
import type { BlindingKeys } from '../../domain/liquid-settlement.js';
import { parseBlindingKey } from '../../domain/liquid-unblind.js';
import { LbrlError, usageError } from '../../errors.js';
import type { Session, Target } from '../../session.js';

export interface VerifySetup {
  settings: VerifySettings;
  check: SettlementChecker;
  /** the explorer's base URL, for messages */
  esploraUrl: string;
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
    close: () => client.close(),
  };
}
