/**
 * The day's trade (test/cmd/day-trade.test.ts, day-trade-attacks.test.ts; files.test.ts writes its
 * history file by hand), in process: a service whose answers the test chooses, a history written
 * as lbrl writes it, a clock the test holds (2026-11-23 15:00 UTC) and a shop in São Paulo.
 */
import { runSetSetting } from '../../src/commands/config.js';
import {
  afterExpiry,
  type GetCommandOptions,
  type GetFlags,
  runGet,
} from '../../src/commands/deposit-get.js';
import { type ListCommandOptions, type ListOptions, runList } from '../../src/commands/deposit-list.js';
import {
  type ReportCommandOptions,
  type ReportOptions,
  runReport,
} from '../../src/commands/deposit-report.js';
import { runWatch, type WatchFlags } from '../../src/commands/deposit-watch.js';
import { expireAfterMs, reportPaidAfterExpiry } from '../../src/commands/shared/expiry.js';
import type { LbrlError } from '../../src/errors.js';
import type { ConfigKey, Profile } from '../../src/store/config.js';
import { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { tempDir } from './cli.js';
import { brCode, getAnswer, LQ } from './fixtures.js';
import { plainTerminal, seenRun, steppingClock } from './plain-terminal.js';
import { refusalOf, scriptedDepositApi } from './scripted-deposit-api.js';
import { SERVICE, watchPassOptions } from './watch-pass.js';

export const NOW = Date.parse('2026-11-23T15:00:00Z');
export const HOUR = 3600_000;
export const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ago = (hours: number) => new Date(NOW - hours * HOUR).toISOString();

/** The created record of deposit n on the service at baseUrl, made hoursAgo, of R$ 1.500,00 unless said. */
function createdAt(
  n: number,
  hoursAgo: number,
  baseUrl: string,
  o: { status?: string; cents?: number } = {},
): StoredRecord {
  const cents = o.cents ?? 150000;
  return {
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl,
    at: ago(hoursAgo),
    amountInCents: cents,
    destinationAddress: LQ,
    splitAddress: null,
    splitFee: null,
    status: o.status ?? 'WAITING_PAYMENT',
    answer: {
      amount: cents / 100,
      feeAmount: Math.floor(cents / 100) / 100,
      netAmount: (cents - Math.floor(cents / 100)) / 100,
      splitPercent: null,
      qrCodeText: brCode(cents),
      createdAt: '2026-11-22T10:00:00.000Z',
    },
  } as StoredRecord;
}

const statusAt = (n: number, status: string, hoursAgo: number) =>
  ({ v: 1, type: 'status', id: id(n), status, at: ago(hoursAgo) }) as StoredRecord;
const expiredAt = (n: number, hoursAgo: number) =>
  ({ v: 1, type: 'expired', id: id(n), at: ago(hoursAgo) }) as StoredRecord;

/** What a user saw of one run in process: as runCli's result (the error printed as the handler prints it), and the error. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
  /** every sleep asked for, in ms */
  sleeps: number[];
  error?: LbrlError;
}

/** The global flags and the terminal of one run. */
export interface RunSetting {
  json?: boolean;
  quiet?: boolean;
  /** stdout is a terminal this wide (else it is not a terminal) */
  columns?: number;
  /** the clock at the start of the run, else NOW */
  now?: number;
  /** how long reading the history for what is pending takes on the run's clock (a large file on a loaded machine) */
  historyReadMs?: number;
}

/**
 * The day's trade in process: the same chosen answers, read as the client reads them (a 404 and
 * a 429 become what the client's own classify() makes of them), the history a real file written
 * as lbrl writes it, and each run a command's work on narrow options (runWatch, runList,
 * runReport, runGet, runSetSetting) at NOW with a clock that only sleeping moves. No server.
 */
