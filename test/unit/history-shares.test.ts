/**
 * One output pays one deposit per service and id: two services may hand out the same deposit id
 * (the sandbox and a live service, or a service that reuses ids), and the claim a verification
 * recorded for the deposit of one of them is never taken for the other's. Two tills share one
 * history file and one wallet; till A's deposit on service A and till B's on service B carry the
 * same id and name the same settlement, whose one output pays one of them. Run as the commands
 * run (runVerify, runReconcile on narrow options) over the real history file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import { History } from '../../src/store/history.js';
import type { StoredRecord } from '../../src/store/history-records.js';
import { plainVerifySources } from '../helpers/fake-explorer.js';
import { createAnswer } from '../helpers/fixtures.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import {
  AFTER,
  CREATED,
  DEST,
  id,
  payTx,
  scriptedChain,
  settledRecords,
  units,
} from '../helpers/settled-deposits.js';
import type { Shown } from '../helpers/shown.js';
import { tempDir } from '../helpers/temp.js';
import { reconcileShown, verifyShown } from '../helpers/verify-world.js';

const SERVICE_A = 'https://a.example.com';
const SERVICE_B = 'https://pay.example.com';
const NOW = CREATED + 3600_000;

function twoServices() {
  const tx = payTx([[DEST, units(1485)]], 'one payment, one id on two services');
  const records = [
    [SERVICE_A, 'caixa1'],
    [SERVICE_B, 'caixa2'],
  ].flatMap(([service, profile]) =>
    settledRecords([{ n: 1, cents: 1500, txid: tx.txid }], service!).map(
      (r): StoredRecord => (r.type === 'created' ? { ...r, profile: profile! } : { ...r, baseUrl: service! }),
    ),
  );
  const history = historyFileOf(records);
  const chain = scriptedChain([{ ...tx, time: AFTER, to: [DEST] }]);
  const settings = {
    network: 'elementsregtest',
    'esplora-url': 'https://explorer.example/api',
    'asset-id': SANDBOX_ASSET_ID,
    'default-address': DEST,
  };
  const sources = () => plainVerifySources({ settings, chain, history });

  /** `landsFirst`: another run's records, written just before this run's first verification */
  async function verify(service: string, landsFirst: StoredRecord[] = []): Promise<Shown> {
    const api = scriptedDepositApi({
      get: (asked) => {
        const { qrCode: _q, ...answer } = createAnswer({ amountInCents: 1500, lbrlAddress: DEST });
        return {
          ...answer,
          id: asked,
          status: 'FINALIZED',
          createdAt: new Date(CREATED).toISOString(),
          settlement: { status: 'FINALIZED', liquidTxid: tx.txid },
          confirmedAt: new Date(CREATED + 600_000).toISOString(),
        };
      },
      recorded: (x) => history.recorded(x, service),
      now: () => NOW,
    });
    return verifyShown([id(1)], {
      api,
      sources: sources(),
      history,
      target: service,
      now: NOW,
      recorder: () => ({
        // as the Session records: each record names the service it was learnt from
        record: (more) => {
          if (more.some((r) => r.type === 'verified')) history.append(landsFirst.splice(0));
          history.append(more.map((r) => (r.type === 'attempt' ? r : { ...r, baseUrl: service })));
        },
        service: () => service,
      }),
    });
  }

  async function reconcile(profile: string, target: string): Promise<Shown> {
    return reconcileShown({ profile, target, history, sources: sources(), now: NOW, json: true });
  }

  return { verify, reconcile, history, tx };
}

/** The history file of these records, as lbrl writes it, in a directory of its own. */
function historyFileOf(records: StoredRecord[]): History {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), records.map((r) => `${JSON.stringify(r)}\n`).join(''), {
    mode: 0o600,
  });
  return new History(dir);
}

