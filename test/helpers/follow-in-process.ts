/**
 * The pieces a follow on screen takes (create --watch and deposit watch: FollowDeps), in process:
 * a printer on plain strings, the scripted service as the watch's client, a clock that only
 * sleeping moves, and the records the history is handed, in order.
 */
import type { CreateCommandOptions, CreateFlags } from '../../src/commands/deposit-create.js';
import type { FollowDeps } from '../../src/commands/shared/follow.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { type PlainTerminal, plainTerminal, type SteppingClock } from './plain-terminal.js';
import type { ScriptedDepositApi } from './scripted-deposit-api.js';
import { tempDir } from './temp.js';

export interface FollowInProcess {
  term: PlainTerminal;
  /** what the command handed the history, in order */
  records: StoredRecord[];
  deps: FollowDeps & { ctx: PlainTerminal['ctx'] };
}

export function followInProcess(o: {
  clock: SteppingClock;
  api: ScriptedDepositApi;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
  env?: Record<string, string> | undefined;
  /** the target is the embedded sandbox (what is said of a settlement) */
  sandbox?: boolean;
  globals?: { profile?: string; baseUrl?: string } | undefined;
}): FollowInProcess {
  const term = plainTerminal({ json: o.json, quiet: o.quiet, env: o.env, now: o.clock.now });
  const records: StoredRecord[] = [];
  return {
    term,
    records,
    deps: {
      printer: term.printer,
      ctx: term.ctx,
      globals: { json: o.json, quiet: o.quiet, ...o.globals },
      renderMode: () => ({ sandbox: o.sandbox === true }),
      watchClient: async () => o.api,
      clock: o.clock,
      recorder: { record: (r) => records.push(...r) },
    },
  };
}

/**
 * `deposit create`'s options on a profile with nothing set: the live service at `service` (or
 * the embedded sandbox), network liquid, no prompt, verify off, a fresh config directory.
 */
export function createOptions(
  deps: FollowInProcess['deps'],
  flags: Partial<CreateFlags>,
  client: DepositApi,
  service: string | 'sandbox',
): CreateCommandOptions {
  return {
    flags: flags as CreateFlags,
    ...deps,
    config: { setting: () => undefined },
    requestDefaults: () => ({ network: 'liquid' }),
    target: () => (service === 'sandbox' ? { mode: 'sandbox' } : { mode: 'live', baseUrl: service }),
    scope: () => ({ profile: 'default', target: service }),
    client: async () => client,
    prompter: async () => undefined,
    profileName: 'default',
    configDir: tempDir(),
    verifying: async (plan) => plan,
  };
}