export interface DayTradeInProcess {
  /** what the service says of each deposit now; a deposit it has no status for is a 404 */
  statusOf: Map<string, string>;
  /** the service's createdAt of a deposit, when not the fixture's */
  createdAtOf: Map<string, string>;
  /** a deposit whose status becomes this once it was asked about that many times */
  laterOf: Map<string, [number, string]>;
  /** the next this many requests are answered 429 with Retry-After: 2 */
  tooMany: number;
  /** while set, every request is answered 429 with this Retry-After */
  retryAfter: string | undefined;
  /** a deposit whose answer never comes: the run's clock moves on this many ms while it is asked */
  hangOf: Map<string, number>;
  /** every deposit asked for, in order, 429s included */
  asked: string[];
  /** the id the service answers with, as it writes it (by default the id asked for) */
  answeredId: (id: string) => string;
  /** the history file */
  file: string;
  /** the profile's settings (config set writes here) */
  settings: Profile;
  created(n: number, hoursAgo: number, o?: { status?: string; cents?: number }): StoredRecord;
  status(n: number, status: string, hoursAgo: number): StoredRecord;
  expired(n: number, hoursAgo: number): StoredRecord;
  /** append to the history, as lbrl does */
  write(records: StoredRecord[]): void;
  /** how many times deposit n was asked for */
  gets(n: number): number;
  watch(idTexts: string[], flags: Partial<WatchFlags>, o?: RunSetting): Promise<InProcessRun>;
  list(flags: Partial<ListOptions>, o?: RunSetting): Promise<InProcessRun>;
  report(flags: Partial<ReportOptions>, o?: RunSetting): Promise<InProcessRun>;
  get(idText: string, o?: RunSetting): Promise<InProcessRun>;
  /** `config set <name> <value>` on this profile */
  set(name: string, value: string): Promise<InProcessRun>;
}

/** Where this world's deposits live, as the history records them. */
export { SERVICE };

