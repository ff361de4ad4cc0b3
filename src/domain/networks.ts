/** The three networks an address or a profile can be on; no codecs, so cheap to import. */
export const NETWORKS = ['liquid', 'liquidtestnet', 'elementsregtest'] as const;
export type Network = (typeof NETWORKS)[number];

export function isNetwork(value: string): value is Network {
  return (NETWORKS as readonly string[]).includes(value);
}
