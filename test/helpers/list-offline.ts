/**
 * `deposit list` run in process over a history, without `--refresh`: nothing is asked of the
 * service (a request would fail the test). For the in-process tests of what list reads.
 */
import { type ListOptions, runList } from '../../src/commands/deposit-list.js';
import type { History } from '../../src/store/history.js';
import type { PlainTerminal } from './plain-terminal.js';

export function listOffline(
  term: PlainTerminal,
  history: History,
  o: { service: string; json: boolean; flags?: Partial<ListOptions> },
): Promise<void> {
  return runList({
    flags: (o.flags ?? {}) as ListOptions,
    json: o.json,
    printer: term.printer,
    profileName: 'default',
    ctx: term.ctx,
    history: () => history,
    service: () => o.service,
    refresh: {
      targetKey: () => o.service,
      client: async () => {
        throw new Error('nothing is asked');
      },
      recorder: { record: () => {} },
      expireAfterMs: () => 86_400_000,
      paidAfterExpiry: () => {},
    },
  });
}