export function dayTradeInProcess(): DayTradeInProcess {
  const dir = tempDir();
  const asked: string[] = [];
  const answerOf = (depositId: string, now: number): unknown => {
    asked.push(depositId);
    // what the client makes of an answer that is not a deposit: its own classify(), as on the wire
    const refusal = (status: number, body: string, retryAfter?: string) =>
      refusalOf(depositId, now, { status, body, retryAfter });

    if (world.retryAfter !== undefined) throw refusal(429, '{"message":"slow down"}', world.retryAfter);
    if (world.tooMany > 0) {
      world.tooMany -= 1;
      throw refusal(429, '{"message":"slow down"}', '2');
    }
    const later = world.laterOf.get(depositId);
    if (later && asked.filter((x) => x === depositId).length > later[0])
      world.statusOf.set(depositId, later[1]);
    const status = world.statusOf.get(depositId);
    if (!status) throw refusal(404, '{"message":"not found"}');
    return getAnswer({
      id: world.answeredId(depositId),
      status,
      settlement:
        status === 'FINALIZED' || status === 'TX_SENT' ? { status, liquidTxid: 'cd'.repeat(32) } : null,
      confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-23T14:00:00Z',
      ...(world.createdAtOf.has(depositId) ? { createdAt: world.createdAtOf.get(depositId) } : {}),
    });
  };

  /** One run: a fresh history reader (as a new process), the terminal, the service and the clock. */
  const session = (o: RunSetting) => {
    const clock = steppingClock(o.now ?? NOW);
    const term = plainTerminal({
      json: o.json,
      quiet: o.quiet,
      columns: o.columns,
      env: { TZ: 'America/Sao_Paulo' },
      now: clock.now,
    });
    // as the factory's: what it skips of a damaged file is a warning
    const history = new History(dir, (line) => term.printer.warn(line));
    if (o.historyReadMs) {
      const read = history.pending.bind(history);
      history.pending = (filter, opts) => {
        const entries = read(filter, opts);
        clock.t += o.historyReadMs!;
        clock.m += o.historyReadMs!;
        return entries;
      };
    }
    const recorder = { record: (records: StoredRecord[]) => history.append(records) };
    const api = scriptedDepositApi({
      get: (depositId) => {
        const hang = world.hangOf.get(depositId);
        if (hang === undefined) return answerOf(depositId, clock.now());
        asked.push(depositId);
        clock.t += hang;
        return new Promise(() => {});
      },
      recorded: (depositId) => history.recorded(depositId, SERVICE),
      now: clock.now,
    });
    const config = { setting: (key: ConfigKey) => world.settings[key] as string | undefined };
    const globals = { json: o.json, quiet: o.quiet };
    const alarms = { printer: term.printer, globals, ctx: term.ctx };
    const seen = async (work: () => Promise<unknown>): Promise<InProcessRun> => {
      const run = await seenRun(term, work);
      // as the handler ends a run: the error on stderr, its exit code
      if (run.error) term.printer.error(run.error);
      return {
        code: run.error?.exitCode ?? 0,
        stdout: term.stdout,
        stderr: term.stderr,
        sleeps: clock.sleeps,
        ...(run.error ? { error: run.error } : {}),
      };
    };
    return { clock, history, term, recorder, api, config, globals, alarms, seen };
  };

  const world: DayTradeInProcess = {
    statusOf: new Map(),
    createdAtOf: new Map(),
    laterOf: new Map(),
    tooMany: 0,
    retryAfter: undefined,
    hangOf: new Map(),
    asked,
    answeredId: (depositId) => depositId,
    file: new History(dir).file,
    settings: {},
    created: (n, hoursAgo, o) => createdAt(n, hoursAgo, SERVICE, o),
    status: statusAt,
    expired: expiredAt,
    write: (records) => new History(dir).append(records),
    gets: (n) => asked.filter((x) => x === id(n)).length,
    watch(idTexts, flags, o = {}) {
      const s = session(o);
      const options = watchPassOptions({ ...s, idTexts, flags, settings: world.settings });
      return s.seen(() => runWatch(options));
    },
    list(flags, o = {}) {
      const s = session(o);
      const options: ListCommandOptions = {
        flags: flags as ListOptions,
        printer: s.term.printer,
        json: o.json === true,
        profileName: 'default',
        ctx: s.term.ctx,
        history: () => s.history,
        refresh: {
          targetKey: () => SERVICE,
          client: async () => s.api,
          recorder: s.recorder,
          expireAfterMs: () => expireAfterMs(s.config),
          paidAfterExpiry: (depositId, status, at) => reportPaidAfterExpiry(s.alarms, depositId, status, at),
        },
      };
      return s.seen(() => runList(options));
    },
    report(flags, o = {}) {
      const s = session(o);
      const options: ReportCommandOptions = {
        flags: flags as ReportOptions,
        printer: s.term.printer,
        json: o.json === true,
        profileName: 'default',
        ctx: s.term.ctx,
        history: () => s.history,
      };
      return s.seen(() => runReport(options));
    },
    get(idText, o = {}) {
      const s = session(o);
      const options: GetCommandOptions = {
        idText,
        flags: {} as GetFlags,
        printer: s.term.printer,
        json: o.json === true,
        quiet: o.quiet === true,
        qrStyleSetting: undefined,
        env: s.term.ctx.env,
        client: async () => ({ api: s.api, sandbox: false }),
        blindedFragment: async () => null,
        serviceUrl: () => undefined,
        expiredAt: (depositId) => s.history.recorded(depositId, SERVICE)?.expiredAt,
        afterExpiry: (value, at) => afterExpiry(value, at, { ...s.alarms, record: s.recorder.record }),
      };
      return s.seen(() => runGet(options));
    },
    set(name, value) {
      const s = session({});
      return s.seen(() =>
        runSetSetting(name, value, {
          printer: s.term.printer,
          profileName: 'default',
          profileForRepair: () => structuredClone(world.settings),
          updateProfile: async (change) => change(world.settings),
        }),
      );
    },
  };
  return world;
}
