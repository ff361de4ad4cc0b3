import { EsploraClient, type EsploraOptions } from '../../src/api/esplora.js';

/** An explorer client on a test's clock: its waits pushed to `sleeps` (never slept), jitter fixed. */
export function esploraClient(url: string, sleeps: number[], o: Partial<EsploraOptions> = {}): EsploraClient {
  return new EsploraClient({
    baseUrl: url,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    now: () => 0,
    timeoutMs: 2000,
    ...o,
  });
}
