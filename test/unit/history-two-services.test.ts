/**
 * One id, two deposits: the sandbox and a live service may hand out the same id. A record names
 * its deposit by service and id; one of an older release, naming no service, attaches to the
 * deposit of its id created before it only when that id was on one service then. Every reader
 * agrees, whatever the order of the lines and however often they repeat: list, report, get,
 * watch --pending, and the verifications reconcile and verify count (one output pays one deposit).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/store/history.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { tempDir } from '../helpers/temp.js';

const SANDBOX = 'sandbox';
const LIVE = 'https://pay.example.com';
const X = '00000000-0000-4000-8000-000000000001';
const TXID = 'cd'.repeat(32);
const SHARE = {
  role: 'destination',
  script: `0014${'ab'.repeat(20)}`,
  outputs: [0],
  share: '1/1',
  rounded: false,
};

const created = (service: string, minute: number) =>
  JSON.stringify({
    v: 1,
    type: 'created',
    id: X,
    profile: 'default',
    baseUrl: service,
    at: `2026-11-23T12:${String(minute).padStart(2, '0')}:00.000Z`,
    amountInCents: 1000,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  });
const status = (value: string, service?: string) =>
  JSON.stringify({
    v: 1,
    type: 'status',
    id: X,
    ...(service ? { baseUrl: service } : {}),
    status: value,
    at: '2026-11-23T13:00:00.000Z',
  });
const verified = (service?: string) =>
  JSON.stringify({
    v: 1,
    type: 'verified',
    id: X,
    ...(service ? { baseUrl: service } : {}),
    txid: TXID,
    at: '2026-11-23T14:00:00.000Z',
    shares: [SHARE],
  });

function historyOf(lines: string[]): History {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
  return new History(dir);
}

const shown = (entries: HistoryEntry[]) => entries.map((e) => `${e.baseUrl} ${e.status}`).sort();

/** What each reader makes of deposit X on each service. */
function everyReader(history: History) {
  const folded = history.fold(
    () => true,
    () => [] as HistoryEntry[],
    (acc, e) => {
      acc.push(e);
    },
  );
  return {
    list: shown(history.entries()),
    'report, reconcile': shown(folded),
    get: [SANDBOX, LIVE].map((service) => `${service} ${history.recorded(X, service)?.status}`),
    'watch --pending': shown(history.pending()),
    // what reconcile holds each deposit's verification to
    'verified shares': [...history.verifiedShares(new Set([X])).keys()].sort(),
  };
}

describe("a live deposit's records never move the sandbox deposit of the same id", () => {
  const LIVE_PAID = {
    list: [`${LIVE} FINALIZED`, `${SANDBOX} WAITING_PAYMENT`],
    'report, reconcile': [`${LIVE} FINALIZED`, `${SANDBOX} WAITING_PAYMENT`],
    get: [`${SANDBOX} WAITING_PAYMENT`, `${LIVE} FINALIZED`],
    'watch --pending': [`${SANDBOX} WAITING_PAYMENT`],
    'verified shares': [`${LIVE} ${X}`],
  };
  it.each([
    ['sandbox first', [created(SANDBOX, 1), created(LIVE, 2), status('FINALIZED', LIVE), verified(LIVE)]],
    ['live first', [created(LIVE, 1), created(SANDBOX, 2), status('FINALIZED', LIVE), verified(LIVE)]],
    [
      'every line twice (a backup appended)',
      [created(SANDBOX, 1), created(LIVE, 2), status('FINALIZED', LIVE), verified(LIVE)].flatMap((l) => [
        l,
        l,
      ]),
    ],
    [
      "the live status before the sandbox's creation",
      [created(LIVE, 1), status('FINALIZED', LIVE), verified(LIVE), created(SANDBOX, 2)],
    ],
  ])('%s: only the live deposit is paid and verified, in every reader', (_, lines) => {
    expect(everyReader(historyOf(lines))).toEqual(LIVE_PAID);
  });
});

describe('a record of an older release, naming no service', () => {
  it('attaches to the deposit of its id created before it, the id then on one service only', () => {
    const history = historyOf([created(SANDBOX, 1), status('FINALIZED'), verified(), created(LIVE, 2)]);
    expect(everyReader(history)).toMatchObject({
      list: [`${LIVE} WAITING_PAYMENT`, `${SANDBOX} FINALIZED`],
      'verified shares': [`${SANDBOX} ${X}`],
    });
  });

  it.each([
    ['sandbox first', [created(SANDBOX, 1), created(LIVE, 2), status('FINALIZED'), verified()]],
    ['live first', [created(LIVE, 1), created(SANDBOX, 2), status('FINALIZED'), verified()]],
  ])('%s, the id on both when it was written: attaches to neither', (_, lines) => {
    expect(everyReader(historyOf(lines))).toEqual({
      list: [`${LIVE} WAITING_PAYMENT`, `${SANDBOX} WAITING_PAYMENT`],
      'report, reconcile': [`${LIVE} WAITING_PAYMENT`, `${SANDBOX} WAITING_PAYMENT`],
      get: [`${SANDBOX} WAITING_PAYMENT`, `${LIVE} WAITING_PAYMENT`],
      'watch --pending': [`${LIVE} WAITING_PAYMENT`, `${SANDBOX} WAITING_PAYMENT`],
      'verified shares': [],
    });
  });

  it("its outputs stay taken: verify of either deposit counts them as another's, never its own", () => {
    const history = historyOf([created(SANDBOX, 1), created(LIVE, 2), verified(), verified(LIVE)]);
    // the live deposit's verification came after the unnamed one: that one's outputs were taken
    expect(history.sharesBefore(TXID, X, LIVE)).toEqual([
      { id: X, baseUrl: '(a service the record does not name)', shares: [SHARE] },
    ]);
    expect(history.sharesOf(TXID).map((claim) => claim.baseUrl)).toEqual([
      '(a service the record does not name)',
      LIVE,
    ]);
  });
});
