/**
 * `deposit watch`'s options for a pass over a file history on the live service at SERVICE, as
 * the cron pass (`--pending`) runs it: the day's trade world (day-trade.ts) and the cron-pass
 * tests hand the terminal, the scripted service, the clock and the profile's settings.
 */
import type { WatchCommandOptions, WatchFlags } from '../../src/commands/deposit-watch.js';
import type { DepositApi, FlowClock, Recorder } from '../../src/deposits/ports.js';
import type { Profile } from '../../src/store/config.js';
import type { History } from '../../src/store/history.js';
import type { PlainTerminal } from './plain-terminal.js';

/** Where the pass's deposits live, as the history records them. */
export const SERVICE = 'https://pay.example.com';

export interface WatchPass {
  /** the ids typed; none for a --pending pass */
  idTexts?: string[];
  flags: Partial<WatchFlags>;
  term: Pick<PlainTerminal, 'printer' | 'ctx'>;
  globals: WatchCommandOptions['globals'];
  api: DepositApi;
  clock: FlowClock;
  history: History;
  /** the profile's settings (requests-per-minute, expire-after, ...); verify is off */
  settings: Profile;
  /** where what the watch learns is recorded: the history itself unless given */
  recorder?: Recorder;
}

export function watchPassOptions(pass: WatchPass): WatchCommandOptions {
  const { history } = pass;
  return {
    idTexts: pass.idTexts ?? [],
    flags: pass.flags as WatchFlags,
    printer: pass.term.printer,
    ctx: pass.term.ctx,
    globals: pass.globals,
    renderMode: () => ({ sandbox: false }),
    watchClient: async () => pass.api,
    clock: pass.clock,
    recorder: pass.recorder ?? { record: (records) => history.append(records) },
    config: { setting: (key) => pass.settings[key] as string | undefined },
    history: () => history,
    scope: () => ({ profile: 'default', target: SERVICE }),
    expiredAt: (depositId) => history.recorded(depositId, SERVICE)?.expiredAt,
    // verify is off on this profile
    verifying: async (plan) => plan,
  };
}
