/** The three networks an address or a profile can be on; no codecs, so cheap to import. */
export const NETWORKS = ['liquid', 'liquidtestnet', 'elementsregtest'] as const;
export type Network = (typeof NETWORKS)[number];

export function isNetwork(value: string): value is Network {
  return (NETWORKS as readonly string[]).includes(value);
}

/**
 * Each network's own asset (L-BTC). Esplora answers /asset for it with peg statistics only, no
 * registry entry and so no precision; it counts in satoshis, 8 decimals, as bitcoin does.
 */
export const POLICY_ASSET: Record<Network, { id: string; ticker: string }> = {
  liquid: { id: '6f0279e9ed041c3d710a9f57d0c02928416460c4b722ae3457a11eec381c526d', ticker: 'L-BTC' },
  liquidtestnet: {
    id: '144c654344aa716d6f3abcc1ca90e5641e4e2a7f633bc09fe3baf64585819a49',
    ticker: 'tL-BTC',
  },
  elementsregtest: {
    id: '5ac9f65c0efcc4775e0baec4ec03abdde22473cd3cf33c0419ca290e0751b225',
    ticker: 'L-BTC',
  },
};
