/**
 * An explorer client without a socket: what EsploraClient would return once it had read and
 * checked an Esplora answer (statuses and registry entries pass the client's own schemas, so a
 * fake answer is one a real explorer could give). Scripted per transaction; it may lie in what the
 * schemas cannot see: a block above its own tip, another transaction's hex, a registry entry
 * that proves nothing. The transport (HTML, garbage, time-outs, redirects) stays with the
 * socket-level tests.
 */
import { type AddressTx, assetSchema, txStatusSchema } from '../../src/api/esplora.js';
import type { ExplorerClient, VerifySources } from '../../src/commands/shared/verify-setup.js';
import { isNetwork } from '../../src/domain/liquid/networks.js';
import { type BlindingKeyEntry, type ConfigKey, DEFAULTS } from '../../src/store/config.js';
import type { History } from '../../src/store/history.js';

export interface ScriptedChain {
  /** the raw transaction (hex) and the status the explorer gives, by txid */
  txs: Map<string, { hex: string; status: Record<string, unknown> }>;
  tip: number;
  /** registry entries by asset id (absent: the explorer does not know the asset) */
  assets?: Record<string, Record<string, unknown>>;
  /** an address's history, newest first, as pages of the paging Esplora does */
  addressTxs?: Record<string, AddressTx[]>;
}

export interface FakeExplorer extends ExplorerClient {
  /** the base URL it was made for */
  baseUrl: string;
  /** every call, as `method arg`: what was asked of the explorer */
  calls: string[];
  closed: boolean;
}

/** Esplora pages an address's confirmed history 25 at a time. */
const PAGE = 25;

export function fakeExplorer(baseUrl: string, chain: ScriptedChain): FakeExplorer {
  const calls: string[] = [];
  const explorer: FakeExplorer = {
    baseUrl,
    calls,
    closed: false,
    deadline: undefined,
    async getTxStatus(txid) {
      calls.push(`status ${txid}`);
      const tx = chain.txs.get(txid);
      // Esplora answers the status of a transaction it does not know as unconfirmed
      return txStatusSchema.parse(tx ? tx.status : { confirmed: false });
    },
    async getTipHeight() {
      calls.push('tip');
      return chain.tip;
    },
    async getTxHex(txid) {
      calls.push(`hex ${txid}`);
      return chain.txs.get(txid)?.hex ?? null;
    },
    async getAsset(assetId) {
      calls.push(`asset ${assetId}`);
      const entry = chain.assets?.[assetId];
      return entry ? assetSchema.parse(entry) : null;
    },
    async getAddressTxs(address, lastSeen) {
      calls.push(`address ${address}${lastSeen ? ` after ${lastSeen}` : ''}`);
      const all = chain.addressTxs?.[address] ?? [];
      const from = lastSeen ? all.findIndex((t) => t.txid === lastSeen) + 1 : 0;
      return all.slice(from, from + PAGE);
    },
    async close() {
      explorer.closed = true;
    },
  };
  return explorer;
}

/**
 * The profile as verification reads it, from plain values: its settings (a missing one takes its
 * default), its blinding keys, the history, and an explorer made on the scripted chain (each one
 * made is kept in `made`, to see what was asked of it).
 */
export function plainVerifySources(o: {
  settings: Record<string, string>;
  keys?: BlindingKeyEntry[];
  chain: ScriptedChain;
  history: Pick<History, 'sharesOf'>;
  sandbox?: boolean;
}): VerifySources & { made: FakeExplorer[] } {
  const made: FakeExplorer[] = [];
  const setting = (key: ConfigKey) => o.settings[key] ?? DEFAULTS[key];
  return {
    made,
    usesSandbox: () => o.sandbox === true,
    sandboxExplorerUrl: async () => 'http://127.0.0.1:1/sandbox/esplora',
    network: () => {
      const n = setting('network') ?? '';
      if (!isNetwork(n)) throw new Error(`the test gave network ${n}`);
      return n;
    },
    setting,
    blindingKeyEntries: () => o.keys ?? [],
    profileName: 'default',
    configFile: '/config/config.json',
    explorer: (baseUrl) => {
      const explorer = fakeExplorer(baseUrl, o.chain);
      made.push(explorer);
      return explorer;
    },
    history: () => o.history,
  };
}
