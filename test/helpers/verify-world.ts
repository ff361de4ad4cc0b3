/**
 * `deposit verify` and `deposit watch --verify` in process, on the sandbox chain's world: the
 * deposits of settled-deposits.ts answered by a scripted service (lies included, through the
 * client's own parsing), an explorer without a socket serving real Elements transactions, the
 * profile's settings as plain values, and a history that is either plain records or the real file
 * in a temporary directory (when its bytes are asserted, or two runs share it). An error ends a
 * run as the one handler prints it (stderr) with its exit code. No factory, no server, no sleep.
 */
import { type ReconcileCommandOptions, runReconcile } from '../../src/commands/deposit-reconcile.js';
import { runVerify, type VerifyFlags } from '../../src/commands/deposit-verify.js';
import { runWatch, type WatchCommandOptions, type WatchFlags } from '../../src/commands/deposit-watch.js';
import {
  type SettledRecorder,
  type VerifySources,
  verifyingPlan,
} from '../../src/commands/shared/verify-setup.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import { LbrlError } from '../../src/errors.js';
import { SANDBOX_ASSET, SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { BlindingKeyEntry } from '../../src/store/config.js';
import type { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { type FakeExplorer, plainVerifySources, type ScriptedChain } from './fake-explorer.js';
import { followInProcess } from './follow-in-process.js';
import {
  type PlainTerminal,
  plainTerminal,
  type SteppingClock,
  seenRun,
  steppingClock,
} from './plain-terminal.js';
import { type RecordsHistory, recordsHistory } from './records-history.js';
import { scriptedGets } from './scripted-deposit-api.js';
import { CONFIRMED, DEST, type finalizedAnswer, SPLIT } from './settled-deposits.js';
import { type Shown, shown } from './shown.js';

/** the live service the deposits are on (as the history records it) */
export const TARGET = 'https://pay.example.com';
/** the runs' clock: an hour after the deposits were created */
export const VERIFY_NOW = Date.parse('2026-11-22T11:00:00Z');
export const EXPLORER_URL = 'https://explorer.example/api';

/** What verification reads and writes of the history: the real file's History, or plain records. */
export type VerifyHistory = Pick<History, 'sharesOf' | 'sharesBefore' | 'append' | 'file' | 'recorded'>;

export interface VerifyWorld {
  /** the service's answers by deposit id (read at each call: a test may change them between runs) */
  answers: Record<string, Record<string, unknown> | Array<Record<string, unknown>>>;
  chain: ScriptedChain;
  settings: Record<string, string>;
  keys?: BlindingKeyEntry[];
  history: VerifyHistory;
}

/** These transactions on the sandbox chain, each with this status; its tip 101, SBRL registered. */
export function sbrlChain(
  txs: Array<{ txid: string; hex: string }>,
  status: Record<string, unknown> = CONFIRMED,
): ScriptedChain {
  return {
    txs: new Map(txs.map((t) => [t.txid, { hex: t.hex, status }])),
    tip: 101,
    assets: { [SANDBOX_ASSET_ID]: SANDBOX_ASSET as unknown as Record<string, unknown> },
  };
}

interface WorldOptions<H> {
  /** the history it reads and writes (the records' fake, unless given) */
  history?: H;
  stranger?: boolean;
  noSplit?: boolean;
  settings?: Record<string, string>;
  keys?: BlindingKeyEntry[];
}

/**
 * These deposits on the chain; the profile on elementsregtest, its explorer and SBRL pinned, DEST
 * its default-address and SPLIT its split-address (neither when `stranger`; no split with `noSplit`).
 */
export function sbrlWorld(
  deposits: Array<ReturnType<typeof finalizedAnswer>>,
  chain: ScriptedChain,
  o?: WorldOptions<RecordsHistory>,
): VerifyWorld & { history: RecordsHistory };
export function sbrlWorld<H extends VerifyHistory>(
  deposits: Array<ReturnType<typeof finalizedAnswer>>,
  chain: ScriptedChain,
  o: WorldOptions<H>,
): VerifyWorld & { history: H };
export function sbrlWorld(
  deposits: Array<ReturnType<typeof finalizedAnswer>>,
  chain: ScriptedChain,
  o: WorldOptions<VerifyHistory> = {},
): VerifyWorld {
  return {
    answers: Object.fromEntries(deposits.map((d) => [d.id, d])),
    chain,
    settings: {
      network: 'elementsregtest',
      'esplora-url': EXPLORER_URL,
      'asset-id': SANDBOX_ASSET_ID,
      ...(o.stranger ? {} : { 'default-address': DEST }),
      ...(o.stranger || o.noSplit ? {} : { 'split-address': SPLIT }),
      ...o.settings,
    },
    ...(o.keys ? { keys: o.keys } : {}),
    history: o.history ?? recordsHistory([]),
  };
}

export interface VerifyRun {
  stdout: string;
  /** what the user saw on stderr: the run's own lines, then its error as the handler prints it */
  stderr: string;
  /** the exit code: the error's, else 0 */
  code: number;
  error?: LbrlError;
  /** the ids the service was asked for */
  asked: string[];
  /** each explorer client made (one per run), and what was asked of it */
  explorers: FakeExplorer[];
  /** what the run appended to the history, when it is plain records */
  appended: StoredRecord[];
}

/** The run's end as a user sees it: an LbrlError printed by the handler's printer; anything else fails the test. */
async function ended(term: PlainTerminal, work: () => Promise<void>) {
  try {
    await work();
    return { stdout: term.stdout, stderr: term.stderr, code: 0 };
  } catch (error) {
    if (!(error instanceof LbrlError)) throw error;
    term.printer.error(error);
    return { stdout: term.stdout, stderr: term.stderr, code: error.exitCode, error };
  }
}

/**
 * A verification's recorder on `history`, as the factory's: what it knows of a deposit is the
 * record on `target`, a failure to record is a warning; `more` adds a ledger's `record` or `service`.
 */
export function historyRecorder(
  history: VerifyHistory,
  o: { target: string; now: () => number; term: PlainTerminal; more?: Partial<SettledRecorder> },
): SettledRecorder {
  return {
    now: o.now,
    history: () => history,
    recorded: (x) => history.recorded(x, o.target),
    warn: (line) => o.term.printer.warn(line),
    ...o.more,
  };
}

function recorderOf(world: VerifyWorld, now: () => number, term: PlainTerminal): SettledRecorder {
  return historyRecorder(world.history, { target: TARGET, now, term });
}

/**
 * `lbrl deposit verify <ids>` on narrow options, as the reconcile and history tests run it beside
 * reconcile: the service `api`, the verification `sources`, and the recorder on `history` for
 * `target` at `now` (`recorder` adds to it); what the user saw.
 */
export async function verifyShown(
  idTexts: string[],
  o: {
    api: DepositApi;
    sources: VerifySources;
    history: VerifyHistory;
    target: string;
    now: number;
    recorder?: (term: PlainTerminal) => Partial<SettledRecorder>;
  },
): Promise<Shown> {
  const term = plainTerminal({ now: () => o.now });
  const more = o.recorder?.(term);
  const recorder = historyRecorder(o.history, {
    target: o.target,
    now: () => o.now,
    term,
    ...(more ? { more } : {}),
  });
  return shown(
    term,
    await seenRun(term, () =>
      runVerify({
        idTexts,
        flags: {} as VerifyFlags,
        printer: term.printer,
        json: false,
        quiet: false,
        client: async () => o.api,
        sources: o.sources,
        recorder,
      }),
    ),
  );
}

function sourcesOf(world: VerifyWorld) {
  return plainVerifySources({
    settings: world.settings,
    keys: world.keys ?? [],
    chain: world.chain,
    history: world.history,
  });
}

const appendedOf = (history: VerifyHistory, before: number): StoredRecord[] =>
  'appended' in history ? (history as RecordsHistory).appended.slice(before) : [];

/** `lbrl deposit verify <ids>` on this world, on narrow options. */
export async function verifyIn(
  idTexts: string[],
  world: VerifyWorld,
  o: { json?: boolean; quiet?: boolean; flags?: VerifyFlags } = {},
): Promise<VerifyRun> {
  const before = appendedOf(world.history, 0).length;
  const term = plainTerminal({ json: o.json, quiet: o.quiet });
  const api = scriptedGets(world.answers, (x) => world.history.recorded(x, TARGET));
  const sources = sourcesOf(world);
  const seen = await ended(term, () =>
    runVerify({
      idTexts,
      flags: o.flags ?? ({} as VerifyFlags),
      printer: term.printer,
      json: o.json === true,
      quiet: o.quiet === true,
      client: async () => api,
      sources,
      recorder: recorderOf(world, () => VERIFY_NOW, term),
    }),
  );
  return { ...seen, asked: api.asked, explorers: sources.made, appended: appendedOf(world.history, before) };
}

/**
 * `lbrl deposit reconcile` on narrow options, beside verifyShown: the `profile`'s deposits on
 * `target` in `history`, the chain through `sources`, at `now`; what the user saw.
 */
export async function reconcileShown(o: {
  profile: string;
  target: string;
  history: Awaited<ReturnType<ReconcileCommandOptions['history']>>;
  sources: VerifySources;
  now: number;
  json: boolean;
}): Promise<Shown> {
  const term = plainTerminal({ json: o.json, now: () => o.now });
  return shown(
    term,
    await seenRun(term, () =>
      runReconcile({
        flags: {},
        printer: term.printer,
        json: o.json,
        ctx: term.ctx,
        scope: () => ({ profile: o.profile, target: o.target }),
        history: () => o.history,
        sources: o.sources,
      }),
    ),
  );
}

export interface WatchRun extends VerifyRun {
  clock: SteppingClock;
}

/**
 * `lbrl deposit watch <ids>` on this world, on narrow options, its clock moved only by sleeping.
 * The verification hook is the one `--verify` (or the profile's `verify on`) installs on a watch:
 * `verifyingPlan`, on the profile's sources, the watch's printer and its history; the explorer
 * client is closed when the run ends.
 */
export async function watchIn(
  idTexts: string[],
  world: VerifyWorld,
  flags: Partial<WatchFlags>,
  o: { json?: boolean } = {},
): Promise<WatchRun> {
  const before = appendedOf(world.history, 0).length;
  const clock = steppingClock(VERIFY_NOW);
  const api = scriptedGets(world.answers, (x) => world.history.recorded(x, TARGET));
  const { term, deps } = followInProcess({ clock, api, json: o.json });
  const sources = sourcesOf(world);
  const closing: Array<() => Promise<void>> = [];
  const options: WatchCommandOptions = {
    idTexts,
    flags: flags as WatchFlags,
    ...deps,
    // the statuses the watch sees go to the same history, as the factory's recorder does
    recorder: { record: (records) => world.history.append(records) },
    config: { setting: (key) => world.settings[key] },
    history: () => {
      throw new Error('--pending reads a history file: not this helper');
    },
    scope: () => ({ profile: 'default', target: TARGET }),
    expiredAt: () => undefined,
    verifying: async (plan, verify, verifyFlags) =>
      (verify ?? world.settings.verify === 'on')
        ? verifyingPlan(
            plan,
            {
              sources,
              recorder: recorderOf(world, clock.now, term),
              printer: term.printer,
              json: o.json === true,
              onClose: (close) => closing.push(close),
            },
            verifyFlags,
          )
        : plan,
  };
  let seen: Awaited<ReturnType<typeof ended>>;
  try {
    seen = await ended(term, () => runWatch(options));
  } finally {
    for (const close of closing) await close();
  }
  return {
    ...seen,
    clock,
    asked: api.asked,
    explorers: sources.made,
    appended: appendedOf(world.history, before),
  };
}