describe('one output pays one deposit per service and id', () => {
  it("service A's deposit verified the one output: verify of service B's deposit of the same id says mismatch (exit 1)", async () => {
    const world = twoServices();
    expect((await world.verify(SERVICE_A)).code).toBe(0);
    const b = await world.verify(SERVICE_B);
    expect(b.code).toBe(1);
    expect(b.stdout).toContain(`${id(1)} on ${SERVICE_A}`);
    // the history holds one verification of that output: service A's deposit
    const verified = world.history.entries(() => true, { where: (e) => Boolean(e.verifiedAt) });
    expect(verified.map((e) => [e.id, e.baseUrl])).toEqual([[id(1), SERVICE_A]]);
  });

  it("two runs at once: service A's verification lands just before service B's of the same id; B's is undone (exit 1)", async () => {
    const first = twoServices();
    const before = fs.readFileSync(first.history.file, 'utf8').length;
    expect((await first.verify(SERVICE_A)).code).toBe(0);
    const tillA = fs
      .readFileSync(first.history.file, 'utf8')
      .slice(before)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StoredRecord)
      .filter((r) => r.type === 'verified');
    expect(tillA).toHaveLength(1);
    const world = twoServices();
    const b = await world.verify(SERVICE_B, tillA);
    expect(b.code).toBe(1);
    expect(b.stdout).toContain(`${id(1)} on ${SERVICE_A}`);
    const onB = fs
      .readFileSync(world.history.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StoredRecord)
      .filter((r) => (r.type === 'verified' || r.type === 'unverified') && r.baseUrl === SERVICE_B);
    expect(onB.map((r) => r.type)).toEqual(['verified', 'unverified']);
  });

  it("reconcile of till B (service B) does not match its deposit to the output service A's deposit verified", async () => {
    const world = twoServices();
    expect((await world.verify(SERVICE_A)).code).toBe(0);
    const tillB = await world.reconcile('caixa2', SERVICE_B);
    expect(tillB.code).toBe(1);
    const found = JSON.parse(tillB.stdout);
    expect(found.matched).toEqual([]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(1), txid: world.tx.txid })]);
    expect(found.elsewhere).toEqual([{ depositId: id(1), txid: world.tx.txid, vout: 0 }]);
    const tillA = await world.reconcile('caixa1', SERVICE_A);
    expect(tillA.code).toBe(0);
    expect(JSON.parse(tillA.stdout).matched).toEqual([
      expect.objectContaining({ depositId: id(1), vout: 0 }),
    ]);
  });
});

describe('the claims the history holds, by deposit', () => {
  const share = (vout: number) => ({
    role: 'destination' as const,
    script: '0014aa',
    outputs: [vout],
    share: '1/1',
    rounded: false,
  });
  const verified = (service: string, vout: number, n = 1): StoredRecord => ({
    v: 1,
    type: 'verified',
    id: id(n),
    baseUrl: service,
    txid: 'ab'.repeat(32),
    at: new Date(NOW).toISOString(),
    shares: [share(vout)],
  });

  it('sharesOf keeps one claim per service and id: the same id on two services is two claims', () => {
    const history = historyFileOf([verified(SERVICE_A, 0), verified(SERVICE_B, 1)]);
    expect(history.sharesOf('ab'.repeat(32))).toEqual([
      { id: id(1), baseUrl: SERVICE_A, shares: [share(0)] },
      { id: id(1), baseUrl: SERVICE_B, shares: [share(1)] },
    ]);
  });

  it("sharesBefore: a deposit's own line is its service's; another service's deposit of its id is a claim before it", () => {
    const history = historyFileOf([
      verified(SERVICE_A, 0),
      verified(SERVICE_B, 1),
      verified(SERVICE_A, 2, 2),
    ]);
    expect(history.sharesBefore('ab'.repeat(32), id(1), SERVICE_B)).toEqual([
      { id: id(1), baseUrl: SERVICE_A, shares: [share(0)] },
    ]);
    expect(history.sharesBefore('ab'.repeat(32), id(2), SERVICE_A)).toEqual([
      { id: id(1), baseUrl: SERVICE_A, shares: [share(0)] },
      { id: id(1), baseUrl: SERVICE_B, shares: [share(1)] },
    ]);
  });
});
