/**
 * The day's trade (test/cmd/day-trade.test.ts, day-trade-attacks.test.ts): a local service whose
 * answers the test chooses, a history written as lbrl writes it, a clock the test holds
 * (2026-11-23 15:00 UTC) and a shop in São Paulo.
 */
import { History, type StoredRecord } from '../../src/store/history.js';
import { runCli } from './cli.js';
import { liveEnv } from './env.js';
import { brCode, getAnswer, LQ } from './fixtures.js';
import { json, startServer, type TestServer } from './server.js';

export const NOW = Date.parse('2026-11-23T15:00:00Z');
export const HOUR = 3600_000;
export const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ago = (hours: number) => new Date(NOW - hours * HOUR).toISOString();

export interface DayTrade {
  server: TestServer;
  /** the environment of a profile on this service, TZ=America/Sao_Paulo */
  env: Record<string, string>;
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
  /** the created record of deposit n on this service, made hoursAgo, of R$ 1.500,00 unless said */
  created(n: number, hoursAgo: number, o?: { status?: string; cents?: number }): StoredRecord;
  /** the record of a status seen hoursAgo */
  status(n: number, status: string, hoursAgo: number): StoredRecord;
  /** the record of deposit n given up on hoursAgo */
  expired(n: number, hoursAgo: number): StoredRecord;
  /** append to the history, as lbrl does */
  write(records: StoredRecord[]): void;
  /** run lbrl on this profile at NOW */
  run(args: string[], extra?: Parameters<typeof runCli>[1]): ReturnType<typeof runCli>;
  /** how many times deposit n was asked for */
  gets(n: number): number;
}

export async function dayTrade(): Promise<DayTrade> {
  const world: DayTrade = {
    server: undefined as unknown as TestServer,
    env: {},
    statusOf: new Map(),
    createdAtOf: new Map(),
    laterOf: new Map(),
    tooMany: 0,
    retryAfter: undefined,
    created: (n, hoursAgo, o = {}) => {
      const cents = o.cents ?? 150000;
      return {
        v: 1,
        type: 'created',
        id: id(n),
        profile: 'default',
        baseUrl: world.server.url,
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
    },
    status: (n, status, hoursAgo) =>
      ({ v: 1, type: 'status', id: id(n), status, at: ago(hoursAgo) }) as StoredRecord,
    expired: (n, hoursAgo) => ({ v: 1, type: 'expired', id: id(n), at: ago(hoursAgo) }) as StoredRecord,
    write: (records) => new History(world.env.LBRL_CONFIG_DIR!).append(records),
    run: (args, extra = {}) => runCli(args, { env: world.env, clock: { now: NOW }, ...extra }),
    gets: (n) => world.server.requests.filter((r) => r.method === 'GET' && r.url.endsWith(id(n))).length,
  };
  world.server = await startServer((req, res) => {
    if (world.retryAfter !== undefined)
      return json(res, 429, { message: 'slow down' }, { 'retry-after': world.retryAfter });
    if (world.tooMany > 0) {
      world.tooMany -= 1;
      return json(res, 429, { message: 'slow down' }, { 'retry-after': '2' });
    }
    const depositId = req.url.split('/').pop()!;
    const later = world.laterOf.get(depositId);
    if (later && world.server.requests.filter((q) => q.url === req.url).length > later[0])
      world.statusOf.set(depositId, later[1]);
    const status = world.statusOf.get(depositId);
    if (!status) return json(res, 404, { message: 'not found' });
    json(
      res,
      200,
      getAnswer({
        id: depositId,
        status,
        settlement:
          status === 'FINALIZED' || status === 'TX_SENT' ? { status, liquidTxid: 'cd'.repeat(32) } : null,
        confirmedAt: status === 'WAITING_PAYMENT' ? null : '2026-11-23T14:00:00Z',
        ...(world.createdAtOf.has(depositId) ? { createdAt: world.createdAtOf.get(depositId) } : {}),
      }),
    );
  });
  world.env = liveEnv(world.server.url, undefined, { TZ: 'America/Sao_Paulo' });
  return world;
}
